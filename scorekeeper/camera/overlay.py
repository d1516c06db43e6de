"""The live view's overlay: each die's box and value, the throwing area and the settle state."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from scorekeeper.camera.frames import Image, to_bgr
from scorekeeper.camera.settle import Area, Die

GREEN = (60, 200, 60)
YELLOW = (0, 215, 255)
GREY = (150, 150, 150)
WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
FONT = cv2.FONT_HERSHEY_SIMPLEX


def _label(
    img: Image, text: str, x: int, y: int, colour: tuple[int, int, int], scale: float
) -> None:
    (tw, th), base = cv2.getTextSize(text, FONT, scale, 2)
    y = max(th + 2, y)
    cv2.rectangle(img, (x, y - th - 4), (x + tw + 6, y + base - 2), colour, -1)
    cv2.putText(img, text, (x + 3, y - 2), FONT, scale, BLACK, 2, cv2.LINE_AA)


def draw_overlay(
    frame: Image,
    dice: Sequence[Die],
    ignored: Sequence[Die] = (),
    *,
    area: Area | None = None,
    stable: bool = False,
    proposal: Sequence[int] | None = None,
    banner: str | None = None,
) -> Image:
    """A BGR copy of ``frame`` with boxes and values drawn; dice outside the area in grey, dice
    the reader is unsure of in amber with a question mark."""
    img = np.ascontiguousarray(to_bgr(frame)).copy()
    h, w = img.shape[:2]
    scale = max(0.45, min(1.2, w / 900))
    if area is not None and not area.is_whole():
        x0, y0, x1, y1 = area.pixels(w, h)
        cv2.rectangle(img, (x0, y0), (x1 - 1, y1 - 1), YELLOW, 2)
    colour = GREEN if proposal else WHITE
    for group, col in ((ignored, GREY), (dice, colour)):
        for d in group:
            x0, y0, x1, y1 = (round(v) for v in d.box)
            unsure = col is not GREY and d.unsure
            c = YELLOW if unsure else col
            cv2.rectangle(img, (x0, y0), (x1, y1), c, 2)
            _label(img, f"{d.value}?" if unsure else str(d.value), x0, y0 - 2, c, scale)
    if banner:
        state = banner if len(banner) <= 60 else banner[:57] + "..."
    elif proposal:
        state = "settled: " + " ".join(str(v) for v in proposal)
    else:
        state = "still - reading" if stable else "moving"
    _label(img, state, 6, h - 8, GREEN if proposal else (YELLOW if not stable else WHITE), scale)
    return img


def placeholder(message: str, width: int = 640, height: int = 480) -> Image:
    """A dark frame with ``message`` written on it (the stream's picture when there is none)."""
    img = np.full((height, width, 3), 40, np.uint8)
    y = height // 2
    for line in message.split("\n"):
        for chunk in [line[i : i + 48] for i in range(0, max(1, len(line)), 48)]:
            cv2.putText(img, chunk, (20, y), FONT, 0.7, WHITE, 2, cv2.LINE_AA)
            y += 32
    return img
