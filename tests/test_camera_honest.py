"""Camera honesty: ``auto`` without a webcam means no camera (the demo only when asked), a
proposal only from frames taken after the throw began, and the demo left out of the stats."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask
from helpers.camera import PipReader, scene

from scorekeeper.camera import CameraService, SettleConfig, SourceKind, SourceSpec
from scorekeeper.camera.sources import FrameSource

THROW = [(1, 100, 120), (5, 220, 260), (5, 330, 140)]
AGAIN = [(2, 120, 100), (6, 300, 300), (4, 480, 200)]


class StillSource:
    """A fake demo camera: the same picture at 50 frames a second."""

    name = "fake demo"
    interval = 0.02

    def __init__(self) -> None:
        self.info: dict[str, Any] = {}

    def open(self) -> None:
        """Nothing to open."""

    def read(self) -> Any:
        return scene(THROW)

    def close(self) -> None:
        """Nothing to close."""


def no_webcam(opened: list[SourceSpec]) -> Callable[[SourceSpec], FrameSource]:
    """A source factory with no webcam on the machine (it notes every source made)."""

    class Missing(StillSource):
        def open(self) -> None:
            raise OSError("cannot open webcam 0")

    def make(spec: SourceSpec) -> FrameSource:
        opened.append(spec)
        return Missing() if spec.kind == SourceKind.WEBCAM else StillSource()

    return make


def wait_until(check: Callable[[], Any], timeout: float = 5.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.02)
    raise AssertionError("timed out")


def test_auto_without_a_webcam_runs_no_camera_until_the_demo_is_asked_for() -> None:
    opened: list[SourceSpec] = []
    svc = CameraService("auto", reader_factory=PipReader, source_factory=no_webcam(opened))
    svc.start()
    try:
        wait_until(lambda: svc.kind == SourceKind.NONE)
        st = svc.status()
        assert st["demo_available"] is True and st["status"] == "no_camera"
        assert st["message"].startswith("No camera found")
        time.sleep(0.2)
        assert [s.kind for s in opened] == ["webcam"]  # no demo runs by itself
        assert svc.latest() is None
        svc.start_demo()
        assert svc.kind == SourceKind.DEMO and not svc.status()["demo_available"]
        wait_until(lambda: svc.latest() is not None)
        assert [s.kind for s in opened] == ["webcam", "demo"]
        svc.start_demo()  # asked again: it runs already
    finally:
        svc.stop()


def test_a_webcam_found_by_auto_is_used_and_offers_no_demo() -> None:
    svc = CameraService("auto", source_factory=lambda spec: StillSource())
    svc.start()
    try:
        wait_until(lambda: svc.latest() is not None)
        assert svc.kind == SourceKind.WEBCAM and svc.status()["demo_available"] is False
        with pytest.raises(ValueError, match="demo camera starts only where"):
            svc.start_demo()
    finally:
        svc.stop()


@pytest.fixture
def auto_app(make_app: Callable[..., Flask]) -> Flask:
    return make_app(
        CAMERA="auto", CAMERA_READER_FACTORY=PipReader, CAMERA_SOURCE_FACTORY=no_webcam([])
    )


def test_demo_camera_api_starts_it_only_when_asked(
    auto_app: Flask, make_app: Callable[..., Flask]
) -> None:
    client = auto_app.test_client()
    st = client.get("/api/camera").get_json()  # the first answer waits for the look
    assert st["kind"] == "none"
    assert st["demo_available"] and "No camera found" in st["message"]
    # the same guard as every state-changing call: JSON, and from this origin
    assert client.post("/api/camera/demo", data="{}", content_type="text/plain").status_code == 415
    foreign = client.post("/api/camera/demo", json={}, headers={"Origin": "http://evil:1"})
    assert foreign.status_code == 403
    bad = client.post("/api/camera/demo", json=[1])
    assert bad.status_code == 400 and "JSON object" in bad.get_json()["message"]
    assert client.get("/api/camera").get_json()["kind"] == "none"
    started = client.post("/api/camera/demo", json={})
    assert started.status_code == 200 and started.get_json()["kind"] == "demo"
    assert client.post("/api/camera/demo", json={}).status_code == 200
    # a camera chosen as none stays none
    none = make_app(CAMERA="none").test_client()
    refused = none.post("/api/camera/demo", json={})
    assert refused.status_code == 409 and "--camera auto" in refused.get_json()["message"]


def jpeg(img: Any) -> bytes:
    return bytes(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes())


def test_dice_lying_before_the_throw_began_are_never_offered(
    make_app: Callable[..., Flask],
) -> None:
    app = make_app(
        CAMERA="tablet",
        CAMERA_UPLOAD_FPS=1000.0,
        CAMERA_READER_FACTORY=PipReader,
        CAMERA_SETTLE=SettleConfig(still_s=0, vote_s=0),  # frames come as fast as the test runs
    )
    client = app.test_client()
    post = partial(client.post, content_type="image/jpeg")
    lying = jpeg(scene(THROW))
    for _ in range(10):  # the throw, settled and proposed (recorded by the player)
        body = post("/api/camera/frame?dice_left=3&throw=g:4", data=lying).get_json()
    assert body["proposal"]["dice"] == [1, 5, 5]
    # the game moved on (version 5): the same dice still lying there are not offered
    for _ in range(10):
        body = post("/api/camera/frame?dice_left=3&throw=g:5", data=lying).get_json()
        assert body["proposal"] is None and body["before_throw"] is True
    got = client.get("/api/camera/latest?dice_left=3&throw=g:5").get_json()
    assert got["proposal"] is None and got["dice"]  # the dice are seen, not offered
    # without a throw named, the API answers as before
    assert client.get("/api/camera/latest?dice_left=3").get_json()["proposal"] is not None
    # the new throw: the dice move, come to rest, and that is offered
    rng = np.random.default_rng(3)
    for _ in range(3):
        moving = [(v, int(rng.integers(20, 560)), int(rng.integers(20, 400))) for v, _, _ in AGAIN]
        post("/api/camera/frame?dice_left=3&throw=g:5", data=jpeg(scene(moving)))
    for _ in range(10):
        body = post("/api/camera/frame?dice_left=3&throw=g:5", data=jpeg(scene(AGAIN))).get_json()
    assert body["proposal"]["dice"] == [2, 4, 6] and body["before_throw"] is False


def test_demo_proposals_are_left_out_of_camera_stats(tmp_path: Path) -> None:
    from scorekeeper.camera.log import CameraLog

    log = CameraLog(tmp_path / "cam.sqlite3")
    log.add_proposal("d1", source="demo", frame_id=1, dice=[6], confidence=0.9, truth=[6])
    log.add_proposal("w1", source="webcam", frame_id=2, dice=[1, 5], confidence=0.9)
    log.set_outcome("d1", [6])
    log.set_outcome("w1", [1, 5])
    stats = log.stats()
    assert stats["proposals"] == 1 and stats["demo_left_out"] == 1
    assert list(stats["sources"]) == ["webcam"]
    assert log.stats(include_demo=True)["proposals"] == 2
    log.close()


def test_dice_left_lying_after_a_keep_are_not_offered_once_the_kept_ones_are_taken(
    make_app: Callable[..., Flask],
) -> None:
    """A hand takes the kept 1 away after the keep (motion, a new settle), and the two 5s lie
    where they lay: they were part of the recorded throw, so they are not offered; thrown
    again, they are."""
    app = make_app(
        CAMERA="tablet",
        CAMERA_UPLOAD_FPS=1000.0,
        CAMERA_READER_FACTORY=PipReader,
        CAMERA_SETTLE=SettleConfig(still_s=0, vote_s=0),
    )
    client = app.test_client()

    def send(dice: list[tuple[int, int, int]], key: str, n: int = 1) -> Any:
        for _ in range(n):
            body = client.post(
                f"/api/camera/frame?dice_left=3&throw={key}",
                data=jpeg(scene(dice)),
                content_type="image/jpeg",
            ).get_json()
        return body

    assert send(THROW, "g:4", 8)["proposal"]["dice"] == [1, 5, 5]
    hand = scene(THROW)
    hand[100:300, 50:200] = (90, 70, 60)  # a hand over the kept 1
    client.post(
        "/api/camera/frame?dice_left=2&throw=g:5", data=jpeg(hand), content_type="image/jpeg"
    )
    left = send(THROW[1:], "g:5", 8)
    assert left["proposal"] is None and left["before_throw"] is True
    assert sorted(d["value"] for d in left["dice"]) == [5, 5]
    # without a throw named the proposal is there, its dice lying since the first settle
    assert client.get("/api/camera/latest").get_json()["proposal"]["dice"] == [5, 5]
    thrown = [(5, 400, 60), (5, 500, 300)]
    send([(5, 10, 400), (5, 590, 10)], "g:5")
    assert send(thrown, "g:5", 8)["proposal"]["dice"] == [5, 5]
