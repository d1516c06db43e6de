"""Accuracy floors of the bundled model on the real photos it did not train on.

Needs ../shared/dice-data (see its README); skipped when it is absent. The floors are the
figures measured for models/MODEL_CARD.md less a small margin, so a worse model fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scorekeeper.vision import DiceReader, load_image
from scorekeeper.vision.evaluate import Tally, list_labelled, parse_yolo

DATA = Path(__file__).resolve().parents[2] / "shared" / "dice-data"

# folder, split, floors: precision, recall, value accuracy, exact images. Measured with the
# bundled model: webcam-table/Valid 0.973 / 0.984 / 0.996 / 0.860 and dice-tray holdout
# 1.000 / 1.000 / 0.892 / 0.650 -- below the targets (0.99 / 0.99 / 0.995 / 0.97)
# except the tray's precision and recall and the webcam's value accuracy.
FLOORS = {
    ("webcam-table/Valid", "all"): (0.96, 0.97, 0.985, 0.83),
    ("dice-tray/train", "holdout"): (0.98, 0.98, 0.87, 0.60),
}


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    """The bundled model on one thread."""
    return DiceReader(threads=1)


@pytest.mark.skipif(not DATA.is_dir(), reason=f"no labelled photos at {DATA}")
@pytest.mark.parametrize(("folder", "split"), list(FLOORS))
def test_accuracy_floor_on_held_out_photos(reader: DiceReader, folder: str, split: str) -> None:
    tally = Tally()
    for img_path, label_path in list_labelled(DATA / folder, split):
        image = load_image(img_path)
        truth = parse_yolo(label_path.read_text(), image.shape[1], image.shape[0])
        tally.add(img_path.name, reader.infer(image), truth)
    fig = tally.figures()
    precision, recall, value_acc, exact = FLOORS[(folder, split)]
    assert fig["images"] > 20
    assert fig["precision"] >= precision, fig
    assert fig["recall"] >= recall, fig
    assert fig["value_accuracy"] >= value_acc, fig
    assert fig["exact_images"] >= exact, fig
