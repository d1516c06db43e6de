"""YOLOv8n, layer for layer, as a yardstick for the reader's speed (never trained or shipped).

Issue 26 sets the reader's budget as a share of the time YOLOv8n takes on a 640×640 input on
one thread. The network here is the published YOLOv8n detector (depth 0.33, width 0.25, 80
classes: 3,157,200 parameters, 3,151,904 with batch norm folded in, 8.7 GFLOPs at 640): the
same convolutions, C2f blocks, SPPF, feature pyramid and decoupled head with its
distribution-focal box decoding, so it costs what the real one costs; its weights are random,
which changes nothing in its time. ``benchmarks/bench_yolo.py`` exports it to ONNX and times
both in one run.
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

PARAMETERS = 3_157_200
"""YOLOv8n's parameter count with 80 classes, batch norm not yet folded (Ultralytics' model
summary: 3,157,200 parameters, 3,157,184 of them trained; fused, 3,151,904)."""


class Conv(nn.Module):
    """Convolution, batch norm, SiLU."""

    def __init__(self, cin: int, cout: int, k: int = 1, s: int = 1):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(cout, eps=1e-3, momentum=0.03)
        self.act = nn.SiLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.bn(self.conv(x)))


class Bottleneck(nn.Module):
    """Two 3×3 convolutions, with the input added back when ``shortcut``."""

    def __init__(self, c: int, shortcut: bool):
        super().__init__()
        self.cv1, self.cv2 = Conv(c, c, 3), Conv(c, c, 3)
        self.add = shortcut

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.cv2(self.cv1(x))
        return x + y if self.add else y


class C2f(nn.Module):
    """YOLOv8's cross-stage block: split, ``n`` bottlenecks, every stage concatenated."""

    def __init__(self, cin: int, cout: int, n: int, shortcut: bool):
        super().__init__()
        self.c = cout // 2
        self.cv1 = Conv(cin, 2 * self.c)
        self.cv2 = Conv((2 + n) * self.c, cout)
        self.m = nn.ModuleList(Bottleneck(self.c, shortcut) for _ in range(n))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = list(self.cv1(x).chunk(2, 1))
        for m in self.m:
            y.append(m(y[-1]))
        return self.cv2(torch.cat(y, 1))


class SPPF(nn.Module):
    """Spatial pyramid pooling, fast: three 5×5 max pools in a row, concatenated."""

    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.cv1 = Conv(cin, cin // 2)
        self.cv2 = Conv(cin // 2 * 4, cout)
        self.m = nn.MaxPool2d(5, 1, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = [self.cv1(x)]
        for _ in range(3):
            y.append(self.m(y[-1]))
        return self.cv2(torch.cat(y, 1))


class Detect(nn.Module):
    """The decoupled head on strides 8/16/32, boxes decoded from 16-bin distributions."""

    def __init__(self, chans: tuple[int, ...], classes: int = 80, bins: int = 16):
        super().__init__()
        self.classes, self.bins, self.strides = classes, bins, (8, 16, 32)
        c2, c3 = max(16, chans[0] // 4, 4 * bins), max(chans[0], min(classes, 100))
        self.cv2 = nn.ModuleList(
            nn.Sequential(Conv(c, c2, 3), Conv(c2, c2, 3), nn.Conv2d(c2, 4 * bins, 1))
            for c in chans
        )
        self.cv3 = nn.ModuleList(
            nn.Sequential(Conv(c, c3, 3), Conv(c3, c3, 3), nn.Conv2d(c3, classes, 1)) for c in chans
        )
        self.dfl = nn.Conv2d(bins, 1, 1, bias=False).requires_grad_(False)
        self.dfl.weight.data[:] = torch.arange(bins, dtype=torch.float32).view(1, bins, 1, 1)

    def forward(self, feats: list[torch.Tensor]) -> torch.Tensor:
        outs, anchors, strides = [], [], []
        for i, (f, s) in enumerate(zip(feats, self.strides, strict=True)):
            outs.append(torch.cat((self.cv2[i](f), self.cv3[i](f)), 1).flatten(2))
            h, w = f.shape[2:]
            sy, sx = torch.meshgrid(
                torch.arange(h, dtype=torch.float32) + 0.5,
                torch.arange(w, dtype=torch.float32) + 0.5,
                indexing="ij",
            )
            anchors.append(torch.stack((sx, sy), 0).flatten(1))
            strides.append(torch.full((1, h * w), float(s)))
        x = torch.cat(outs, 2)
        box, cls = x.split((4 * self.bins, self.classes), 1)
        b = box.shape[0]
        dist = self.dfl(box.view(b, 4, self.bins, -1).transpose(2, 1).softmax(1)).view(b, 4, -1)
        anchor, stride = torch.cat(anchors, 1), torch.cat(strides, 1)
        lt, rb = dist.chunk(2, 1)
        xy, wh = anchor + (rb - lt) / 2, rb + lt
        return torch.cat((torch.cat((xy, wh), 1) * stride, cls.sigmoid()), 1)


class YOLOv8n(nn.Module):
    """The whole detector: (1, 3, 640, 640) in, (1, 84, 8400) boxes and class scores out."""

    def __init__(self, classes: int = 80):
        super().__init__()
        self.b0, self.b1 = Conv(3, 16, 3, 2), Conv(16, 32, 3, 2)
        self.b2, self.b3 = C2f(32, 32, 1, True), Conv(32, 64, 3, 2)
        self.b4, self.b5 = C2f(64, 64, 2, True), Conv(64, 128, 3, 2)
        self.b6, self.b7 = C2f(128, 128, 2, True), Conv(128, 256, 3, 2)
        self.b8, self.b9 = C2f(256, 256, 1, True), SPPF(256, 256)
        self.up = nn.Upsample(scale_factor=2.0, mode="nearest")
        self.h12, self.h15 = C2f(384, 128, 1, False), C2f(192, 64, 1, False)
        self.h16, self.h18 = Conv(64, 64, 3, 2), C2f(192, 128, 1, False)
        self.h19, self.h21 = Conv(128, 128, 3, 2), C2f(384, 256, 1, False)
        self.detect = Detect((64, 128, 256), classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        p3 = self.b4(self.b3(self.b2(self.b1(self.b0(x)))))
        p4 = self.b6(self.b5(p3))
        p5 = self.b9(self.b8(self.b7(p4)))
        h12 = self.h12(torch.cat((self.up(p5), p4), 1))
        h15 = self.h15(torch.cat((self.up(h12), p3), 1))
        h18 = self.h18(torch.cat((self.h16(h15), h12), 1))
        h21 = self.h21(torch.cat((self.h19(h18), p5), 1))
        return self.detect([h15, h18, h21])


def parameter_count(model: nn.Module) -> int:
    """Trainable and fixed parameters, as Ultralytics counts them (the DFL weights included)."""
    return sum(p.numel() for p in model.parameters())


def export(out: Path, size: int = 640) -> Path:
    """Write YOLOv8n (random weights, batch norm in eval mode) as ONNX with a fixed input."""
    torch.manual_seed(0)
    model = YOLOv8n().eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        model,
        (torch.zeros(1, 3, size, size),),
        str(out),
        input_names=["images"],
        output_names=["output0"],
        opset_version=17,
        dynamo=False,
    )
    return out
