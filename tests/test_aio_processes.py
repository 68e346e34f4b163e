# SPDX-License-Identifier: MIT
"""kfifo.aio across processes, and on other loops: an asyncio consumer fed by
a producer process (plain blocking code, and asyncio), an asyncio producer
feeding a consumer process, under fork and spawn; and trio/anyio waiting on
a notifier's descriptor directly (examples/anyio_notifier.py).  The other
process runs functions of tests/_aio_peers.py."""
import asyncio
import multiprocessing
import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

import _aio_peers as peers
from kfifo import Kfifo

# the loop waits on notifiers, which are Linux-only (docs/notifiers.md)
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="notifiers are Linux-only")

ROOT = Path(__file__).resolve().parent.parent
METHODS = ["fork", "spawn"]


def start(method, target, *args):
    p = multiprocessing.get_context(method).Process(target=target, args=args)
    p.start()
    return p


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("producer", ["blocking", "asyncio"])
def test_asyncio_consumer_of_a_producer_process(method, producer):
    f = Kfifo(256, shared=True)
    try:
        g = Kfifo(1024, shared=True)
        try:
            rec = peers.produce_records_blocking if producer == "blocking" else peers.produce_records_asyncio
            byt = peers.produce_bytes_blocking if producer == "blocking" else peers.produce_bytes_asyncio
            procs = [start(method, rec, f), start(method, byt, g)]

            async def main():
                return await asyncio.wait_for(
                    asyncio.gather(peers.aconsume_records(f), peers.aconsume_bytes(g)), 120)

            records, data = asyncio.run(main())
            for p in procs:
                p.join(60)
                assert p.exitcode == 0
            assert records == ("ok", peers.RECORDS)
            assert data == (peers.expected_crc(), peers.BYTES)
        finally:
            g.free()
    finally:
        f.free()


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("consumer", ["blocking", "asyncio"])
def test_asyncio_producer_feeding_a_consumer_process(method, consumer):
    ctx = multiprocessing.get_context(method)
    out = ctx.SimpleQueue()
    f = Kfifo(256, shared=True)
    g = Kfifo(1024, shared=True)
    try:
        rec = peers.consume_records_blocking if consumer == "blocking" else peers.consume_records_asyncio
        byt = peers.consume_bytes_blocking if consumer == "blocking" else peers.consume_bytes_asyncio
        p1 = start(method, rec, f, out)
        results = [None, None]

        async def main():
            await asyncio.wait_for(peers.aproduce_records(f), 120)
            p1.join(60)
            results[0] = out.get()
            p2 = start(method, byt, g, out)
            await asyncio.wait_for(peers.aproduce_bytes(g), 120)
            p2.join(60)
            results[1] = out.get()
            return p2

        p2 = asyncio.run(main())
        assert p1.exitcode == 0 and p2.exitcode == 0
        assert results[0] == ("ok", peers.RECORDS)
        assert results[1] == (peers.expected_crc(), peers.BYTES)
    finally:
        g.free()
        f.free()


def test_trio_waits_on_a_notifier_descriptor():
    trio = pytest.importorskip("trio")
    f = Kfifo(64)

    async def main():
        got = []
        with f.notifier("data") as n:
            async with trio.open_nursery() as nursery:
                async def produce():
                    for i in range(50):
                        await trio.sleep(0.001)
                        f.put_rec(bytes([i]), 1, timeout=0)
                    f.close()
                nursery.start_soon(produce)
                while True:
                    try:
                        rec = f.get_rec(1, timeout=0)
                    except TimeoutError:
                        await trio.lowlevel.wait_readable(n.fileno())
                        n.clear()
                        continue
                    if rec is None:
                        break
                    got.append(rec[0])
        return got

    assert trio.run(main) == list(range(50))
    f.free()


def test_the_anyio_example_runs_on_asyncio_and_trio():
    pytest.importorskip("anyio")
    pytest.importorskip("trio")
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "anyio_notifier.py")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines == [f"{backend}: 1000 records, crc32 {zlib.crc32(bytes(range(200)) * 5):08x}"
                     for backend in ("asyncio", "trio")], proc.stdout
    assert proc.stderr == ""


def test_asyncio_service_example_consumes_frames_and_stops_on_sigterm():
    import signal

    proc = subprocess.Popen([sys.executable, str(ROOT / "examples" / "asyncio_service.py"), "--frames", "200"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "200 frames" in out and "producer finished" in out, out
    # a service with an endless producer stops cleanly on SIGTERM; signalled
    # once it says it meters (its handlers are installed by then), not after
    # a fixed sleep, which a busy machine outlasts
    proc = subprocess.Popen([sys.executable, str(ROOT / "examples" / "asyncio_service.py")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        assert first == "metering frames (Ctrl-C or SIGTERM stops)\n", (first, proc.stderr.read())
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "stopped by SIGTERM" in out, out
    assert err == "", err
