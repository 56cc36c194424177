#!/bin/sh
# Regenerates expected.txt of every case with a harness built from kitsoki's
# own composition code (see CONTRIBUTING.md, "Differential tests").
# Usage: regenerate.sh HARNESS REAL_FIXTURES_DIR
set -eu
harness=$1
real=$2
here=$(cd "$(dirname "$0")" && pwd)
for case in "$here"/*/; do
    case=${case%/}
    tmp=$(mktemp -d)
    cp -R "$case"/. "$tmp"/
    if [ -f "$case/real.txt" ]; then
        while read -r to from; do
            mkdir -p "$(dirname "$tmp/$to")"
            cp "$real/$from" "$tmp/$to"
        done < "$case/real.txt"
    fi
    read -r verb agent < "$case/call.txt"
    "$harness" "$tmp/story" "$verb" "$agent" > "$case/expected.txt"
    rm -rf "$tmp"
done
