#!/bin/sh
# Regenerates expected.txt of every case with a harness built from
# recursive's own Layer-0 code (see CONTRIBUTING.md, "Differential tests").
# Usage: regenerate.sh HARNESS REAL_FIXTURES_DIR
set -eu
harness=$1
real=$2
here=$(cd "$(dirname "$0")" && pwd)
for case in "$here"/*/; do
    case=${case%/}
    tmp=$(mktemp -d)
    cp -R "$case"/. "$tmp"/
    mkdir -p "$tmp/workspace"
    if [ -f "$case/real.txt" ]; then
        while read -r to from; do
            mkdir -p "$(dirname "$tmp/$to")"
            cp "$real/$from" "$tmp/$to"
        done < "$case/real.txt"
    fi
    home=-; [ -d "$tmp/home" ] && home=$tmp/home
    replace=-; [ -f "$case/system_prompt.txt" ] && replace=$case/system_prompt.txt
    append=-; [ -f "$case/append.txt" ] && append=$case/append.txt
    sub=1; [ -f "$case/sub_agents_off" ] && sub=0
    pad=-; [ -f "$case/scratchpad.json" ] && pad=$case/scratchpad.json
    sessions=-; [ -d "$case/sessions" ] && sessions=$case/sessions
    "$harness" "$tmp/workspace" "$home" "$replace" "$append" "$sub" "$pad" "$sessions" > "$case/expected.txt"
    rm -rf "$tmp"
done
