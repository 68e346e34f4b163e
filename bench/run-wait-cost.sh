#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# run-wait-cost.sh - what waiting support costs when nobody waits: builds
# bench/c/wait_cost.c against the library of a base commit (before waiting
# existed) and against this tree, links both into one binary (the base
# side's symbols renamed with objcopy) and runs it niced.
#
#   bash bench/run-wait-cost.sh [--base COMMIT] [wait-cost options]
#       e.g. --reps 15, --scale 0.5
#
# Both libraries are compiled with the flags of CMake's RelWithDebInfo
# build of libkfifo.a (-O2 -g -DNDEBUG, PIC, hidden visibility).
set -euo pipefail
case ${1:-} in -h | --help) sed -n '3,/^set -/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
cd "$(dirname "$0")/.."

BASE=a8dd5db
if [[ ${1:-} == --base ]]; then
  BASE=$2
  shift 2
fi
OUT=${KFIFO_WAIT_COST_DIR:-build/wait-cost}
CC=${CC:-gcc}
FLAGS=(-std=c11 -O2 -g -DNDEBUG -fPIC -fvisibility=hidden -pthread)

rm -rf "$OUT"
mkdir -p "$OUT/base" "$OUT/now"
git archive "$BASE" c/include c/src | tar -x -C "$OUT/base"

# the base library and its side, then every symbol the library defines
# gets a base__ prefix in all of them
for src in "$OUT"/base/c/src/*.c; do
  "$CC" "${FLAGS[@]}" -I"$OUT/base/c/include" -c "$src" \
    -o "$OUT/base/lib_$(basename "$src" .c).o"
done
"$CC" "${FLAGS[@]}" -I"$OUT/base/c/include" -Ibench/c -DWAIT_COST_SIDE=base \
  -c bench/c/wait_cost.c -o "$OUT/base/side.o"
nm --defined-only -g "$OUT"/base/lib_*.o | awk 'NF == 3 { print $3, "base__" $3 }' |
  sort -u >"$OUT/base/rename"
for obj in "$OUT"/base/*.o; do
  objcopy --redefine-syms="$OUT/base/rename" "$obj"
done

# this tree
for src in c/src/*.c; do
  "$CC" "${FLAGS[@]}" -Ic/include -c "$src" -o "$OUT/now/lib_$(basename "$src" .c).o"
done
"$CC" "${FLAGS[@]}" -Ic/include -Ibench/c -DWAIT_COST_SIDE=now \
  -c bench/c/wait_cost.c -o "$OUT/now/side.o"
"$CC" "${FLAGS[@]}" -Ic/include -Ibench/c -DWAIT_COST_SIDE=now_m16 \
  -DWAIT_COST_OFFSET=16 -c bench/c/wait_cost.c -o "$OUT/now/side_m16.o"

"$CC" "${FLAGS[@]}" -c bench/c/wait_cost.c -o "$OUT/main.o"
"$CC" -pthread "$OUT/main.o" "$OUT"/base/*.o "$OUT"/now/*.o -o "$OUT/wait-cost"
echo "run-wait-cost: base $(git rev-parse --short "$BASE"), now $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- c || echo '+changes'); $("$CC" --version | head -n 1)" >&2
nice -n 5 "$OUT/wait-cost" "$@"
