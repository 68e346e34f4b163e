#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# callgrind-typed.sh - instructions per round trip of the typed API beside
# the byte calls (scripts/callgrind-typed.c says what each mode does).
# Builds the library (RelWithDebInfo, -O2) in BUILD (default
# build/callgrind-typed), then runs each mode under callgrind, counting
# only inside round_trips(), and prints one line per mode.
#
# Usage: scripts/callgrind-typed.sh [BUILD]
set -euo pipefail
case ${1:-} in -h | --help) sed -n '3,/^set -/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build/callgrind-typed}
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKFIFO_BUILD_TESTS=OFF >/dev/null
cmake --build "$BUILD" --target kfifo -j 2 >/dev/null
cc -std=c11 -O2 -g -I"$ROOT/c/include" "$ROOT/scripts/callgrind-typed.c" \
  "$BUILD/libkfifo.a" -o "$BUILD/callgrind-typed"
printf '%-10s %12s\n' mode 'Ir/round'
for mode in bytes16 tbytes16 byte1 putget1 int4 putgetint bytes48 e12x4 putget12 rec16 trec16; do
  out=$BUILD/callgrind.$mode.out
  valgrind --tool=callgrind --toggle-collect=round_trips \
    --callgrind-out-file="$out" "$BUILD/callgrind-typed" "$mode" >/dev/null 2>&1
  ir=$(awk '/^totals:/ {print $2}' "$out")
  awk -v m="$mode" -v ir="$ir" 'BEGIN { printf "%-10s %12.1f\n", m, (ir / 101000) }'
done
