"""Whether two cores of this machine share a cache right now: one thread pinned to the first
CPU this process may use writes a 4 MB buffer, another pinned to the second reads it (numpy's
dot product, which runs without the GIL, at memory speed); the first also reads its own
buffer. When the cores share a cache both reads run at about the same speed; on some shared
virtual machines there are spells of seconds to minutes in which they do not, and the read
across cores runs at a third of the speed. Programs that split one pass over two cores slow
down in those spells, some more than others, so a benchmark that compares them notes the state
around each round (tools/peers/bench_peers.py, tools/ab-compare).

Run on its own it prints `{"own": GB/s, "cross": GB/s, "state": ...}` as JSON.
"""
import json
import os
import threading
import time

# Cross-core reads at this fraction of the core's own reads or more: the cores share a cache.
SHARED = 0.7
# Below this fraction: they do not (in the spells this probe read 19-22 GB/s across cores, the
# C probe of docs/bench-log.md's fifth session 22-27 against 55-77 of a core's own data).
SPLIT = 0.5


def probe(rounds=20, floats=1 << 20):
    """(own GB/s, cross GB/s), medians over `rounds` fills of a `floats`-float buffer; None
    where this process may use fewer than two CPUs, cannot pin threads (not Linux), has no
    numpy, or the reader thread fails or stalls for 10 s."""
    try:
        import numpy as np
    except ImportError:
        return None
    if not hasattr(os, "sched_setaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        return None
    writer_cpu, reader_cpu = allowed[0], allowed[1]
    buffer = np.empty(floats, np.float32)
    go, done = threading.Event(), threading.Event()
    own, cross, failed = [], [], []

    def reader():
        try:
            os.sched_setaffinity(0, {reader_cpu})  # pid 0: this thread only
        except OSError:
            failed.append(True)
        for _ in range(rounds):
            if not go.wait(10):
                return
            go.clear()
            start = time.perf_counter_ns()
            np.dot(buffer, buffer)
            cross.append(time.perf_counter_ns() - start)
            done.set()

    try:
        os.sched_setaffinity(0, {writer_cpu})
    except OSError:
        return None
    try:
        thread = threading.Thread(target=reader, daemon=True)
        thread.start()
        for r in range(rounds):
            buffer.fill(r)
            start = time.perf_counter_ns()
            np.dot(buffer, buffer)
            own.append(time.perf_counter_ns() - start)
            buffer.fill(r + 1)  # written by this core, then read by the other
            go.set()
            if not done.wait(10):
                return None
            done.clear()
        thread.join()
    finally:
        os.sched_setaffinity(0, allowed)
    if failed:
        return None

    def speed(nanoseconds):
        return floats * 4 / sorted(nanoseconds)[len(nanoseconds) // 2]
    return speed(own), speed(cross)


def state(before, after):
    """The state of the cores around a round between two `probe` results: "unknown" when
    either is None; "shared" when the cross-core read ran at `SHARED` of the own read or more at
    both ends, "split" when below `SPLIT` at both, else "mixed" (the state changed, or in between)."""
    if before is None or after is None:
        return "unknown"
    fractions = [cross / own for own, cross in (before, after)]
    if min(fractions) >= SHARED:
        return "shared"
    if max(fractions) < SPLIT:
        return "split"
    return "mixed"


if __name__ == "__main__":
    result = probe()
    if result is None:
        print(json.dumps({"state": "unknown"}))
    else:
        print(json.dumps({"own": round(result[0], 1), "cross": round(result[1], 1),
                          "state": state(result, result)}))
