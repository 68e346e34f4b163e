#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# run-c-tests.sh - every test of the C core, one stage at a time, each in a
# build directory of its own under BUILD_ROOT (default ./build):
#
#   gcc      gcc, RelWithDebInfo, ctest                      BUILD_ROOT/c-gcc
#   clang    clang, RelWithDebInfo, ctest (if clang)         BUILD_ROOT/c-clang
#   gcc-debug, gcc-release, clang-debug, clang-release
#            the other build types (Release is -O3), with
#            shorter stress runs; the *-release of gcc and
#            the -debug of clang build libkfifo.so
#            (BUILD_SHARED_LIBS=ON)                          BUILD_ROOT/c-<stage>
#   asan     AddressSanitizer + UBSan (gcc), Debug build    BUILD_ROOT/c-asan
#            (the library asserts kfifo_valid() after every index store)
#   tsan     ThreadSanitizer (gcc), ctest, shorter stress    BUILD_ROOT/c-tsan
#   fallback the wait tests on the sleep-poll fallback       BUILD_ROOT/c-fallback
#            other systems use (KFIFO_WAIT_FALLBACK=ON, gcc)
#   m32      i686: gcc -m32 (multilib) build, ctest          BUILD_ROOT/c-m32
#   fuzz     libFuzzer (clang), fixed time budget            BUILD_ROOT/c-fuzz
#            (fuzz_ops against the model, then fuzz_shared: a shared
#            fifo whose peer scribbles over the mapping)
#   replay   the committed corpora c/fuzz/corpus and c/fuzz/corpus_shared
#            through a plain gcc driver
#   install  c/tests/install/check.sh: cmake --install of the static
#            (gcc) and the shared (gcc-release) build into prefixes of
#            their own, consumers built with find_package(kfifo) and with
#            pkg-config, and run; libkfifo.so's SONAME and exports; the
#            project vendored with add_subdirectory() by a parent
#
# Every build here is configured with -DKFIFO_WERROR=ON: warnings are
# errors for us, never for users.
#
# It prints one summary line per stage, goes on after a failure (printing
# the end of that stage's log), and exits non-zero if any stage failed.
# Logs: BUILD_ROOT/logs/<stage>.log.
#
# Usage: c/tests/run-c-tests.sh [--help] [--list] [--stage NAME]... [BUILD_ROOT]
#   --stage NAME  run only that stage (repeatable, or NAME,NAME), e.g. one
#                 configuration of the matrix again: --stage clang-release.
#                 replay and install use the gcc (and gcc-release) builds
#                 of an earlier run; m32's cross-width check the gcc one.
#
# Environment:
#   KFIFO_STRESS_BYTES=<n>     bytes test_stress sends through the lock-free
#                              byte stream (the record and locked streams
#                              scale with it); default 2e7, 2e6 under TSan.
#                              Long mode: 1e8 or more, e.g.
#                              KFIFO_STRESS_BYTES=1e8 build/c-gcc/c/tests/test_stress
#   KFIFO_WAIT_STRESS_BYTES=<n> bytes test_wait_stress sends through fifos
#                              where both sides block (3e6; 1.5e6 under
#                              TSan, 3e5 in the fallback stage)
#   KFIFO_WAIT_PINGPONG=<n>    round trips of its lost-wake-up hunt (1e5;
#                              5e4 under TSan, 5e3 in the fallback stage)
#   KFIFO_TEST_SEED=<n>        first seed of test_random (default: the clock;
#                              printed in its output and in the log)
#   KFIFO_RANDOM_SEQUENCES=<n> sequences of test_random (200; 20 under TSan)
#   KFIFO_RANDOM_OPS=<n>       operations per sequence (10000)
#   KFIFO_FUZZ_SECONDS=<n>     libFuzzer run time of fuzz_ops (45; the build
#                              adds ~15)
#   KFIFO_FUZZ_SHARED_SECONDS=<n> libFuzzer run time of fuzz_shared (20)
#   KFIFO_NO_INSTALL_DEPS=1    do not call scripts/install-deps.sh when clang
#                              or the 32-bit libraries are missing (it says
#                              what it is about to apt-get install, and only
#                              installs as root)
#   KFIFO_MATRIX=0             skip the gcc-debug ... clang-release stages
#   JOBS=<n>                   parallel build/ctest jobs (nproc)
set -uo pipefail

