"""The second looks re-normalised on a table's patches (``training.adapt_norm``, a trial)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper, numpy_helper

from tests.test_vision_joined import look_model
from training.adapt_norm import adapt, channel_stats, look_convs, main

ROOT = Path(__file__).resolve().parents[1]

CONVS = ("/patch/c1/Conv", "/patch/c2/Conv")


def _look() -> onnx.ModelProto:
    """A float look of two convolutions (the second without a bias), a mean and a linear layer."""
    rng = np.random.default_rng(1)
    weights = {
        "w1": rng.normal(0, 0.3, (4, 3, 3, 3)),
        "b1": rng.normal(0, 0.1, 4),
        "w2": rng.normal(0, 0.3, (5, 4, 3, 3)),
        "g": rng.normal(0, 0.5, (7, 5)),
        "h": rng.normal(0, 0.1, 7),
    }
    nodes = [
        helper.make_node("Conv", ["patches", "w1", "b1"], ["c1"], name=CONVS[0], pads=[1] * 4),
        helper.make_node("Relu", ["c1"], ["r1"], name="/patch/r1/Relu"),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], name=CONVS[1], pads=[1] * 4),
        helper.make_node("Relu", ["c2"], ["r2"], name="/patch/r2/Relu"),
        helper.make_node("ReduceMean", ["r2"], ["m"], name="/patch/mean", axes=[2, 3], keepdims=0),
        helper.make_node("Gemm", ["m", "g", "h"], ["patch_logits"], name="/patch/head", transB=1),
    ]
    model: onnx.ModelProto = look_model(nodes, weights, side=16)
    return model


def _logits(model: onnx.ModelProto, patches: np.ndarray) -> np.ndarray:
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    out: np.ndarray = sess.run(["patch_logits"], {"patches": patches})[0]
    return out


def _patches() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2)
    known = rng.uniform(0, 1, (64, 3, 16, 16)).astype(np.float32)
    table = (0.4 * rng.uniform(0, 1, (48, 3, 16, 16)) + 0.3).astype(np.float32)  # dim, washed out
    return known, table


def test_a_table_like_the_known_patches_leaves_the_look_as_it_was() -> None:
    known, _ = _patches()
    look = _look()
    assert [c.name for c in look_convs(look)] == list(CONVS)
    same = adapt(look, known, known)
    assert np.allclose(_logits(same, known), _logits(look, known), atol=1e-4)
    unmoved = adapt(look, known, _patches()[1], share=0.0)
    assert np.allclose(_logits(unmoved, known), _logits(look, known), atol=1e-4)


def test_each_convolution_reads_the_table_as_the_known_sources_after_the_earlier_ones() -> None:
    known, table = _patches()
    look = _look()
    outputs = ["c1", "c2"]
    want = channel_stats(look, outputs, known)
    before = channel_stats(look, outputs, table)
    assert not np.allclose(before["c2"][1], want["c2"][1], rtol=0.05)
    got = channel_stats(adapt(look, known, table), outputs, table)
    for name in outputs:  # the second moved with the first's move applied: it matches too
        assert np.allclose(got[name][0], want[name][0], atol=1e-3)
        assert np.allclose(got[name][1], want[name][1], rtol=1e-3)
    first_only = adapt(look, known, table, depth_limit=1)
    weights = {i.name: numpy_helper.to_array(i) for i in first_only.graph.initializer}
    assert np.array_equal(weights["w2"], numpy_helper.to_array(look.graph.initializer[2]))
    assert len(first_only.graph.node[2].input) == 2  # the second convolution is left without a bias
    assert len(adapt(look, known, table).graph.node[2].input) == 3


def test_the_command_refuses_a_missing_model_int8_looks_or_a_missing_table_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = ROOT / "models" / "dice.onnx"
    cases = [
        (tmp_path / "none.onnx", tmp_path, "no dice model"),
        (ROOT / "models" / "dice-base.onnx", tmp_path, "are int8"),
        (shipped, tmp_path / "nowhere", "are int8"),
    ]
    cases += [(shipped, tmp_path / "nowhere", "nowhere")]  # its first convolutions are float
    for (model, table, words), depth in zip(cases, [[], [], [], ["--depth", "1"]], strict=True):
        args = ["--model", str(model), "--known", str(tmp_path), "--table", str(table), *depth]
        assert main([*args, "--half", "first", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err
        assert err.startswith("adapt_norm: ") and words in err
    args = ["--model", str(shipped), "--known", str(tmp_path), "--table", str(tmp_path)]
    for option, value, words in [
        ("--share", "1.5", "a share from 0 to 1"),
        ("--depth", "0", "1 or more"),
        ("--per-source", "x", "1 or more"),
    ]:
        with pytest.raises(SystemExit) as exit_:
            main([*args, "--half", "first", option, value, str(tmp_path / "out")])
        assert exit_.value.code == 2 and words in capsys.readouterr().err
