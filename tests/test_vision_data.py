"""Accuracy floors of the bundled model on the real photos it did not train on.

Needs ../shared/dice-data (see its README); skipped when it is absent. The floors are the
figures measured for models/MODEL_CARD.md less a small margin, so a worse model fails here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scorekeeper.vision import Detection, DiceReader, ReaderConfig
from scorekeeper.vision.evaluate import list_labelled, load_errata, load_labelled, read_labelled

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "dice-data"
ERRATA = ROOT / "models" / "dice-data-errata.json"

# folder, split, floors: precision, recall, value accuracy, exact images. Measured with the
# shipped file (its second look joined with a Lite0 look): webcam-table/Valid 0.988 / 1.000 /
# 0.996 / 0.954 (the base file: 0.992 / 1.000 / 0.996 / 0.965; the joined look adds one false
# die, marked "?") and dice-tray holdout 1.000 / 1.000 / 0.989 / 0.950 -- issue 6's targets are
# 0.99 / 0.99 / 0.995 / 0.97 (3 of the 5 webcam images counted wrong have a labelling fault; see
# models/MODEL_CARD.md).
FLOORS = {
    ("webcam-table/Valid", "all"): (0.98, 0.99, 0.99, 0.95),
    ("dice-tray/train", "holdout"): (0.99, 0.99, 0.98, 0.92),
}


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    """The bundled model on one thread."""
    return DiceReader(config=ReaderConfig(threads=1))


@pytest.mark.skipif(not DATA.is_dir(), reason=f"no labelled photos at {DATA}")
@pytest.mark.parametrize(("folder", "split"), list(FLOORS))
def test_accuracy_floor_on_held_out_photos(reader: DiceReader, folder: str, split: str) -> None:
    fig = read_labelled(reader.infer, list_labelled(DATA / folder, split)).figures()
    precision, recall, value_acc, exact = FLOORS[(folder, split)]
    assert fig["images"] > 20
    assert fig["precision"] >= precision, fig
    assert fig["recall"] >= recall, fig
    assert fig["value_accuracy"] >= value_acc, fig
    assert fig["exact_images"] >= exact, fig


# The same photos with the label faults of models/dice-data-errata.json corrected (three webcam
# labels, one tray label), measured: webcam-table/Valid 0.996 / 1.000 / 1.000 / 0.988 (257
# dice), dice-tray holdout 1.000 / 1.000 / 0.995 / 0.975 (one value read wrong, marked "?";
# the base file read one wrong, surely: 0.9946 / 0.975).
CORRECTED_FLOORS = {
    ("webcam-table/Valid", "all"): (0.99, 0.99, 0.995, 0.97),
    ("dice-tray/train", "holdout"): (0.99, 0.99, 0.985, 0.95),
}


@pytest.mark.skipif(not DATA.is_dir(), reason=f"no labelled photos at {DATA}")
@pytest.mark.parametrize(("folder", "split"), list(CORRECTED_FLOORS))
def test_accuracy_floor_with_corrected_labels(reader: DiceReader, folder: str, split: str) -> None:
    errata = load_errata(ERRATA)
    pairs = list_labelled(DATA / folder, split)
    as_labelled = read_labelled(reader.infer, pairs).figures()
    fig = read_labelled(reader.infer, pairs, errata=errata).figures()
    precision, recall, value_acc, exact = CORRECTED_FLOORS[(folder, split)]
    assert fig["precision"] >= precision, fig
    assert fig["recall"] >= recall, fig
    assert fig["value_accuracy"] >= value_acc, fig
    assert fig["exact_images"] >= exact, fig
    # each correction is one the reader's reading agrees with: fewer images counted wrong
    assert set(fig["wrong_images"]) < set(as_labelled["wrong_images"])


# Close-ups (training/eval_closeup.py): each die of every second webcam photo cut out and
# scaled to 160 or 320 px across in a 640×480 frame, as a camera close to the table or a phone
# photo sees it. Measured on all 86 photos, frames read exactly: 0.977 at 160 px and 0.949 at
# 320 px; 0.833 and 0.568 before the big die outranked its pips (overlaps.resolve_overlaps) and
# the third look (ReaderConfig.coarsest_factor) came in.
@pytest.mark.skipif(not DATA.is_dir(), reason=f"no labelled photos at {DATA}")
@pytest.mark.parametrize("size", [160, 320])
def test_close_ups_are_read_as_one_die_not_as_its_pips(reader: DiceReader, size: int) -> None:
    from scorekeeper.vision.overlaps import resolve_overlaps
    from scorekeeper.vision.second_look import second_look
    from training.eval_closeup import closeup_figures

    pairs = list_labelled(DATA / "webcam-table/Valid")[::2]
    photos = [(img, truth) for _, img, truth in load_labelled(pairs, errata=load_errata(ERRATA))]
    two_looks = DiceReader(config=ReaderConfig(threads=1, third_look=False))

    def as_before(frame: np.ndarray) -> list[Detection]:
        found = two_looks.all_candidates(frame)
        return resolve_overlaps(
            second_look(found, two_looks.look(frame, found), two_looks.score_threshold)
        )

    fig = closeup_figures(reader.infer, photos, size)
    before = closeup_figures(as_before, photos, size)
    assert fig["dice"] > 100
    assert fig["found"] >= 0.98 and fig["right"] >= 0.97 and fig["exact"] >= 0.95, fig
    # the big die outranking its pips and the third look are what read a 320 px die; at 160 px
    # the shipped file's joined second look reads most of them without (0.969, 0.977 with)
    assert before["exact"] < fig["exact"] - (0.05 if size >= 320 else 0.0), (before, fig)
    # the other dice wholly in the frame are read no worse: no neighbour taken for a part
    assert fig["others_right"] >= before["others_right"], (before, fig)
