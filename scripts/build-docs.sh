#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Build the documentation site (docs/) with warnings as errors and every
# cross-reference checked: sphinx -W -n --keep-going.  The Python reference
# comes from the *installed* package (autodoc imports kfifo, whose Kfifo and
# SpinLock are C types), the C reference from c/include/kfifo.h (Hawkmoth,
# libclang).  Needs `pip install .[docs]` in $PYTHON's environment.
#
#   scripts/build-docs.sh [OUTDIR]          default: build/docs/html
set -euo pipefail
# -h/--help: the comment above, and nothing else
case ${1:-} in -h | --help) sed -n '3,/^set -/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
out=${1:-build/docs/html}

if ! "$PYTHON" -c 'import sphinx, hawkmoth, furo, myst_parser, clang.cindex' 2>/dev/null; then
  echo "build-docs: the docs tools are missing: $PYTHON -m pip install '.[docs]'" >&2
  exit 1
fi
if ! "$PYTHON" -c 'import kfifo._kfifo' 2>/dev/null; then
  echo "build-docs: kfifo is not installed for $PYTHON: $PYTHON -m pip install ." >&2
  exit 1
fi

start=$(date +%s)
# -E: read every page again, so that a warning is never hidden by a cache
"$PYTHON" -m sphinx -W -n --keep-going -E -q -b html -d build/docs/doctrees docs "$out"
pages=$(find "$out" -name '*.html' ! -name genindex.html ! -name search.html ! -name py-modindex.html \
        ! -path '*/_*' | wc -l)
echo "build-docs: $pages pages, 0 warnings, in $(( $(date +%s) - start )) s -> $out/index.html"
