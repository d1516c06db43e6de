"""The shipped model on real photos of the extra sources (``make data``), which its second look
trained on.

Needs the folders ``make data`` writes (``$SCOREKEEPER_EXTRA_DATA``, default ``../dice-extra``);
skipped when they are absent. These are not figures for a new table (the leave-one-source-out
folds of models/MODEL_CARD.md are): the bounds are the shipped file's own figures with a small
margin, so a rebuilt file that reads these tables worse than it did fails here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scorekeeper.vision import DiceReader, ReaderConfig
from scorekeeper.vision.evaluate import list_labelled, read_labelled

ROOT = Path(__file__).resolve().parents[1]
EXTRA = Path(os.environ.get("SCOREKEEPER_EXTRA_DATA", ROOT.parent / "dice-extra"))

# folder: (most photos with an unflagged mistake, least recall, precision, value accuracy).
# Measured (python -m training.eval_sources): wood-stone 0.283 / 0.938 / 0.993 / 0.915,
# catan-table 0.468 / 0.817 / 0.880 / 0.809, webcam-desk (48 photos: a margin of two photos)
# 0.000 / 1.000 / 0.980 / 0.979, casino-felt 0.014 / 0.989 / 1.000 / 0.891, dice-box 0.238 /
# 0.789 / 0.777 / 0.541 (the wider look finds more dice there and reads more wrong, marked "?";
# issue 26's targets: 0.01 / 0.99 / 0.99 / 0.99).
BOUNDS = {
    "wood-stone/all": (0.30, 0.92, 0.98, 0.90),
    "catan-table/test-valid": (0.50, 0.80, 0.86, 0.79),
    "webcam-desk/all": (0.05, 0.98, 0.95, 0.95),
    "casino-felt/all": (0.03, 0.97, 0.99, 0.87),
    "dice-box/test-valid": (0.27, 0.76, 0.74, 0.51),
}


@pytest.mark.parametrize("folder", list(BOUNDS))
def test_cross_source_figures_stay_within_bounds(folder: str) -> None:
    if not (EXTRA / folder).is_dir():
        pytest.skip(f"no photos at {EXTRA / folder} (make data)")
    reader = DiceReader(config=ReaderConfig(threads=1))
    fig = read_labelled(reader.infer, list_labelled(EXTRA / folder)).figures()
    unflagged, recall, precision, value_acc = BOUNDS[folder]
    assert fig["images"] > 40
    assert fig["unflagged_mistake_rate"] <= unflagged, fig
    assert fig["recall"] >= recall, fig
    assert fig["precision"] >= precision, fig
    assert fig["value_accuracy"] >= value_acc, fig
