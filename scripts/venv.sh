#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# venv.sh DIR - make DIR a virtual environment of python3 that can build
# kfifo (the README's first command and ./run-tests use it).  Debian's
# system Python is externally managed (PEP 668: pip refuses to install
# into it) and ships `python3 -m venv` and Python.h in packages of their
# own; when one is missing, scripts/install-deps.sh --python says so and,
# as root, apt-get installs python3-venv / python3-dev
# (KFIFO_NO_INSTALL_DEPS=1 declines).  An existing DIR is kept.
#
#   PYTHON  the interpreter (default python3)
set -euo pipefail
# -h/--help: the comment above, and nothing else
case ${1:-} in -h | --help) sed -n '3,/^set -/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
dir=${1:?usage: scripts/venv.sh DIR}
PYTHON=${PYTHON:-python3}
export PYTHON
if [[ -x $dir/bin/python ]] && "$dir/bin/python" -c 'import pip' 2>/dev/null; then
  exit 0
fi
bash "$(dirname "$0")/install-deps.sh" --python | grep -v '^install-deps: nothing missing' || true
echo "venv: creating $dir with $("$PYTHON" -c 'import sys; print(sys.executable, sys.version.split()[0])')"
rm -rf "$dir"
"$PYTHON" -m venv "$dir"
