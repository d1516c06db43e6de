"""The training pipeline's smoke run: a few steps on a few images, export, read with the reader."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from scorekeeper.vision import DiceReader

ROOT = Path(__file__).resolve().parents[1]
HAVE_TORCH = all(importlib.util.find_spec(m) for m in ("torch", "onnx", "tqdm"))


@pytest.mark.filterwarnings("ignore")
@pytest.mark.skipif(not HAVE_TORCH, reason="torch, onnx and tqdm (the train extra) not installed")
def test_training_smoke_run_exports_a_readable_model(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from training.data import CROP, Sample, targets
    from training.train import Mixed, main

    out = tmp_path / "dice.onnx"
    code = main(
        [
            "--steps",
            "2",
            "--batch",
            "2",
            "--limit",
            "2",
            "--workers",
            "0",
            "--no-eval",
            "--out",
            str(out),
        ]
    )
    assert code == 0 and out.is_file() and out.stat().st_size < 10_000_000
    # stage 2: fine-tune from the exported model (its weights load back exactly)
    out2 = tmp_path / "dice2.onnx"
    args2 = ["--steps", "1", "--batch", "2", "--limit", "2", "--workers", "0", "--no-eval"]
    assert main([*args2, "--init-onnx", str(out), "--focus", "0.5", "--out", str(out2)]) == 0
    assert out2.is_file()
    reader = DiceReader(model_path=out, threads=1)
    assert reader.stride == 4 and reader.long_side == 512
    dets = reader.infer(np.zeros((480, 640, 3), np.uint8))
    assert isinstance(dets, list)
    # samples are pure functions of (seed, index)
    ds = Mixed(3, [], 0.0, 4)
    a, b = ds[1], ds[1]
    assert all(np.array_equal(a[k].numpy(), b[k].numpy()) for k in a)
    assert a["image"].shape == (1, CROP, CROP)
    one = Sample(
        np.zeros(0),
        np.array([[98.0, 50.0]], np.float32),
        np.array([40.0], np.float32),
        np.array([5]),
    )
    t = targets(one)
    g = CROP // 4
    assert t["heat"].shape == (1, g, g) and t["heat"][0, 12, 24] == 1.0
    assert t["heat"][0].sum() < 40 and t["value"][12, 24] == 4 and t["weight"][12, 24] > 0
    assert np.isclose(t["size"][0, 12, 24], np.log(10.0))
