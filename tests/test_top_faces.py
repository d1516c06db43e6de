"""training.top_faces: rendered scenes relabelled with a box round each die's top face."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest

from scorekeeper.vision.evaluate import parse_yolo
from training.dice_scene import (
    Camera,
    Die,
    die_box,
    draw_scene,
    look_at,
    resting_rotation,
    top_face_box,
)
from training.top_faces import main, top_face_lines


def _camera(tilt_deg: float) -> Camera:
    """A camera 0.3 m from the origin, tilted ``tilt_deg`` from straight down towards -y."""
    t = math.radians(tilt_deg)
    eye = np.array((0.0, -0.3 * math.sin(t), 0.3 * math.cos(t)))
    rot = look_at(eye, np.zeros(3), 0.0)
    return Camera(
        tuple(eye.tolist()), tuple(tuple(r) for r in rot.tolist()), 400.0, 640, 480, tilt_deg
    )


def _die(value: int = 5) -> Die:
    """A die of a drawn scene put at the origin with ``value`` on top."""
    rotation = tuple(tuple(r) for r in resting_rotation(value, 0.3).tolist())
    die = draw_scene(3, 0).dice[0]
    return dataclasses.replace(die, position=(0.0, 0.0, die.size / 2), rotation=rotation)


def test_from_above_the_top_face_fills_the_die_and_at_a_tilt_its_upper_part() -> None:
    die = _die()
    fx0, fy0, fx1, fy1 = top_face_box(_camera(0.0), die)
    dx0, dy0, dx1, dy1 = die_box(_camera(0.0), die)
    assert math.isclose((fx0 + fx1) / 2, (dx0 + dx1) / 2, abs_tol=0.5)
    assert math.isclose((fy0 + fy1) / 2, (dy0 + dy1) / 2, abs_tol=0.5)
    assert 0.7 * (dx1 - dx0) < fx1 - fx0 < dx1 - dx0
    fx0, fy0, fx1, fy1 = top_face_box(_camera(50.0), die)
    dx0, dy0, dx1, dy1 = die_box(_camera(50.0), die)
    assert dx0 - 1 <= fx0 < fx1 <= dx1 + 1 and dy0 - 1 <= fy0 < fy1 <= dy1 + 1
    assert fy0 - dy0 < 0.15 * (dy1 - dy0)  # the top face is the upper part of the die
    assert fy1 - fy0 < 0.6 * (dy1 - dy0)  # seen squashed: its sides fill the rest
    assert fy1 - fy0 < 0.8 * (fx1 - fx0)


def test_each_die_gets_its_top_value_and_a_box_inside_its_whole_box() -> None:
    scene = draw_scene(3, 1, layout="steep")
    lines = top_face_lines(scene.to_json())
    w, h = scene.camera.width, scene.camera.height
    faces = [b for line in lines for b in parse_yolo(line, w, h)]
    assert [v for v, _ in faces] == [d.value for d in scene.dice]
    for (_, (x0, y0, x1, y1)), die in zip(faces, scene.dice, strict=True):
        a0, b0, a1, b1 = die_box(scene.camera, die)
        slack = 0.05 * (a1 - a0)
        assert a0 - slack <= x0 < x1 <= a1 + slack and b0 - slack <= y0 < y1 <= b1 + slack
        assert y1 - y0 < 0.8 * (b1 - b0)  # a steep camera sees the top face squashed


def test_the_folder_is_written_with_images_linked_and_bad_input_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rendered, out = tmp_path / "steep", tmp_path / "out"
    (rendered / "images").mkdir(parents=True)
    scenes = [draw_scene(3, i, layout="steep") for i in range(3)]
    for scene in scenes[:2]:  # the third scene's image is missing
        (rendered / "images" / f"{scene.name}.jpg").write_bytes(b"jpeg")
    (rendered / "scenes.jsonl").write_text("".join(json.dumps(s.to_json()) + "\n" for s in scenes))
    assert main([str(rendered), str(out)]) == 0
    err = capsys.readouterr().err
    assert f"{scenes[2].name}: no image; skipped" in err and "2 scenes written" in err
    labels = sorted(p.name for p in (out / "all" / "labels").iterdir())
    assert labels == [f"{s.name}.txt" for s in scenes[:2]]
    assert (out / "all" / "images" / f"{scenes[0].name}.jpg").read_bytes() == b"jpeg"
    text = (out / "all" / "labels" / f"{scenes[0].name}.txt").read_text()
    assert len(text.splitlines()) == len(scenes[0].dice)
    (rendered / "scenes.jsonl").write_text('{"name": "x"}\n')
    assert main([str(rendered), str(out)]) == 2
    assert "scenes.jsonl:1: not a scene" in capsys.readouterr().err
    assert main([str(tmp_path / "none"), str(out)]) == 2
    assert "no such file (a folder make render wrote is expected)" in capsys.readouterr().err
