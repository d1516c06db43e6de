"""A die read surely takes another face read above it, marked unsure: its top face at an angle."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorekeeper.vision import Detection, DiceReader, ReaderConfig, load_image
from scorekeeper.vision.config import parse_above_views
from scorekeeper.vision.patches import above_patch_batch

SAMPLES = Path(__file__).resolve().parents[1] / "sample_images"


@pytest.fixture(scope="module")
def tray() -> tuple[np.ndarray, list[Detection]]:
    """The tray sample scene and its dice as read without the check."""
    frame = load_image(SAMPLES / "scene-04-tray.jpg")
    dice = DiceReader(config=ReaderConfig(above_views=())).infer(frame)
    assert sorted(d.value for d in dice) == [1, 5, 6, 6] and not any(d.unsure for d in dice)
    return frame, dice


def with_face_above(frame: np.ndarray, die: Detection, face: Detection) -> np.ndarray:
    """``frame`` with ``face``'s die squashed to 0.7 of its height and set on top of ``die``'s
    box, as a die's top face shows above its front face when seen at an angle."""
    out = frame.copy()
    x0, y0, x1, y1 = (round(v) for v in die.box)
    fx0, fy0, fx1, fy1 = (round(v) for v in face.box)
    h = round((y1 - y0) * 0.7)
    out[y0 - h : y0, x0:x1] = cv2.resize(frame[fy0:fy1, fx0:fx1], (x1 - x0, h))
    return out


def test_a_sure_die_with_another_face_above_it_takes_that_face_marked_unsure(
    tray: tuple[np.ndarray, list[Detection]],
) -> None:
    frame, dice = tray
    six = next(d for d in dice if d.value == 6)
    five = next(d for d in dice if d.value == 5)
    reader = DiceReader(config=ReaderConfig())
    assert reader.config.above_views == ((0.5, 0.8),)
    # nothing above any die of the scene: every one stays as read
    assert reader.check_above(frame, dice) == dice
    assert reader.infer(frame) == [replace(d, unsure_below=reader.unsure_below) for d in dice]
    # a 6 set above the 5: the die there takes the face above it, the top face of a die seen
    # at an angle, marked unsure; the others stay sure
    staged = with_face_above(frame, five, six)
    checked = reader.check_above(staged, dice)
    doubted = [d for d in checked if d.unsure]
    assert [(d.value, d.box) for d in doubted] == [(6, five.box)]
    assert 0.5 < doubted[0].confidence < reader.unsure_below <= five.confidence
    assert [d for d in checked if not d.unsure] == [d for d in dice if d is not five]
    assert checked[-1] == doubted[0]  # strongest first still: the die marked unsure goes last
    # with no views, never
    never = DiceReader(config=ReaderConfig(above_views=()))
    assert never.check_above(staged, dice) == dice
    # infer is the looks' dice (found) after the checks (doubt): found reads the 5 surely
    # (the pasted face a die of its own), the check marks it
    found = reader.found(staged)
    assert [d.value for d in found if d.unsure] == [] and 5 in [d.value for d in found]
    assert reader.doubt(staged, found) == reader.infer(staged)
    assert [d.value for d in reader.infer(staged) if d.unsure] == [6]
    assert 5 not in [d.value for d in reader.infer(staged)]


def test_the_same_face_above_or_an_unsure_die_is_left_alone(
    tray: tuple[np.ndarray, list[Detection]],
) -> None:
    frame, dice = tray
    five = next(d for d in dice if d.value == 5)
    reader = DiceReader(config=ReaderConfig())
    # another 5 above the 5 (its own picture): the view agrees, nothing is doubted
    assert reader.check_above(with_face_above(frame, five, five), dice) == dice
    # a die already unsure is not read again
    six = next(d for d in dice if d.value == 6)
    unsure = [replace(d, confidence=0.5) if d is five else d for d in dice]
    assert reader.check_above(with_face_above(frame, five, six), unsure) == unsure


def test_the_views_lie_above_the_box_and_are_stretched_to_a_square() -> None:
    frame = np.zeros((100, 100, 3), np.uint8)
    frame[20:40, 40:60] = 255  # a bright band just above the box (40, 40, 60, 60)
    patches = above_patch_batch(frame, [(40, 40, 60, 60)], ((1.0, 1.0), (0.0, 0.2)), 16)
    assert patches.shape == (2, 3, 16, 16)
    assert patches[0, :, 4:12, 4:12].min() == pytest.approx(1.0)  # the band fills the middle
    assert patches[1].mean() < 0.3  # the box's own top edge: mostly dark


@pytest.mark.parametrize(
    "views",
    [((0.5,),), ((0.5, 0.0),), ((2.5, 0.8),), ((-0.1, 0.8),), ((0.5, float("nan")),)],
)
def test_above_views_outside_0_to_2_box_sides_are_refused(views: tuple) -> None:  # type: ignore[type-arg]
    with pytest.raises(ValueError, match="above_views must be"):
        ReaderConfig(above_views=views)


def test_above_views_parse_from_text() -> None:
    assert parse_above_views("0.5:0.8") == ((0.5, 0.8),)
    assert parse_above_views(" None ") == ()
    for bad in ("", "0.5", "0.5:0.8:1", "a:b", "0.5:0.8;0.6:0.8"):
        with pytest.raises(ValueError, match="expected UP:TALL views"):
            parse_above_views(bad)
