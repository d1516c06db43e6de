"""Rendered dice (training/dice_scene.py, render.py, render_sheet.py): pips, top faces, boxes,
labels and seeds without Blender; with Blender (``.venv-render``, made by ``make render``) one
tiny render and the camera checked against the labels' projection, else skipped."""

from __future__ import annotations

import dataclasses
import math
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorekeeper.vision.evaluate import parse_yolo
from training.dice_scene import (
    FACE_NORMALS,
    MATERIALS,
    PIECES,
    PIP_COLOURS,
    TABLES,
    Camera,
    Die,
    die_box,
    draw_scene,
    face_frame,
    pip_layout,
    pip_points,
    project,
    resting_rotation,
    top_value,
    write_labels,
    yolo_lines,
)
from training.render_sheet import draw_labels, sheet
from training.render_sheet import main as sheet_main

ROOT = Path(__file__).resolve().parents[1]


def _rotation(axis: tuple[float, float, float], angle: float) -> np.ndarray:
    """Rodrigues: a rotation of ``angle`` about ``axis``."""
    k = np.array(axis, dtype=float) / np.linalg.norm(axis)
    kx = np.array(((0, -k[2], k[1]), (k[2], 0, -k[0]), (-k[1], k[0], 0)))
    return np.eye(3) + math.sin(angle) * kx + (1 - math.cos(angle)) * kx @ kx


def test_pip_layouts_have_value_many_pips_point_symmetric_inside_the_face() -> None:
    for value in range(1, 7):
        pips = np.array(pip_layout(value))
        assert len(pips) == value
        assert np.abs(pips).max() < 0.75  # clear of the rounded edges
        # Every real die face looks the same turned half a turn.
        assert sorted(map(tuple, np.round(-pips, 9))) == sorted(map(tuple, np.round(pips, 9)))
        assert len({tuple(p) for p in pips}) == value
    assert pip_layout(1) == [(0.0, 0.0)]
    assert (0.0, 0.0) in pip_layout(5) and (0.0, 0.0) not in pip_layout(4)


def test_pip_layout_refuses_a_face_that_is_not_1_to_6() -> None:
    with pytest.raises(ValueError, match="1-6"):
        pip_layout(7)


def test_opposite_faces_sum_to_seven_and_1_2_3_turn_anticlockwise() -> None:
    for value, normal in FACE_NORMALS.items():
        assert np.allclose(np.array(FACE_NORMALS[7 - value]), -np.array(normal))
    n1, n2, n3 = (np.array(FACE_NORMALS[v]) for v in (1, 2, 3))
    assert np.linalg.det(np.stack((n1, n2, n3))) > 0  # Western (right-handed) dice


def test_face_frames_are_right_handed_and_pips_lie_on_their_face() -> None:
    for value in range(1, 7):
        n, u, v = face_frame(value)
        assert np.allclose(np.cross(u, v), n)
        for p in pip_points(value, half=0.5):
            assert math.isclose(float(p @ n), 0.5)
            assert np.abs(p).max() <= 0.5 + 1e-12


@pytest.mark.parametrize("top", range(1, 7))
def test_the_face_put_up_is_the_top_value_at_any_yaw(top: int) -> None:
    for yaw in np.linspace(0, 2 * math.pi, 13):
        rot = resting_rotation(top, float(yaw))
        assert np.allclose(rot @ rot.T, np.eye(3))
        assert math.isclose(np.linalg.det(rot), 1.0)
        assert np.allclose(rot @ np.array(FACE_NORMALS[top]), (0, 0, 1))
        assert top_value(rot) == top
        # Leaning a little (on a pip, on a crack in the table) keeps the same face up.
        assert top_value(_rotation((1, 0.3, 0), 0.3) @ rot) == top


