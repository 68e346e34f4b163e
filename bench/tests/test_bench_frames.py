# SPDX-License-Identifier: MIT
"""bench/python/bench_frames.py runs with tiny sizes and writes its table
(every variant moves and checks its frames; no timing is looked at)."""


def test_bench_frames_prints_and_writes_its_table(tmp_path, run_script):
    out = tmp_path / "results"
    out.mkdir()
    proc = run_script("bench_frames.py", "--repeats", "1", "--frames", "3", "--out", str(out), timeout=300)
    assert proc.returncode == 0, proc.stderr
    for text in (proc.stdout, (out / "frames.md").read_text()):
        assert "| variant | median rate | kfifo 4 MiB / variant (paired median) | runs (GB/s) |" in text
        for variant in ("kfifo put_frame/get_frame_into, 4 MiB fifo",
                        "kfifo put_frame/get_frame_into, 256 KiB fifo (frames stream through)",
                        "multiprocessing Pipe send_bytes/recv_bytes_into",
                        "shared_memory (4 slots) + index Queue, consumer copies out"):
            assert f"| {variant} |" in text
        assert "Load average (1 min)" in text
