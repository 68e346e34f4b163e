#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# test-binding-asan.sh - the Python tests against an extension built with
# AddressSanitizer + UndefinedBehaviorSanitizer: the C core, the binding's
# own C (swig/kfpy_*.c) and the SWIG wrapper, all instrumented.
#
# The package is built the one way (setup.py drives CMakeLists.txt's target
# kfifo_ext) with CMAKE_ARGS="-DKFIFO_ASAN=ON -DKFIFO_UBSAN=ON", installed
# into BUILD_ROOT/py-asan (default ./build) and imported from there by an
# uninstrumented python3, with gcc's ASan runtime preloaded.  Leak checking
# is off: CPython keeps memory until exit on purpose.
#
# With --stress SECONDS it runs scripts/stress-binding.py against the same
# build for that long instead of the tests.
#
# Usage: scripts/test-binding-asan.sh [BUILD_ROOT] [--stress SECONDS] [-- PYTEST_ARGS...]
set -euo pipefail
# -h/--help: the comment above, and nothing else
case ${1:-} in -h | --help) sed -n '3,/^set -/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
BUILD_ROOT=build
STRESS=
if [[ $# -gt 0 && $1 != -- && $1 != --stress ]]; then BUILD_ROOT=$1; shift; fi
if [[ ${1:-} == --stress ]]; then STRESS=${2:?--stress needs SECONDS}; shift 2; fi
[[ ${1:-} == -- ]] && shift
mkdir -p "$BUILD_ROOT"
BUILD_ROOT=$(cd "$BUILD_ROOT" && pwd)
target=$BUILD_ROOT/py-asan
log=$BUILD_ROOT/logs/py-asan-build.log
mkdir -p "$BUILD_ROOT/logs"

libasan=$(gcc -print-file-name=libasan.so)
if [[ ! -e $libasan ]]; then
  echo "test-binding-asan: gcc has no libasan.so ($libasan)" >&2
  exit 1
fi

echo "test-binding-asan: building the extension with ASan+UBSan into $target"
rm -rf "$target"
if ! (cd "$ROOT" && CC=gcc CMAKE_ARGS="-DKFIFO_ASAN=ON -DKFIFO_UBSAN=ON" \
      "$PYTHON" -m pip install --quiet --no-deps --target "$target" .) >"$log" 2>&1; then
  tail -n 60 "$log"
  echo "test-binding-asan: build failed, log: $log" >&2
  exit 1
fi

# Run from tests/ so that the sanitized copy, not the source tree, is tested.
cd "$ROOT/tests"
export PYTHONPATH=$target
export LD_PRELOAD=$libasan
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export KFIFO_EXPECT_SANITIZED=1
export KFIFO_HYPOTHESIS_PROFILE=${KFIFO_HYPOTHESIS_PROFILE:-ci}
if [[ -n $STRESS ]]; then
  exec "$PYTHON" "$ROOT/scripts/stress-binding.py" --seconds "$STRESS" "$@"
fi
"$PYTHON" -m pytest -q -p no:cacheprovider "$@"
