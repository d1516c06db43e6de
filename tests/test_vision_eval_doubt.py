"""training.eval_doubt: a stricter unsure cut and second opinions, judged per throw."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from scorekeeper.vision.detection import Detection
from training.eval_doubt import figures, main, shifted_boxes


def _reads(*faces: int) -> np.ndarray:
    """(1, V, 7) logits: each view sure of a die of the given face."""
    lg = np.full((len(faces), 7), -9.0, np.float32)
    for i, f in enumerate(faces):
        lg[i, f] = 9.0
    return lg[None]


def test_a_sure_misread_slips_through_unless_a_stricter_cut_or_a_shifted_read_flags_it() -> None:
    truth = [(1, (0.0, 0.0, 20.0, 20.0))]
    wrong = [Detection(4, (0, 0, 20, 20), 0.86)]
    disagreeing = [("p", truth, wrong, _reads(4, 1, 4, 4, 4), [4], [1])]
    assert figures(disagreeing, 0.8)["slipped"] == 1
    assert figures(disagreeing, 0.9) == {"slipped": 0, "right_as_read": 0.0, "unsure": 1.0}
    assert figures(disagreeing, 0.8, "shifted")["slipped"] == 0
    assert figures(disagreeing, 0.8, "detector")["slipped"] == 1  # the detector read 4 too
    assert figures(disagreeing, 0.8, "pips")["slipped"] == 0  # one pip counted, not four
    agreeing = [("p", truth, wrong, _reads(4, 4, 4, 4, 4), [1], [4])]
    assert figures(agreeing, 0.8, "pips")["slipped"] == 1
    assert figures(agreeing, 0.8, "shifted")["slipped"] == 1
    assert figures(agreeing, 0.8, "detector")["slipped"] == 0  # the detector read the 1
    right = [
        ("p", truth, [Detection(1, (0, 0, 20, 20), 0.95)], _reads(1, 1, 1, 1, 1), [None], [None])
    ]
    for check in (None, "shifted", "detector", "pips", "pips agree"):
        assert figures(right, 0.8, check) == {"slipped": 0, "right_as_read": 1.0, "unsure": 0.0}
    unsure = Detection(1, (0, 0, 20, 20), 0.6, unsure_below=0.9)
    plain = [("p", truth, [unsure], _reads(1, 1, 1, 1, 1), [None], [1])]
    assert figures(plain, 0.8) == {"slipped": 0, "right_as_read": 0.0, "unsure": 1.0}
    assert figures(plain, 0.8, "pips agree") == {"slipped": 0, "right_as_read": 1.0, "unsure": 0.0}
    misread = [("p", truth, [replace(unsure, value=4)], _reads(4, 4, 4, 4, 4), [None], [4])]
    assert figures(misread, 0.8)["slipped"] == 0
    assert figures(misread, 0.8, "pips agree")["slipped"] == 1  # the plain count agreed wrongly
    with pytest.raises(ValueError, match="no check 'glare'"):
        figures(right, 0.8, "glare")


def test_shifted_boxes_move_a_fifth_of_the_side_each_way_then_shrink() -> None:
    boxes = shifted_boxes((10, 10, 30, 20), 0.2)
    assert boxes[2] == (6.0, 10.0, 26.0, 20.0) and boxes[3] == (14.0, 10.0, 34.0, 20.0)
    assert boxes[4] == pytest.approx((13.0, 11.5, 27.0, 18.5))


def test_eval_doubt_prints_a_row_per_cut_and_the_shifted_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from helpers.sources import write_shared, write_source

    extra, shared = tmp_path / "extra", tmp_path / "shared"
    write_source(extra, "wood-stone/all", range(2), frame_box=False)
    write_shared(shared, 2, webcam=1, tray=5)
    args = ["--data", str(extra), "--shared", str(shared), "--cuts", "0.8,0.9"]
    assert main(args) == 0
    out = capsys.readouterr().out
    head, rule, *rows = out.split("\n\n")[0].splitlines()
    assert "wood-stone/all" in head and "shared dice-tray/train" in head and rule.startswith("|---")
    assert [r.split(" | ")[0] for r in rows] == [
        "| unsure below 0.8",
        "| unsure below 0.9",
        "| shifted second read (0.2), below 0.8",
        "| the detector's value, below 0.8",
        "| pips counted plainly, below 0.8",
        "| unsure below 0.8 unless pips counted plainly agree",
    ]
    assert "wood-stone/all 2" in out and "shared dice-tray/train 1" in out
    assert main([*args, "--shift", "1.5"]) == 2
    assert "must be between 0 and 1" in capsys.readouterr().err
    (extra / "wood-stone" / "all" / "labels" / "p0.txt").write_text("9 0.5 0.5 0.1 0.1\n")
    assert main(args) == 2
    assert "eval_doubt: error:" in capsys.readouterr().err
