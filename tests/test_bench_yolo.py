"""The YOLOv8n yardstick (training/yolov8n.py) and the speed-ratio benchmark that times it."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HAVE_TORCH = all(importlib.util.find_spec(m) for m in ("torch", "onnx"))
pytestmark = pytest.mark.skipif(not HAVE_TORCH, reason="torch and onnx (the train extra)")


def test_the_yardstick_is_yolov8n_layer_for_layer() -> None:
    import torch

    from training.yolov8n import PARAMETERS, YOLOv8n, parameter_count

    model = YOLOv8n().eval()
    assert parameter_count(model) == PARAMETERS == 3_157_200
    bn = sum(m.num_features for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d))
    assert PARAMETERS - bn == 3_151_904  # batch norm folded into the convolutions' biases
    with torch.no_grad():
        out = model(torch.rand(1, 3, 640, 640))
    assert out.shape == (1, 84, 8400)  # 80² + 40² + 20² anchors, 4 box numbers + 80 classes
    assert float(out[:, 4:].min()) >= 0 and float(out[:, 4:].max()) <= 1
    assert float(out[:, 2:4].min()) > 0  # widths and heights


def test_the_benchmark_times_both_and_prints_their_ratio(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_yolo import BUDGET, main

    yolo = tmp_path / "yolov8n.onnx"
    argv = ["--rounds", "1", "--frames", "1", "--yolo", str(yolo)]
    assert main(argv) == 0 and yolo.exists()
    line = json.loads(capsys.readouterr().out)
    assert line["yolov8n_640_ms"] > line["reader_640x480_ms"] > 0
    assert line["ratio"] == pytest.approx(line["reader_640x480_ms"] / line["yolov8n_640_ms"], 0.02)
    assert line["budget"] == BUDGET and line["within_budget"] == (line["ratio"] <= BUDGET)
    assert main([*argv, "--rounds", "0"]) == 2
    assert "must be at least 1" in capsys.readouterr().err
    assert main([*argv, "--above-views", "none"]) == 0  # the reader without the check above
    assert json.loads(capsys.readouterr().out)["reader_640x480_ms"] > 0
    assert main([*argv, "--above-views", "3:1"]) == 2
    assert "expected UP:TALL views" in capsys.readouterr().err
    assert main([*argv, "--heap-heat", "0"]) == 0  # the reader without the heap look
    assert json.loads(capsys.readouterr().out)["reader_640x480_ms"] > 0
    assert main([*argv, "--heap-heat", "1"]) == 2
    assert "heap_heat must be from 0 (never) to under 1" in capsys.readouterr().err
    assert main([*argv, "--colour-above", "0"]) == 0  # the reader without the colour check
    assert json.loads(capsys.readouterr().out)["reader_640x480_ms"] > 0
    assert main([*argv, "--colour-above", "2"]) == 2
    assert "colour_above must be from 0 (never) up to 1" in capsys.readouterr().err


def test_without_torch_to_build_the_yardstick_the_benchmark_says_so_and_stops(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_yolo import main

    monkeypatch.setitem(sys.modules, "training.yolov8n", None)  # importing it fails
    missing = tmp_path / "none.onnx"
    assert main(["--rounds", "1", "--frames", "1", "--yolo", str(missing)]) == 0
    out, err = capsys.readouterr()
    assert out == "" and not missing.exists()
    assert "bench_yolo: skipped:" in err and "torch is not installed" in err
