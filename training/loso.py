"""Leave-one-source-out figures: for each extra source, a second look trained without it.

    python -m training.loso [--extra ../dice-extra] [--shared ../shared/dice-data]
        [--base models/dice-base.onnx] [--steps 150] [--det-steps 0] [--sources wood-stone,...]
        [--seed 0] [--also ../dice-extra-train] [--work build/loso]

The base model (``models/dice-base.onnx``, trained on the shared sources alone) never saw any photo
of the extra sources (``make data``), so each fold starts from it: its second look (the patch
classifier) is fine-tuned on patches of the two shared sources, synthetic scenes and every extra
source but the one left out, then the pair (the base detector, unchanged, and the fine-tuned second
look, float ONNX) reads the whole left-out source. With ``--det-steps N`` the fold's detector is
fine-tuned first, N steps from the base's, on the same photos but ``dice-box``'s (whose box is the
whole frame), and the second look pairs with it; otherwise the base detector stays, and so do its
misses. Printed: one Markdown table per left-out source (the base model in int8 and in float, the
fold's model, and the fold's model on the source's photos enlarged by a third), then the shared
held-out sets read by each model. ``--also DIR`` adds photos only to train on (the augmented
copies ``fetch_data --train-out`` writes, rendered scenes): in every fold but that of a source of
the same name, never measured. Everything lands in ``--work`` (patches, fold models,
``loso.json``); a step whose output exists is not redone.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scorekeeper.vision import DiceReader, ReaderConfig
from scorekeeper.vision.evaluate import (
    figures_table,
    list_labelled,
    parse_yolo,
    read_labelled,
)
from training import patch_data, train, train_patch
from training.args import parse_overlap, parse_share
from training.eval_shift import shifted_reader
from training.eval_sources import DEFAULT_EXTRA, TRAINED_ON
from training.sets import BASE_MODEL, DEFAULT_DATA, ROOT, VALID_FOLDERS, source_folders
from training.train import FRAME_BOX_SOURCES
from training.tune_thresholds import write_thresholds

TOKEN_SHARE = 0.2
"""Share of the synthetic scenes mined with board-game number tokens among the dice (the shipped
recipe's; see ``patch_data --token-share``)."""

# FRAME_BOX_SOURCES (whose box is the whole frame, one die a photo): only the detector's
# candidates, each labelled by the die whose box holds its centre, become patches.


def extra_sets(extra: Path) -> dict[str, list[tuple[Path, Path]]]:
    """Each extra source's labelled (image, label) pairs, by source (its top folder)."""
    return {
        source: [pair for folder in folders for pair in list_labelled(folder)]
        for source, folders in source_folders(extra).items()
    }


def _extra_job(job: tuple[str, str, str, int, int]) -> tuple[str, str, list[tuple[Any, int]]]:
    source, img_path, label_path, k, seed = job
    image = cv2.imread(img_path, cv2.IMREAD_COLOR)
    if image is None:
        print(f"loso: {img_path}: not a readable image; skipped", file=sys.stderr)
        return source, Path(img_path).name, []
    h, w = image.shape[:2]
    text = Path(label_path).read_text() if Path(label_path).exists() else ""
    truth = parse_yolo(text, w, h)
    image, truth = patch_data._variant(image, truth, k)
    rng = np.random.default_rng(seed)
    if source in FRAME_BOX_SOURCES:
        return source, Path(img_path).name, patch_data.candidate_patches(image, truth)
    return source, Path(img_path).name, patch_data._mine(image, truth, rng)


def mine_extra(
    sets: dict[str, list[tuple[Path, Path]]],
    detector: Path,
    out: Path,
    negatives_per_die: int | None = None,
    near: float | None = None,
) -> None:
    """Save the extra sources' patches (as is and turned half round) with their source and
    ``turn`` (1: from the photo turned half round); with ``negatives_per_die``, each source keeps
    at most that many "not a die" patches per die patch, drawn at random (seeded); ``near`` as
    :func:`~training.patch_data.label_candidates` takes it."""
    jobs = [
        (name, str(ip), str(lp), k, 7_000_000 + len(sets) * i + k)
        for name, pairs in sets.items()
        for i, (ip, lp) in enumerate(pairs)
        for k in (0, 1)
    ]
    X, y, src, turns = [], [], [], []
    # spawn: a forked child would inherit the parent's onnxruntime threads (and may hang)
    with get_context("spawn").Pool(2, patch_data._init, (str(detector), near)) as pool:
        done = pool.imap(_extra_job, jobs, chunksize=4)
        for job, (name, _, patches) in zip(jobs, done, strict=True):
            for p, lab in patches:
                X.append(p)
                y.append(lab)
                src.append(name)
                turns.append(job[3])
    labels, sources = np.array(y, np.int8), np.array(src, dtype=str)
    keep = np.ones(len(labels), bool)
    if negatives_per_die is not None:
        rng = np.random.default_rng(7)
        for name in sets:
            dice = int(((sources == name) & (labels > 0)).sum())
            negatives = np.nonzero((sources == name) & (labels == 0))[0]
            if len(negatives) > negatives_per_die * dice:
                keep[negatives] = False
                keep[rng.choice(negatives, negatives_per_die * dice, replace=False)] = True
    np.savez(
        out,
        X=np.stack([x for x, k in zip(X, keep, strict=True) if k]),
        y=labels[keep],
        source=sources[keep],
        turn=np.array(turns, np.int8)[keep],
    )
    for name in sets:
        counts = np.bincount(labels[keep & (sources == name)], minlength=7).tolist()
        print(f"loso: {name} patches by label {counts}", file=sys.stderr)


def fold_patches(
    base: Path, extras: list[Path], left_out: str, out: Path, upright: bool = False
) -> None:
    """The base patches plus those of every source in ``extras`` (``mine_extra``'s files) but
    ``left_out``'s, in the real group; with ``upright``, only the extras from photos as taken.

    :raises ValueError: ``upright`` with an extras file mined before turns were recorded.
    """
    b = np.load(base)
    es = [np.load(e) for e in extras]
    if upright and any("turn" not in e for e in es):
        raise ValueError("--max-turn needs extra patches mined with their turn: delete them")
    keeps = [(e["source"] != left_out) & ((e["turn"] == 0) if upright else True) for e in es]
    kept = sum(int(k.sum()) for k in keeps)
    np.savez(
        out,
        X=np.concatenate([b["X"], *(e["X"][k] for e, k in zip(es, keeps, strict=True))]),
        y=np.concatenate([b["y"], *(e["y"][k] for e, k in zip(es, keeps, strict=True))]),
        src=np.concatenate([b["src"], np.full(kept, train_patch.EXTRA_SRC, np.int8)]),
        image=np.concatenate([b["image"], np.array([""] * kept, dtype=str)]),
    )


def fit(
    args: argparse.Namespace, left_out: str | None, base: Path, extras: list[Path], out: Path
) -> None:
    """Fine-tune ``args.base`` on every source but ``left_out`` (None: every source) into
    ``out``: its detector ``args.det_steps`` steps (when not 0), then its second look. The
    patches it trained on stay beside ``out`` (``OUT.patches.npz``) for a final model's int8
    step, a fold's are removed."""
    patches = out.with_suffix(".patches.npz")
    fold_patches(base, extras, left_out or "", patches, upright=args.max_turn is not None)
    detector = args.base
    if args.det_steps:
        detector = out.with_name(out.stem + "-detector.onnx")
        sources = [a for d in (args.extra, *args.also) for a in ("--extra-data", str(d))]
        leave = ["--leave-out", left_out] if left_out else []
        train.main(
            ["--init-onnx", str(args.base), "--data", str(args.shared), *sources, *leave,
             "--steps", str(args.det_steps), "--lr", str(args.det_lr), "--focus", "0.6",
             "--seed", "3", "--no-eval", "--out", str(detector)]
        )  # fmt: skip
    start = [] if args.scratch else ["--init-onnx", str(args.base), "--keep-thresholds"]
    train_patch.main(
        ["--patches", str(patches), "--detector", str(detector), *start,
         "--steps", str(args.steps), "--batch", str(args.batch), "--lr",
         str(args.lr), "--warmup", "0.1", "--synth-share", str(args.synth_share), "--seed",
         str(args.seed), "--data", str(args.shared), "--no-eval", "--out", str(out),
         *train_patch.recipe_argv(args)]
    )  # fmt: skip
    if args.scratch:  # the base's thresholds, as a fine-tuned fold keeps them
        write_thresholds(out, {k: float(v) for k, v in train_patch.thresholds(args.base).items()})
    if left_out:
        patches.unlink()


def figures(
    model: Path, pairs: list[tuple[Path, Path]], shift: str = "none", *, count_known: bool = False
) -> dict[str, Any]:
    """The reader's trusted-photo figures on labelled pairs (the confusion matrix left out);
    with ``count_known``, each photo of 1 to 6 dice read knowing how many were thrown."""
    reader = DiceReader(model, ReaderConfig(threads=2))
    infer = reader.infer if count_known else shifted_reader(reader, shift)
    fig = read_labelled(infer, pairs, count_known=count_known).figures()
    return {k: v for k, v in fig.items() if not isinstance(v, (list, dict))}


def _measured(rows: dict[str, dict[str, Any]] | None) -> bool:
    """Whether a record's rows of the shared sets exist, each with the throw figures."""
    return bool(rows) and all("throws" in v for v in (rows or {}).values())


def main(argv: list[str] | None = None) -> int:
    """Run (or resume) the folds and print the tables; returns the exit code."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extra", type=Path, default=DEFAULT_EXTRA, help="what make data wrote")
    ap.add_argument("--shared", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--base", type=Path, default=BASE_MODEL)
    ap.add_argument("--work", type=Path, default=ROOT / "build" / "loso")
    ap.add_argument("--sources", default=None, help="comma-separated sources to leave out")
    ap.add_argument("--steps", type=int, default=150, help="second-look fine-tune steps a fold")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument(
        "--seed", type=int, default=0, help="the second look's training seed (how much folds vary)"
    )
    ap.add_argument(
        "--det-steps",
        type=int,
        default=0,
        help="also fine-tune the detector this many steps a fold (0: keep the base detector)",
    )
    ap.add_argument("--det-lr", type=float, default=5e-4)
    ap.add_argument(
        "--also",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="photos only to train on (fetch_data --train-out's augmented copies, rendered"
        " scenes; make data's layout): in every fold but that of a source of the same name,"
        " never measured; repeatable",
    )
    ap.add_argument(
        "--also-negatives",
        type=int,
        default=None,
        metavar="N",
        help="keep at most N 'not a die' patches per die patch of each --also source (augmented"
        " copies' crops and noise give many more candidates than photos do); default: all",
    )
    ap.add_argument(
        "--final",
        type=Path,
        default=None,
        metavar="OUT.onnx",
        help="no folds: train the same way on every source into OUT.onnx (float)",
    )
    ap.add_argument(
        "--scratch",
        action="store_true",
        help="train each fold's second look from scratch (--steps, --batch, --lr) instead of"
        " fine-tuning the base's; the base's thresholds are kept",
    )
    ap.add_argument("--synth", type=int, default=800, help="synthetic scenes mined")
    ap.add_argument("--synth-share", type=float, default=0.3)
    ap.add_argument(
        "--token-share",
        type=parse_share,
        default=TOKEN_SHARE,
        help="share of the synthetic scenes mined with board-game number tokens (default"
        f" {TOKEN_SHARE:g}; 0 mines the scenes of earlier versions)",
    )
    ap.add_argument(
        "--near-dups",
        type=parse_overlap,
        default=None,
        help="mine a candidate beaten to its die as that die when their boxes overlap by at least"
        " this IoU (default: as not a die)",
    )
    train_patch.add_recipe_arguments(ap)  # how the second look draws and re-frames patches
    args = ap.parse_args(argv)
    if args.also_negatives is not None and args.also_negatives < 0:
        ap.error(f"--also-negatives {args.also_negatives}: expected 0 or more")
    if not args.extra.is_dir():
        print(f"loso: error: {args.extra} does not exist (run make data)", file=sys.stderr)
        return 2
    args.work.mkdir(parents=True, exist_ok=True)
    sets = extra_sets(args.extra)
    wanted = args.sources.split(",") if args.sources else list(sets)
    unknown = sorted(set(wanted) - set(sets))
    if unknown:
        print(
            f"loso: error: no source {unknown}; {args.extra} holds {sorted(sets)}", file=sys.stderr
        )
        return 2
    base_patches, extra_patches = args.work / "base-patches.npz", args.work / "extra-patches.npz"
    start = time.time()
    if not base_patches.exists():
        patch_data.main(
            ["--detector", str(args.base), "--data", str(args.shared), "--synth", str(args.synth),
             "--variants", "2", "--token-share", str(args.token_share), "--out", str(base_patches),
             *(["--near-dups", str(args.near_dups)] if args.near_dups is not None else [])]
        )  # fmt: skip
    if not extra_patches.exists():
        mine_extra(sets, args.base, extra_patches, near=args.near_dups)
    extras = [extra_patches]
    for also in args.also:
        extras.append(args.work / f"also-{also.name}-patches.npz")
        if not extras[-1].exists():
            mine_extra(extra_sets(also), args.base, extras[-1], args.also_negatives, args.near_dups)
    print(f"loso: patches ready after {(time.time() - start) / 60:.1f} min", file=sys.stderr)
    base_float = args.work / "base-float.onnx"
    if not base_float.exists():
        train_patch.main(
            ["--detector", str(args.base), "--init-onnx", str(args.base), "--steps", "0",
             "--no-eval", "--out", str(base_float)]
        )  # fmt: skip
    if args.final:
        fit(args, None, base_patches, extras, args.final)
        write_thresholds(args.final, {TRAINED_ON: ",".join(sorted(sets))})
        print(f"loso: {args.final}: trained on every source", file=sys.stderr)
        return 0
    record_path = args.work / "loso.json"
    record: dict[str, Any] = json.loads(record_path.read_text()) if record_path.exists() else {}
    valid = {
        f"shared {name} {split}": list_labelled(args.shared / name, split)
        for name, split in VALID_FOLDERS
    }
    for source in wanted:
        model = args.work / f"fold-{source}.onnx"
        if not model.exists():
            t0 = time.time()
            fit(args, source, base_patches, extras, model)
            record[f"{source} train minutes"] = round((time.time() - t0) / 60, 1)
        pairs = sets[source]
        rows_wanted: dict[str, tuple[Path, str, bool]] = {
            "base int8": (args.base, "none", False),
            "base float": (base_float, "none", False),
            "fold (float)": (model, "none", False),
            "base int8, count known": (args.base, "none", True),
            "fold, count known": (model, "none", True),
            "base int8, enlarged 4/3": (args.base, "third", False),
            "fold, enlarged 4/3": (model, "third", False),
        }
        done = record.setdefault(source, {})
        # a row measured before the throw figures existed is measured again
        missing = [k for k in rows_wanted if "throws" not in done.get(k, {})]
        if not _measured(done.get("shared")):
            missing.append("shared")
        for key in missing:  # an older record gains the rows it lacks
            if key == "shared":
                done["shared"] = {k: figures(model, p) for k, p in valid.items()}
            else:
                path, shift, known = rows_wanted[key]
                done[key] = figures(path, pairs, shift, count_known=known)
        if missing:
            record[source] = {k: done[k] for k in [*rows_wanted, "shared"]}
            record_path.write_text(json.dumps(record, indent=1) + "\n")
        print(f"\n### {source} left out\n", flush=True)
        rows = {k: v for k, v in record[source].items() if k != "shared"}
        rows |= {f"fold on {k}": v for k, v in record[source]["shared"].items()}
        print(figures_table(rows), flush=True)
    if not _measured(record.get("shared base")):
        record["shared base"] = {k: figures(args.base, p) for k, p in valid.items()}
        record_path.write_text(json.dumps(record, indent=1) + "\n")
    print("\n### shared held-out sets, base int8\n")
    print(figures_table(record["shared base"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
