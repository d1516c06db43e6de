"""Leave-one-source-out (training/loso.py): sources found, patches mined per source, a fold
without its left-out source, refusals, and a fine-tune that keeps its base's thresholds."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers.sources import write_shared
from helpers.sources import write_source as _source

HAVE_TORCH = all(importlib.util.find_spec(m) for m in ("torch", "onnx", "tqdm"))
pytestmark = [
    pytest.mark.filterwarnings("ignore"),
    pytest.mark.skipif(
        not HAVE_TORCH, reason="torch, onnx and tqdm (the train extra) not installed"
    ),
]


def test_folds_mine_each_source_and_leave_one_out(tmp_path: Path) -> None:
    from training.loso import extra_sets, fold_patches, mine_extra
    from training.sets import BASE_MODEL

    extra = tmp_path / "extra"
    _source(extra, "dice-box/test-valid", range(2), frame_box=True)
    _source(extra, "wood-stone/all", range(10, 13), frame_box=False)
    sets = extra_sets(extra)
    assert {k: len(v) for k, v in sets.items()} == {"dice-box": 2, "wood-stone": 3}
    mined = tmp_path / "extra.npz"
    mine_extra(sets, BASE_MODEL, mined)
    data = np.load(mined)
    assert set(data["source"]) == {"dice-box", "wood-stone"}
    assert set(data["y"]) <= set(range(7)) and len(data["X"]) == len(data["y"])
    # the labelled boxes of a normal source are patches too: every die is taught
    assert int((data["y"][data["source"] == "wood-stone"] > 0).sum()) >= 3 * 3 * 2
    base = tmp_path / "base.npz"
    np.savez(
        base,
        X=data["X"][:2],
        y=np.array([0, 3], np.int8),
        src=np.array([2, 1], np.int8),
        image=np.array(["", "a.jpg"]),
    )
    fold = tmp_path / "fold.npz"
    fold_patches(base, [mined], "dice-box", fold)
    got = np.load(fold)
    kept = int((data["source"] == "wood-stone").sum())
    assert len(got["y"]) == 2 + kept and list(got["src"][:2]) == [2, 1]
    assert set(got["src"][2:]) == {3}  # train_patch.EXTRA_SRC: their own group or the webcam one
    # each extra patch says whether its photo was turned half round; upright keeps those as taken
    assert set(data["turn"]) == {0, 1}
    fold_patches(base, [mined], "dice-box", fold, upright=True)
    as_taken = int(((data["source"] == "wood-stone") & (data["turn"] == 0)).sum())
    assert 0 < as_taken < kept and len(np.load(fold)["y"]) == 2 + as_taken


def test_photos_only_to_train_on_keep_a_bounded_share_of_false_dice(tmp_path: Path) -> None:
    from training.loso import extra_sets, fold_patches, mine_extra
    from training.sets import BASE_MODEL

    extra = tmp_path / "train-only"
    _source(extra, "wood-stone/train", range(10, 13), frame_box=False)
    sets = extra_sets(extra)
    every, capped = tmp_path / "every.npz", tmp_path / "capped.npz"
    mine_extra(sets, BASE_MODEL, every)
    mine_extra(sets, BASE_MODEL, capped, negatives_per_die=0)
    y_every, y_capped = np.load(every)["y"], np.load(capped)["y"]
    assert int((y_every == 0).sum()) > 0 and int((y_capped == 0).sum()) == 0
    # every die patch stays, with its source and turn
    assert sorted(y_capped.tolist()) == sorted(y_every[y_every > 0].tolist())
    assert set(np.load(capped)["source"]) == {"wood-stone"}
    assert len(np.load(capped)["X"]) == len(y_capped) == len(np.load(capped)["turn"])
    # a fold leaves them out with the source of their name, and keeps them in every other fold
    base, fold = tmp_path / "base.npz", tmp_path / "fold.npz"
    one = np.load(capped)["X"][:1]
    np.savez(base, X=one, y=np.array([2], np.int8), src=np.array([1], np.int8), image=["a.jpg"])
    fold_patches(base, [capped], "wood-stone", fold)
    assert len(np.load(fold)["y"]) == 1
    fold_patches(base, [capped], "dice-box", fold)
    assert len(np.load(fold)["y"]) == 1 + len(y_capped)


def test_unknown_or_missing_sources_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from training.loso import main

    assert main(["--extra", str(tmp_path / "nowhere"), "--work", str(tmp_path / "w")]) == 2
    assert "run make data" in capsys.readouterr().err
    _source(tmp_path / "extra", "wood-stone/all", range(1), frame_box=False)
    args = ["--extra", str(tmp_path / "extra"), "--work", str(tmp_path / "w")]
    assert main([*args, "--sources", "moon"]) == 2
    assert "no source ['moon']" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main([*args, "--also-negatives", "-1"])
    assert exc.value.code == 2 and "expected 0 or more" in capsys.readouterr().err


def test_a_fine_tune_keeps_its_base_thresholds(tmp_path: Path) -> None:
    import onnx

    from training.sets import BASE_MODEL
    from training.train_patch import main as train

    base = BASE_MODEL
    with pytest.raises(SystemExit):
        train(["--detector", str(base), "--keep-thresholds", "--out", str(tmp_path / "x.onnx")])
    patches = tmp_path / "p.npz"
    X = np.random.default_rng(0).integers(0, 255, (8, 72, 72, 3), dtype=np.uint8)
    y = np.arange(8, dtype=np.int8) % 7
    np.savez(patches, X=X, y=y, src=np.zeros(8, np.int8), image=np.array([""] * 8))
    out = tmp_path / "fold.onnx"
    assert train(["--patches", str(patches), "--detector", str(base), "--init-onnx", str(base),
                  "--keep-thresholds", "--steps", "1", "--batch", "4", "--no-eval",
                  "--out", str(out)]) == 0  # fmt: skip

    def meta(p: Path) -> dict[str, str]:
        return {m.key: m.value for m in onnx.load(str(p), load_external_data=False).metadata_props}

    want = meta(base)
    assert "score_threshold" in want
    assert all(meta(out)[k] == want[k] for k in ("score_threshold", "candidate_threshold"))


def test_the_detector_trains_on_every_extra_source_but_the_left_out_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from training.train import extra_groups
    from training.train import main as train

    extra = tmp_path / "extra"
    _source(extra, "dice-box/test-valid", range(2), frame_box=True)
    _source(extra, "wood-stone/all", range(10, 13), frame_box=False)
    _source(extra, "catan-table/test-valid", range(20, 22), frame_box=False)
    sizes = [len(g) for g in extra_groups([extra], set())]
    assert sizes == [2, 3]  # catan-table, wood-stone; dice-box's frame boxes teach no detector
    groups = extra_groups([extra], {"wood-stone"})
    assert [len(g) for g in groups] == [2] and all(len(s.centres) == 3 for s in groups[0])
    with pytest.raises(ValueError, match=r"no such source; .* hold \['catan-table'"):
        extra_groups([extra], {"moon"})
    out = tmp_path / "det.onnx"
    base = ["--steps", "1", "--batch", "2", "--workers", "0", "--no-eval", "--out", str(out)]
    with pytest.raises(SystemExit) as exit_:
        train([*base, "--extra-data", str(extra), "--leave-out", "moon"])
    assert exit_.value.code == 2 and "no such source" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        train([*base, "--leave-out", "wood-stone"])
    assert exit_.value.code == 2 and "needs --extra-data" in capsys.readouterr().err
    args = [*base, "--data", str(tmp_path / "none"), "--extra-data", str(extra)]
    assert train([*args, "--leave-out", "catan-table"]) == 0 and out.exists()
    assert "real training images: 3" in capsys.readouterr().err


def test_a_final_model_trains_on_every_source(tmp_path: Path) -> None:
    import onnx

    from scorekeeper.vision import DiceReader
    from training.loso import main

    extra = tmp_path / "extra"
    _source(extra, "wood-stone/all", range(10, 12), frame_box=False)
    _source(extra, "catan-table/test-valid", range(20, 22), frame_box=False)
    _source(tmp_path, "rendered", range(30, 32), frame_box=False)  # a labelled folder itself
    work, out = tmp_path / "work", tmp_path / "final.onnx"
    args = ["--extra", str(extra), "--shared", str(tmp_path / "none"), "--work", str(work)]
    args += ["--also", str(tmp_path / "rendered")]
    small = ["--synth", "2", "--steps", "1", "--batch", "4", "--det-steps", "1"]
    assert main([*args, *small, "--final", str(out)]) == 0
    patches = np.load(out.with_suffix(".patches.npz"))
    extra_patches = np.load(work / "extra-patches.npz")
    also = np.load(work / "also-rendered-patches.npz")
    assert set(also["source"]) == {"rendered"}
    base_count = len(np.load(work / "base-patches.npz")["y"])
    assert len(patches["y"]) == base_count + len(extra_patches["y"]) + len(also["y"])
    assert set(extra_patches["source"]) == {"wood-stone", "catan-table"}
    meta = {p.key: p.value for p in onnx.load(str(out)).metadata_props}
    assert meta.get("score_threshold") == "0.7"  # the base's, kept
    assert DiceReader(out).two_stage
    assert (tmp_path / "final-detector.onnx").exists()


def test_a_chosen_score_threshold_is_stored_in_the_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    from scorekeeper.vision import DiceReader, default_model_path
    from training.tune_thresholds import main

    model = tmp_path / "m.onnx"
    shutil.copy(default_model_path(), model)
    before = DiceReader(model)
    assert main(["--model", str(model), "--set-score", "0.3"]) == 0
    after = DiceReader(model)
    assert after.score_threshold == 0.3 and before.score_threshold != 0.3
    assert after.candidate_threshold == before.candidate_threshold  # the other one kept
    with pytest.raises(SystemExit) as exit_:
        main(["--model", str(model), "--set-score", "1.5"])
    assert exit_.value.code == 2 and "between 0 and 1" in capsys.readouterr().err


def test_a_folds_seed_reaches_the_second_looks_training(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from training import loso

    seen: list[list[str]] = []

    def upright_seen(flag: bool) -> None:
        upright.append(flag)

    upright: list[bool] = []
    monkeypatch.setattr(loso, "fold_patches", lambda *a, upright=False: upright_seen(upright))
    monkeypatch.setattr(loso.train_patch, "main", seen.append)
    args = argparse.Namespace(
        base=tmp_path / "base.onnx", det_steps=0, extra=tmp_path, also=[], shared=tmp_path,
        steps=5, batch=4, lr=1e-3, synth_share=0.3, seed=7, extra_share=0.2,
        extra_dice_share=0.5, squash=0.25, max_turn=20.0, scratch=False, backbone="lite0",
        zoom_in=0.7, backbone_lr_scale=0.1, colour_mix=0.5, mix_style=0.25, mix_up=0.4,
    )  # fmt: skip
    loso.fit(args, None, tmp_path / "base.npz", [], tmp_path / "final.onnx")
    argv = seen[0]
    assert argv[argv.index("--seed") + 1] == "7" and argv[argv.index("--steps") + 1] == "5"
    assert argv[argv.index("--extra-share") + 1] == "0.2"
    assert argv[argv.index("--extra-dice-share") + 1] == "0.5"
    assert argv[argv.index("--squash") + 1] == "0.25"
    assert argv[argv.index("--max-turn") + 1] == "20.0" and upright == [True]
    assert argv[argv.index("--backbone") + 1] == "lite0"
    assert argv[argv.index("--zoom-in") + 1] == "0.7"
    assert argv[argv.index("--backbone-lr-scale") + 1] == "0.1"
    assert argv[argv.index("--colour-mix") + 1] == "0.5"
    assert argv[argv.index("--mix-style") + 1] == "0.25"
    assert argv[argv.index("--mix-up") + 1] == "0.4"


def test_the_extra_sources_draw_their_own_share_with_dice_as_asked(tmp_path: Path) -> None:
    from training import train_patch

    # webcam 0, tray 1, synth 2, extra 3; the extra sources hold 2 dice among 10 patches
    src = np.array([0] * 4 + [1] * 4 + [2] * 4 + [3] * 10, np.int8)
    y = np.array([1, 0, 2, 0] * 3 + [0] * 8 + [3, 4], np.int8)
    path = tmp_path / "p.npz"
    np.savez(path, X=np.zeros((len(y), 2, 2, 3), np.uint8), y=y, src=src,
             image=np.array([""] * len(y)))  # fmt: skip
    args = argparse.Namespace(
        patches=path, leave_out=None, synth_share=0.3, tray_share=0.5, hard_from=None,
        extra_share=0.0, extra_dice_share=None,
    )  # fmt: skip
    _, _, groups, shares, weights = train_patch._patch_sampler(args)
    assert [len(g) for g in groups] == [14, 4, 4] and weights is None
    assert shares == pytest.approx([0.35, 0.35, 0.3])
    args.extra_share, args.extra_dice_share = 0.2, 0.5
    _, _, groups, shares, weights = train_patch._patch_sampler(args)
    assert [len(g) for g in groups] == [4, 4, 4, 10]
    assert shares == pytest.approx([0.25, 0.25, 0.3, 0.2])
    assert weights is not None and weights[:3] == [None, None, None]
    w = weights[3]
    assert w is not None and w[y[groups[3]] > 0].sum() == pytest.approx(0.5)
    assert w[-1] == pytest.approx(0.25) and w[0] == pytest.approx(0.0625)


def test_a_fold_is_measured_as_read_and_with_each_throws_count_known(tmp_path: Path) -> None:
    import json

    from training.loso import main

    extra = tmp_path / "extra"
    _source(extra, "wood-stone/all", range(10, 12), frame_box=False)
    _source(extra, "catan-table/test-valid", range(20, 22), frame_box=False)
    shared = tmp_path / "shared"  # the held-out sets each fold is also measured on
    write_shared(shared, 30, webcam=1, tray=2)
    work = tmp_path / "work"
    args = ["--extra", str(extra), "--shared", str(shared), "--work", str(work)]
    args += ["--synth", "2", "--steps", "1", "--batch", "4", "--sources", "wood-stone"]
    assert main(args) == 0
    record = json.loads((work / "loso.json").read_text())
    rows = record["wood-stone"]
    assert {"fold (float)", "fold, count known", "base int8, count known"} <= set(rows)
    assert rows["fold, count known"]["throws"] == 2 and rows["fold (float)"]["throws"] == 2
    # an older record, without the rows measured with the count known or the throw figures,
    # gains them; the fold itself is not trained again
    fold = work / "fold-wood-stone.onnx"
    trained = fold.stat().st_mtime_ns
    del rows["fold, count known"]
    del rows["fold (float)"]["throws"]  # measured before the throw figures existed
    (work / "loso.json").write_text(json.dumps(record))
    assert main(args) == 0
    again = json.loads((work / "loso.json").read_text())["wood-stone"]
    assert again["fold, count known"]["throws"] == 2 and fold.stat().st_mtime_ns == trained
    assert again["fold (float)"]["throws"] == 2


def test_a_second_look_from_scratch_starts_from_nothing_and_keeps_the_base_thresholds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import onnx

    from training import loso
    from training.sets import BASE_MODEL

    def small_patches(base: Path, extras: list[Path], left_out: str, out: Path, **_: bool) -> None:
        X = np.random.default_rng(0).integers(0, 255, (8, 72, 72, 3), dtype=np.uint8)
        y = np.arange(8, dtype=np.int8) % 7
        np.savez(out, X=X, y=y, src=np.zeros(8, np.int8), image=np.array([""] * 8))

    seen: list[list[str]] = []
    real = loso.train_patch.main
    monkeypatch.setattr(loso, "fold_patches", small_patches)
    monkeypatch.setattr(loso.train_patch, "main", lambda argv: seen.append(argv) or real(argv))
    base = BASE_MODEL
    args = argparse.Namespace(
        base=base, det_steps=0, extra=tmp_path, also=[], shared=tmp_path, steps=1, batch=4,
        lr=1e-3, synth_share=0.0, seed=0, extra_share=0.0, extra_dice_share=None, squash=0.0,
        max_turn=None, scratch=True, backbone="patchnet", zoom_in=0.85, backbone_lr_scale=1.0,
        colour_mix=0.0, mix_style=0.0, mix_up=0.0,
    )  # fmt: skip
    out = tmp_path / "fold.onnx"
    loso.fit(args, "wood-stone", tmp_path / "base.npz", [], out)
    assert "--init-onnx" not in seen[0] and "--keep-thresholds" not in seen[0]

    def meta(p: Path) -> dict[str, str]:
        return {m.key: m.value for m in onnx.load(str(p), load_external_data=False).metadata_props}

    assert float(meta(out)["score_threshold"]) == float(meta(base)["score_threshold"])
    assert float(meta(out)["candidate_threshold"]) == float(meta(base)["candidate_threshold"])


def _refuses(
    loso: Any,
    tmp_path: Path,
    option: list[str],
    expected: str,
    capsys: pytest.CaptureFixture[str],
) -> list[str]:
    """loso's arguments for one small source, after checking they refuse ``option`` in words."""
    _source(tmp_path / "extra", "wood-stone/all", range(1), frame_box=False)
    args = ["--extra", str(tmp_path / "extra"), "--work", str(tmp_path / "w")]
    with pytest.raises(SystemExit) as stop:
        loso.main([*args, *option])
    assert stop.value.code == 2
    assert f"expected {expected}" in capsys.readouterr().err
    return args


