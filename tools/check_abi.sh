#!/bin/sh
# Compares the shared library's ABI with the committed baseline.
#   tools/check_abi.sh check <lib.so> <baseline.abi> <scratch.abi>
#   tools/check_abi.sh baseline <lib.so> <baseline.abi>
# Additions (new functions, variables, enumerators at the end) pass; a
# function or variable removed or changed (its signature, or a type it
# reaches: a struct's size or layout, an enum's values) fails, whether
# abidiff calls it incompatible or only "an ABI change": for a C library a
# changed public struct breaks every caller compiled against the old one.
# README.md says how the soname and the baseline move together.
set -e
mode=$1 lib=$2 base=$3 out=$4
flags="--headers-dir include --drop-private-types --no-corpus-path --no-comp-dir-path --no-show-locs"
command -v abidw >/dev/null || { echo "check-abi: abidw missing (Debian abigail-tools; make deps)"; exit 1; }
if [ "$mode" = baseline ]; then
    abidw $flags --out-file "$base" "$lib"
    echo "abi: baseline written to $base"
    exit 0
fi
[ -f "$base" ] || { echo "check-abi: no baseline $base (make abi-baseline)"; exit 1; }
abidw $flags --out-file "$out" "$lib"
set +e
report=$(abidiff --no-show-locs "$base" "$out")
rc=$?
set -e
if [ $((rc & 3)) -ne 0 ]; then
    echo "$report"
    echo "check-abi: abidiff failed (status $rc)"
    exit 1
fi
# "Functions changes summary: R Removed, C Changed (F filtered out), A Added functions"
bad=$(printf '%s\n' "$report" | sed -n 's/^\(Functions\|Variables\) changes summary: \([0-9]*\) Removed\(.*\), \([0-9]*\) Changed.*/\2 \4/p' |
      awk '{ s += $1 + $2 } END { print s + 0 }')
if [ $((rc & 8)) -ne 0 ] || [ "$bad" -ne 0 ]; then
    echo "$report"
    echo "check-abi: incompatible change against $base: bump the soname (LOGREP_VERSION_MAJOR) and run make abi-baseline, or undo the change"
    exit 1
fi
added=$(printf '%s\n' "$report" | sed -n 's/^Functions changes summary:.* \([0-9]*\) Added.*/\1/p')
if [ $((rc & 4)) -ne 0 ]; then
    echo "$report"
    echo "abi: compatible with $base (${added:-0} functions added: make abi-baseline records them)"
else
    echo "abi: identical to $base"
fi
