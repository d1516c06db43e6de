"""Patches for the second look: the first stage's candidates on training images, labelled.

    python -m training.patch_data --detector build/dice-stage3.onnx --out build/patches.npz

Each candidate the detector proposes (at a low heat threshold) on a real training photo or a
synthetic scene becomes a patch labelled with the face of the die it matches (the evaluation's
rule: its centre in the labelled box, one candidate per die, strongest first) or 0 when it
matches none: a false die, a side face, a second peak on one die. The labelled boxes are added
too, so dice the detector misses still teach faces. Patches are stored larger than the model's
(``STORE_CONTEXT`` times the box) so training can rotate, shift and scale them. Deterministic
given the seed.
"""

from __future__ import annotations

import argparse
import math
import sys
from multiprocessing import get_context
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from scorekeeper.camera.settle import box_iou
from scorekeeper.vision import Detection, DiceReader, ReaderConfig
from scorekeeper.vision.evaluate import Truth, assign, list_labelled, parse_yolo
from scorekeeper.vision.patches import crop_patch
from training.args import parse_overlap, parse_share
from training.sets import DEFAULT_DATA, ROOT, TRAIN_FOLDERS
from training.synth import TRAIN_BACKGROUNDS, render_scene

STORE = 72
"""Side in pixels of a stored patch."""

STORE_CONTEXT = 2.0
"""A stored patch covers this many times the longer side of its box."""

MINE_THRESHOLD = 0.12
"""Heat a peak needs to be mined as a candidate (below the reader's candidate threshold)."""

SOURCES = ("webcam", "tray", "synth")

DECOY_SHARE = 0.6
"""Share of the synthetic scenes with die-sized things that are not dice (see ``render_scene``)."""

COLOUR_PIPS = 0.3
"""Share of synthetic dice styles whose pips differ from the face mainly in colour (red pips on a
smoky die), which the detector's own training scenes never show."""

_reader: DiceReader | None = None
_near: float | None = None
"""A worker's ``near`` for :func:`label_candidates` (set by :func:`_init`)."""


def parse_fold(text: str) -> tuple[int, int]:
    """``"K/N"`` as (K, N) with 0 <= K < N.

    >>> parse_fold("1/5")
    (1, 5)
    """
    try:
        k, n = (int(v) for v in text.split("/"))
    except ValueError:
        raise ValueError(f"fold {text!r}: expected K/N, e.g. 0/5") from None
    if not 0 <= k < n:
        raise ValueError(f"fold {text!r}: expected K/N with 0 <= K < N")
    return k, n


def fold_images(data: Path, k: int, n: int) -> dict[str, list[tuple[Path, Path]]]:
    """Fold ``k`` of ``n`` of the real training photos, by training folder: every n-th by name
    from the k-th. Leaving a fold out of the second look's training estimates how it reads
    photos like the rest of its training set that it has not seen (the detector has seen them)."""
    return {
        folder: list_labelled(data / folder, split)[k::n]
        for folder, split in TRAIN_FOLDERS
        if (data / folder).is_dir()
    }


def label_candidates(dets: list[Detection], truth: Truth, near: float | None = None) -> list[int]:
    """Each candidate's label: the value of the die it matches, or 0; with ``near``, a
    candidate another one beat to its die is labelled that die's value too when its box
    overlaps the die's labelled box by at least ``near`` (IoU): a die framed a little off,
    not "not a die".

    >>> d = [Detection(2, (0, 0, 10, 10), 0.9), Detection(2, (1, 1, 11, 11), 0.5)]
    >>> truth = [(4, (0.0, 0.0, 12.0, 12.0))]
    >>> label_candidates(d, truth), label_candidates(d, truth, near=0.5)
    ([4, 0], [4, 4])
    """
    # strongest first, as the detector returns them
    labels = [truth[i][0] if i >= 0 else 0 for i in assign(dets, truth)]
    if near is None or not truth:
        return labels
    for k, d in enumerate(dets):
        if labels[k] == 0:
            value, box = max(truth, key=lambda t: box_iou(d.box, t[1]))
            if box_iou(d.box, box) >= near:
                labels[k] = value
    return labels


