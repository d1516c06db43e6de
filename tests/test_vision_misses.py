"""Why the reader missed what it missed (training/miss_causes.py), on a small labelled folder."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest
from helpers.sources import write_source

from training.miss_causes import main


def test_missed_dice_are_sorted_by_cause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_source(tmp_path, "photos", range(40, 43), frame_box=False)
    labels = tmp_path / "photos" / "labels" / "p40.txt"
    labels.write_text(labels.read_text() + "0 0.05 0.05 0.04 0.05\n")  # a "die" on bare table
    sheet = tmp_path / "sheet.png"
    assert main([str(tmp_path / "photos"), "--sheet", str(sheet)]) == 0
    out = capsys.readouterr().out
    missed = int(out.split(" of ")[0])
    causes = [int(line.rsplit(": ", 1)[1]) for line in out.splitlines()[1:4]]
    assert "of 10 dice missed" in out and missed >= 1 and sum(causes) == missed
    assert cv2.imread(str(sheet)).shape[0] == 96 * (1 + (missed - 1) // 12)
    assert main([str(tmp_path / "nowhere")]) == 2
    assert "miss_causes: error:" in capsys.readouterr().err
