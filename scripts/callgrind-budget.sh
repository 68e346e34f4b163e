#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# callgrind-budget.sh - instructions per round trip of the ordinary fast
# path, counted by callgrind (exact and load-independent, unlike timings):
# 16 bytes in and out (kfifo_in + kfifo_out) and one 16-byte record with
# a 1-byte header (kfifo_in_rec + kfifo_out_rec), for the library of a base
# commit and for this working tree, side by side.
#
#   bash scripts/callgrind-budget.sh [--base COMMIT]   (default: HEAD)
#
# Both libraries are compiled with the flags of CMake's RelWithDebInfo
# build of libkfifo.a (-O2 -g -DNDEBUG, PIC, hidden visibility) by $CC
# (default gcc; CC=clang works too); the driver is
# scripts/callgrind-roundtrip.c.  Needs valgrind.  Prints instructions per
# round trip (the driver's loop included, memcpy() included).
set -euo pipefail
cd "$(dirname "$0")/.."

BASE=HEAD
if [[ ${1:-} == --base ]]; then
  BASE=$2
  shift 2
fi
OUT=${KFIFO_CALLGRIND_DIR:-build/callgrind-budget}
CC=${CC:-gcc}
# (-gdwarf-4: the valgrind of Debian 12 cannot read clang 14's DWARF 5;
# the debug format does not change the code)
FLAGS=(-std=c11 -O2 -g -gdwarf-4 -DNDEBUG -fPIC -fvisibility=hidden -pthread)
ROUNDS=100000

command -v valgrind >/dev/null || { echo "callgrind-budget: valgrind not found" >&2; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT/base" "$OUT/now"
git archive "$BASE" c/include c/src | tar -x -C "$OUT/base"
mkdir -p "$OUT/now/c"
cp -r c/include c/src "$OUT/now/c/"

# build SIDE: the library from SIDE/c/src, the driver linked against it
build() {
  local side=$OUT/$1 src
  for src in "$side"/c/src/*.c; do
    "$CC" "${FLAGS[@]}" -I"$side/c/include" -c "$src" -o "$side/$(basename "$src" .c).o"
  done
  "$CC" "${FLAGS[@]}" -I"$side/c/include" scripts/callgrind-roundtrip.c "$side"/*.o \
    -o "$side/roundtrip"
}

# count SIDE WHAT: instructions per round trip inside round_trips()
count() {
  local side=$OUT/$1 file=$OUT/$1/callgrind.$2 total
  valgrind --tool=callgrind --toggle-collect=round_trips \
    --callgrind-out-file="$file" "$side/roundtrip" "$2" >/dev/null 2>&1
  total=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$file")
  # the warm-up call (1000 rounds) is collected too
  awk -v t="$total" -v r=$((ROUNDS + 1000)) 'BEGIN { printf "%.1f", t / r }'
}

build base
build now
printf '%-28s %12s %12s %8s\n' "instructions per round trip" "base" "now" "now/base"
for what in bytes records; do
  b=$(count base "$what")
  n=$(count now "$what")
  printf '%-28s %12s %12s %8s\n' "16-byte $what" "$b" "$n" \
    "$(awk -v b="$b" -v n="$n" 'BEGIN { printf "%.3f", n / b }')"
done
echo "(base $(git rev-parse --short "$BASE"), now: the working tree; $CC $(${CC} -dumpversion) ${FLAGS[*]})"