def test_the_token_share_reaches_the_base_patches_mining_and_a_bad_one_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from training import loso

    args = _refuses(loso, tmp_path, ["--token-share", "1.5"], "a share from 0 to 1: 1.5", capsys)
    mined: list[list[str]] = []

    class Mined(Exception):
        pass

    def mine(argv: list[str]) -> int:
        mined.append(argv)
        raise Mined

    monkeypatch.setattr(loso.patch_data, "main", mine)
    with pytest.raises(Mined):
        loso.main([*args, "--token-share", "0.2"])
    assert mined[0][mined[0].index("--token-share") + 1] == "0.2"


def test_near_duplicates_reach_both_minings_and_label_a_die_framed_off_as_that_die(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from scorekeeper.vision import Detection
    from training import loso
    from training.patch_data import label_candidates

    truth = [(4, (0.0, 0.0, 20.0, 20.0)), (2, (40.0, 0.0, 60.0, 20.0))]
    dets = [
        Detection(4, (0, 0, 20, 20), 0.9),  # the die itself
        Detection(4, (3, 2, 23, 22), 0.6),  # the same die framed a little off: IoU 0.67
        Detection(1, (8, 8, 14, 14), 0.5),  # a pip inside it: IoU 0.09
        Detection(3, (90, 0, 110, 20), 0.4),  # the table
    ]
    assert label_candidates(dets, truth) == [4, 0, 0, 0]
    assert label_candidates(dets, truth, near=0.5) == [4, 4, 0, 0]
    assert label_candidates(dets, truth, near=0.8) == [4, 0, 0, 0]
    assert label_candidates(dets, [], near=0.5) == [0, 0, 0, 0]

    refused = "an overlap (IoU) over 0 and at most 1: 0"
    args = _refuses(loso, tmp_path, ["--near-dups", "0"], refused, capsys)
    mined: list[list[str]] = []
    extra: list[float | None] = []

    def mine(argv: list[str]) -> int:
        mined.append(argv)
        return 0

    class Mined(Exception):
        pass

    def mine_extra(*a: object, near: float | None = None) -> None:
        extra.append(near)
        raise Mined

    monkeypatch.setattr(loso.patch_data, "main", mine)
    monkeypatch.setattr(loso, "mine_extra", mine_extra)
    with pytest.raises(Mined):
        loso.main([*args, "--near-dups", "0.5"])
    assert mined[0][mined[0].index("--near-dups") + 1] == "0.5" and extra == [0.5]
    mined.clear()
    with pytest.raises(Mined):
        loso.main([*args, "--work", str(tmp_path / "w2")])
    assert "--near-dups" not in mined[0] and extra[-1] is None
