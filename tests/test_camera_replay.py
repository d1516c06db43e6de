"""Recorded throws as a camera: a video file plays at its own frame rate, and ``eval-camera``
replays a recording of the demo tabletop and scores its proposals against the truth."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorekeeper.camera.replay import (
    Proposed,
    TrueThrow,
    load_truth,
    make_demo_recording,
    replay,
    score,
)
from scorekeeper.camera.sources import OpenCVSource, parse_source
from scorekeeper.cli import main
from scorekeeper.errors import CameraError
from scorekeeper.vision import default_model_path

needs_model = pytest.mark.skipif(
    not default_model_path().is_file(), reason="needs models/dice.onnx"
)


def test_a_video_file_plays_at_its_own_frame_rate(tmp_path: Path) -> None:
    video = tmp_path / "ten.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 10, (64, 48))
    for i in range(5):
        writer.write(np.full((48, 64, 3), 40 * i, np.uint8))
    writer.release()
    src = OpenCVSource(parse_source(str(video)))
    assert src.interval == 0  # not opened yet
    src.open()
    try:
        assert src.interval == pytest.approx(0.1)  # the capture thread paces it to 10 a second
        assert src.read() is not None
    finally:
        src.close()


def test_score_right_wrong_missed_extra_and_delay() -> None:
    truth = [TrueThrow(1.0, (1, 5)), TrueThrow(4.0, (2, 2, 3)), TrueThrow(8.0, (6,))]
    proposals = [
        Proposed(0.5, (3,)),  # before any throw came to rest: extra
        Proposed(1.5, (1, 5)),  # right, 0.5 s after rest
        Proposed(2.0, (1, 5)),  # a second one for the same throw: extra
        Proposed(4.8, (2, 3, 3)),  # wrong, 0.8 s
    ]  # the third throw: missed
    got = score(proposals, truth)
    assert (got["right"], got["wrong"], got["missed"], got["extra"]) == (1, 1, 1, 2)
    assert got["delay_s_median"] == pytest.approx(0.65) and got["delay_s_max"] == 0.8
    assert got["per_throw"][2] == {"rest_s": 8.0, "dice": [6], "proposed": None, "delay_s": None}


def test_truth_files_are_checked(tmp_path: Path) -> None:
    bad = tmp_path / "t.json"
    for text, words in (
        ("{", "cannot read"),
        ("[]", '"throws"'),
        ('{"throws": [{"rest_s": -1, "dice": [1]}]}', "throw 1 needs rest_s"),
        ('{"throws": [{"rest_s": 1, "dice": [7]}]}', "throw 1 needs rest_s"),
    ):
        bad.write_text(text)
        with pytest.raises(CameraError, match=words):
            load_truth(bad)
    bad.write_text('{"throws": [{"rest_s": 3, "dice": [5, 1]}, {"rest_s": 1, "dice": [2]}]}')
    assert load_truth(bad) == [TrueThrow(1.0, (2,)), TrueThrow(3.0, (1, 5))]


@needs_model
def test_a_demo_recording_replays_into_right_proposals_soon_after_rest(tmp_path: Path) -> None:
    from scorekeeper.camera.reading import default_reader_factory

    video = tmp_path / "demo.avi"
    truth = make_demo_recording(video, 3, seed=1, lie_s=1.5)
    assert json.loads(Path(f"{video}.json").read_text()) == truth
    throws = load_truth(Path(f"{video}.json"))
    assert len(throws) == 3 and throws[0].rest_s == pytest.approx(0.8)
    ticks = itertools.count()
    # a clock that charges 20 ms to each frame's processing, whatever this machine does
    proposals, fps = replay(video, default_reader_factory()(), clock=lambda: next(ticks) * 0.02)
    assert fps == 15
    got = score(proposals, throws)
    assert (got["right"], got["wrong"], got["missed"], got["extra"]) == (3, 0, 0, 0), got
    assert got["delay_s_max"] <= 1.5


@needs_model
def test_eval_camera_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    video = tmp_path / "rec.avi"
    assert main(["record-demo", str(video), "--throws", "2", "--seed", "3"]) == 0
    assert "2 throws" in capsys.readouterr().out
    assert main(["eval-camera", str(video), f"{video}.json", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["throws"] == 2 and out["right"] == 2 and out["extra"] == 0
    assert main(["eval-camera", str(video), f"{video}.json"]) == 0
    assert "2 right, 0 wrong, 0 missed, 0 extra" in capsys.readouterr().out
    assert main(["eval-camera", str(tmp_path / "none.avi"), f"{video}.json"]) == 2
    assert "no video at" in capsys.readouterr().err
