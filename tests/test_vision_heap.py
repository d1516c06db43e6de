"""A weaker peak beside a die read surely is looked at too: a die in a heap the detector lost."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scorekeeper.cli import main
from scorekeeper.vision import Detection, DiceReader, ReaderConfig, load_image
from scorekeeper.vision.overlaps import beside_sure

SAMPLES = Path(__file__).resolve().parents[1] / "sample_images"
TILES = SAMPLES / "scene-06-tiles.jpg"  # six dice: 2 2 2 3 4 6, the 4 and the 6 side by side


@pytest.fixture(scope="module")
def tiles() -> np.ndarray:
    """The tiles sample scene."""
    return load_image(TILES)


def values(dice: list[Detection]) -> list[int]:
    """The dice's values, smallest first."""
    return sorted(d.value for d in dice)


def test_a_die_whose_peak_is_too_weak_is_read_when_it_lies_beside_a_sure_one(
    tiles: np.ndarray,
) -> None:
    # a candidate threshold so high that only the 4 is looked at stands in for a heap, where
    # the peaks of touching dice run together and the weaker falls under it
    alone = DiceReader(config=ReaderConfig(candidate_threshold=0.9, heap_heat=0.0))
    assert values(alone.infer(tiles)) == [4]
    heap = DiceReader(config=ReaderConfig(candidate_threshold=0.9, heap_heat=0.4))
    found = heap.infer(tiles)
    assert values(found) == [4, 6]  # the 6 beside the 4; the others lie too far from it
    assert not any(d.unsure for d in found)
    assert [d.confidence for d in found] == sorted((d.confidence for d in found), reverse=True)
    # the same dice, boxes and all, as the reader finds them with its own threshold
    everyone = {(d.value, d.box) for d in DiceReader(config=ReaderConfig()).infer(tiles)}
    assert {(d.value, d.box) for d in found} <= everyone
    # reaching farther finds the two 2s within four sides of the 4 or the 6, not the others
    far = DiceReader(config=ReaderConfig(candidate_threshold=0.9, heap_heat=0.4, heap_reach=4))
    assert values(far.infer(tiles)) == [2, 2, 4, 6]


def test_with_the_count_known_a_heap_is_looked_into_only_when_dice_are_missing(
    tiles: np.ndarray,
) -> None:
    heap = DiceReader(config=ReaderConfig(candidate_threshold=0.9, heap_heat=0.4))
    # one die thrown and one read: the 6 beside it would be a die too many, so it is not sought
    assert values(heap.infer(tiles, expect=1)) == [4]
    # two thrown, one read: the 6 is found, surely, and no die has to be made up
    two = heap.infer(tiles, expect=2)
    assert values(two) == [4, 6] and not any(d.unsure for d in two)


def test_only_a_sure_die_has_its_neighbours_looked_at(tiles: np.ndarray) -> None:
    # the 4 is read 0.96 surely: with everything under 0.99 unsure, nobody's neighbours count
    doubting = ReaderConfig(candidate_threshold=0.9, heap_heat=0.4, unsure_below=0.99)
    found = DiceReader(config=doubting).infer(tiles)
    assert values(found) == [4] and found[0].unsure


def test_the_weaker_peaks_cost_no_second_run_of_the_detector(
    tiles: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = []
    for heat in (0.0, 0.4):
        reader = DiceReader(config=ReaderConfig(candidate_threshold=0.9, heap_heat=heat))
        calls: list[object] = []
        raw = reader.raw
        monkeypatch.setattr(
            reader, "raw", lambda p, raw=raw, calls=calls: calls.append(p) or raw(p)
        )
        reader.infer(tiles)
        runs.append(len(calls))
    assert runs[0] == runs[1] >= 2  # the fine and coarse looks, once each either way


def test_candidate_levels_are_each_threshold_read_from_one_run(tiles: np.ndarray) -> None:
    reader = DiceReader(config=ReaderConfig())
    strong, weak = reader.candidate_levels(tiles, (0.9, 0.3))
    assert strong == reader.all_candidates(tiles, 0.9)
    assert weak == reader.all_candidates(tiles, 0.3)
    assert {d.box for d in strong} <= {d.box for d in weak} and len(weak) > len(strong)


def test_beside_sure_picks_neighbours_of_like_size_not_the_same_die_seen_again() -> None:
    sure = Detection(5, (0, 0, 10, 10), 0.95)
    beside = Detection(2, (11, 0, 21, 10), 0.3)
    below = Detection(2, (0, 12, 10, 22), 0.3)
    big = Detection(4, (11, 0, 31, 20), 0.3)  # twice the side: a die nearer the camera, or not one
    top_face = Detection(3, (0, -6, 10, 4), 0.3)  # 0.4 of it over the sure die
    centre_in = Detection(3, (5, 5, 15, 15), 0.3)
    got = beside_sure([beside, below, big, top_face, centre_in], [sure], 0.8)
    assert got == [beside, below]
    assert beside_sure([beside], [sure], 0.96) == []  # 0.95 is not sure at a 0.96 cut
    assert beside_sure([beside], [], 0.8) == []
    wider = ReaderConfig(heap_reach=2, heap_size_band=(0.5, 2.5), heap_overlap=0.5)
    assert beside_sure([beside, big, top_face], [sure], 0.8, wider) == [beside, big, top_face]


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("heap_heat", 1.0, "heap_heat must be from 0 (never) to under 1, got 1.0"),
        ("heap_heat", -0.1, "heap_heat must be from 0"),
        ("heap_heat", float("nan"), "heap_heat must be from 0"),
        ("heap_reach", 0.0, "heap_reach must be over 0 and up to 4 box sides, got 0.0"),
        ("heap_reach", 4.5, "heap_reach must be over 0 and up to 4"),
    ],
)
def test_bad_heap_settings_are_refused_in_words(field: str, value: float, words: str) -> None:
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        ReaderConfig(**{field: value})  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", ["1", "-0.2", "nan", "lots"])
def test_the_cli_refuses_a_bad_heap_heat(bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["read", "--heap-heat", bad, str(TILES)])
    assert stop.value.code == 2
    assert (
        f"--heap-heat: expected 0 (never) or a heat under 1, got '{bad}'" in capsys.readouterr().err
    )


def test_the_cli_reads_with_the_heap_look_or_without(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["read", "--candidate-threshold", "0.9", str(TILES)]
    assert main([*args, "--heap-heat", "0"]) == 0
    assert capsys.readouterr().out.strip().endswith(": 4")
    assert main([*args, "--heap-heat", "0.4"]) == 0
    assert capsys.readouterr().out.strip().endswith(": 4 6")
