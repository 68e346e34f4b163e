#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# check.sh - the install test: the library as others consume it.
#
#   1. for the static and the shared build: `cmake --install` into a
#      prefix of its own, then consumer.c built against that prefix with
#      find_package(kfifo) and with `pkg-config --cflags --libs kfifo`,
#      and run; the shared consumers must need libkfifo.so.<soversion>,
#      the static ones must not;
#   2. the installed libkfifo.so: an SONAME, and only kfifo_* exported,
#      kfifo__* only where kfifo.h's inline calls call them;
#   3. add_subdirectory(): subproject/ vendors this tree in a parent that
#      has a test of its own; kfifo adds no tests and installs nothing
#      there, unless the parent sets KFIFO_BUILD_TESTS / KFIFO_INSTALL.
#
# Usage: check.sh STATIC_BUILD_DIR SHARED_BUILD_DIR WORK_DIR
# Prints what it checks; exits non-zero at the first failure.  The last
# line is a one-line summary.
set -euo pipefail
# -h/--help: the comment above, and nothing else
case ${1:-} in -h | --help) sed -n '3,/^set -/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
STATIC_BUILD=$1 SHARED_BUILD=$2 WORK=$3
CC=${CC:-gcc}
rm -rf "$WORK"
mkdir -p "$WORK"

fail() { echo "install-check: FAIL: $*"; exit 1; }
say() { echo "install-check: $*"; }

# needs_libkfifo BINARY: the dynamic section names libkfifo.so.*
needs_libkfifo() { readelf -d "$1" | grep -q 'NEEDED.*\[libkfifo\.so'; }

summary=()
for kind in static shared; do
  if [[ $kind == static ]]; then build=$STATIC_BUILD; else build=$SHARED_BUILD; fi
  prefix=$WORK/$kind/prefix
  cmake --install "$build" --prefix "$prefix" >/dev/null || fail "cmake --install $build"
  libdir=$(dirname "$(find "$prefix" -name kfifo.pc)")/..
  libdir=$(cd "$libdir" && pwd)
  say "$kind: installed into $prefix: $(cd "$prefix" && find . -type f -o -type l | sort | tr '\n' ' ')"
  # the header cites the specification by section: it is installed too
  [[ -f $prefix/share/doc/kfifo/spec.md ]] || fail "$kind: share/doc/kfifo/spec.md not installed"

  # find_package(kfifo)
  cdir=$WORK/$kind/consumer-cmake
  cmake -S "$HERE" -B "$cdir" -DCMAKE_C_COMPILER="$CC" -DCMAKE_PREFIX_PATH="$prefix" \
    >"$WORK/$kind-cmake.log" 2>&1 || { cat "$WORK/$kind-cmake.log"; fail "$kind: find_package configure"; }
  want=STATIC_LIBRARY
  [[ $kind == shared ]] && want=SHARED_LIBRARY
  grep -q "kfifo::kfifo is a $want" "$WORK/$kind-cmake.log" ||
    fail "$kind: find_package(kfifo) did not give a $want ($(grep 'kfifo::kfifo is' "$WORK/$kind-cmake.log"))"
  cmake --build "$cdir" >>"$WORK/$kind-cmake.log" 2>&1 || { cat "$WORK/$kind-cmake.log"; fail "$kind: find_package build"; }
  "$cdir/consumer" || fail "$kind: find_package consumer"

  # pkg-config kfifo
  pc() { PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config "$@" kfifo; }
  flags=$(pc --cflags --libs) || fail "$kind: pkg-config --cflags --libs kfifo"
  pc_prefix=$(pc --variable=prefix)
  [[ $(cd "$pc_prefix" && pwd -P) == "$(cd "$prefix" && pwd -P)" ]] ||
    fail "$kind: kfifo.pc says prefix=$pc_prefix, not the install prefix $prefix"
  # shellcheck disable=SC2086 # the flags are meant to split
  "$CC" -std=c11 -Wall -Wextra -Wpedantic -Werror "$HERE/consumer.c" $flags \
    -o "$WORK/$kind/consumer-pc" || fail "$kind: pkg-config consumer build ($flags)"
  LD_LIBRARY_PATH=$libdir "$WORK/$kind/consumer-pc" || fail "$kind: pkg-config consumer"

  for exe in "$cdir/consumer" "$WORK/$kind/consumer-pc"; do
    if [[ $kind == shared ]]; then
      needs_libkfifo "$exe" || fail "$exe does not load libkfifo.so"
    else
      ! needs_libkfifo "$exe" || fail "$exe loads libkfifo.so in the static install"
    fi
  done
  summary+=("$kind: find_package + pkg-config consumers ok")
