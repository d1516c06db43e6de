"""A die's colour running on above its box: the box holds the front face of a die seen at an
angle, and its top face, the one that counts, lies above it."""

from __future__ import annotations

import cv2
import numpy as np

from scorekeeper.vision.detection import Box

STRIP = 0.35
"""The strips looked at above and below a box are this many of its sides high ..."""
INSET = 0.2
"""... and as wide as the box less this share of its width each side; the die's colour is the
median of the box less this share of its width and height each side (pips are a minority)."""
TOLERANCE = 20.0
"""A pixel is of the die's colour within this distance of it in CIELAB's a and b (lightness
left out: a top face is lit unlike the face turned to the camera)."""


def colour_above(frame: np.ndarray, box: Box, strip: float = STRIP) -> float:
    """The share of a strip just above ``box`` whose colour is the die's, less the share of
    the same strip just below it; 0.0 for a grey frame or a box too small to look at.

    Over 0 when the die's colour runs on above the box more than below: a die seen at an angle
    whose box holds its front face. ``frame`` is BGR or BGRA uint8 (grey: 0.0).

    >>> table = np.full((100, 100, 3), 128, np.uint8)
    >>> table[20:70, 30:70] = (40, 40, 200)  # a red die, its top face above the box
    >>> box = (30.0, 40.0, 70.0, 70.0)
    >>> round(colour_above(table, box), 2), colour_above(table[..., 0], box)
    (1.0, 0.0)
    """
    if frame.ndim != 3 or frame.shape[2] < 3:
        return 0.0
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = box
    bw, bh = x1 - x0, y1 - y0
    reach = strip * float(np.sqrt(max(bw, 0.0) * max(bh, 0.0)))
    top, bottom = max(0, round(y0 - reach)), min(h, round(y1 + reach))
    left, right = max(0, round(x0)), min(w, round(x1))
    if right - left < 4 or bottom - top < 4:
        return 0.0
    ab = cv2.cvtColor(np.ascontiguousarray(frame[top:bottom, left:right, :3]), cv2.COLOR_BGR2LAB)
    ab = ab[..., 1:]

    def rows_cols(r0: float, r1: float, c0: float, c1: float) -> np.ndarray:
        """The a, b pixels of frame rows r0..r1 and columns c0..c1, clipped to what was cut."""
        a0, a1 = max(0, round(r0) - top), min(bottom, round(r1)) - top
        b0, b1 = max(0, round(c0) - left), min(right, round(c1)) - left
        if a1 - a0 < 2 or b1 - b0 < 2:
            return np.zeros((0, 2), np.uint8)
        return ab[a0:a1, b0:b1].reshape(-1, 2)

    body = rows_cols(y0 + INSET * bh, y1 - INSET * bh, x0 + INSET * bw, x1 - INSET * bw)
    if not len(body):
        return 0.0
    # doubled, so that a median halfway between two levels stays a whole number
    twice = (2 * np.median(body, 0)).astype(np.int32)
    c0, c1 = x0 + INSET * bw, x1 - INSET * bw

    def share(pixels: np.ndarray) -> float:
        """The share of ``pixels`` within TOLERANCE of the die's colour (0.0 for none)."""
        if not len(pixels):
            return 0.0
        off = 2 * pixels.astype(np.int32) - twice
        return float(((off * off).sum(1) < (2 * TOLERANCE) ** 2).mean())

    return share(rows_cols(y0 - reach, y0, c0, c1)) - share(rows_cols(y1, y1 + reach, c0, c1))
