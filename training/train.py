"""Train DiceNet on synthetic scenes + real labelled photos and export models/dice.onnx.

    python -m training.train --seed 0 --steps 9000 --out models/dice.onnx

Deterministic given the seed (samples are pure functions of (seed, index); torch runs with
deterministic algorithms on the CPU). Progress goes to stderr through tqdm.
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
from torch.utils.data import DataLoader, Dataset
from tqdm import tqdm

from scorekeeper.vision.evaluate import Tally
from training import fake_quant
from training.data import CROP, STRIDE, Sample, augment, load_folder, synth_sample, targets
from training.model import DiceNet, Exported
from training.onnx_weights import graph_arrays
from training.sets import DEFAULT_DATA, ROOT, TRAIN_FOLDERS, VALID_FOLDERS, source_folders
from training.synth import TRAIN_BACKGROUNDS

LONG_SIDE = 512


class Mixed(Dataset):
    """Sample i: a real photo (share ``real``) or a fresh synthetic scene, augmented."""

    def __init__(
        self,
        seed: int,
        real: list[list[Sample]],
        real_share: float,
        length: int,
        focus: float = 0.8,
        styles: tuple[str, ...] = TRAIN_BACKGROUNDS,
        overexpose: float = 0.0,
        max_turn: float | None = None,
    ):
        self.seed, self.real, self.real_share, self.length = seed, real, real_share, length
        self.focus, self.styles, self.overexpose = focus, styles, overexpose
        self.max_turn = max_turn

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, i: int) -> dict[str, torch.Tensor]:
        rng = np.random.default_rng([self.seed, i])
        groups = [g for g in self.real if g]
        if groups and rng.random() < self.real_share:
            group = groups[int(rng.integers(len(groups)))]
            sample = group[int(rng.integers(len(group)))]
            img, s = augment(sample, rng, True, self.focus, self.overexpose, self.max_turn)
        else:
            sample = synth_sample(int(rng.integers(2**62)), self.styles)
            img, s = augment(sample, rng, False, overexpose=self.overexpose)
        t = targets(s)
        out = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in t.items()}
        out["image"] = torch.from_numpy(img[None].astype(np.float32))
        return out


FRAME_BOX_SOURCES = ("dice-box",)
"""Extra sources whose only box is the whole frame (one die a photo): no use to the detector."""


def extra_groups(
    extras: list[Path], leave_out: set[str], limit: int | None = None
) -> list[list[Sample]]:
    """Each source's labelled photos (``make data``'s layout: a top folder a source) under the
    ``extras`` folders as one group of Samples, but the sources in ``leave_out`` and those in
    FRAME_BOX_SOURCES.

    :raises ValueError: when ``leave_out`` names a source none of ``extras`` holds.
    """
    folders: dict[str, list[Path]] = {}
    for extra in extras:
        for source, paths in source_folders(extra).items():
            folders.setdefault(source, []).extend(paths)
    unknown = sorted(leave_out - set(folders))
    if unknown:
        held = ", ".join(map(str, extras))
        raise ValueError(f"--leave-out {unknown}: no such source; {held} hold {sorted(folders)}")
    groups = []
    for source, paths in sorted(folders.items()):
        if source in leave_out or source in FRAME_BOX_SOURCES:
            continue
        group = [s for f in paths for s in load_folder(f, "all", limit)]
        print(f"extra source {source}: {len(group)} photos", file=sys.stderr)
        groups.append(group)
    return groups


def focal_loss(logits: torch.Tensor, gt: torch.Tensor, ignore: torch.Tensor) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss on heat-map logits (no loss where ignore=1)."""
    pos = gt.eq(1).float()
    logp, log1mp = F.logsigmoid(logits), F.logsigmoid(-logits)
    p = logp.exp()
    pos_loss = logp * (1 - p) ** 2 * pos
    neg_loss = log1mp * p**2 * (1 - gt) ** 4 * (1 - pos) * (1 - ignore)
    return -(pos_loss.sum() + neg_loss.sum()) / pos.sum().clamp(min=1)


