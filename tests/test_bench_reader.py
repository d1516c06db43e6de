"""The reader's benchmark: its frames (a mosaic of small dice) and its refusals."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_reader import bench_frames, main  # noqa: E402


def test_a_mosaic_frame_holds_k_by_k_images_at_the_frame_size() -> None:
    plain = bench_frames([])
    tiled = bench_frames([], mosaic=3)
    assert len(tiled) == len(plain) and all(f.shape == (480, 640, 3) for f in tiled)
    # the first frame's top-left ninth is the first image shrunk three times
    first = plain[0][::3, ::3].astype(int)[:160, :213]
    assert np.abs(tiled[0][:160, :213].astype(int) - first).mean() < 12
    assert not np.array_equal(tiled[0], plain[0])


def test_small_dice_in_a_640_frame_are_read_again_zoomed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    image = str(ROOT / "sample_images" / "scene-01-wood.jpg")
    assert main([image, "--mosaic", "3", "--frames", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["zoom_frames"] == "1 of 1" and out["size"] == "640x480"


@pytest.mark.parametrize("k", ["0", "9"])
def test_a_mosaic_outside_1_to_8_is_refused(capsys: pytest.CaptureFixture[str], k: str) -> None:
    assert main(["--mosaic", k, "--frames", "1"]) == 2
    assert "--mosaic must be 1 to 8 images across" in capsys.readouterr().err


def test_no_above_reads_no_die_again_above_its_box(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--frames", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["above_views"] == [[0.5, 0.8]]
    assert main(["--frames", "1", "--no-above"]) == 0
    assert json.loads(capsys.readouterr().out)["above_views"] == []


def test_no_heap_looks_at_no_weaker_peak(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--frames", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["heap_heat"] == 0.2
    assert main(["--frames", "1", "--no-heap"]) == 0
    assert json.loads(capsys.readouterr().out)["heap_heat"] == 0.0
