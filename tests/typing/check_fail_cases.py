# SPDX-License-Identifier: MIT
"""Run mypy and basedpyright on fail_cases.py: every line of code whose
comment starts with a capital E must have an error, and no other line (scripts/check-types.sh).

    python tests/typing/check_fail_cases.py [BASEDPYRIGHT]
"""
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = HERE / "fail_cases.py"


def expected():
    lines = CASES.read_text(encoding="utf-8").splitlines()
    return {i + 1 for i, line in enumerate(lines) if re.search(r"\S.*#\s*E(\s|$)", line)}


def lines_with_errors(output, pattern):
    return {int(m.group(1)) for m in re.finditer(pattern, output)}


def main(argv):
    pyright = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(sys.executable), "basedpyright")
    want = expected()
    ok = True
    mypy = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--enable-error-code", "deprecated",
                           "--no-incremental", "--cache-dir", os.devnull, str(CASES)],
                          capture_output=True, text=True, cwd=HERE)
    pyr = subprocess.run([pyright, "-p", str(HERE / "pyrightconfig.json"), "--pythonpath", sys.executable,
                          str(CASES)], capture_output=True, text=True, cwd=HERE)
    for tool, proc, pattern in (("mypy", mypy, r"fail_cases\.py:(\d+): error"),
                                ("basedpyright", pyr, r"fail_cases\.py:(\d+):\d+ - error")):
        got = lines_with_errors(proc.stdout, pattern)
        missed, extra = sorted(want - got), sorted(got - want)
        if missed or extra:
            ok = False
            print(f"{tool}: lines without the expected error {missed}, unexpected errors on {extra}")
            print(proc.stdout[-4000:])
        else:
            print(f"{tool}: the {len(want)} marked calls are refused, the others pass")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
