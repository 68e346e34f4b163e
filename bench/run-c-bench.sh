#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Build and run the C benchmark: kfifo against memcpy, JACK's ring buffer,
# Boost.Lockfree spsc_queue and Concurrency Kit's ck_ring.
#
#   bash bench/run-c-bench.sh [--build-only] [kfifo-bench options]
#       e.g. --quick, --reps 9, --scale 0.5; --zerocopy runs only the
#       zero-copy comparison (bench/results/c-zerocopy.md and .json)
#
# The peers' development packages are installed with apt-get when missing
# (as root, or through sudo), and so is libboost-system-dev, which the PyPI
# peer "ringbuf" links against when pip builds it.  A peer that cannot be
# installed is left out of the build and reported as "not installed".
# Results: bench/results/c.md and c.json (the Python side,
# bench/python/bench_peers.py, picks the binary up from bench/build/ and
# adds the plot);
# with --zerocopy, bench/results/c-zerocopy.md and c-zerocopy.json.
set -euo pipefail
case ${1:-} in -h | --help) sed -n '3,/^set -/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
cd "$(dirname "$0")/.."

BUILD_DIR=${KFIFO_BENCH_BUILD_DIR:-bench/build}
RESULTS=bench/results
PEERS=(libjack-jackd2-dev libboost-dev libck-dev libboost-system-dev)

build_only=0
if [[ ${1:-} == --build-only ]]; then
  build_only=1
  shift
fi

missing=()
for pkg in "${PEERS[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$pkg")
done
if ((${#missing[@]})) && command -v apt-get >/dev/null; then
  sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo -n)
  echo "run-c-bench: installing ${missing[*]}" >&2
  if ! { "${sudo[@]}" apt-get update -qq &&
         DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq \
           --no-install-recommends "${missing[@]}"; } >&2; then
    echo "run-c-bench: could not install ${missing[*]}; those peers are left out" >&2
  fi
fi

cmake -S . -B "$BUILD_DIR" -DKFIFO_BUILD_BENCH=ON -DBUILD_TESTING=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD_DIR" --target kfifo-bench -j "$(nproc)" >/dev/null
echo "run-c-bench: built $BUILD_DIR/bench/kfifo-bench" >&2
((build_only)) && exit 0

mkdir -p "$RESULTS"
# --zerocopy runs only the zero-copy comparison, into results of its own
out=c
for arg in "$@"; do
  if [[ $arg == --zerocopy ]]; then out=c-zerocopy; fi
done
"$BUILD_DIR/bench/kfifo-bench" --json "$RESULTS/$out.json" --md "$RESULTS/$out.md" "$@"