done

# the installed shared library itself
so=$(find "$WORK/shared/prefix" -name 'libkfifo.so.*.*.*' | head -n 1)
[[ -n $so ]] || fail "no versioned libkfifo.so.X.Y.Z installed"
soname=$(readelf -d "$so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[[ -n $soname && -e $(dirname "$so")/$soname ]] || fail "libkfifo.so has no SONAME (or no link named after it)"
exported=$(nm -D --defined-only "$so" | awk '{print $3}')
others=$(grep -v '^kfifo_' <<<"$exported" || true)
[[ -z $others ]] || fail "libkfifo.so exports more than kfifo_*: $others"
# the private kfifo__ names only where the header's inline calls need them
# (the record calls' kfifo__*_rec<N>); a binding's calls are not exported
for sym in $(grep '^kfifo__' <<<"$exported" || true); do
  (($(grep -c "\<$sym(" "$ROOT/c/include/kfifo.h") >= 2)) ||
    fail "libkfifo.so exports $sym, which no inline call of kfifo.h calls"
done
say "libkfifo.so: SONAME $soname, $(wc -l <<<"$exported") symbols exported, all kfifo_*"
summary+=("SONAME $soname, $(wc -l <<<"$exported") kfifo_* symbols only")

# add_subdirectory() in a parent with its own tests
sub=$WORK/subproject
cmake -S "$HERE/subproject" -B "$sub" -DCMAKE_C_COMPILER="$CC" -DKFIFO_SOURCE_DIR="$ROOT" \
  >"$WORK/subproject.log" 2>&1 && cmake --build "$sub" -j2 >>"$WORK/subproject.log" 2>&1 ||
  { cat "$WORK/subproject.log"; fail "add_subdirectory: configure/build"; }
tests=$(ctest --test-dir "$sub" -N | sed -n 's/^ *Test *#[0-9]*: //p' | tr '\n' ' ')
[[ $tests == "parent_own_test " ]] || fail "add_subdirectory: the parent's ctest lists: $tests"
ctest --test-dir "$sub" --output-on-failure >>"$WORK/subproject.log" 2>&1 ||
  { cat "$WORK/subproject.log"; fail "add_subdirectory: the parent's test"; }
cmake --install "$sub" --prefix "$WORK/subproject-prefix" >>"$WORK/subproject.log" 2>&1 || true
[[ -z $(find "$WORK/subproject-prefix" -name 'kfifo*' 2>/dev/null) ]] ||
  fail "add_subdirectory: kfifo installed files into the parent's prefix"
say "add_subdirectory: the parent's ctest has only its own test, which passes; nothing of kfifo installed"

# ... and when the parent asks for kfifo's tests and install rules
sub=$WORK/subproject-asked
cmake -S "$HERE/subproject" -B "$sub" -DCMAKE_C_COMPILER="$CC" -DKFIFO_SOURCE_DIR="$ROOT" \
  -DKFIFO_BUILD_TESTS=ON -DKFIFO_INSTALL=ON >"$WORK/subproject-asked.log" 2>&1 &&
  cmake --build "$sub" -j2 --target parent_app test_bytestream >>"$WORK/subproject-asked.log" 2>&1 &&
  ctest --test-dir "$sub" -R '^(parent_own_test|test_bytestream)$' --output-on-failure \
    >>"$WORK/subproject-asked.log" 2>&1 ||
  { cat "$WORK/subproject-asked.log"; fail "add_subdirectory with KFIFO_BUILD_TESTS=ON"; }
n=$(ctest --test-dir "$sub" -N | sed -n 's/^Total Tests: //p')
cmake --install "$sub" --prefix "$WORK/subproject-asked-prefix" \
  >>"$WORK/subproject-asked.log" 2>&1 || true
[[ -n $(find "$WORK/subproject-asked-prefix" -name kfifo.h) ]] ||
  fail "add_subdirectory with KFIFO_INSTALL=ON: kfifo.h not installed"
say "add_subdirectory with KFIFO_BUILD_TESTS=ON KFIFO_INSTALL=ON: $n tests registered, test_bytestream passes, kfifo.h installed"
summary+=("add_subdirectory: parent's tests only / kfifo's ($n) when asked")

printf -v line '%s; ' "${summary[@]}"
echo "install-check: ok: ${line%; }"
