# SPDX-License-Identifier: MIT
"""bench/python/bench_pools.py: its check of what arrived, and kfifo's runs.

The benchmark refuses a run unless the consumers' count and sum of the
(producer, sequence) headers are what the producers sent; the sum it
expects is computed, not collected, so it is checked here against the
items themselves (the 64 KiB items cycle through a few distinct ones).
The kfifo runs go through that check with a few hundred items; the peers
are optional packages and are not run here.
"""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))
import bench_pools  # noqa: E402  (beside the scripts, not a package)


@pytest.mark.parametrize("size", [16, 65536, 1 << 20, 3 << 20])
@pytest.mark.parametrize("producers", [1, 2, 3])
def test_expected_sum_is_the_sum_of_the_items_sent(size, producers):
    k = bench_pools.distinct(size)
    for n in sorted({1, 2, k - 1, k, k + 1, 2 * k + 3, 200}):
        if n < 1:
            continue
        total = 0
        for p in range(producers):
            data = bench_pools.items(p, n, size)
            assert len(data) == n
            assert all(len(it) == size for it in data)
            for it in data:
                q, s = bench_pools.HEAD.unpack_from(it)
                assert q == p and s < k
                total += q * n + s
        assert total == bench_pools.expected(producers, n, size)


def test_large_items_cycle_through_a_bounded_set():
    data = bench_pools.items(1, 1000, 65536)
    assert len({id(it) for it in data}) == bench_pools.distinct(65536) == 64
    assert len({id(it) for it in bench_pools.items(0, 1000, 16)}) == 1000


@pytest.mark.parametrize("producers,consumers,n,size",
                         [(1, 1, 600, 16), (2, 2, 400, 16), (3, 1, 300, 16),
                          (1, 3, 300, 16), (2, 2, 70, 65536)])
def test_kfifo_runs_pass_the_count_and_sum_check(producers, consumers, n, size):
    # run() raises SystemExit unless every item arrived once
    assert bench_pools.run("kfifo", producers, consumers, n, size) > 0


@pytest.mark.parametrize("size", [16, 65536])
def test_kept_heads_tally_to_what_was_sent(size):
    # keep() in batches as a consumer takes them, tally() after the clock:
    # together they must give the count and sum that run() checks
    producers, n = 2, 300
    heads = bytearray()
    for p in range(producers):
        data = bench_pools.items(p, n, size)
        for i in range(0, n, 7):
            bench_pools.keep(data[i:i + 7], heads, size)
    assert len(heads) == producers * n * bench_pools.HEAD.size
    assert bench_pools.tally(heads, n) == (producers * n, bench_pools.expected(producers, n, size))
    # one item missing, or one counted twice, shows in the check
    assert bench_pools.tally(heads[:-16], n)[0] == producers * n - 1
    assert bench_pools.tally(heads + heads[:16], n) != bench_pools.tally(heads, n)


def test_scaled_lengthens_short_runs_only():
    assert bench_pools.scaled(1000, 0.6, min_seconds=0.5) == 1000
    assert bench_pools.scaled(1000, 0.5, min_seconds=0.5) == 1000
    # 30 ms -> 17 times the items (at least 0.51 s at the same rate)
    assert bench_pools.scaled(1000, 0.03, min_seconds=0.5) == 17000
    # never more than MAX_SCALE times, however short the first run
    assert bench_pools.scaled(1000, 0.0, min_seconds=0.5) == 1000 * bench_pools.MAX_SCALE
    assert bench_pools.scaled(1000, 1e-4, min_seconds=0.5) == 1000 * bench_pools.MAX_SCALE
