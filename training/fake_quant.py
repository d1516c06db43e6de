"""Training under simulated int8 (quantization-aware fine-tuning), so that onnxruntime's static
int8 quantization (``training.quantize``) later costs the network little.

Every convolution sees its input and its weight rounded as onnxruntime's QDQ quantization rounds
them: the input to uint8 over a tracked min-max range (asymmetric, zero included), the weight to
int8 over its largest magnitude (symmetric, per tensor). Rounding passes gradients straight
through inside the range. The weights stay float: the exported model is the plain float graph,
quantized afterwards with ranges of its own calibration.
"""

from __future__ import annotations

import argparse
import types

import torch
import torch.nn.functional as F
from torch import nn

RANGE_MOMENTUM = 0.02
"""How fast a convolution's tracked input range follows each batch's min and max."""


def _fake_quant_input(conv: nn.Conv2d, x: torch.Tensor) -> torch.Tensor:
    """``x`` rounded to uint8 over the conv's tracked range (updated first, in training)."""
    lo, hi = conv.fq_range  # type: ignore[misc]
    if conv.training:
        b_lo, b_hi = float(x.detach().min()), float(x.detach().max())
        if conv.fq_seen:  # type: ignore[attr-defined]
            lo += RANGE_MOMENTUM * (b_lo - lo)
            hi += RANGE_MOMENTUM * (b_hi - hi)
        else:
            lo, hi = b_lo, b_hi
            conv.fq_seen = True  # type: ignore[attr-defined]
        conv.fq_range = (lo, hi)  # type: ignore[assignment]
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    if hi - lo < 1e-8:
        return x
    scale = (hi - lo) / 255.0
    zero = round(-lo / scale)
    return torch.fake_quantize_per_tensor_affine(x, scale, zero, 0, 255)


def _fake_quant_weight(w: torch.Tensor) -> torch.Tensor:
    """``w`` rounded to int8 over its largest magnitude (symmetric, one scale per tensor)."""
    top = float(w.detach().abs().max())
    if top < 1e-12:
        return w
    return torch.fake_quantize_per_tensor_affine(w, top / 127.0, 0, -127, 127)


def _forward(self: nn.Conv2d, x: torch.Tensor) -> torch.Tensor:
    return F.conv2d(
        _fake_quant_input(self, x),
        _fake_quant_weight(self.weight),
        self.bias,
        self.stride,
        self.padding,
        self.dilation,
        self.groups,
    )


def simulate_int8(net: nn.Module, skip: tuple[str, ...] = ()) -> int:
    """Make every ``Conv2d`` of ``net`` compute on int8-rounded inputs and weights (in place; the
    parameters and state dict are unchanged), except those whose module path starts with one of
    ``skip`` (to stay in float after quantization too). Returns how many were changed.

    >>> net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Conv2d(2, 1, 1))
    >>> simulate_int8(net), simulate_int8(nn.Sequential(nn.Conv2d(1, 2, 3)), skip=("0",))
    (2, 0)
    """
    n = 0
    for name, m in net.named_modules():
        if isinstance(m, nn.Conv2d) and not name.startswith(skip):
            m.fq_range = (0.0, 0.0)  # type: ignore[assignment]
            m.fq_seen = False  # type: ignore[assignment]
            m.forward = types.MethodType(_forward, m)  # type: ignore[method-assign]
            n += 1
    return n


def add_arguments(ap: argparse.ArgumentParser, example: str) -> None:
    """A training command's ``--fake-quant`` and ``--float-layer PREFIX`` options (``example``:
    a module path of the network it trains, for the help)."""
    ap.add_argument(
        "--fake-quant",
        action="store_true",
        help="train under simulated int8 (training.fake_quant), for a model to be quantized",
    )
    ap.add_argument(
        "--float-layer",
        action="append",
        default=[],
        metavar="PREFIX",
        help=f"with --fake-quant: convolutions (module paths, e.g. {example}) left in float",
    )


def check_arguments(ap: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse ``--float-layer`` without ``--fake-quant`` (exits 2 through ``ap.error``)."""
    if args.float_layer and not args.fake_quant:
        ap.error("--float-layer needs --fake-quant")


def apply(net: nn.Module, args: argparse.Namespace) -> None:
    """Simulate int8 in ``net`` as ``--fake-quant`` and ``--float-layer`` ask (else nothing)."""
    if args.fake_quant:
        simulate_int8(net, tuple(args.float_layer))


def metadata(args: argparse.Namespace) -> dict[str, str]:
    """The exported model's metadata for those options: ``fake_quant``, ``float_layers``."""
    return {
        **({"fake_quant": "1"} if args.fake_quant else {}),
        **({"float_layers": ",".join(args.float_layer)} if args.float_layer else {}),
    }
