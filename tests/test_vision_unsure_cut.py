"""The unsure cut as the model's own: stored in its metadata, read by the reader, carried by each
die it reads, and overridden from the command line."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from scorekeeper.cli import main as cli
from scorekeeper.errors import ImageError
from scorekeeper.vision import DiceReader, ReaderConfig, default_model_path, load_image
from scorekeeper.vision.detection import UNSURE_BELOW
from scorekeeper.vision.evaluate import judge

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_images"
TRUTH = json.loads((SAMPLES / "truth.json").read_text())
NAME = "scene-06-tiles.jpg"

from training.tune_thresholds import main as tune  # noqa: E402
from training.tune_thresholds import write_thresholds  # noqa: E402


def model_with(tmp_path: Path, *argv: str) -> Path:
    """A copy of the shipped model with ``tune_thresholds ARGV`` applied to it."""
    model = tmp_path / "m.onnx"
    shutil.copy(default_model_path(), model)
    assert tune(["--model", str(model), *argv]) == 0
    return model


def test_a_stored_unsure_cut_marks_the_dice_the_reader_reads(tmp_path: Path) -> None:
    image = load_image(SAMPLES / NAME)
    plain = DiceReader(None, ReaderConfig(threads=1))
    assert plain.unsure_below == UNSURE_BELOW
    read = plain.infer(image)
    # a cut above every confidence the model gives here: the same dice, each one marked
    top = max(d.confidence for d in read)
    assert top < 0.9999
    strict = DiceReader(model_with(tmp_path, "--set-unsure", "0.9999"), ReaderConfig(threads=1))
    assert strict.unsure_below == 0.9999
    assert strict.score_threshold == plain.score_threshold  # the other thresholds kept
    marked = strict.infer(image)
    assert [(d.value, d.box, d.confidence) for d in marked] == [
        (d.value, d.box, d.confidence) for d in read
    ]
    assert all(d.unsure for d in marked) and not all(d.unsure for d in read)
    # judged by each die's own mark unless a cut is given
    truth = [(v, (0.0, 0.0, 1.0, 1.0)) for v in TRUTH[NAME]]
    assert judge("x", marked, truth).unsure == len(marked)
    assert judge("x", marked, truth, unsure_below=0.5).unsure == 0
    # the reader's own setting wins over the model's
    relaxed = DiceReader(strict.model_path, ReaderConfig(unsure_below=0.01, threads=1))
    assert not any(d.unsure for d in relaxed.infer(image))


def test_dice_made_up_for_the_count_stay_under_a_low_cut(tmp_path: Path) -> None:
    image = load_image(SAMPLES / NAME)
    model = model_with(tmp_path, "--set-score", "0.995", "--set-unsure", "0.4")
    reader = DiceReader(model, ReaderConfig(threads=1))
    read = reader.infer(image)
    filled = reader.infer(image, expect=len(TRUTH[NAME]))
    added = filled[len(read) :]
    assert added and all(d.unsure and d.confidence < 0.4 for d in added)


def test_the_command_line_cut_marks_the_reading(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(SAMPLES / NAME)
    assert cli(["read", path]) == 0
    plain = capsys.readouterr().out
    assert cli(["read", "--unsure-below", "0.9999", path]) == 0
    marked = capsys.readouterr().out
    assert "?" not in plain and marked.count("?") == len(TRUTH[NAME])
    with pytest.raises(SystemExit) as exit_:
        cli(["read", "--unsure-below", "1.5", path])
    assert exit_.value.code == 2 and "between 0 and 1, got 1.5" in capsys.readouterr().err


def test_a_bad_cut_is_refused_in_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "m.onnx"
    shutil.copy(default_model_path(), model)
    with pytest.raises(SystemExit) as exit_:
        tune(["--model", str(model), "--set-unsure", "0"])
    assert exit_.value.code == 2 and "--set-unsure 0.0: expected a probability" in (
        capsys.readouterr().err
    )
    for bad in ("1.5", "often"):
        write_thresholds(model, {"unsure_below": bad})
        with pytest.raises(ImageError, match=f"metadata unsure_below='{bad}' is not a probab"):
            DiceReader(model)
    with pytest.raises(ValueError, match="unsure_below must be between 0 and 1"):
        ReaderConfig(unsure_below=1.0)


@pytest.mark.parametrize("key", ["score_threshold", "candidate_threshold"])
def test_a_bad_threshold_in_the_metadata_is_refused_in_words(tmp_path: Path, key: str) -> None:
    model = tmp_path / "m.onnx"
    shutil.copy(default_model_path(), model)
    for bad in ("0", "2", "high"):
        write_thresholds(model, {key: bad})
        with pytest.raises(ImageError, match=f"metadata {key}='{bad}' is not a probability"):
            DiceReader(model)
    write_thresholds(model, {key: "0.45"})
    assert getattr(DiceReader(model).model, key) == 0.45


@pytest.mark.parametrize(
    ("key", "bads", "words", "good"),
    [
        ("relook_face_below", ("1.5", "often", "0"), "is not a probability", 0.5),
        ("rescue_scale", ("1", "0.5", "4", "wide"), "is not 0 or a factor", 0.0),
        ("colour_above", ("1.5", "-0.1", "much"), "is not 0 (never) or a share", 0.5),
    ],
)
def test_a_bad_reading_rule_setting_in_a_model_is_refused_in_words(
    tmp_path: Path, key: str, bads: tuple[str, ...], words: str, good: float
) -> None:
    model = tmp_path / "m.onnx"
    shutil.copy(default_model_path(), model)
    for bad in bads:
        write_thresholds(model, {key: bad})
        with pytest.raises(ImageError, match=re.escape(f"metadata {key}='{bad}' {words}")):
            DiceReader(model)
    write_thresholds(model, {key: str(good)})
    assert getattr(DiceReader(model), key) == good
    assert getattr(DiceReader(model, ReaderConfig(**{key: 0.0})), key) == 0.0
