#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cache-lines.py - which cache lines each call of each side touches, and
how many of them cross between the cores: exact, and independent of the
machine's load.

    python3 scripts/cache-lines.py [--rev REV] [--rounds-skip N] [SCENARIO ...]

bench/c/lines_trace.c makes the calls of both sides of a fifo in one thread
in a fixed order (scenarios: msg8, avail, rec0, ahead, full, regions; see
its comment).  valgrind's lackey traces every load and store; this script
replays the accesses to the struct kfifo, the buffer and the library's own
globals on a model of two cores with private caches (MESI, no capacity
limit), the producer's calls on one core and the consumer's on the other,
and prints per call (the median over the rounds after the first few):

  reads / writes   the lines it loads from and stores to (struct lines
                   by their byte offsets in the struct: +0 the read-mostly
                   line, then the producer's and the consumer's; "buf" the
                   data; globals by name), with the offsets touched;
  misses           loads of a line this core did not hold (the other core
                   wrote it since: one transfer between the cores each);
  rfo              stores to a line this core did not own (the other core
                   read or wrote it since: the line must be taken back).

--offset N puts the struct N bytes past a 128-byte boundary (malloc()
gives any multiple of 16).  --buddy also models the adjacent-line
prefetcher of x86 cores (Intel's L2 "spatial" prefetcher, AMD's
"up/down"): a core that misses on a line also takes the other line of its
128-byte pair, so a line the other core owns there is taken from it too.

The library is REV's (default: the working tree), compiled with
callgrind-budget.sh's flags by $CC (default gcc).  Needs valgrind.
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLAGS = ["-std=c11", "-O2", "-g", "-DNDEBUG", "-fPIC", "-fvisibility=hidden", "-pthread"]
SCENARIOS = ["msg8", "avail", "rec0", "ahead", "full", "regions"]


