"""A throw's known count: dice the reader turned down offered to make it up, marked unsure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorekeeper.vision import DiceReader, ReaderConfig, load_image
from scorekeeper.vision.detection import overlap

SAMPLES = Path(__file__).resolve().parents[1] / "sample_images"
TRUTH = json.loads((SAMPLES / "truth.json").read_text())
NAME = "scene-06-tiles.jpg"


@pytest.fixture(scope="module")
def strict() -> DiceReader:
    """A reader that turns down all but the surest dice, so some are short of the count."""
    return DiceReader(None, ReaderConfig(score_threshold=0.995))


def test_a_short_count_is_made_up_from_dice_turned_down_each_marked_unsure(
    strict: DiceReader,
) -> None:
    image = load_image(SAMPLES / NAME)
    read = strict.infer(image)
    assert len(read) < len(TRUTH[NAME])
    filled = strict.infer(image, expect=len(TRUTH[NAME]))
    assert filled[: len(read)] == read
    added = filled[len(read) :]
    assert sorted(d.value for d in filled) == TRUTH[NAME]
    assert added and all(d.unsure and d.confidence <= 0.6 for d in added)
    assert not any(overlap(a, b) for a in added for b in read)
    # at most the dice still missing, and only those the area accepts
    assert len(strict.fill(image, read, 1)) == 1
    assert strict.fill(image, read, 5, where=lambda d: d.centre()[0] < 0) == []
    # dice of a throw look about the same size: nothing far smaller or larger is offered
    tiny_only = DiceReader(None, ReaderConfig(score_threshold=0.995, fill_size_band=(0.1, 0.3)))
    assert tiny_only.fill(image, read, 5) == []


def test_a_count_already_met_or_dice_that_are_not_there_add_nothing() -> None:
    reader = DiceReader()
    for name, values in TRUTH.items():
        image = load_image(SAMPLES / name)
        read = reader.infer(image)
        assert sorted(d.value for d in read) == values
        assert reader.infer(image, expect=len(values)) == read
        # no false dice invented on a clean photo to reach a count that is too high
        assert reader.infer(image, expect=len(values) + 2) == read


def test_a_fill_confidence_that_would_not_be_unsure_is_refused() -> None:
    with pytest.raises(ValueError, match=r"fill_confidence must be under 0\.8"):
        ReaderConfig(fill_confidence=0.8)
    with pytest.raises(ValueError, match="fill_score_threshold must be between 0 and 1"):
        ReaderConfig(fill_score_threshold=0.0)


def test_eval_count_prints_what_a_known_count_gains_and_invents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from helpers.sources import write_shared, write_source

    from training.eval_count import main

    extra, shared = tmp_path / "extra", tmp_path / "shared"
    write_source(extra, "wood-stone/all", range(3), frame_box=False)
    write_shared(shared, 3, webcam=2, tray=5)
    args = ["--data", str(extra), "--shared", str(shared), "--fill-scores", "0.3,0.5"]
    assert main([*args, "--fill-candidates", "0.3"]) == 0
    out = capsys.readouterr().out
    head, rule, *rows = out.split("\n\n")[0].splitlines()
    assert "wood-stone/all" in head and "shared dice-tray/train" in head and len(rows) == 2
    assert rule.startswith("|---")
    assert rows[0].startswith("| 0.3 | 0.3 | ") and " → " in rows[0]
    assert "wood-stone/all 3" in out and "shared dice-tray/train 1" in out  # the last 20%
    (extra / "wood-stone" / "all" / "labels" / "p0.txt").write_text("9 0.5 0.5 0.1 0.1\n")
    assert main(args) == 2
    assert "eval_count: error:" in capsys.readouterr().err
