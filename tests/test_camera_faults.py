"""Faults injected into a fake source: it raises, ends, sends garbage, stalls, freezes or is absent.

Each time the status says so, the server keeps answering, and the capture reconnects by itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from flask import Flask
from helpers.camera import PipReader, ScriptedSource, scene

from scorekeeper.camera.capture import Capture
from scorekeeper.camera.sources import SourceSpec

FAST = {
    "stall_timeout": 0.4,
    "freeze_timeout": 0.6,
    "open_timeout": 0.4,
    "retry_min": 0.05,
    "retry_max": 0.1,
    "garbage_limit": 3,
}


def wait_until(cond: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Poll ``cond`` until it holds (True) or ``timeout`` passes (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


def frames(n: int, seed: int = 0) -> list[np.ndarray]:
    """Distinct good frames (noise keeps them from looking frozen)."""
    rng = np.random.default_rng(seed)
    base = scene([(2, 100, 100)]).astype(np.int16)
    noisy = [base + rng.integers(-3, 4, base.shape) for _ in range(n)]
    return [np.clip(f, 0, 255).astype(np.uint8) for f in noisy]


class Factory:
    """Hands out the given sources in turn, then healthy ones that never end."""

    def __init__(self, *sources: Any) -> None:
        self.sources = list(sources)
        self.made: list[Any] = []

    def __call__(self, spec: SourceSpec | None = None) -> Any:
        src = self.sources.pop(0) if self.sources else ScriptedSource(frames(8), then=None)
        if isinstance(src, Exception):
            raise src
        self.made.append(src)
        return src


def healthy() -> ScriptedSource:
    """A source that keeps sending distinct good frames."""
    good = frames(4)
    src = ScriptedSource([], then=None)
    src.read = lambda: good[int(time.monotonic() * 100) % 4].copy()  # type: ignore[method-assign]
    return src


@pytest.fixture
def capture_of() -> Iterator[Callable[..., Capture]]:
    made: list[Capture] = []

    def make(*sources: Any) -> Capture:
        cap = Capture(Factory(*sources, healthy()), label="fake camera", **FAST)
        made.append(cap)
        cap.start()
        return cap

    yield make
    for cap in made:
        cap.stop()


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        (RuntimeError("USB unplugged"), "USB unplugged"),
        (None, "stopped sending"),
        (np.zeros((5, 5), np.float64), "unusable pictures"),
        ("stall", "no picture"),
    ],
    ids=["raises", "ends", "garbage", "stalls"],
)
def test_fault_sets_error_status_then_reconnects(capture_of: Any, fault: Any, words: str) -> None:
    good = frames(5)
    script = [*good, *([fault] * 5 if not isinstance(fault, str) else [fault])]
    cap = capture_of(ScriptedSource(script, then=fault))
    assert wait_until(lambda: cap.latest() is not None)
    assert wait_until(lambda: cap.status()[0] == "error"), cap.status()
    assert words in cap.status()[1]
    seen_error_at = cap.latest()
    assert wait_until(lambda: cap.status()[0] == "ok" and cap.reconnects >= 1), cap.status()
    assert wait_until(lambda: cap.latest() is not seen_error_at)


def test_no_camera_at_start_then_it_appears(capture_of: Any) -> None:
    cap = capture_of(OSError("cannot open webcam 0"), OSError("cannot open webcam 0"))
    assert cap.status()[0] == "no_camera"
    assert wait_until(lambda: "cannot open webcam 0" in cap.status()[1]), cap.status()
    assert cap.status()[0] == "no_camera"
    assert wait_until(lambda: cap.status()[0] == "ok")
    assert cap.reconnects >= 2


def test_a_frozen_picture_is_noticed(capture_of: Any) -> None:
    still = frames(1)[0]
    cap = capture_of(ScriptedSource([], then=still))
    assert wait_until(lambda: "frozen" in cap.status()[1]), cap.status()
    assert wait_until(lambda: cap.status()[0] == "ok")


@pytest.fixture
def faulty_app(make_app: Callable[..., Flask]) -> tuple[Flask, Factory]:
    factory = Factory(ScriptedSource(frames(30), then=RuntimeError("camera unplugged")))
    app = make_app(
        CAMERA="1",
        CAMERA_SOURCE_FACTORY=factory,
        CAMERA_READER_FACTORY=PipReader,
        CAMERA_CAPTURE_OPTIONS=FAST,
    )
    return app, factory


def test_server_keeps_answering_through_camera_faults(faulty_app: tuple[Flask, Factory]) -> None:
    app, factory = faulty_app
    client = app.test_client()
    game = client.post("/api/games", json={"players": ["Ann", "Bob"]}).get_json()
    before = client.get(f"/api/games/{game['id']}").get_json()
    first = client.get("/api/camera").get_json()
    assert first["source"] == "webcam 1"
    statuses = set()
    deadline = time.monotonic() + 6
    while time.monotonic() < deadline and not {"ok", "error"} <= statuses:
        statuses.add(client.get("/api/camera").get_json()["status"])
        assert client.get("/api/camera/latest").status_code == 200
        assert client.get("/api/score?dice=1,5").status_code == 200
        time.sleep(0.02)
    assert {"ok", "error"} <= statuses
    assert wait_until(lambda: client.get("/api/camera").get_json()["reconnects"] >= 1)
    assert wait_until(lambda: client.get("/api/camera").get_json()["status"] == "ok")
    assert len(factory.made) >= 2
    after = client.get(f"/api/games/{game['id']}").get_json()
    assert (after["version"], after["state"]) == (before["version"], before["state"])  # untouched