def losses(
    net: torch.nn.Module,
    batch: dict[str, torch.Tensor],
    teacher: torch.nn.Module | None = None,
) -> dict[str, torch.Tensor]:
    """Heat, value and size losses of one batch, and with a ``teacher`` the distillation
    losses (:func:`distill_losses`)."""
    heat, value, size = net(batch["image"])
    extra: dict[str, torch.Tensor] = {}
    if teacher is not None:
        with torch.no_grad():
            taught = teacher(batch["image"])
        extra = distill_losses((heat, value, size), taught)
    w = batch["weight"]
    wsum = w.sum().clamp(min=1)
    ce = F.cross_entropy(value, batch["value"].clamp(min=0), reduction="none")
    l_value = (ce * w).sum() / wsum
    l_size = ((size - batch["size"]).abs().sum(1) * w).sum() / wsum
    return {
        "heat": focal_loss(heat, batch["heat"], batch["ignore"]),
        "value": l_value,
        "size": l_size,
        **extra,
    }


def distill_losses(
    student: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
    teacher: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
) -> dict[str, torch.Tensor]:
    """How far a student's maps are from a teacher's: cross-entropy to the teacher's heat
    probabilities, and where the teacher sees a die (weighted by its heat) the divergence of
    the value logits and L1 of the log sizes. Each is normalised by the teacher's heat mass."""
    s_heat, s_value, s_size = student
    t_heat, t_value, t_size = teacher
    t_prob = torch.sigmoid(t_heat)
    mass = t_prob.sum().clamp(min=1)
    bce = F.binary_cross_entropy_with_logits(s_heat, t_prob, reduction="sum")
    kl = (F.softmax(t_value, 1) * (F.log_softmax(t_value, 1) - F.log_softmax(s_value, 1))).sum(1)
    return {
        "d_heat": bce / mass,
        "d_value": (kl * t_prob[:, 0]).sum() / mass,
        "d_size": ((s_size - t_size).abs().sum(1) * t_prob[:, 0]).sum() / mass,
    }


def pass_bias_through(bn: torch.nn.Module, bias: torch.Tensor) -> None:
    """Make a BatchNorm (in eval mode) add ``bias`` and nothing else: the folded conv's bias of
    an exported model."""
    with torch.no_grad():
        bn.weight.fill_(1.0)
        bn.bias.copy_(bias)
        bn.running_mean.zero_()
        bn.running_var.fill_(1.0 - bn.eps)