def build(rev, out):
    cc = os.environ.get("CC", "gcc")
    src = os.path.join(out, "lib")
    os.makedirs(src)
    if rev is None:
        for d in ("c/include", "c/src"):
            shutil.copytree(os.path.join(ROOT, d), os.path.join(src, d))
    else:
        tar = subprocess.run(["git", "-C", ROOT, "archive", rev, "c/include", "c/src"],
                             check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", src], input=tar, check=True)
    objs = []
    csrc = os.path.join(src, "c", "src")
    for name in sorted(os.listdir(csrc)):
        if name.endswith(".c"):
            obj = os.path.join(out, name[:-2] + ".o")
            subprocess.run([cc, *FLAGS, "-I" + os.path.join(src, "c", "include"), "-c",
                            os.path.join(csrc, name), "-o", obj], check=True)
            objs.append(obj)
    exe = os.path.join(out, "lines-trace")
    subprocess.run([cc, *FLAGS, "-I" + os.path.join(src, "c", "include"),
                    os.path.join(ROOT, "bench", "c", "lines_trace.c"), *objs, "-o", exe],
                   check=True)
    return exe


def globals_of(exe):
    """The library's data symbols (kfifo__*), as (start, size, name)."""
    out = subprocess.run(["nm", "-S", exe], check=True, capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in "bBdD" and p[3].startswith("kfifo__"):
            syms.append((int(p[0], 16), int(p[1], 16), p[3]))
    return syms


def trace(exe, scenario, tmp, offset):
    log = os.path.join(tmp, "lackey.%s" % scenario)
    res = subprocess.run(["valgrind", "--tool=lackey", "--trace-mem=yes",
                          "--log-file=" + log, exe, scenario, str(offset)],
                         check=True, capture_output=True, text=True)
    return res.stdout, log


def analyse(exe, scenario, tmp, skip, offset, buddy):
    stdout, log = trace(exe, scenario, tmp, offset)
    regions = []  # (start, end, kind)
    calls = []
    mark = None
    for line in stdout.splitlines():
        p = line.split()
        if p[0] == "model":
            regions.append((int(p[1], 16), int(p[1], 16) + int(p[2]), "struct" if not regions else "buf"))
        elif p[0] == "mark":
            mark = int(p[1], 16)
        elif p[0] == "call":
            calls.append((p[2], " ".join(p[3:])))
    # the load stamp of the binary: PIE, so globals move; lackey runs it
    # at a fixed base, found from the mark's offset against nm's
    nm_mark = [s for s in subprocess.run(["nm", exe], capture_output=True, text=True,
                                         check=True).stdout.splitlines() if s.endswith(" lines_mark")]
    base = mark - int(nm_mark[0].split()[0], 16)
    for start, size, name in globals_of(exe):
        regions.append((base + start, base + start + size, name))
    struct0 = regions[0][0]

    def classify(addr):
        for start, end, kind in regions:
            if start <= addr < end:
                if kind == "struct":
                    line0 = (addr // 64) * 64 - start
                    return "struct[%+d..%+d]" % (line0, line0 + 63), addr - start
                if kind == "buf":
                    return "buf", None
                return "global:" + kind, None
        return None, None

    state = {}  # line -> {core: 'M' | 'S'}
    per_call = [collections.defaultdict(lambda: [set(), set(), 0, 0, set()]) for _ in calls]
    cur = -1
    acc = re.compile(r"^ ([LSM]) ([0-9a-f]+),(\d+)")
    with open(log) as fh:
        for line in fh:
            m = acc.match(line)
            if not m:
                continue
            op, addr = m.group(1), int(m.group(2), 16)
            if addr == mark and op == "S":
                cur += 1
                continue
            if cur < 0 or cur >= len(calls):
                continue
            side = calls[cur][0]
            if side not in ("producer", "consumer", "setup"):
                continue
            core = "consumer" if side == "consumer" else "producer"
            name, off = classify(addr)
            if name is None:
                continue
            key = addr // 64
            st = state.setdefault(key, {})
            rec = per_call[cur][name]
            if off is not None:
                rec[4].add((off, op))
            other = "consumer" if core == "producer" else "producer"
            if buddy and (core not in st or (op in "SM" and st.get(core) != "M")):
                bst = state.setdefault(key ^ 1, {})
                if core not in bst:
                    if other in bst:
                        per_call[cur]["(prefetched pair line)"][2] += 1
                    bst[core] = "S"
                    if bst.get(other) == "M":
                        bst[other] = "S"
            if op in "LM":
                rec[0].add(key)
                if core not in st:
                    if other in st:
                        rec[2] += 1
                    st[core] = "S"
                    if st.get(other) == "M":
                        st[other] = "S"
            if op in "SM":
                rec[1].add(key)
                if st.get(core) != "M":
                    if other in st:
                        rec[3] += 1
                        del st[other]
                    st[core] = "M"
    # group by call name, skipping the warm-up rounds
    groups = collections.OrderedDict()
    seen = collections.Counter()
    for i, (side, what) in enumerate(calls):
        if side not in ("producer", "consumer"):
            continue
        seen[(side, what)] += 1
        if seen[(side, what)] <= skip:
            continue
        groups.setdefault((side, what), []).append(per_call[i])
    return groups


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def report(scenario, groups):
    print("## %s" % scenario)
    for (side, what), recs in groups.items():
        names = []
        for r in recs:
            for n in r:
                if n not in names:
                    names.append(n)
        tot_miss = median([sum(r[n][2] for n in r) for r in recs])
        tot_rfo = median([sum(r[n][3] for n in r) for r in recs])
        print("%-9s %-36s misses %.1f, rfo %.1f per call" % (side, what, tot_miss, tot_rfo))
        for n in sorted(names):
            rs = [r[n] for r in recs if n in r]
            reads = any(x[0] for x in rs)
            writes = any(x[1] for x in rs)
            offs = sorted(set(o for x in rs for o in x[4]))
            miss = median([x[2] for x in rs] + [0] * (len(recs) - len(rs)))
            rfo = median([x[3] for x in rs] + [0] * (len(recs) - len(rs)))
            ops = collections.OrderedDict()
            for o, op in offs:
                ops.setdefault(o, set()).add(op)
            detail = " ".join("+%d%s" % (o, "".join(sorted(v))) for o, v in ops.items())
            print("    %-26s %-2s%-2s miss %.1f rfo %.1f  %s" % (
                n, "r" if reads else "", "w" if writes else "", miss, rfo, detail))
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rev", help="the library of this revision (default: the working tree)")
    ap.add_argument("--rounds-skip", type=int, default=8, help="warm-up rounds left out")
    ap.add_argument("--offset", type=int, default=0, help="struct offset past 128 bytes")
    ap.add_argument("--buddy", action="store_true", help="model the adjacent-line prefetcher")
    ap.add_argument("scenario", nargs="*", default=SCENARIOS)
    a = ap.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("cache-lines: valgrind not found")
    with tempfile.TemporaryDirectory() as tmp:
        exe = build(a.rev, tmp)
        print("library: %s; lines of 64 bytes; struct kfifo %d bytes past a 128-byte "
              "boundary%s\n" % (a.rev or "working tree", a.offset,
                                 "; adjacent-line prefetch modelled" if a.buddy else ""))
        for s in a.scenario:
            report(s, analyse(exe, s, tmp, a.rounds_skip, a.offset, a.buddy))


if __name__ == "__main__":
    main()