def _store(image: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    """The stored patch of a box."""
    x0, y0, x1, y1 = box
    side = STORE_CONTEXT * max(x1 - x0, y1 - y0, 1.0)
    return crop_patch(image, (x0 + x1) / 2, (y0 + y1) / 2, side, STORE)


def _variant(image: np.ndarray, truth: Truth, k: int) -> tuple[np.ndarray, Truth]:
    """Variant k of a real photo: as is, turned half round, or grey and softened."""
    if k == 0:
        return image, truth
    h, w = image.shape[:2]
    if k == 1:
        flipped = [(v, (w - x1, h - y1, w - x0, h - y0)) for v, (x0, y0, x1, y1) in truth]
        return np.ascontiguousarray(image[::-1, ::-1]), flipped
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    small = cv2.resize(grey, (w * 2 // 3, h * 2 // 3), interpolation=cv2.INTER_AREA)
    grey = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    return cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR), truth


def candidate_patches(image: np.ndarray, truth: Truth) -> list[tuple[np.ndarray, int]]:
    """A worker's stored patch of each candidate at :data:`MINE_THRESHOLD`, labelled by
    :func:`label_candidates` (with the worker's ``near``)."""
    assert _reader is not None
    dets = _reader.candidates(image, MINE_THRESHOLD)
    labels = label_candidates(dets, truth, _near)
    return [(_store(image, d.box), lab) for d, lab in zip(dets, labels, strict=True)]


def _mine(
    image: np.ndarray, truth: Truth, rng: np.random.Generator
) -> list[tuple[np.ndarray, int]]:
    """Labelled patches of one image: candidates, labelled boxes, one random background box."""
    out = candidate_patches(image, truth)
    out += [(_store(image, box), v) for v, box in truth]
    h, w = image.shape[:2]
    sides = [max(b[2] - b[0], b[3] - b[1]) for _, b in truth] or [rng.uniform(20, 90)]
    for _ in range(10):
        s = float(rng.choice(sides)) * rng.uniform(0.8, 1.2)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        if all(
            math.hypot(cx - (b[0] + b[2]) / 2, cy - (b[1] + b[3]) / 2) > 0.9 * s for _, b in truth
        ):
            out.append((_store(image, (cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2)), 0))
            break
    return out


def _init(model: str, near: float | None = None) -> None:
    global _reader, _near
    _near = near
    cv2.setNumThreads(1)
    _reader = DiceReader(model, ReaderConfig(threads=1))


Mined = tuple[int, str, list[tuple[np.ndarray, int]]]
"""One job's source index, photo name ("" for a synthetic scene) and labelled patches."""


def _real_job(job: tuple[str, str, int, int]) -> Mined:
    img_path, label_path, k, seed = job
    image = cv2.imread(img_path, cv2.IMREAD_COLOR)
    h, w = image.shape[:2]
    truth = parse_yolo(Path(label_path).read_text(), w, h) if Path(label_path).exists() else []
    image, truth = _variant(image, truth, k)
    source = 0 if "webcam" in img_path else 1
    return source, Path(img_path).name, _mine(image, truth, np.random.default_rng(seed))


def _synth_job(job: tuple[int, float, float, bool, float, float]) -> Mined:
    seed, decoy_share, colour_pips, swirls, streaks, token_share = job
    rng = np.random.default_rng([seed, 1])
    lo = math.exp(rng.uniform(math.log(14), math.log(100)))
    clean = bool(rng.random() < 0.2)
    # no draws at all without decoys: the scenes and patches of a decoy-free run stay the same
    decoys = int(rng.integers(1, 7)) if decoy_share and rng.random() < decoy_share else 0
    token_rng = np.random.default_rng([seed, 2])  # apart: the same patches but the tokens'
    tokens = int(token_rng.integers(1, 5)) if token_rng.random() < token_share else 0
    image, truth = render_scene(
        seed,
        640,
        480,
        die_size=(lo, lo * 1.3),
        styles=TRAIN_BACKGROUNDS,
        clean=clean,
        decoys=decoys,
        colour_pips=colour_pips,
        swirls=swirls,
        streaks=streaks,
        tokens=tokens,
    )
    return 2, "", _mine(image, truth, rng)


def main(argv: list[str] | None = None) -> int:
    """Mine and save ``X`` (N, STORE, STORE, 3) uint8 BGR, ``y`` labels 0..6, ``src`` sources,
    ``image`` the photo each real patch was cut from ("" for a synthetic scene)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--detector", required=True, help="an ONNX model with the first stage")
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "patches.npz")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--synth", type=int, default=4000, help="synthetic scenes")
    ap.add_argument(
        "--decoy-share",
        type=parse_share,
        default=DECOY_SHARE,
        help=f"share of synthetic scenes with decoys (spots, beads, coins; default {DECOY_SHARE})",
    )
    ap.add_argument(
        "--colour-pips",
        type=parse_share,
        default=COLOUR_PIPS,
        help="share of synthetic dice whose pips differ from the face mainly in colour"
        f" (default {COLOUR_PIPS}; 0 mines the scenes of earlier versions)",
    )
    ap.add_argument(
        "--swirls",
        action="store_true",
        help="marbled dice with swirling bands instead of blotches",
    )
    ap.add_argument(
        "--streaks",
        type=float,
        default=0.0,
        help="each synthetic die's chance of a specular streak across its top face (default 0)",
    )
    ap.add_argument(
        "--token-share",
        type=parse_share,
        default=0.0,
        help="share of synthetic scenes with board-game number tokens (a disc, a number, dots;"
        " default 0)",
    )
    ap.add_argument(
        "--near-dups",
        type=parse_overlap,
        default=None,
        help="label a candidate beaten to its die the die's value when their boxes overlap by at"
        " least this IoU (default: not a die)",
    )
    ap.add_argument("--variants", type=int, default=3, help="variants of each real photo (1-3)")
    ap.add_argument("--limit", type=int, default=None, help="real images per folder (smoke)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    jobs: list[tuple[str, str, int, int]] = []
    for folder, split in TRAIN_FOLDERS:
        if (args.data / folder).is_dir():
            for ip, lp in list_labelled(args.data / folder, split)[: args.limit]:
                for k in range(args.variants):
                    jobs.append((str(ip), str(lp), k, args.seed * 1_000_003 + len(jobs)))
    seeds = [
        (
            9_000_000 + args.seed * 100_000 + i,
            args.decoy_share,
            args.colour_pips,
            args.swirls,
            args.streaks,
            args.token_share,
        )
        for i in range(args.synth)
    ]
    X: list[np.ndarray] = []
    y: list[int] = []
    src: list[int] = []
    names: list[str] = []
    total = len(jobs) + len(seeds)
    with get_context("spawn").Pool(
        args.workers, _init, (args.detector, args.near_dups)
    ) as pool:  # see loso
        results = [
            pool.imap(_real_job, jobs, chunksize=4),
            pool.imap(_synth_job, seeds, chunksize=4),
        ]
        bar = tqdm(total=total, mininterval=10, file=sys.stderr, desc="mine")
        for it in results:
            for source, name, patches in it:
                for p, lab in patches:
                    X.append(p)
                    y.append(lab)
                    src.append(source)
                    names.append(name)
                bar.update()
        bar.close()
    ya, sa = np.array(y, np.int8), np.array(src, np.int8)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(
        args.out,
        X=np.stack(X) if X else np.zeros((0, STORE, STORE, 3), np.uint8),
        y=ya,
        src=sa,
        image=np.array(names, dtype=str),
    )
    for s, name in enumerate(SOURCES):
        counts = np.bincount(ya[sa == s], minlength=7).tolist()
        print(f"{name}: {counts} (label 0 = not a die)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