def _detector_convs(path: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """An exported model's detector convolutions (batch norm folded in) by module path in
    :class:`DiceNet` (``"s4.0.0"``, ``"l16"``): weight and bias."""
    import onnx

    model = onnx.load(str(path))
    init = graph_arrays(model)
    out = {}
    for node in model.graph.node:
        # a two-stage model's second-look convolutions are not the detector's
        if node.op_type != "Conv" or node.name.startswith("/patch/"):
            continue
        parts = node.name.strip("/").split("/")
        if len(parts) < 2 or "net" not in parts or len(node.input) < 3:
            raise ValueError(f"{path}: unexpected detector convolution {node.name!r}")
        out[parts[-2]] = (init[node.input[1]].copy(), init[node.input[2]].copy())
    return out


def _slim_level(convs: dict[str, tuple[np.ndarray, np.ndarray]]) -> int:
    """The ``slim`` level of the detector whose convolutions these are."""
    return int("s4.1.0" not in convs) + int("m4.3" in convs)


def onnx_slim(path: Path) -> int:
    """An exported model's detector's ``slim`` level (:class:`DiceNet`): 0 for the full one."""
    return _slim_level(_detector_convs(path))


def load_onnx_weights(net: DiceNet, path: Path, partial: bool = False) -> list[str]:
    """Start from an exported model: conv weights from its graph (batch norm folded in), each
    BatchNorm set to pass its conv's bias through (frozen statistics: train with it in eval).

    With ``partial``, convolutions the model lacks or holds in another shape keep their
    initial weights (a slim detector started from a full one); returns their module paths.

    :raises ValueError: unless ``partial``, when the model's detector is not ``net``'s shape.
    """
    return _copy_convs(net, _detector_convs(path), path, partial)


def _copy_convs(
    net: DiceNet, convs: dict[str, tuple[np.ndarray, np.ndarray]], path: Path, partial: bool
) -> list[str]:
    """:func:`load_onnx_weights` on convolutions already read from ``path``."""
    mods = dict(net.named_modules())
    left: list[str] = []
    used: set[str] = set()
    with torch.no_grad():
        for name, conv in mods.items():
            if not isinstance(conv, torch.nn.Conv2d):
                continue
            w, b = convs.get(name, (None, None))
            if w is None or b is None or tuple(conv.weight.shape) != w.shape:
                if not partial:
                    got = "none" if w is None else str(w.shape)
                    raise ValueError(f"{path}: weight {got} for {name} {tuple(conv.weight.shape)}")
                left.append(name)
                continue
            used.add(name)
            conv.weight.copy_(torch.from_numpy(w))
            if conv.bias is not None:
                conv.bias.copy_(torch.from_numpy(b))
                continue
            head, _, index = name.rpartition(".")
            bn = mods.get(f"{head}.{int(index) + 1}")
            if not isinstance(bn, torch.nn.BatchNorm2d):
                raise ValueError(f"{path}: {name} has no batch norm after it")
            pass_bias_through(bn, torch.from_numpy(b))
    unused = sorted(set(convs) - used)
    if unused and not partial:
        raise ValueError(f"{path}: convolutions {unused} have no place in this detector")
    return left


def detector_from_onnx(path: Path) -> DiceNet:
    """The detector of an exported model, full or slim, with its weights."""
    convs = _detector_convs(path)
    net = DiceNet(slim=_slim_level(convs))
    _copy_convs(net, convs, path, partial=False)
    return net


def ema_update(ema: torch.nn.Module, net: torch.nn.Module, step: int) -> None:
    """Move the averaged weights towards the trained ones (decay ramping up to 0.998)."""
    decay = min(0.998, (1 + step) / (10 + step))
    with torch.no_grad():
        for pe, pn in zip(ema.state_dict().values(), net.state_dict().values(), strict=True):
            if pe.dtype.is_floating_point:
                pe.mul_(decay).add_(pn.detach(), alpha=1 - decay)
            else:
                pe.copy_(pn)


def freeze_bn(net: torch.nn.Module) -> None:
    """Put every BatchNorm in eval mode (statistics frozen)."""
    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.eval()


def export(net: DiceNet, out: Path, meta: dict[str, str]) -> None:
    """Write the ONNX model (dynamic H, W) with its metadata."""
    net = net.eval()
    dummy = torch.zeros(1, 1, 384, LONG_SIDE)
    axes = {
        "image": {2: "height", 3: "width"},
        "heat": {2: "h", 3: "w"},
        "value": {2: "h", 3: "w"},
        "size": {2: "h", 3: "w"},
    }
    write_onnx(Exported(net), (dummy,), out, ["image"], ["heat", "value", "size"], axes, meta)


def write_onnx(
    module: torch.nn.Module,
    dummy: tuple[torch.Tensor, ...],
    out: Path,
    inputs: list[str],
    outputs: list[str],
    axes: dict[str, dict[int, str]],
    meta: dict[str, str],
) -> None:
    """Export a module to ONNX (opset 17, the given dynamic axes) with metadata properties."""
    import onnx

    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        module,
        dummy,
        str(out),
        input_names=inputs,
        output_names=outputs,
        dynamic_axes=axes,
        opset_version=17,
        dynamo=False,
    )
    model = onnx.load(str(out))
    for k, v in sorted(meta.items()):
        p = model.metadata_props.add()
        p.key, p.value = k, v
    onnx.save(model, str(out))


def evaluate(onnx_path: Path, data: Path, limit: int | None = None) -> dict[str, object]:
    """The reader's figures on the held-out real folders (when the data is present)."""
    from scorekeeper.vision import DiceReader, ReaderConfig
    from scorekeeper.vision.evaluate import list_labelled, read_labelled

    reader = DiceReader(onnx_path, ReaderConfig(threads=2))
    out: dict[str, object] = {}
    for folder, split in VALID_FOLDERS:
        if not (data / folder).is_dir():
            continue
        pairs = list_labelled(data / folder, split)[:limit]
        out[f"{folder}:{split}"] = brief_figures(read_labelled(reader.infer, pairs))
    return out


