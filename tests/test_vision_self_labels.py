"""training.self_labels: half a source labelled with a reader's sure readings, the other half
kept with its own labels to be read on."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from scorekeeper.vision import DiceReader, ReaderConfig
from scorekeeper.vision.evaluate import parse_yolo
from training.self_labels import main, split_halves

BASE = str(Path(__file__).resolve().parents[1] / "models" / "dice-base.onnx")


def test_halves_split_by_name_and_every_sure_reading_becomes_a_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from helpers.sources import write_source

    extra, out = tmp_path / "extra", tmp_path / "out"
    write_source(extra, "wood-stone/all", range(5), frame_box=False)
    halves = split_halves(extra / "wood-stone")
    assert [p.stem for p, _ in halves["first"]] == ["p0", "p1"]
    assert [p.stem for p, _ in halves["second"]] == ["p2", "p3", "p4"]
    dealt = split_halves(extra / "wood-stone", turn_about=True)
    assert [p.stem for p, _ in dealt["first"]] == ["p0", "p2", "p4"]
    assert [p.stem for p, _ in dealt["second"]] == ["p1", "p3"]
    assert main(["--half", "second", "--model", BASE, str(extra / "wood-stone"), str(out)]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert counts["photos"] == 3 and counts["dice"] == 9
    assert counts["kept"] == counts["right"] + counts["wrong"] + counts["not_a_die"]
    assert counts["right"] >= 6  # plain synthetic dice seen from above: read surely and right
    taught = out / "second" / "self-wood-stone-second" / "all"
    lines = [
        line for f in sorted((taught / "labels").iterdir()) for line in f.read_text().splitlines()
    ]
    assert sorted(p.name for p in (taught / "images").iterdir()) == ["p2.jpg", "p3.jpg", "p4.jpg"]
    assert len(lines) == counts["kept"]
    values = [v for x in lines for v, _ in parse_yolo(x, 320, 240)]
    assert set(values) <= set(range(1, 7))
    # each label file holds exactly the readings the model is sure of, as it read them
    reader = DiceReader(BASE, ReaderConfig(threads=2))
    image = cv2.imread(str(extra / "wood-stone" / "all" / "images" / "p3.jpg"))
    sure = [d for d in reader.infer(image) if not d.unsure]
    got = parse_yolo((taught / "labels" / "p3.txt").read_text(), 320, 240)
    assert sure and sorted(v for v, _ in got) == sorted(d.value for d in sure)
    truth = out / "true-first" / "all"
    assert sorted(p.name for p in (truth / "labels").iterdir()) == ["p0.txt", "p1.txt"]
    assert (truth / "labels" / "p0.txt").read_text() == (
        extra / "wood-stone" / "all" / "labels" / "p0.txt"
    ).read_text()


def test_a_missing_folder_or_model_is_named_with_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--half", "first", "--model", BASE, str(tmp_path / "no"), str(tmp_path)]) == 2
    assert "self_labels: error:" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["--half", "first", "--model", BASE, str(tmp_path / "empty"), str(tmp_path)]) == 2
    assert "expected a folder with images/ and labels/" in capsys.readouterr().err
    assert (
        main(["--half", "first", "--model", str(tmp_path / "x.onnx"), str(tmp_path), str(tmp_path)])
        == 2
    )
    assert "no dice model" in capsys.readouterr().err
    assert (
        main(["--half", "first", "--threads", "0", "--model", BASE, str(tmp_path), str(tmp_path)])
        == 2
    )
    assert "threads must be at least 1" in capsys.readouterr().err


def test_turn_about_lays_out_the_other_half_dealt_in_turn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from helpers.sources import write_source

    extra, out = tmp_path / "extra", tmp_path / "out"
    write_source(extra, "wood-stone/all", range(5), frame_box=False)
    args = ["--turn-about", "--half", "first", "--model", BASE, str(extra / "wood-stone"), str(out)]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["photos"] == 3
    taught = out / "first" / "self-wood-stone-first" / "all" / "images"
    assert sorted(p.name for p in taught.iterdir()) == ["p0.jpg", "p2.jpg", "p4.jpg"]
    truth = out / "true-second" / "all" / "labels"
    assert sorted(p.name for p in truth.iterdir()) == ["p1.txt", "p3.txt"]
