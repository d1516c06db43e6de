"""A throw's known count exceeded: more dice read than were thrown are doubted, not trusted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scorekeeper.camera.reading import read_throw
from scorekeeper.vision import DiceReader, ReaderConfig, load_image
from scorekeeper.vision.detection import Detection, doubt_surplus

SAMPLES = Path(__file__).resolve().parents[1] / "sample_images"
TRUTH = json.loads((SAMPLES / "truth.json").read_text())
NAME = next(n for n, v in TRUTH.items() if len(v) >= 3)


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    """The bundled reader."""
    return DiceReader()


def test_more_dice_read_than_thrown_marks_the_weakest_and_the_less_than_very_sure_unsure(
    reader: DiceReader,
) -> None:
    image = load_image(SAMPLES / NAME)
    read = reader.infer(image)
    assert not any(d.unsure for d in read)
    doubted = reader.infer(image, expect=len(read) - 1)
    # the same dice, values and boxes, in the same order: only the marks change
    assert [(d.value, d.box) for d in doubted] == [(d.value, d.box) for d in read]
    weakest = min(range(len(read)), key=lambda i: read[i].confidence)
    assert doubted[weakest].unsure
    for before, after in zip(read, doubted, strict=True):
        assert after.unsure == (after is doubted[weakest] or before.confidence < 0.95)
        assert after.confidence <= before.confidence
    # a stricter cut for the whole reading doubts every die under it
    everything = DiceReader(None, ReaderConfig(surplus_unsure_below=0.9999999))
    assert all(d.unsure for d in everything.infer(image, expect=len(read) - 1))


def test_a_count_met_leaves_the_reading_as_it_is(reader: DiceReader) -> None:
    image = load_image(SAMPLES / NAME)
    read = reader.infer(image)
    assert reader.infer(image, expect=len(read)) == read
    assert [d.unsure for d in reader.infer(image, expect=len(read))] == [d.unsure for d in read]


def test_only_the_dice_in_the_throwing_area_are_counted() -> None:
    dice = [Detection(5, (0, 0, 9, 9), 0.99), Detection(2, (50, 0, 59, 9), 0.97)]
    left = lambda d: d.box[0] < 30  # noqa: E731
    # one die in the area, one thrown: nothing to doubt, whatever lies outside it
    assert [d.unsure for d in doubt_surplus(dice, 1, 0.95, left)] == [False, False]
    # no die thrown yet the area holds one: it is in doubt; the one outside is not judged
    assert [d.unsure for d in doubt_surplus(dice, 0, 0.95, left)] == [True, False]
    assert [d.unsure for d in doubt_surplus(dice, 1, 0.95)] == [False, True]


class _Plain:
    """A reader with ``infer`` only (no fill, no doubt): its dice pass through as read."""

    def __init__(self, dice: list[Detection]) -> None:
        self.dice = dice

    def infer(self, frame: Any) -> list[Detection]:
        return list(self.dice)


def test_the_camera_doubts_a_reading_with_more_dice_in_the_area_than_the_game_waits_for(
    reader: DiceReader,
) -> None:
    image = load_image(SAMPLES / NAME)
    read = reader.infer(image)
    seen = read_throw(reader, image, len(read) - 1)
    assert sum(d.unsure for d in seen) >= 1
    assert read_throw(reader, image, len(read)) == read
    assert read_throw(reader, image, None) == read
    # dice outside the throwing area are not counted: no surplus among those inside
    first = read[0].box
    inside = lambda d: d.box == first  # noqa: E731
    assert read_throw(reader, image, 1, inside) == read
    plain = _Plain(read)
    assert read_throw(plain, image, len(read) - 1) == read


def test_a_surplus_cut_that_is_not_a_probability_is_refused() -> None:
    with pytest.raises(ValueError, match="surplus_unsure_below must be between 0 and 1"):
        ReaderConfig(surplus_unsure_below=1.0)


def test_meet_count_fills_a_short_count_doubts_a_surplus_and_keeps_a_match(
    reader: DiceReader,
) -> None:
    image = load_image(SAMPLES / NAME)
    read = reader.infer(image)
    assert reader.meet_count(image, read, len(read)) == read
    assert reader.infer(image, expect=len(read)) == read
    doubted = reader.meet_count(image, read, len(read) - 1)
    assert [d.box for d in doubted] == [d.box for d in read] and any(d.unsure for d in doubted)
    short = read[1:]
    made_up = reader.meet_count(image, short, len(read))
    assert made_up[: len(short)] == short
    assert all(d.unsure for d in made_up[len(short) :])
    # a count met among the dice where accepts: nothing made up, nothing doubted
    first = read[0].box
    assert reader.meet_count(image, read, 1, where=lambda d: d.box == first) == read
