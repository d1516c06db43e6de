"""Sources and frames: parsing ``--camera``, the demo's tumble-then-rest loop, upload decoding."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from helpers.camera import scene

from scorekeeper.camera.frames import decode_upload, frame_problem, image_size
from scorekeeper.camera.settle import MotionDetector
from scorekeeper.camera.sources import DemoSource, SourceSpec, load_truth, parse_source
from scorekeeper.errors import CameraError

DICE = [(1, 100, 120), (5, 300, 260), (3, 450, 100)]


def test_parse_source() -> None:
    assert parse_source(None) == SourceSpec("auto")
    assert parse_source("2") == SourceSpec("webcam", "2")
    assert parse_source(" none ").kind == "none"
    assert parse_source("tablet").kind == "tablet"
    assert parse_source("demo:/x").target == "/x"
    url = parse_source("rtsp://user:secret@cam.local/live")
    assert url.kind == "url" and "secret" not in url.label
    with pytest.raises(CameraError, match="accepted: auto, none, demo, tablet"):
        parse_source("webcam please")


@pytest.mark.parametrize("labels", [False, True], ids=["shake", "roll"])
def test_demo_tumbles_then_rests(tmp_path: Path, labels: bool) -> None:
    img = scene(DICE)
    cv2.imwrite(str(tmp_path / "a.png"), img)
    (tmp_path / "truth.json").write_text(json.dumps({"a.png": [5, 1, 3]}))
    if labels:
        boxes = [{"value": v, "box": [x, y, x + 48, y + 48]} for v, x, y in DICE]
        (tmp_path / "labels.json").write_text(json.dumps({"a.png": boxes}))
    src = DemoSource(tmp_path, fps=0, tumble_frames=6, still_frames=10)
    src.open()
    motion = MotionDetector()
    phases, moving = [], []
    for _ in range(16):
        frame = src.read()
        assert frame is not None and frame.shape == img.shape
        phases.append(src.info["phase"])
        moving.append(motion.update(frame) > 0.003)
        assert src.info["truth"] == [1, 3, 5] and src.info["scene"] == "a.png"
    assert phases == ["tumble"] * 6 + ["still"] * 10
    # the first still frame still differs from the last rolling one; then nothing moves
    assert all(moving[:7]) and not any(moving[7:])
    assert np.abs(frame.astype(int) - img.astype(int)).max() <= 2  # the scene itself, plus noise


def test_demo_folder_errors(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="does not exist"):
        DemoSource(tmp_path / "missing").open()
    with pytest.raises(OSError, match="no images"):
        DemoSource(tmp_path).open()
    (tmp_path / "truth.json").write_text(json.dumps([{"file": "x.png", "dice": [{"value": 4}]}]))
    assert load_truth(tmp_path) == {"x.png": [4]}


def test_frames_and_uploads() -> None:
    img = scene(DICE)
    jpeg = bytes(cv2.imencode(".jpg", img)[1].tobytes())
    png = bytes(cv2.imencode(".png", img)[1].tobytes())
    assert image_size(jpeg) == (640, 480) and image_size(png) == (640, 480)
    assert decode_upload(jpeg).shape == (480, 640, 3)
    assert frame_problem(img) is None
    assert "expected uint8" in (frame_problem(img.astype(np.float32)) or "")
    assert "sides from" in (frame_problem(np.zeros((4, 4, 3), np.uint8)) or "")
    assert "image array" in (frame_problem("not a frame") or "")
    with pytest.raises(CameraError, match="empty"):
        decode_upload(b"")
    with pytest.raises(CameraError, match="at most 100 bytes"):
        decode_upload(jpeg, max_bytes=100)


def test_demo_throws_the_dice_asked_for_and_leaves_them_lying(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), scene(DICE))
    asked: list[tuple[int, str] | None] = [None]
    src = DemoSource(tmp_path, fps=0, tumble_frames=4, still_frames=5, throws=lambda: asked[0])
    src.open()
    for _ in range(3):  # nobody has asked: the folder's scene
        assert src.read() is not None and src.info["scene"] == "a.png"
    asked[0] = (4, "game:3")
    motion = MotionDetector()
    phases, moving = [], []
    for _ in range(30):  # far past still_frames: thrown dice lie until the next throw
        frame = src.read()
        assert frame is not None and frame.shape == (480, 640, 3)
        phases.append(src.info["phase"])
        moving.append(motion.update(frame) > 0.003)
    first = src.info["scene"]
    assert first.startswith("throw-1-") and len(src.info["truth"]) == 4
    assert phases == ["tumble"] * 4 + ["still"] * 26
    assert all(moving[1:5]) and not any(moving[5:])
    asked[0] = (6, "game:3")  # the same key: the same throw, whatever the count says
    src.read()
    assert src.info["scene"] == first and src.info["phase"] == "still"
    asked[0] = (9, "game:5")  # a new key: the next throw, of at most six dice
    src.read()
    assert src.info["scene"].startswith("throw-2-") and src.info["phase"] == "tumble"
    assert len(src.info["truth"]) == 6
    # seeded: the same seed throws the same dice, another seed others
    one, two, other = (DemoSource(tmp_path, seed=s) for s in (0, 0, 1))
    a, b, c = (s.render_throw(5) for s in (one, two, other))
    assert np.array_equal(a[1], b[1]) and a[2] == b[2] and not np.array_equal(a[1], c[1])


def test_the_builtin_demo_throws_anew_each_start_unless_seeded() -> None:
    from scorekeeper.camera.service import CameraService

    def demo(options: dict[str, int] | None = None) -> DemoSource:
        src = CameraService("demo", demo_options=options)._make_source()
        assert isinstance(src, DemoSource) and src.throws is not None
        return src

    assert demo().seed != demo().seed  # a fresh server starts another sequence of throws
    assert demo({"seed": 5}).seed == 5
    folder = CameraService("demo:/x")._make_source()
    assert isinstance(folder, DemoSource) and folder.throws is None  # plays its pictures only


def test_asked_throws_follow_new_keys_only() -> None:
    """Two play pages polling at once (two games, or a tab left open) each send their own key:
    only a key not seen before asks for a new throw, so the demo does not throw at every poll."""
    from scorekeeper.camera.service import CameraService

    svc = CameraService("demo")
    assert svc.asked_throw() is None
    for dice, key in ((6, "a:1"), (4, "b:7"), (6, "a:1"), (4, "b:7"), (6, "a:1")):
        svc.ask_throw(dice, key)
    assert svc.asked_throw() == (4, "b:7")  # game a's key came back: nothing new
    svc.ask_throw(3, "a:2")  # game a moved on
    assert svc.asked_throw() == (3, "a:2")