usage() { sed -n '3,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }

ALL_STAGES=(gcc clang gcc-debug gcc-release clang-debug clang-release asan tsan
            fallback m32 fuzz replay install)
WANTED=()
BUILD_ROOT=build
while [[ $# -gt 0 ]]; do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --list) printf '%s\n' "${ALL_STAGES[@]}"; exit 0 ;;
    --stage)
      [[ $# -ge 2 ]] || { echo "--stage needs a NAME: ${ALL_STAGES[*]}" >&2; exit 2; }
      for s in ${2//,/ }; do
        [[ " ${ALL_STAGES[*]} " == *" $s "* ]] ||
          { echo "unknown stage $s (one of: ${ALL_STAGES[*]})" >&2; exit 2; }
        WANTED+=("$s")
      done
      shift 2 ;;
    -*) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
    *) BUILD_ROOT=$1; shift ;;
  esac
done
# want STAGE: STAGE was asked for (every stage is, without --stage)
want() { ((${#WANTED[@]} == 0)) || [[ " ${WANTED[*]} " == *" $1 "* ]]; }

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$BUILD_ROOT/logs"
BUILD_ROOT=$(cd "$BUILD_ROOT" && pwd)
LOGS=$BUILD_ROOT/logs
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
FUZZ_SECONDS=${KFIFO_FUZZ_SECONDS:-45}
FUZZ_SHARED_SECONDS=${KFIFO_FUZZ_SHARED_SECONDS:-20}
export KFIFO_TEST_SEED=${KFIFO_TEST_SEED:-$(( $(date +%s) % 1000000007 + 1 ))}

# have, libfuzzer_works
# shellcheck source=scripts/toolchain.sh
source "$ROOT/scripts/toolchain.sh"

summary=()
failed=0
t_all=$(date +%s)

# record STAGE STATUS DETAIL: one summary line, printed now and at the end
record() {
  local line
  line=$(printf '%-13s %-5s %s' "$1" "$2" "$3")
  summary+=("$line")
  echo "== $line"
  [[ $2 == FAIL ]] && failed=1
  return 0
}

show_log_tail() {
  echo "---- last lines of $1 ----"
  tail -n 80 "$1"
  echo "---- end of $1 ----"
}

# configure_build DIR LOG CMAKE_ARGS...
configure_build() {
  local dir=$1 log=$2
  shift 2
  cmake -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >>"$log" 2>&1 &&
    cmake --build "$dir" -j "$JOBS" >>"$log" 2>&1
}

# ctest_stage NAME DIR [ENV=VALUE...] -- CMAKE_ARGS...
# Configures, builds and runs ctest (with the extra arguments in the array
# STAGE_CTEST_ARGS, if set); the summary has ctest's count line.
STAGE_CTEST_ARGS=()
ctest_stage() {
  local name=$1 dir=$2 log=$LOGS/$1.log t0 envs=() prefix=()
  shift 2
  want "$name" || return 0
  while [[ $# -gt 0 && $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  t0=$(date +%s)
  : >"$log"
  if ! configure_build "$dir" "$log" "$@"; then
    record "$name" FAIL "configure/build failed ($(( $(date +%s) - t0 )) s), log: $log"
    show_log_tail "$log"
    return
  fi
  if [[ $name == tsan ]] && ! tsan_runs "$dir"; then
    # ThreadSanitizer cannot map its shadow with a high ASLR entropy
    # (vm.mmap_rnd_bits > 28); without randomization it can.
    if have setarch && setarch "$(uname -m)" -R true 2>/dev/null &&
       setarch "$(uname -m)" -R "$dir/c/tests/test_harness_selftest" >/dev/null 2>&1; then
      prefix=(setarch "$(uname -m)" -R)
      echo "tsan: running without address space randomization" >>"$log"
    fi
  fi
  if env "${envs[@]}" "${prefix[@]}" ctest --test-dir "$dir" -j "$JOBS" \
       --output-on-failure "${STAGE_CTEST_ARGS[@]}" >>"$log" 2>&1; then
    record "$name" PASS "$(grep -E 'tests passed' "$log" | tail -n 1) ($(( $(date +%s) - t0 )) s)"
  else
    record "$name" FAIL "$(grep -E 'tests passed|tests failed' "$log" | tail -n 1) ($(( $(date +%s) - t0 )) s), log: $log"
    show_log_tail "$log"
  fi
}

tsan_runs() { "$1/c/tests/test_harness_selftest" >/dev/null 2>&1; }

echo "run-c-tests: sources $ROOT, builds in $BUILD_ROOT, $JOBS jobs, KFIFO_TEST_SEED=$KFIFO_TEST_SEED"

if { ! have cmake || ! have clang || ! m32_works; } && [[ -z ${KFIFO_NO_INSTALL_DEPS:-} ]]; then
  bash "$ROOT/scripts/install-deps.sh" 2>&1 | tee "$LOGS/install-deps.log" | grep '^install-deps'
fi

WERROR=(-DKFIFO_WERROR=ON)
# The extra build types run every test, with shorter stress runs.
SHORT=(KFIFO_STRESS_BYTES=2e6 KFIFO_WAIT_STRESS_BYTES=3e5 KFIFO_WAIT_PINGPONG=1e4
       KFIFO_RANDOM_SEQUENCES=20)
# The Python binding's own C (swig/kfpy_*.c, libkfifo_py.a) is built with
# -Werror by the gcc and clang stages (the extension itself too when SWIG
# is found); its sanitizer run is the Python tests under ASan
# (scripts/test-binding-asan.sh, called by run-tests).
PYBIND=()
if py_include=$("${PYTHON:-python3}" -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null) &&
   [[ -f $py_include/Python.h ]]; then
  PYBIND=(-DKFIFO_PYTHON=ON "-DKFIFO_PYTHON_INCLUDE_DIR=$py_include")
fi

# ---- 1. plain builds with -Werror ----------------------------------------
ctest_stage gcc "$BUILD_ROOT/c-gcc" -- -DCMAKE_C_COMPILER=gcc \
  "${WERROR[@]}" "${PYBIND[@]}" $(have g++ && echo -DCMAKE_CXX_COMPILER=g++)
if have clang; then
  ctest_stage clang "$BUILD_ROOT/c-clang" -- -DCMAKE_C_COMPILER=clang \
    "${WERROR[@]}" "${PYBIND[@]}" $(have clang++ && echo -DCMAKE_CXX_COMPILER=clang++)
elif want clang; then
  record clang SKIP "clang not found (scripts/install-deps.sh installs it as root)"
fi

# ---- 1b. the other build types, shared and static ------------------------
# configure_build's RelWithDebInfo is overridden by the later -D.
if [[ ${KFIFO_MATRIX:-1} != 0 ]]; then
  for cc in gcc clang; do
    for bt in Debug Release; do
      stage=$cc-${bt,,}
      want "$stage" || continue
      if ! have $cc; then
        record "$stage" SKIP "$cc not found"
        continue
      fi
      shared=OFF
      [[ $stage == gcc-release || $stage == clang-debug ]] && shared=ON
      cxx=g++
      [[ $cc == clang ]] && cxx=clang++
      ctest_stage "$stage" "$BUILD_ROOT/c-$stage" "${SHORT[@]}" -- \
        -DCMAKE_C_COMPILER=$cc "${WERROR[@]}" -DCMAKE_BUILD_TYPE=$bt \
        -DBUILD_SHARED_LIBS=$shared $(have $cxx && echo -DCMAKE_CXX_COMPILER=$cxx)
    done
  done
fi

# ---- 2. AddressSanitizer + UndefinedBehaviorSanitizer ---------------------
ctest_stage asan "$BUILD_ROOT/c-asan" \
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  -- -DCMAKE_C_COMPILER=gcc "${WERROR[@]}" -DKFIFO_ASAN=ON -DKFIFO_UBSAN=ON \
  -DCMAKE_BUILD_TYPE=Debug

# ---- 3. ThreadSanitizer (the stress default is 10x shorter there) --------
ctest_stage tsan "$BUILD_ROOT/c-tsan" \
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
  -- -DCMAKE_C_COMPILER=gcc "${WERROR[@]}" -DKFIFO_TSAN=ON

# ---- 4. the waits (and shared fifos) on the portable sleep-poll fallback -
STAGE_CTEST_ARGS=(-R '^test_(wait|shared|notify)')
ctest_stage fallback "$BUILD_ROOT/c-fallback" -- -DCMAKE_C_COMPILER=gcc \
  "${WERROR[@]}" -DKFIFO_WAIT_FALLBACK=ON
STAGE_CTEST_ARGS=()

# ---- 4b. i686: the library and its ctest built with -m32 -------------------
# The shared layout is a file format that does not depend on pointer width,
# and the library works on 32-bit targets: the whole suite, built for i686
# with Debian's multilib (gcc-multilib, g++-multilib), runs on this x86-64
# kernel; then an x86-64 and an i686 process share one fifo.
if ! want m32; then
  :
elif [[ $(uname -m) == x86_64 ]] &&
   echo 'int main(void) { return 0; }' |
     gcc -m32 -x c - -o "$BUILD_ROOT/m32-probe" >/dev/null 2>&1; then
  ctest_stage m32 "$BUILD_ROOT/c-m32" -- -DCMAKE_C_COMPILER=gcc \
    "${WERROR[@]}" -DCMAKE_C_FLAGS=-m32 -DCMAKE_CXX_FLAGS=-m32 \
    $(have g++ && echo -DCMAKE_CXX_COMPILER=g++)
  # one shared fifo in a file, each step by the other width in turn
  x64=$BUILD_ROOT/c-gcc/c/tests/shared_xwidth x32=$BUILD_ROOT/c-m32/c/tests/shared_xwidth
  xf=$BUILD_ROOT/m32-xwidth.block
  if { rm -f "$xf" && "$x64" create "$xf" && "$x32" answer "$xf" && "$x64" check "$xf" &&
       rm -f "$xf" && "$x32" create "$xf" && "$x64" answer "$xf" && "$x32" check "$xf"; } \
       >>"$LOGS/m32.log" 2>&1; then
    record m32-x64 PASS "one shared fifo used by x86-64 and i686 processes in turn, both ways"
  else
    record m32-x64 FAIL "x86-64 and i686 processes could not share a fifo, log: $LOGS/m32.log"
  fi
else
  record m32 SKIP "gcc -m32 cannot link here (x86-64 with gcc-multilib and g++-multilib needed)"
fi

# ---- 5. libFuzzer, for a fixed time ---------------------------------------
fuzz_stage() {
  local dir=$BUILD_ROOT/c-fuzz log=$LOGS/fuzz.log t0 runs runs_shared pid_ops pid_shared rc_ops rc_shared
  want fuzz || return 0
  t0=$(date +%s)
  : >"$log"
  if ! libfuzzer_works; then
    record fuzz SKIP "clang with libFuzzer not available (as root: scripts/install-deps.sh); the corpus is still replayed below"
    return
  fi
  # The library is instrumented too (fuzzer-no-link), so coverage guides
  # the fuzzer through the FIFO code, not only through the decoder.
  if ! configure_build "$dir" "$log" -DCMAKE_C_COMPILER=clang -DBUILD_TESTING=OFF \
       -DKFIFO_BUILD_FUZZ=ON -DKFIFO_ASAN=ON -DKFIFO_UBSAN=ON \
       -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link; then
    record fuzz FAIL "configure/build failed, log: $log"
    show_log_tail "$log"
    return
  fi
  # New inputs go to scratch directories; the committed corpora are only
  # read.  The two targets run at once (one per core: ~20 s of the C
  # stage), each into its own log, appended to the stage's log after.
  mkdir -p "$dir/corpus-work" "$dir/corpus-shared-work"
  (cd "$dir" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 \
     ./c/fuzz/fuzz_ops -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 \
     -artifact_prefix="$dir/" "$dir/corpus-work" "$ROOT/c/fuzz/corpus") >"$log.ops" 2>&1 &
  pid_ops=$!
  # The shared fifo against a peer that scribbles over the mapping.
  (cd "$dir" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 \
     ./c/fuzz/fuzz_shared -max_total_time="$FUZZ_SHARED_SECONDS" -print_final_stats=1 \
     -artifact_prefix="$dir/shared-" "$dir/corpus-shared-work" "$ROOT/c/fuzz/corpus_shared") >"$log.shared" 2>&1 &
  pid_shared=$!
  rc_ops=0 rc_shared=0
  wait "$pid_ops" || rc_ops=$?
  wait "$pid_shared" || rc_shared=$?
  { echo "== fuzz_ops"; cat "$log.ops"; echo "== fuzz_shared"; cat "$log.shared"; } >>"$log"
  runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 executions in \2 s/p' "$log.ops" | tail -n 1)
  runs_shared=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 executions in \2 s/p' "$log.shared" | tail -n 1)
  rm -f "$log.ops" "$log.shared"
  if ((rc_ops != 0)); then
    record fuzz FAIL "fuzz_ops found a failing input (see $dir/crash-*), log: $log"
    show_log_tail "$log"
  elif ((rc_shared != 0)); then
    record fuzz FAIL "fuzz_shared found a failing input (see $dir/shared-crash-*), log: $log"
    show_log_tail "$log"
  else
    record fuzz PASS "fuzz_ops: ${runs:-?}, no mismatch; fuzz_shared: ${runs_shared:-?}, bounds kept; no sanitizer report ($(( $(date +%s) - t0 )) s total, the two at once)"
  fi
}
fuzz_stage

# ---- 6. the committed corpus through the plain gcc driver ----------------
replay_stage() {
  local log=$LOGS/replay.log out
  want replay || return 0
  if [[ ! -x $BUILD_ROOT/c-gcc/c/tests/fuzz_replay ]]; then
    record replay FAIL "no gcc build of fuzz_replay (see the gcc stage)"
    return
  fi
  if ctest --test-dir "$BUILD_ROOT/c-gcc" -R '^fuzz_(shared_)?corpus_replay$' -V >"$log" 2>&1 &&
     [[ $(grep -c 'fuzz_replay: [0-9]* inputs' "$log") == 2 ]]; then
    out=$(grep -o 'fuzz_replay: [0-9]* inputs, [0-9]* bytes' "$log" | paste -sd ';' -)
    record replay PASS "${out:-fuzz_replay passed} (gcc, ctest fuzz_corpus_replay, fuzz_shared_corpus_replay)"
  else
    record replay FAIL "corpus replay failed, log: $log"
    show_log_tail "$log"
  fi
}
replay_stage

# ---- 7. install, then consume: static and shared, and add_subdirectory ----
install_stage() {
  local log=$LOGS/install.log shared=$BUILD_ROOT/c-gcc-release t0
  want install || return 0
  t0=$(date +%s)
  : >"$log"
  if ! have pkg-config; then
    record install FAIL "pkg-config is missing (scripts/install-deps.sh)"
    return
  fi
  if ! compgen -G "$shared/libkfifo.so*" >/dev/null; then
    shared=$BUILD_ROOT/c-shared
    if ! configure_build "$shared" "$log" -DCMAKE_C_COMPILER=gcc "${WERROR[@]}" \
         -DBUILD_SHARED_LIBS=ON -DKFIFO_BUILD_TESTS=OFF; then
      record install FAIL "shared build failed, log: $log"
      show_log_tail "$log"
      return
    fi
  fi
  if bash "$ROOT/c/tests/install/check.sh" "$BUILD_ROOT/c-gcc" "$shared" \
       "$BUILD_ROOT/install" >>"$log" 2>&1; then
    record install PASS "$(sed -n 's/^install-check: ok: //p' "$log") ($(( $(date +%s) - t0 )) s)"
  else
    record install FAIL "$(grep '^install-check: FAIL' "$log" | tail -n 1), log: $log"
    show_log_tail "$log"
  fi
}
install_stage

echo
echo "==== C test summary ($(( $(date +%s) - t_all )) s, KFIFO_TEST_SEED=$KFIFO_TEST_SEED) ===="
printf '%s\n' "${summary[@]}"
if ((failed)); then
  echo "==== C tests FAILED ===="
  exit 1
fi
echo "==== C tests passed ===="
