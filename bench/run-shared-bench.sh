#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Build and run bench/c/shared_bench.c: a stream across processes (a fifo in
# a MAP_SHARED mapping, fork()) against the same stream between two
# threads, 16-byte records and 4 KiB / 64 KiB chunks, both sides blocking.
#
#   bash bench/run-shared-bench.sh [shared_bench options]
#       e.g. --reps 7, --fifo 65536, --scale 0.5
#
# Runs niced (nice -n 5): the machine may be shared; the medians of paired
# repeats are what to quote.
set -euo pipefail
case ${1:-} in -h | --help) sed -n '3,/^set -/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
cd "$(dirname "$0")/.."

BUILD_DIR=${KFIFO_BENCH_BUILD_DIR:-bench/build}
cmake -S . -B "$BUILD_DIR" -DKFIFO_BUILD_BENCH=ON -DBUILD_TESTING=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD_DIR" --target kfifo-shared-bench -j "$(nproc)" >/dev/null
echo "run-shared-bench: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- c bench || echo '+changes'); $(cc --version | head -n 1)" >&2
nice -n 5 "$BUILD_DIR/bench/kfifo-shared-bench" "$@"