def brief_figures(tally: Tally) -> dict[str, Any]:
    """A tally's figures without the confusion matrix, wrong images as a count."""
    fig = tally.figures()
    fig.pop("confusion")
    fig["wrong_images"] = len(fig["wrong_images"])
    return fig


def main(argv: list[str] | None = None) -> int:
    """Train, export and report; returns the exit code."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steps", type=int, default=2400)
    ap.add_argument("--batch", type=int, default=12)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--real-share", type=float, default=0.5)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "dice.onnx")
    ap.add_argument("--limit", type=int, default=None, help="real images per folder (smoke)")
    ap.add_argument("--no-eval", action="store_true")
    ap.add_argument(
        "--eval-only",
        type=Path,
        default=None,
        metavar="MODEL",
        help="print MODEL's held-out figures",
    )
    ap.add_argument("--focus", type=float, default=0.8, help="share of real crops on a die")
    ap.add_argument("--init-onnx", type=Path, default=None, help="fine-tune from this model")
    ap.add_argument(
        "--slim",
        type=int,
        choices=(0, 1, 2),
        default=0,
        help="1: the detector without its second stride-4 conv (a fifth fewer operations); 2:"
        " also a depthwise-separable last stride-4 conv (40%% fewer); with --init-onnx of"
        " another kind, the layers they share start from that model",
    )
    ap.add_argument(
        "--teacher",
        type=Path,
        default=None,
        metavar="MODEL",
        help="also learn MODEL's detector maps (distillation)",
    )
    ap.add_argument("--warmup", type=float, default=0.05, help="share of steps warming up")
    ap.add_argument("--ckpt-every", type=int, default=0, help="export OUT.ckpt.onnx every N steps")
    ap.add_argument(
        "--stop-after", type=int, default=0, help="stop after N steps of the --steps schedule"
    )
    ap.add_argument(
        "--synth-styles",
        nargs="+",
        choices=TRAIN_BACKGROUNDS,
        default=list(TRAIN_BACKGROUNDS),
        metavar="STYLE",
        help="backgrounds of the synthetic scenes; a style named twice is drawn twice as often "
        f"(default: each of {', '.join(TRAIN_BACKGROUNDS)} once)",
    )
    ap.add_argument(
        "--overexpose", type=float, default=0.0, help="share of crops blown out (default 0)"
    )
    ap.add_argument(
        "--extra-data",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="also train on every source make data wrote to DIR (each its own group), but those"
        " --leave-out names and those whose box is the whole frame; repeatable",
    )
    ap.add_argument(
        "--leave-out",
        action="append",
        default=[],
        metavar="SOURCE",
        help="with --extra-data: a source (top folder) never trained on; repeatable",
    )
    ap.add_argument(
        "--max-turn",
        type=float,
        default=None,
        metavar="DEG",
        help="real photos turned at most DEG degrees either way instead of any turn, so that a"
        " die's top face stays above the face turned to the camera (default: any turn)",
    )
    fake_quant.add_arguments(ap, "stem")
    ap.add_argument(
        "--distill-only",
        action="store_true",
        help="with --teacher: learn only the teacher's maps, not the labels",
    )
    args = ap.parse_args(argv)
    if args.distill_only and not args.teacher:
        ap.error("--distill-only needs --teacher")
    fake_quant.check_arguments(ap, args)
    if args.leave_out and not args.extra_data:
        ap.error("--leave-out needs --extra-data")
    if args.eval_only:
        print(json.dumps(evaluate(args.eval_only, args.data, args.limit), indent=1))
        return 0

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    cv2.setNumThreads(1)
    real: list[list[Sample]] = []
    for folder, split in TRAIN_FOLDERS:
        if (args.data / folder).is_dir():
            real.append(load_folder(args.data / folder, split, args.limit))
    if args.extra_data:
        try:
            real += extra_groups(args.extra_data, set(args.leave_out), args.limit)
        except ValueError as e:  # ImageError too: no labelled folder there
            ap.error(str(e))
    n_real = sum(len(g) for g in real)
    print(f"real training images: {n_real} from {args.data}", file=sys.stderr)
    ds = Mixed(
        args.seed,
        real,
        args.real_share if n_real else 0.0,
        args.steps * args.batch,
        args.focus,
        tuple(args.synth_styles),
        args.overexpose,
        args.max_turn,
    )
    loader = DataLoader(
        ds,
        batch_size=args.batch,
        shuffle=False,
        num_workers=args.workers,
        worker_init_fn=lambda _: cv2.setNumThreads(1),
        persistent_workers=args.workers > 0,
    )
    net = DiceNet(slim=args.slim)
    if args.init_onnx:
        convs = _detector_convs(args.init_onnx)
        partial = args.slim != _slim_level(convs)
        left = _copy_convs(net, convs, args.init_onnx, partial)
        if left:
            print(f"layers not in {args.init_onnx.name}, trained afresh: {left}", file=sys.stderr)
    net = net.to(memory_format=torch.channels_last)
    fake_quant.apply(net, args)
    teacher = None
    if args.teacher:
        teacher = detector_from_onnx(args.teacher).eval().to(memory_format=torch.channels_last)
        for p in teacher.parameters():
            p.requires_grad_(False)
    ema = DiceNet(slim=args.slim)
    ema.load_state_dict(net.state_dict())
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=args.lr, total_steps=args.steps, pct_start=args.warmup
    )
    t0 = time.time()
    net.train()
    if args.init_onnx:
        freeze_bn(net)
    bar = tqdm(loader, total=args.steps, mininterval=15, file=sys.stderr, desc="train")
    run: dict[str, float] = {}
    for step, batch in enumerate(bar):
        batch["image"] = batch["image"].contiguous(memory_format=torch.channels_last)
        parts = losses(net, batch, teacher)
        loss = parts["heat"] + parts["value"] + 0.2 * parts["size"]
        if teacher is not None:
            distill = parts["d_heat"] + parts["d_value"] + 0.2 * parts["d_size"]
            loss = distill if args.distill_only else loss + distill
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 5.0)
        opt.step()
        sched.step()
        ema_update(ema, net, step)
        for k, v in parts.items():
            run[k] = 0.98 * run.get(k, float(v.detach())) + 0.02 * float(v.detach())
        bar.set_postfix({k: f"{v:.3f}" for k, v in run.items()}, refresh=False)
        if args.ckpt_every and (step + 1) % args.ckpt_every == 0 and step + 1 < args.steps:
            export(
                copy.deepcopy(ema),
                args.out.with_suffix(".ckpt.onnx"),
                {"stride": str(STRIDE), "long_side": str(LONG_SIDE), "step": str(step + 1)},
            )
        if not math.isfinite(float(loss.detach())):
            print("loss is not finite; stopping", file=sys.stderr)
            return 1
        if args.stop_after and step + 1 >= args.stop_after:
            break
    bar.close()
    minutes = (time.time() - t0) / 60
    meta = {
        "stride": str(STRIDE),
        "long_side": str(LONG_SIDE),
        "seed": str(args.seed),
        "steps": str(args.steps),
        "stopped_after": str(step + 1),
        "batch": str(args.batch),
        "crop": str(CROP),
        "producer": "training/train.py (DiceNet)",
        "slim": str(args.slim),
        **fake_quant.metadata(args),
        **({"distill_only": "1"} if args.distill_only else {}),
        **({"max_turn": str(args.max_turn)} if args.max_turn is not None else {}),
        **({"teacher": args.teacher.name} if args.teacher else {}),
    }
    export(ema, args.out, meta)
    print(
        f"exported {args.out} ({args.out.stat().st_size} bytes) after {minutes:.1f} min",
        file=sys.stderr,
    )
    if not args.no_eval and args.data.is_dir():
        print(json.dumps(evaluate(args.out, args.data, args.limit), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
