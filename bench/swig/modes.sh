#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# modes.sh - what SWIG's two ways of making a type would cost kfifo._kfifo,
# measured on one small type (probe.i) wrapped three ways: SWIG -builtin,
# SWIG's standard mode (a Python proxy class) and a hand-written type.
# Prints, per way, the instructions of one call with 0, 1 and 2 arguments
# (callgrind: N = 60000 minus N = 10000 calls, so the loop is counted too,
# the same in every way) and what a user sees of the type.  Results and the
# choice they led to: bench/results/swig-modes.md.
#
#   bash bench/swig/modes.sh          # needs valgrind, gcc and SWIG >= 4.2
#   bash bench/swig/modes.sh --smoke  # no counts (bench/tests: it still runs)
#
# SWIG: the one on PATH, else the PyPI package's (pip install swig).
# PYTHON: the interpreter to build for (default: python3).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
PYTHON=$("$PYTHON" -c 'import sys; print(sys.executable)')
smoke=0
[[ ${1:-} == --smoke ]] && smoke=1
if [[ -z ${SWIG:-} ]]; then
  SWIG=$(command -v swig || true)
  if [[ -z $SWIG ]]; then
    # the PyPI package: its binary finds its library through SWIG_LIB,
    # which importing the package sets
    SWIG=$("$PYTHON" -c 'import os, swig; print(os.path.join(swig.BIN_DIR, "swig"))' 2>/dev/null) || {
      echo "modes.sh: no SWIG on PATH or in $PYTHON (pip install swig, or set SWIG)" >&2
      exit 1
    }
    SWIG_LIB=$("$PYTHON" -c 'import os, swig; print(os.environ["SWIG_LIB"])')
    export SWIG_LIB
  fi
fi
((smoke)) || command -v valgrind >/dev/null || { echo "modes.sh: valgrind not found" >&2; exit 1; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/probe"
: >"$out/probe/__init__.py"
read -r -a cflags <<<"-O2 -shared -fPIC -I$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
suffix=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')

# build NAME SWIG-FLAGS...: probe.NAME (Python) over probe._NAME (C)
build() {
  local name=$1
  shift
  sed "s/PROBE_MODULE/$name/" "$here/probe.i" >"$out/$name.i"
  "$SWIG" -python "$@" -outdir "$out/probe" -o "$out/${name}_wrap.c" "$out/$name.i"
  gcc "${cflags[@]}" "$out/${name}_wrap.c" -o "$out/probe/_$name$suffix"
}
build builtin -builtin
build standard

run() { (cd "$out" && PYTHONPATH="$out" "$PYTHON" "$here/probe_calls.py" "$@"); }
count() {
  (cd "$out" && PYTHONPATH="$out" valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    "$PYTHON" "$here/probe_calls.py" calls "$@" 2>&1 >/dev/null) |
    sed -n 's/^==[0-9]*== Collected : *\([0-9]*\).*/\1/p'
}
per_call() {
  local a b
  ((smoke)) && { echo -; return; }
  a=$(count "$1" "$2" "$3" 10000)
  b=$(count "$1" "$2" "$3" 60000)
  echo $(((b - a) / 50000))
}

echo "SWIG $("$SWIG" -version | sed -n 's/^SWIG Version //p'), $("$PYTHON" -V)"
echo
echo "| way | get0() | get1(x) | get2(x, y) | __text_signature__ | a method before __init__ | attributes beyond get0-get2 |"
echo "|---|---:|---:|---:|---|---|---|"
for way in "hand _builtin Hand" "builtin _builtin Box" "standard standard Box"; do
  read -r label module cls <<<"$way"
  c0=$(per_call "$module" "$cls" get0)
  c1=$(per_call "$module" "$cls" get1)
  c2=$(per_call "$module" "$cls" get2)
  facts=$(run facts "$module" "$cls")
  set +e
  uninit=$(run uninit "$module" "$cls" 2>/dev/null)
  rc=$?
  set -e
  ((rc == 0)) || uninit="process died, exit status $rc"
  sig=$("$PYTHON" -c 'import json, sys; print(json.loads(sys.argv[1])["text_signature"])' "$facts")
  extra=$("$PYTHON" -c 'import json, sys; print(", ".join(json.loads(sys.argv[1])["extra_attributes"]) or "none")' "$facts")
  echo "| $label | $c0 | $c1 | $c2 | $sig | $uninit | $extra |"
done
