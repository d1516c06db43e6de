"""training.narrow_boxes: whole-die boxes narrowed to where a model reads the labelled value."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorekeeper.camera.settle import box_iou
from scorekeeper.vision.evaluate import parse_yolo
from training.narrow_boxes import candidate_boxes, main, narrowest_sure

BASE = str(Path(__file__).resolve().parents[1] / "models" / "dice-base.onnx")


def test_each_candidate_shares_the_top_edge_and_lies_inside_the_box() -> None:
    box = (10.0, 20.0, 50.0, 100.0)
    boxes = candidate_boxes(box)
    assert boxes[0] == box
    assert all(b[1] == 20.0 and 10.0 <= b[0] < b[2] <= 50.0 and b[3] <= 100.0 for b in boxes)
    assert min(b[3] for b in boxes) == pytest.approx(20.0 + 0.4 * 80.0)
    assert len(set(boxes)) == len(boxes)


def test_a_box_is_narrowed_only_when_read_surely_and_likelier_than_the_whole() -> None:
    boxes = candidate_boxes((0.0, 0.0, 10.0, 10.0))
    probs = np.full(len(boxes), 0.2)
    assert narrowest_sure(boxes, probs) == (boxes[0], False)
    probs[7] = 0.95
    assert narrowest_sure(boxes, probs) == (boxes[7], True)
    probs[0] = 0.92  # the whole box read nearly as surely: kept
    assert narrowest_sure(boxes, probs) == (boxes[0], False)
    probs[0], probs[7] = 0.1, 0.85  # likelier, but not sure
    assert narrowest_sure(boxes, probs) == (boxes[0], False)


def test_boxes_stretched_below_the_dice_come_back_to_the_dice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from helpers.sources import write_source

    extra, out = tmp_path / "extra", tmp_path / "out"
    write_source(extra, "wood-stone/all", range(4), frame_box=False)
    (extra / "wood-stone" / "SOURCE.json").write_text('{"source": "wood-stone"}')
    labels = extra / "wood-stone" / "all" / "labels"
    truth = {}
    for f in sorted(labels.iterdir()):
        dice = parse_yolo(f.read_text(), 320, 240)
        truth[f.name] = dice
        # each box twice as tall, the die in its upper half, as a die's box seen at an angle
        f.write_text(
            "".join(
                f"{v - 1} {(x0 + x1) / 640:.6f} {y1 / 240:.6f} {(x1 - x0) / 320:.6f}"
                f" {2 * (y1 - y0) / 240:.6f}\n"
                for v, (x0, y0, x1, y1) in dice
            )
        )
    assert main(["--model", BASE, str(extra / "wood-stone"), str(out)]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert (counts["source"], counts["photos"], counts["dice"]) == ("wood-stone", 4, 12)
    assert counts["narrowed"] >= 9
    written = out / "wood-stone"
    assert json.loads((written / "SOURCE.json").read_text()) == {"source": "wood-stone"}
    image = cv2.imread(str(written / "all" / "images" / "p1.jpg"))
    assert image is not None and image.shape[:2] == (240, 320)
    close = 0
    for name, dice in truth.items():
        got = parse_yolo((written / "all" / "labels" / name).read_text(), 320, 240)
        assert [v for v, _ in got] == [v for v, _ in dice]
        close += sum(box_iou(g, d) > 0.6 for (_, g), (_, d) in zip(got, dice, strict=True))
    assert close >= 9


def test_bad_input_is_named_with_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from helpers.sources import write_source

    assert main(["--model", BASE, str(tmp_path / "no"), str(tmp_path / "out")]) == 2
    assert "narrow_boxes: error:" in capsys.readouterr().err
    write_source(tmp_path, "src/all", range(1), frame_box=False)
    (tmp_path / "src" / "all" / "labels" / "p0.txt").write_text("9 0.5 0.5 0.1 0.1\n")
    assert main(["--model", BASE, str(tmp_path / "src"), str(tmp_path / "out")]) == 2
    assert "p0.txt" in capsys.readouterr().err
    assert main(["--model", str(tmp_path / "x.onnx"), str(tmp_path / "src"), str(tmp_path)]) == 2
    assert "no dice model" in capsys.readouterr().err
