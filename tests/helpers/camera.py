"""Camera fakes: synthetic dice scenes, a pip-counting reader, and faulty sources."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

PIPS = {
    1: [(0.5, 0.5)],
    2: [(0.25, 0.25), (0.75, 0.75)],
    3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
    5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    6: [(0.25, 0.2), (0.75, 0.2), (0.25, 0.5), (0.75, 0.5), (0.25, 0.8), (0.75, 0.8)],
}


def scene(dice: Sequence[tuple[int, int, int]], size: int = 48, w: int = 640, h: int = 480) -> Any:
    """A green table with white dice ``(value, x, y)`` (top-left corners) drawn on it."""
    img = np.zeros((h, w, 3), np.uint8)
    img[:] = (40, 110, 30)
    for value, x, y in dice:
        cv2.rectangle(img, (x, y), (x + size, y + size), (245, 245, 245), -1)
        for px, py in PIPS[value]:
            cv2.circle(img, (int(x + px * size), int(y + py * size)), size // 10, (20, 20, 20), -1)
    return img


@dataclass(frozen=True)
class FakeDetection:
    """Same fields as the vision reader's Detection."""

    value: int
    box: tuple[float, float, float, float]
    confidence: float


class PipReader:
    """Reads the synthetic scenes: white squares are dice, dark blobs inside are pips."""

    def __init__(self, confidence: float = 0.95, unsure_values: Sequence[int] = ()) -> None:
        self.confidence = confidence
        self.unsure_values = set(unsure_values)  # dice of these values read with 0.55
        self.calls = 0

    def infer(self, frame: Any) -> list[FakeDetection]:
        self.calls += 1
        white = np.all(frame > 200, axis=2).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(white)
        out = []
        for i in range(1, n):
            x, y, bw, bh, area = stats[i]
            if area < 400:
                continue
            crop = frame[y : y + bh, x : x + bw]
            dark = np.all(crop < 80, axis=2).astype(np.uint8)
            pips = cv2.connectedComponents(dark)[0] - 1
            if 1 <= pips <= 6:
                box = (float(x), float(y), float(x + bw), float(y + bh))
                conf = 0.55 if pips in self.unsure_values else self.confidence
                out.append(FakeDetection(pips, box, conf))
        return out


class ScriptedSource:
    """A source playing a list of frames (or exceptions / None / garbage), then a fallback."""

    interval = 0.0

    def __init__(self, script: Sequence[Any], then: Any = None, interval: float = 0.01) -> None:
        self.script = list(script)
        self.then = then
        self.interval = interval
        self.name = "fake"
        self.info: dict[str, Any] = {}
        self.i = 0
        self.opened = 0
        self.closed = 0
        self.block = threading.Event()

    def open(self) -> None:
        self.opened += 1

    def read(self) -> Any:
        item = self.script[self.i] if self.i < len(self.script) else self.then
        self.i += 1
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, str) and item == "stall":
            self.block.wait(30)
            return None
        return item

    def close(self) -> None:
        self.closed += 1
        self.block.set()
