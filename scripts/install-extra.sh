#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Install the requirements of one optional-dependencies extra of
# pyproject.toml (docs, typecheck, ...) into $PYTHON's environment, without
# rebuilding the package itself (`pip install .[extra]` would):
#   scripts/install-extra.sh docs
set -euo pipefail
# -h/--help: the comment above, and nothing else
case ${1:-} in -h | --help) sed -n '3,/^set -/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
extra=$1
mapfile -t reqs < <("$PYTHON" - "$extra" <<'PY'
import re, sys
text = open("pyproject.toml", encoding="utf-8").read()
section = text.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
m = re.search(r"^%s\s*=\s*\[(.*?)\]" % re.escape(sys.argv[1]), section, re.M | re.S)
if m is None:
    sys.exit("install-extra: no extra %r in pyproject.toml" % sys.argv[1])
print("\n".join(re.findall(r'"([^"]+)"', m.group(1))))
PY
)
[ "${#reqs[@]}" -gt 0 ] || exit 1
"$PYTHON" -m pip install --quiet "${reqs[@]}"
