"""training.pips: a die's pips counted by plain image processing."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from training.pips import count_pips

LAYOUTS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


def _die(value: int, face: int, pip: int, side: int = 48) -> np.ndarray:
    """A die drawn square on a mid-grey table, its face and pips of the given greys."""
    frame = np.full((side + 40, side + 40, 3), 120, np.uint8)
    cv2.rectangle(frame, (20, 20), (20 + side, 20 + side), (face,) * 3, -1)
    step, centre = side // 4, 20 + side // 2
    for dx, dy in LAYOUTS[value]:
        cv2.circle(frame, (centre + dx * step, centre + dy * step), side // 11, (pip,) * 3, -1)
    return frame


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize(("face", "pip"), [(235, 25), (30, 230)])
def test_every_face_is_counted_dark_pips_on_light_and_light_on_dark(
    value: int, face: int, pip: int
) -> None:
    assert count_pips(_die(value, face, pip), (20, 20, 68, 68)) == value


def test_a_box_with_a_little_table_round_the_die_still_counts_its_pips() -> None:
    assert count_pips(_die(5, 235, 25), (14, 14, 74, 74)) == 5


def test_a_plain_face_a_tiny_box_or_a_box_outside_the_frame_counts_nothing() -> None:
    blank = np.full((80, 80, 3), 200, np.uint8)
    assert count_pips(blank, (10, 10, 70, 70)) is None
    assert count_pips(_die(3, 235, 25), (20, 20, 23, 23)) is None
    assert count_pips(_die(3, 235, 25), (200, 200, 260, 260)) is None
