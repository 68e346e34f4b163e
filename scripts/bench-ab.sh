#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench-ab.sh - the library at two revisions, side by side in one run:
# paired, alternating timings and the ratio per row (what
# scripts/callgrind-budget.sh --base does for instruction counts, for the
# figures only two threads show: what crosses between the cores).
#
#   bash scripts/bench-ab.sh [options] REV_A [REV_B]
#       REV_B defaults to the working tree ("." names it too)
#   options:
#       --reps N      repetitions (default 7); a row's figure is the median
#       --scale F     work per timed run (default 1: ~0.05-0.3 s a row)
#       --rows LIST   comma-separated rows of the C driver (default: all;
#                     ab-bench --list names them)
#       --rt          run each timed process under SCHED_FIFO priority 1
#                     (chrt; root or CAP_SYS_NICE): on a shared machine its
#                     two threads then run before everything else for the
#                     ~0.1 s of a row, which the kernel bounds to 95 % of a
#                     second (sched_rt_runtime_us); say so when you report
#       --modes       before each pair, time the c2c row (one cache line
#                     handed between the two CPUs, no fifo) and print the
#                     table twice more: the pairs met while the machine was
#                     near (c2c under twice its lowest figure of the run)
#                     and while it was far.  Shared VMs switch between the
#                     two for seconds or minutes and every two-thread row
#                     moves with them (docs/performance.md, "Two speeds of
#                     this machine"); a ratio taken across both is noise
#       --python      the Python rows too (bench/python/bench_ab.py, the
#                     working tree's for both sides) with the extension of
#                     each revision, pip-installed into a directory of its
#                     own by $PYTHON (default python3; ~1-2 min a side)
#
# C: bench/c/ab_bench.c (the working tree's, for both sides) is compiled
# against each revision's c/include and linked with its c/src, compiled
# with the flags of CMake's RelWithDebInfo build of libkfifo.a (-O2 -g
# -DNDEBUG, PIC, hidden visibility) by $CC (default gcc), into
# build/bench-ab/{a,b}.  Each repetition runs every row once on each side,
# A then B in odd repetitions and B then A in even ones, so that both meet
# the same load and neither always runs second.  Printed per row: the
# median of each side, and the median over the repetitions of B/A (for ns,
# A/B: above 1 is always "B is faster"), with its range.
#
# Environment: KFIFO_AB_DIR the build directory (default build/bench-ab);
# AB_OFFSET where the driver puts the struct past a 128-byte boundary
# (default 48, kfifo-bench's place); CC, PYTHON.
#
# These are timings on whatever machine runs them: load is printed before
# and after, and nothing here gates anything (scripts/release-check.sh
# reports it).  Pin nothing else to CPUs 0 and 1 while it runs.
# scripts/cache-lines.py counts what crosses between the cores exactly.
set -euo pipefail
cd "$(dirname "$0")/.."

REPS=7
SCALE=1
ROWS=
PY=0
MODES=0
RT=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --reps) REPS=$2; shift 2 ;;
    --scale) SCALE=$2; shift 2 ;;
    --rows) ROWS=$2; shift 2 ;;
    --rt) RT=(chrt -f 1); shift ;;
    --python) PY=1; shift ;;
    --modes) MODES=1; shift ;;
    -h|--help) sed -n '3,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "bench-ab: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: bench-ab.sh [options] REV_A [REV_B]" >&2; exit 2; }
REV_A=$1
REV_B=${2:-.}
OUT=${KFIFO_AB_DIR:-build/bench-ab}
CC=${CC:-gcc}
FLAGS=(-std=c11 -O2 -g -DNDEBUG -fPIC -fvisibility=hidden -pthread)

label() {
  if [[ $1 == . ]]; then echo "worktree"; else git rev-parse --short "$1"; fi
}

# unpack SIDE REV: the revision's c/include and c/src into $OUT/SIDE
unpack() {
  local dir=$OUT/$1
  rm -rf "$dir"
  mkdir -p "$dir"
  if [[ $2 == . ]]; then
    mkdir -p "$dir/c"
    cp -r c/include c/src "$dir/c/"
  else
    git archive "$2" c/include c/src | tar -x -C "$dir"
  fi
}

