#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The type checks, against the *installed* package (pip install .[typecheck]):
#   1. mypy.stubtest: the stubs (kfifo/__init__.pyi, _kfifo.pyi) match the
#      runtime objects; no allowlist (tests/typing/stubtest.ini lists, with a
#      reason each, the pure-Python modules whose own annotations mypy does
#      not pass yet: stubtest must build them but compares nothing in them);
#   2. mypy --strict, for each Python version it can target (3.10+), and
#   3. basedpyright in strict mode, for each supported version (3.9+),
#      both on examples/*.py and tests/typing/check_public_api.py (the
#      public API as users write it: numpy inputs, recsize in a variable,
#      make_state_machine(...).TestCase);
#   4. tests/typing/fail_cases.py: calls that fail at run time (a recsize
#      of 3, a read-only buffer for get_into, a bool timeout) must be
#      refused by both checkers, line by line (check_fail_cases.py).
# Versions of the tools: the typecheck extra of pyproject.toml.
set -euo pipefail
# -h/--help: the comment above, and nothing else
case ${1:-} in -h | --help) sed -n '3,/^set -/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
python_exe=$("$PYTHON" -c 'import sys; print(sys.executable)')
bindir=$(dirname "$python_exe")
pyright=${BASEDPYRIGHT:-$bindir/basedpyright}
files=(examples/*.py tests/typing/check_public_api.py)
cache=build/mypy-cache

for tool in mypy; do
  "$PYTHON" -c "import $tool" 2>/dev/null || { echo "check-types: $tool missing: $PYTHON -m pip install '.[typecheck]'" >&2; exit 1; }
done
[ -x "$pyright" ] || { echo "check-types: basedpyright missing: $PYTHON -m pip install '.[typecheck]'" >&2; exit 1; }

start=$(date +%s)
echo "== stubtest =="
# from tests/typing, so that nothing in the source tree shadows the installed kfifo
(cd tests/typing && "$python_exe" -m mypy.stubtest kfifo --mypy-config-file stubtest.ini)

for v in 3.10 3.11 3.12 3.13; do
  echo "== mypy --strict, Python $v =="
  "$PYTHON" -m mypy --strict --python-version "$v" --cache-dir "$cache" "${files[@]}"
done

for v in 3.9 3.10 3.11 3.12 3.13; do
  echo "== basedpyright (strict), Python $v =="
  "$pyright" -p tests/typing/pyrightconfig.json --pythonpath "$python_exe" --pythonversion "$v" "${files[@]}"
done
echo "== calls that must be refused (tests/typing/fail_cases.py) =="
"$python_exe" tests/typing/check_fail_cases.py "$pyright"
echo "== type checks passed in $(( $(date +%s) - start )) s =="