def test_top_value_of_quarter_turns() -> None:
    assert top_value(np.eye(3)) == 1
    assert top_value(_rotation((1, 0, 0), math.pi / 2)) == 3  # +y goes up
    assert top_value(_rotation((1, 0, 0), -math.pi / 2)) == 4  # -y goes up
    assert top_value(_rotation((0, 1, 0), math.pi / 2)) == 5  # -x goes up
    assert top_value(_rotation((0, 1, 0), -math.pi / 2)) == 2
    assert top_value(_rotation((1, 0, 0), math.pi)) == 6


def _down_camera(height: float, focal: float = 400.0) -> Camera:
    """A camera ``height`` above the origin looking straight down, +y up in the image."""
    return Camera(
        position=(0.0, 0.0, height),
        rotation=((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
        focal_px=focal,
        width=640,
        height=480,
        tilt_deg=0.0,
    )


def test_projection_is_a_pinhole_with_y_down_in_the_image() -> None:
    cam = _down_camera(1.0)
    xy = project(cam, np.array(((0.0, 0.0, 0.0), (0.1, 0.0, 0.0), (0.0, 0.1, 0.0), (0, 0, 0.5))))
    assert np.allclose(xy[0], (320, 240))
    assert np.allclose(xy[1], (360, 240))  # +x: right
    assert np.allclose(xy[2], (320, 200))  # +y (up in the camera): up in the image
    assert np.allclose(xy[3], (320, 240))
    with pytest.raises(ValueError, match="behind"):
        project(cam, np.array(((0.0, 0.0, 2.0),)))


def _die(size: float = 0.02, yaw: float = 0.0, bevel: float = 0.12, value: int = 3) -> Die:
    return Die(
        size=size,
        position=(0.0, 0.0, size / 2),
        rotation=tuple(tuple(r) for r in resting_rotation(value, yaw).tolist()),
        value=value,
        material="opaque",
        body_colour=(1.0, 1.0, 1.0),
        second_colour=(0.0, 0.0, 0.0),
        pip_colour="black",
        roughness=0.4,
        bevel=bevel,
    )


def test_a_die_seen_from_straight_above_spans_its_edge_at_its_nearest_full_width() -> None:
    cam, die = _down_camera(0.3), _die()
    x0, y0, x1, y1 = die_box(cam, die)
    # Widest at the top of its straight sides (height size - bevel radius).
    expected = 2 * 400 * 0.01 / (0.3 - (0.02 - 0.12 * 0.02))
    assert math.isclose(x1 - x0, expected, rel_tol=0.01)
    assert math.isclose(y1 - y0, expected, rel_tol=0.01)
    assert math.isclose((x0 + x1) / 2, 320, abs_tol=0.01)
    # Turned 45°, its box grows by up to √2 (less the rounded corners).
    t0, _, t1, _ = die_box(cam, _die(yaw=math.pi / 4))
    assert 1.25 * expected < t1 - t0 < math.sqrt(2) * expected


def test_yolo_lines_give_value_minus_one_and_the_box_in_frame_shares() -> None:
    scene = draw_scene(4, 2)
    lines = yolo_lines(scene)
    assert len(lines) == len(scene.dice)
    for line, die in zip(lines, scene.dice, strict=True):
        cls, xc, _, w, h = line.split()
        assert int(cls) == die.value - 1
        x0, y0, x1, y1 = die_box(scene.camera, die)
        assert math.isclose(float(xc), (x0 + x1) / 2 / scene.camera.width, abs_tol=2e-6)
        assert math.isclose(float(h), (y1 - y0) / scene.camera.height, abs_tol=2e-6)
        assert 0 < float(w) < 0.5 and 0 < float(h) < 0.6


def test_a_box_past_the_frame_is_clipped_and_one_out_of_it_dropped() -> None:
    scene = draw_scene(4, 2)
    cam = scene.camera
    die = scene.dice[0]
    # Move the first die until its box crosses the left edge, the second far away.
    x0, _, x1, _ = die_box(cam, die)
    right = np.array(cam.rotation)[:, 0]
    depth = np.linalg.norm(np.array(cam.position) - np.array(die.position))
    shift = right * (-(x0 + x1) / 2 / cam.focal_px * depth)
    near = dataclasses.replace(die, position=tuple((np.array(die.position) + shift).tolist()))
    gone = dataclasses.replace(
        die, position=tuple((np.array(die.position) - 5 * right * depth).tolist())
    )
    lines = yolo_lines(dataclasses.replace(scene, dice=(near, gone)))
    assert len(lines) == 1
    _, xc, _, w, _ = (float(p) for p in lines[0].split())
    assert math.isclose(xc - w / 2, 0.0, abs_tol=1e-6)


def test_labels_are_written_to_labels_name_txt(tmp_path: Path) -> None:
    scene = draw_scene(1, 5)
    path = write_labels(scene, tmp_path)
    assert path == tmp_path / "labels" / f"{scene.name}.txt"
    assert path.read_text().splitlines() == yolo_lines(scene)
    truth = parse_yolo(path.read_text(), scene.camera.width, scene.camera.height)
    assert [value for value, _ in truth] == [d.value for d in scene.dice]


def test_the_same_seed_and_index_give_the_same_scene_and_others_differ() -> None:
    assert draw_scene(7, 3) == draw_scene(7, 3)
    assert draw_scene(7, 3).to_json() == draw_scene(7, 3).to_json()
    assert draw_scene(7, 3) != draw_scene(7, 4)
    assert draw_scene(7, 3) != draw_scene(8, 3)
    assert draw_scene(7, 3).name == "render-s7-00003"


def test_scenes_hold_1_to_8_resting_apart_dice_in_frame_from_every_kind() -> None:
    seen: dict[str, set[str]] = {"material": set(), "pips": set(), "table": set()}
    counts = set()
    for index in range(60):
        scene = draw_scene(0, index)
        counts.add(len(scene.dice))
        assert 1 <= len(scene.dice) <= 8
        assert 0 <= scene.camera.tilt_deg <= 40
        seen["table"].add(scene.table)
        for die in scene.dice:
            seen["material"].add(die.material)
            seen["pips"].add(die.pip_colour)
            assert top_value(np.array(die.rotation)) == die.value
            assert math.isclose(die.position[2], die.size / 2)
            x0, y0, x1, y1 = die_box(scene.camera, die)
            assert x0 > 0 and y0 > 0 and x1 < scene.camera.width and y1 < scene.camera.height
        for i, a in enumerate(scene.dice):  # never touching, whatever their yaw
            for b in scene.dice[i + 1 :]:
                gap = math.dist(a.position[:2], b.position[:2])
                assert gap > (a.size + b.size) / 2 * math.sqrt(2)
    assert seen == {"material": set(MATERIALS), "pips": set(PIP_COLOURS), "table": set(TABLES)}
    assert counts == set(range(1, 9))


@pytest.mark.parametrize(
    ("layout", "dice", "tilt"), [("steep", (1, 8), (40, 68)), ("heap", (8, 20), (0, 50))]
)
def test_steep_and_heap_layouts_keep_their_dice_count_tilt_and_never_overlap(
    layout: str, dice: tuple[int, int], tilt: tuple[int, int]
) -> None:
    counts = set()
    for index in range(25):
        scene = draw_scene(3, index, layout=layout)
        assert scene.layout == layout and scene.name == f"render-{layout}-s3-{index:05d}"
        counts.add(len(scene.dice))
        assert dice[0] <= len(scene.dice) <= dice[1]
        assert tilt[0] <= scene.camera.tilt_deg <= tilt[1]
        for die in scene.dice:
            x0, y0, x1, y1 = die_box(scene.camera, die)
            assert x0 > 0 and y0 > 0 and x1 < scene.camera.width and y1 < scene.camera.height
        for i, a in enumerate(scene.dice):
            for b in scene.dice[i + 1 :]:
                gap = math.dist(a.position[:2], b.position[:2])
                assert gap > (a.size + b.size) / 2 * math.sqrt(2)
    assert len(counts) > 3
    assert draw_scene(3, 0, layout=layout) != draw_scene(3, 0)


def test_pieces_lie_among_the_dice_unlabelled_and_never_touching_them() -> None:
    kinds = set()
    for index in range(30):
        scene = draw_scene(2, index, layout="pieces")
        assert 1 <= len(scene.dice) <= 6 and 3 <= len(scene.pieces) <= 10
        assert len(yolo_lines(scene)) == len(scene.dice)  # only the dice are labelled
        things = [(d.position, d.size) for d in scene.dice]
        things += [(p.position, p.size) for p in scene.pieces]
        for i, (a, sa) in enumerate(things):
            for b, sb in things[i + 1 :]:
                assert math.dist(a[:2], b[:2]) > 0.75 * (sa + sb)
        for piece in scene.pieces:
            kinds.add(piece.kind)
            assert piece.position[2] == 0.0 and (piece.dots > 0) == (piece.kind == "token")
            if piece.kind == "token":  # as on Catan's tokens: 2 and 12 one dot, 6 and 8 five
                assert piece.number in {2, 3, 4, 5, 6, 8, 9, 10, 11, 12}
                assert piece.dots == 6 - abs(7 - piece.number)
    assert kinds == set(PIECES)
    assert draw_scene(2, 0, layout="heap").pieces == ()


def test_an_unknown_layout_is_refused_with_the_known_ones() -> None:
    known = "the layouts are apart, steep, heap, pieces"
    with pytest.raises(ValueError, match=f"unknown layout 'pile'; {known}"):
        draw_scene(0, 0, layout="pile")


def test_the_contact_sheet_draws_each_box_and_names_bad_label_files(tmp_path: Path) -> None:
    img = np.full((60, 80, 3), 40, np.uint8)
    drawn = draw_labels(img, [(5, (20.0, 15.0, 60.0, 45.0))])
    assert (drawn[15, 20:60] == (0, 255, 0)).all()  # the box's top edge, in green
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.jpg"), img)
    (tmp_path / "labels" / "a.txt").write_text("4 0.5 0.5\n")
    with pytest.raises(ValueError, match=r"a.txt: label line 1 '4 0.5 0.5': expected 'CLASS XC"):
        sheet(tmp_path, 1, 1)
    assert sheet_main([str(tmp_path), "--out", str(tmp_path / "s.png")]) == 2
    (tmp_path / "labels" / "a.txt").write_text("4 0.5 0.5 0.5 0.5\n")
    assert sheet_main([str(tmp_path), "--out", str(tmp_path / "s.png")]) == 0
    assert cv2.imread(str(tmp_path / "s.png")).shape == (60, 80, 3)
    assert sheet_main([str(tmp_path / "empty"), "--out", str(tmp_path / "t.png")]) == 2


def _render_python() -> str | None:
    """A Python with bpy: $SCOREKEEPER_RENDER_PYTHON, .venv-render's, or this one."""
    for candidate in (
        os.environ.get("SCOREKEEPER_RENDER_PYTHON"),
        str(ROOT / ".venv-render" / "bin" / "python"),
    ):
        if candidate and Path(candidate).exists():
            return candidate
    try:
        import bpy  # noqa: F401
    except ImportError:
        return None
    return sys.executable


RENDER_PYTHON = _render_python()


def _run(command: list[str], timeout: int) -> subprocess.CompletedProcess[str]:
    """``command`` run from the repository's root, its output captured as text."""
    return subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False
    )


needs_bpy = pytest.mark.skipif(RENDER_PYTHON is None, reason="no bpy (make render installs it)")


@needs_bpy
@pytest.mark.slow
def test_blender_renders_a_scene_with_its_labels(tmp_path: Path) -> None:
    assert RENDER_PYTHON is not None
    args = ["--out", str(tmp_path), "--count", "2", "--seed", "5", "--size", "128", "96"]
    run = _run([RENDER_PYTHON, "-m", "training.render", *args, "--samples", "2"], timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "render-s5-00001.jpg" in run.stdout and "rendered 2 images in" in run.stdout
    for index in (0, 1):
        scene = draw_scene(5, index, 128, 96, 2)
        image = cv2.imread(str(tmp_path / "images" / f"{scene.name}.jpg"))
        assert image is not None and image.shape == (96, 128, 3)
        assert image.std() > 3  # not a blank frame
        labels = (tmp_path / "labels" / f"{scene.name}.txt").read_text().splitlines()
        assert labels == yolo_lines(scene)
    assert len((tmp_path / "scenes.jsonl").read_text().splitlines()) == 2


@needs_bpy
def test_blender_renders_game_pieces_that_stay_unlabelled(tmp_path: Path) -> None:
    assert RENDER_PYTHON is not None
    args = ["--out", str(tmp_path), "--count", "1", "--seed", "2", "--size", "128", "96"]
    run = _run(
        [RENDER_PYTHON, "-m", "training.render", *args, "--samples", "2", "--layout", "pieces"],
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    scene = draw_scene(2, 0, 128, 96, 2, "pieces")
    assert scene.pieces and f"{scene.name}.jpg" in run.stdout
    image = cv2.imread(str(tmp_path / "images" / f"{scene.name}.jpg"))
    assert image is not None and image.std() > 3
    labels = (tmp_path / "labels" / f"{scene.name}.txt").read_text().splitlines()
    assert labels == yolo_lines(scene) and len(labels) == len(scene.dice)


@needs_bpy
def test_blenders_camera_puts_the_dice_where_the_labels_do() -> None:
    assert RENDER_PYTHON is not None
    code = (
        "from training.render import projection_error\n"
        "from training.dice_scene import draw_scene\n"
        "print(max(projection_error(draw_scene(2, i)) for i in range(3)))\n"
    )
    run = _run([RENDER_PYTHON, "-c", code], timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert float(run.stdout.split()[-1]) < 0.01  # pixels


def test_render_refuses_an_output_folder_inside_the_repository() -> None:
    python = RENDER_PYTHON or sys.executable
    run = _run(
        [python, "-m", "training.render", "--out", str(ROOT / "build" / "x"), "--count", "1"],
        timeout=120,
    )
    assert run.returncode == 2
    assert "inside the repository" in run.stderr  # refused before bpy is needed


def test_render_without_bpy_says_how_to_get_it(tmp_path: Path) -> None:
    try:
        import bpy  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("this Python has bpy")
    run = _run(
        [sys.executable, "-m", "training.render", "--out", str(tmp_path), "--count", "1"],
        timeout=120,
    )
    assert run.returncode == 2
    assert "bpy" in run.stderr and "make render" in run.stderr
    assert "Traceback" not in run.stderr


@needs_bpy
def test_each_pip_is_a_whole_recessed_dimple_in_the_pip_colour() -> None:
    assert RENDER_PYTHON is not None
    code = (
        "import math\n"
        "from training import render as R\n"
        "R._blender()\n"
        "R.bpy.ops.wm.read_factory_settings(use_empty=True)\n"
        "m = R._die_mesh(0.12)\n"
        "pip = [p for p in m.polygons if p.material_index == 1]\n"
        "print(sum(p.area for p in pip), max(max(abs(c) for c in p.center) for p in pip),\n"
        "      max(abs(c) for v in m.vertices for c in v.co))\n"
    )
    run = _run([RENDER_PYTHON, "-c", code], timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    area, deepest_centre, extent = (float(x) for x in run.stdout.split()[-3:])
    from training.render import PIP_DEPTH, PIP_RADIUS

    sphere = (PIP_RADIUS**2 + PIP_DEPTH**2) / (2 * PIP_DEPTH)
    caps = 21 * 2 * math.pi * sphere * PIP_DEPTH  # 21 spherical caps
    assert math.isclose(area, caps, rel_tol=0.03)
    assert deepest_centre < 0.5  # sunk below the faces, never a bump
    assert math.isclose(extent, 0.5, abs_tol=1e-6)