# build SIDE: the library from SIDE/c/src, the driver linked against it
build() {
  local dir=$OUT/$1 src objs=()
  for src in "$dir"/c/src/*.c; do
    "$CC" "${FLAGS[@]}" -I"$dir/c/include" -c "$src" -o "$dir/$(basename "$src" .c).o"
    objs+=("$dir/$(basename "$src" .c).o")
  done
  "$CC" "${FLAGS[@]}" -D_GNU_SOURCE -I"$dir/c/include" -Ibench/c bench/c/ab_bench.c \
    "${objs[@]}" -o "$dir/ab-bench"
}

git rev-parse --verify -q "$REV_A^{commit}" >/dev/null || { echo "bench-ab: no revision $REV_A" >&2; exit 2; }
[[ $REV_B == . ]] || git rev-parse --verify -q "$REV_B^{commit}" >/dev/null ||
  { echo "bench-ab: no revision $REV_B" >&2; exit 2; }
unpack a "$REV_A"
unpack b "$REV_B"
build a
build b
[[ -n $ROWS ]] || ROWS=$("$OUT/a/ab-bench" --list | awk '{ print $1 }' | paste -sd, -)
IFS=, read -r -a rows <<<"$ROWS"
for row in "${rows[@]}"; do
  "$OUT/a/ab-bench" --list | grep -q "^$row " || { echo "bench-ab: no row $row (ab-bench --list)" >&2; exit 2; }
done
load() { cut -d' ' -f1-3 /proc/loadavg; }

# run KIND ROWS...: every row once per repetition on each side, A first in
# odd repetitions, B first in even ones; "rep row side figure" lines
run() {
  local kind=$1 k row side order
  shift
  for ((k = 1; k <= REPS; k++)); do
    for row in "$@"; do
      if ((k % 2)); then order="a b"; else order="b a"; fi
      if ((MODES)) && [[ $kind == c ]]; then
        echo "$k $row $("${RT[@]}" "$OUT/a/ab-bench" c2c 0.05)" >>"$OUT/c2c"
      fi
      for side in $order; do
        if [[ $kind == c ]]; then
          echo "$k $row $side $("${RT[@]}" "$OUT/$side/ab-bench" "$row" "$SCALE")"
        else
          echo "$k $row $side $(PYTHONPATH=$OUT/$side/py "${RT[@]}" "$PYTHON" \
            bench/python/bench_ab.py "$row" "$SCALE")"
        fi
      done
    done
  done
}

# table RAW UNITS: per row the median of each side and of the paired B/A
table() {
  printf '%-12s %-7s %10s %10s %8s %15s\n' row unit A B B/A "range"
  awk 'NR == FNR { unit[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; order[++nr] = $1 }; next }
    function med(v, n,   i, j, t) {
      for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
        t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
      return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    { x[$2, $3, $1] = $4; if ($1 > n) n = $1; present[$2] = 1 }
    END {
      for (r = 1; r <= nr; r++) {
        row = order[r]; if (!(row in present)) continue
        u = unit[row]; m = 0
        for (k = 1; k <= n; k++) {
          a = x[row, "a", k]; b = x[row, "b", k]
          if (a == "" || b == "" || a + 0 <= 0 || b + 0 <= 0) continue
          m++; va[m] = a; vb[m] = b; q[m] = (u == "ns") ? a / b : b / a
        }
        if (m == 0) { printf "%-12s %-7s %10s %10s %8s\n", row, u, "n/a", "n/a", "n/a"; continue }
        ma = med(va, m); mb = med(vb, m); mq = med(q, m)
        printf "%-12s %-7s %10.3f %10.3f %7.3fx %6.3f-%-6.3f\n", row, u, ma, mb, mq, q[1], q[m]
      }
    }' "$2" "$1"
}

echo "A = $(label "$REV_A"), B = $(label "$REV_B"); $REPS paired repetitions, scale $SCALE; $CC $($CC -dumpversion)${RT:+; SCHED_FIFO 1 (--rt)}"
LOAD0=$(load)
rm -f "$OUT/c2c"
run c "${rows[@]}" >"$OUT/raw"
"$OUT/a/ab-bench" --list >"$OUT/units"
LOAD1=$(load)
echo "load average (1/5/15 min) before: $LOAD0, after: $LOAD1 ($(nproc) CPUs)"
echo
echo "C (bench/c/ab_bench.c):"
table "$OUT/raw" "$OUT/units"

if ((MODES)); then
  # split the pairs by the c2c figure taken just before each: near when
  # under twice the run's lowest
  low=$(awk 'NR == 1 || $3 < m { m = $3 } END { print m }' "$OUT/c2c")
  for mode in near far; do
    awk -v low="$low" -v mode="$mode" 'NR == FNR { near[$1, $2] = ($3 < 2 * low); next }
      (($1, $2) in near) && (near[$1, $2] == (mode == "near"))' "$OUT/c2c" "$OUT/raw" >"$OUT/raw-$mode"
    echo
    echo "C, pairs met $mode (c2c $(awk -v low="$low" -v mode="$mode" '
      (mode == "near") == ($3 < 2 * low) { n++; v[n] = $3 }
      END { if (!n) { print "none"; exit }
            for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
            printf "%d pairs, median %.1f ns", n, n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }' "$OUT/c2c")):"
    [[ -s $OUT/raw-$mode ]] && table "$OUT/raw-$mode" "$OUT/units"
  done
fi

if ((PY)); then
  PYTHON=${PYTHON:-python3}
  # pybuild SIDE REV: the extension of REV, pip-installed into SIDE/py
  pybuild() {
    local src=$OUT/$1/src
    rm -rf "$src" "$OUT/$1/py"
    mkdir -p "$src"
    if [[ $2 == . ]]; then
      git ls-files -z -co --exclude-standard | tar --null -T - -cf - | tar -x -C "$src"
    else
      git archive "$2" | tar -x -C "$src"
    fi
    "$PYTHON" -m pip install -q --no-deps --target "$OUT/$1/py" "$src" >"$OUT/$1/pip.log" 2>&1 ||
      { echo "bench-ab: pip install of $(label "$2") failed ($OUT/$1/pip.log)" >&2; exit 1; }
  }
  pybuild a "$REV_A"
  pybuild b "$REV_B"
  IFS=' ' read -r -a pyrows <<<"$("$PYTHON" bench/python/bench_ab.py --list | awk '{ print $1 }' | paste -sd' ' -)"
  LOAD0=$(load)
  run py "${pyrows[@]}" >"$OUT/raw-py"
  "$PYTHON" bench/python/bench_ab.py --list >"$OUT/units-py"
  LOAD1=$(load)
  echo
  echo "Python ($("$PYTHON" -c 'import sys; print(sys.version.split()[0])'), bench/python/bench_ab.py; load before: $LOAD0, after: $LOAD1):"
  table "$OUT/raw-py" "$OUT/units-py"
fi
echo "(B/A: the median of the paired ratios, for ns A/B; above 1: B is faster; range: the lowest and highest pair. Raw figures: $OUT/raw*)"
