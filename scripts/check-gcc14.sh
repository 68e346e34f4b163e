#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# check-gcc14.sh - build the Python extension (the C core, the binding's C
# and the SWIG wrapper) as GCC 14 would: it makes incompatible pointer
# types, int conversions, implicit function declarations and return
# mismatches errors by default.  Today's gcc simulates that with -Werror=
# of each (-Werror=return-mismatch only where gcc knows it).  Done once
# with the oldest and once with the newest SWIG pyproject.toml allows,
# since the wrapper SWIG generates differs between them (SWIG >= 4.4
# makes the module init return int).
#
# Usage: scripts/check-gcc14.sh [BUILD_ROOT]
#   PYTHON  the interpreter to build for (default python3)
set -euo pipefail
# -h/--help: the comment above, and nothing else
case ${1:-} in -h | --help) sed -n '3,/^set -/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
BUILD_ROOT=${1:-$ROOT/build}
mkdir -p "$BUILD_ROOT/logs"
BUILD_ROOT=$(cd "$BUILD_ROOT" && pwd)
export PIP_DISABLE_PIP_VERSION_CHECK=1

FLAGS="-Werror=incompatible-pointer-types -Werror=int-conversion -Werror=implicit-function-declaration"
if echo 'int f(void);' | gcc -Werror=return-mismatch -x c -c -o /dev/null - 2>/dev/null; then
  FLAGS="$FLAGS -Werror=return-mismatch"
fi

# SWIG's range from pyproject.toml's build requirements, e.g. swig>=4.2,<4.6
range=$(sed -n 's/^ *"\(swig[<>=,.0-9]*\)",*$/\1/p' "$ROOT/pyproject.toml" | head -n 1)
oldest=$(sed -n 's/^swig>=\([0-9.]*\).*/\1/p' <<<"$range")
[[ -n $range && -n $oldest ]] || { echo "check-gcc14: no swig>=X range in pyproject.toml" >&2; exit 1; }
setuptools=$(sed -n 's/^ *"\(setuptools[<>=,.0-9]*\)",*$/\1/p' "$ROOT/pyproject.toml" | head -n 1)

echo "check-gcc14: gcc $(gcc -dumpversion) with $FLAGS"
failed=0
for spec in "swig==$oldest" "$range"; do
  tag=${spec//[^0-9a-z.]/_}
  venv=$BUILD_ROOT/gcc14-$tag
  log=$BUILD_ROOT/logs/gcc14-$tag.log
  work=$(mktemp -d "${TMPDIR:-/tmp}/kfifo-gcc14.XXXXXX")
  { [[ -x $venv/bin/python ]] || "$PYTHON" -m venv "$venv"; } >"$log" 2>&1
  "$venv/bin/python" -m pip install -q "$setuptools" wheel cmake "$spec" >>"$log" 2>&1 ||
    { tail -n 20 "$log"; echo "check-gcc14: cannot install $spec" >&2; exit 1; }
  version=$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("swig"))')
  # the one way (setup.py drives CMakeLists.txt's target kfifo_ext), with
  # CFLAGS reaching every C file; a fresh build directory; no build
  # isolation, so this SWIG is the one used
  if (cd "$ROOT" && CC=gcc CFLAGS="$FLAGS" KFIFO_BUILD_BASE=$work/build \
        "$venv/bin/python" -m pip wheel -v --no-deps --no-build-isolation \
        --wheel-dir "$work/wheel" .) >>"$log" 2>&1; then
    echo "check-gcc14: SWIG $version ($spec): PASS, the extension builds"
  else
    echo "check-gcc14: SWIG $version ($spec): FAIL, the errors:"
    grep -E '\.[ch]:[0-9]+:[0-9]+: error:' "$log" | sed -e 's/^ *//' -e 's/^/    /' | sort -u
    echo "    log: $log"
    failed=1
  fi
  rm -rf "$work"
done
exit $failed
