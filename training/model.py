"""DiceNet: a tiny fully-convolutional CenterNet-style dice detector and reader."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

STRIDE = 4
HEAT_PRIOR = 0.05


def cbr(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    """3x3 conv, batch norm, ReLU."""
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)
    )


def dw_cbr(cin: int, cout: int) -> nn.Sequential:
    """Depthwise 3x3 conv, batch norm, ReLU, then pointwise 1x1 conv, batch norm, ReLU."""
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, 1, 1, groups=cin, bias=False),
        nn.BatchNorm2d(cin),
        nn.ReLU(inplace=True),
        nn.Conv2d(cin, cout, 1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class DiceNet(nn.Module):
    """Grey image (N, 1, H, W) in [0, 1] -> heat logits (N, 1), value logits (N, 6) and
    log box size (N, 2) maps at stride 4. H and W must be multiples of 16.

    ``slim`` 1 drops the second conv at stride 4 (a fifth of the operations); 2 also makes the
    last stride-4 conv depthwise separable (together about 40% of the operations)."""

    def __init__(
        self,
        widths: tuple[int, int, int, int] = (16, 32, 48, 80),
        neck: int = 32,
        slim: int = 0,
    ):
        super().__init__()
        if slim not in (0, 1, 2):
            raise ValueError(f"slim is 0, 1 or 2, got {slim}")
        a, b, c, d = widths
        self.stem = cbr(1, a, 2)
        self.s4 = nn.Sequential(cbr(a, b, 2)) if slim else nn.Sequential(cbr(a, b, 2), cbr(b, b))
        self.s8 = nn.Sequential(cbr(b, c, 2), cbr(c, c))
        self.s16 = nn.Sequential(cbr(c, d, 2), cbr(d, d), cbr(d, d))
        self.l16 = nn.Conv2d(d, neck, 1)
        self.l8 = nn.Conv2d(c, neck, 1)
        self.l4 = nn.Conv2d(b, neck, 1)
        self.m8 = cbr(neck, neck)
        self.m4 = dw_cbr(neck, neck) if slim == 2 else cbr(neck, neck)
        self.heat = nn.Conv2d(neck, 1, 1)
        self.value = nn.Conv2d(neck, 6, 1)
        self.size = nn.Conv2d(neck, 2, 1)
        nn.init.constant_(self.heat.bias, float(torch.logit(torch.tensor(HEAT_PRIOR))))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        x = (x - 0.5) * 4.0
        f4 = self.s4(self.stem(x))
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        p = F.interpolate(self.l16(f16), scale_factor=2.0, mode="nearest") + self.l8(f8)
        p = self.m8(p)
        p = F.interpolate(p, scale_factor=2.0, mode="nearest") + self.l4(f4)
        p = self.m4(p)
        return self.heat(p), self.value(p), self.size(p)


class Exported(nn.Module):
    """The ONNX graph: heat as probabilities, value logits, log sizes."""

    def __init__(self, net: DiceNet):
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        heat, value, size = self.net(x)
        return torch.sigmoid(heat), value, size


PATCH_WIDTHS = (16, 32, 48, 80)
"""The second look's channel widths unless told otherwise."""


class PatchNet(nn.Module):
    """The second look: a colour patch (N, 3, 48, 48) in [0, 1] around a candidate die ->
    logits (N, 7) of "not a die" and faces 1..6."""

    def __init__(self, widths: tuple[int, int, int, int] = PATCH_WIDTHS):
        super().__init__()
        a, b, c, d = widths
        self.features = nn.Sequential(
            cbr(3, a),
            cbr(a, b, 2),
            cbr(b, b),
            cbr(b, c, 2),
            cbr(c, c),
            cbr(c, d, 2),
            cbr(d, d),
            cbr(d, d),
        )
        self.head = nn.Linear(d, 7)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f = self.features((x - 0.5) * 4.0)
        return self.head(f.mean(dim=(2, 3)))


class TwoStage(nn.Module):
    """The exported graph: the detector's maps and, independently, the patch logits."""

    def __init__(self, det: DiceNet, patch: nn.Module):
        super().__init__()
        self.det = Exported(det)
        self.patch = patch

    def forward(
        self, image: torch.Tensor, patches: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        heat, value, size = self.det(image)
        return heat, value, size, self.patch(patches)
