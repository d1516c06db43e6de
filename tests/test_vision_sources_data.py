"""The shipped model on real photos of the extra sources (``make data``), which its second look
trained on (but ``cream-carpet``, an outside check).

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
from scorekeeper.vision.evaluate import list_labelled, load_labelled, read_labelled

ROOT = Path(__file__).resolve().parents[1]
EXTRA = Path(os.environ.get("SCOREKEEPER_EXTRA_DATA", ROOT.parent / "dice-extra"))

# folder: (most photos with an unflagged mistake, least recall, precision, value accuracy).
# Measured (python -m training.eval_sources): wood-stone 0.212 / 0.961 / 0.991 / 0.927,
# catan-table 0.278 / 0.894 / 0.853 / 0.822 (its small dice read again enlarged), webcam-desk
# (48 photos: a margin of two photos) 0.000 / 1.000 / 0.980 / 0.969, casino-felt 0.022 / 0.982 /
# 1.000 / 0.905, dice-box 0.389 / 0.638 / 0.787 / 0.559 (read without the count; board-game
# tokens among the training scenes cost it dice edge-on there, which a game's count fills back;
# issue 26's targets: 0.01 / 0.99 / 0.99 / 0.99). cream-carpet is an outside check no model
# trains on (80 photos: a margin of one photo): 0.000 / 1.000 / 1.000 / 0.996.
BOUNDS = {
    "wood-stone/all": (0.25, 0.92, 0.98, 0.90),
    "catan-table/test-valid": (0.32, 0.87, 0.83, 0.79),
    "webcam-desk/all": (0.05, 0.98, 0.95, 0.95),
    "casino-felt/all": (0.03, 0.97, 0.99, 0.87),
    "dice-box/test-valid": (0.40, 0.62, 0.77, 0.52),
    "cream-carpet/all": (0.02, 0.99, 0.99, 0.99),
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


def test_a_taught_reader_keeps_the_dice_the_wider_look_kept() -> None:
    # numeral-tray's die is found mostly by the wider look (its own patch reads "not a die");
    # taught at weight 0 and without marks, the reader must read just as the untaught one
    from scorekeeper.vision.adapt import AdaptConfig
    from scorekeeper.vision.reader import teach_crop

    folder = EXTRA / "numeral-tray" / "test-valid"
    if not folder.is_dir():
        pytest.skip(f"no photos at {folder} (make data)")
    reader = DiceReader(config=ReaderConfig(threads=1))
    photos = [image for _, image, _ in load_labelled(list_labelled(folder))][:12]
    plain = [reader.infer(image) for image in photos]
    crops = [
        teach_crop(image, d.box) for image, dice in zip(photos, plain, strict=True) for d in dice
    ]
    labels = [d.value for dice in plain for d in dice]
    reader.teach(crops, labels, AdaptConfig(weight=0.0, mark_disagreement=False))
    taught = [reader.infer(image) for image in photos]
    assert sum(map(len, plain)) >= 8
    assert [[(d.value, d.box) for d in x] for x in taught] == [
        [(d.value, d.box) for d in x] for x in plain
    ]
