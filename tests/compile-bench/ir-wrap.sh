#!/usr/bin/env bash
# RUSTC_WRAPPER for `IR=1 tests/compile-bench/gen.sh`: runs rustc under
# callgrind for the bench crates only and appends "crate instructions"
# to $IR_OUT (nothing with IR_OFF set), so a figure does not depend on the machine's load.
rustc=$1
shift
[ -n "${IR_OFF:-}" ] && exec "$rustc" "$@"
name=
prev=
for arg in "$@"; do
  [ "$prev" = --crate-name ] && name=$arg
  prev=$arg
done
case $name in
  plain | default | include | include50 | library)
    log=$(mktemp)
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$rustc" "$@" 2>"$log"
    rc=$?
    grep -o 'Collected : [0-9]*' "$log" | awk -v n="$name" '{print n, $3}' >>"$IR_OUT"
    [ "$rc" = 0 ] || cat "$log" >&2
    rm -f "$log"
    exit "$rc"
    ;;
  *) exec "$rustc" "$@" ;;
esac
