"""The camera on slow hardware: the settle is counted in seconds, so a reader ten times slower
still proposes each still throw soon after the dice come to rest.

The camera runs on a simulated clock (no test here waits on real time): frames are taken at 15
a second, the reading thread always takes the newest frame (as the capture thread's latest
wins), the motion check costs 5 ms and each read of the dice costs :data:`SLOWED` seconds.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from helpers.camera import PipReader, scene

from scorekeeper.camera import CameraService, SettleConfig

FPS = 15.0
READ_S = 0.03
"""One read of a frame on a slow host (``bench_camera.py``: 39 frames/s read on a busy AVX2
host, overlay included)."""
SLOWED = 10 * READ_S
TUMBLE_S, STILL_S = 1.0, 3.0
GRID = [(40 + 100 * c, 40 + 110 * r) for r in range(4) for c in range(6)]


class CountingReader(PipReader):
    """The synthetic scenes' reader; the simulation charges :data:`SLOWED` per call."""


def throw_scene(k: int, t: float) -> tuple[Any, bool]:
    """Throw ``k``'s picture at ``t`` seconds into it: tumbling, then lying still."""
    rng = np.random.default_rng(k)
    n = int(rng.integers(1, 7))
    values = [int(v) for v in rng.integers(1, 7, n)]
    if t < TUMBLE_S:  # tumbling: new places every frame
        frame_rng = np.random.default_rng(1000 * k + int(t * FPS))
        spots = frame_rng.choice(len(GRID), n, replace=False)
        return scene([(v, *GRID[s]) for v, s in zip(values, spots, strict=True)]), False
    spots = rng.choice(len(GRID), n, replace=False)
    return scene([(v, *GRID[s]) for v, s in zip(values, spots, strict=True)]), True


def simulate(
    read_s: float, throws: int, settle: SettleConfig | None = None
) -> list[tuple[int, tuple[int, ...], float]]:
    """Each proposal: the throw it came in, its dice, and seconds from rest to the proposal."""
    reader = CountingReader()
    svc = CameraService("none", reader_factory=lambda: reader, settle=settle)
    period = TUMBLE_S + STILL_S
    clock = 0.0
    seen: set[str] = set()
    out: list[tuple[int, tuple[int, ...], float]] = []
    while clock < throws * period:
        idx = int(clock * FPS)  # the newest frame taken
        taken = idx / FPS
        k = int(taken // period)
        img, _ = throw_scene(k, taken - k * period)
        calls = reader.calls
        r = svc.process(img, idx + 1, captured=taken)
        clock += 0.005 + read_s * (reader.calls - calls)
        clock = max(clock, (idx + 1) / FPS)  # wait for a frame newer than this one
        p = r.proposal
        if p is not None and p.id not in seen:
            seen.add(p.id)
            out.append((k, p.dice, clock - (k * period + TUMBLE_S)))
    return out


def truth(k: int) -> tuple[int, ...]:
    rng = np.random.default_rng(k)
    n = int(rng.integers(1, 7))
    return tuple(sorted(int(v) for v in rng.integers(1, 7, n)))


def test_a_reader_ten_times_slower_proposes_each_still_throw_within_1_5_s_of_rest() -> None:
    throws = 8
    got = simulate(SLOWED, throws)
    assert [k for k, _, _ in got] == list(range(throws))  # each throw once
    assert [dice for _, dice, _ in got] == [truth(k) for k in range(throws)]
    delays = [d for _, _, d in got]
    assert max(delays) <= 1.5, delays
    # with the reader at full speed it is quicker still
    fast = [d for _, _, d in simulate(READ_S, throws)]
    assert max(fast) < max(delays) and max(fast) <= 0.55, fast


def test_status_shows_the_reads_per_second() -> None:
    class Sleepy(PipReader):
        def infer(self, frame: Any) -> Any:
            time.sleep(0.02)
            return super().infer(frame)

    svc = CameraService("none", reader_factory=Sleepy, settle=SettleConfig(still_s=0))
    assert svc.status()["reads_per_s"] is None
    still = scene([(3, 100, 100)])
    for i in range(4):
        svc.process(still, i + 1, captured=i / FPS)
    rps = svc.status()["reads_per_s"]
    assert rps is not None and 0 < rps <= 50  # each read took at least 20 ms
