"""Square colour patches around candidate dice, the input of the model's second-look head."""

from __future__ import annotations

import math

import cv2
import numpy as np

from scorekeeper.vision.detection import Box

PATCH_SIZE = 48
"""Side in pixels of a patch as the model sees it."""

PATCH_CONTEXT = 1.5
"""A patch covers this many times the longer side of the candidate's box."""


def to_bgr(frame: np.ndarray) -> np.ndarray:
    """A checked grey, BGR or BGRA uint8 frame as a 3-channel BGR array (a view when possible)."""
    if frame.ndim == 2:
        return np.repeat(frame[:, :, None], 3, axis=2)
    if frame.shape[2] == 4:
        return frame[:, :, :3]
    if frame.shape[2] == 1:
        return np.repeat(frame, 3, axis=2)
    return frame


def box_pixels(frame: np.ndarray, box: Box) -> np.ndarray:
    """The pixels of ``frame`` inside ``box`` as they lie (a view), its corners cut to whole
    pixels, the far ones included, and the box clipped at the frame's edges.

    >>> box_pixels(np.zeros((10, 10, 3), np.uint8), (-2.0, 3.5, 4.2, 20.0)).shape
    (7, 5, 3)
    """
    x0, y0, x1, y1 = box
    return frame[max(0, int(y0)) : int(y1) + 1, max(0, int(x0)) : int(x1) + 1]


def crop_patch(frame: np.ndarray, cx: float, cy: float, side: float, size: int) -> np.ndarray:
    """The ``side``-pixel square of a BGR frame centred on (cx, cy), resized to ``size``².

    Parts outside the frame repeat its edge pixels.

    >>> img = np.zeros((10, 10, 3), np.uint8); img[4:6, 4:6] = 255
    >>> p = crop_patch(img, 5.0, 5.0, 4.0, 4)
    >>> p.shape, int(p[1:3, 1:3].min()), int(p[0, 0, 0])
    ((4, 4, 3), 255, 0)
    """
    n = max(1, round(side))
    x0, y0 = math.floor(cx - n / 2 + 0.5), math.floor(cy - n / 2 + 0.5)
    h, w = frame.shape[:2]
    sx0, sy0 = min(max(x0, 0), w - 1), min(max(y0, 0), h - 1)
    sx1, sy1 = max(min(x0 + n, w), sx0 + 1), max(min(y0 + n, h), sy0 + 1)
    roi = frame[sy0:sy1, sx0:sx1]
    top, left = sy0 - y0, sx0 - x0
    bottom, right = n - top - roi.shape[0], n - left - roi.shape[1]
    if top or left or bottom or right:
        roi = cv2.copyMakeBorder(
            roi, max(top, 0), max(bottom, 0), max(left, 0), max(right, 0), cv2.BORDER_REPLICATE
        )
    interp = cv2.INTER_AREA if n > size else cv2.INTER_LINEAR
    out: np.ndarray = cv2.resize(roi, (size, size), interpolation=interp)
    return out


def patch_batch(
    frame: np.ndarray,
    boxes: list[tuple[float, float, float, float]],
    size: int = PATCH_SIZE,
    context: float = PATCH_CONTEXT,
) -> np.ndarray:
    """(N, 3, size, size) float32 patches in [0, 1] (BGR order) around each (x0, y0, x1, y1) box,
    each ``context`` times the box's longer side.

    >>> patch_batch(np.zeros((20, 30), np.uint8), [(2, 2, 8, 10)], 16).shape
    (1, 3, 16, 16)
    """
    bgr = to_bgr(frame)
    out = np.empty((len(boxes), 3, size, size), np.float32)
    for i, (x0, y0, x1, y1) in enumerate(boxes):
        side = context * max(x1 - x0, y1 - y0, 1.0)
        p = crop_patch(bgr, (x0 + x1) / 2, (y0 + y1) / 2, side, size)
        out[i] = p.transpose(2, 0, 1) * np.float32(1 / 255)
    return out


def above_patch_batch(
    frame: np.ndarray,
    boxes: list[tuple[float, float, float, float]],
    views: tuple[tuple[float, float], ...],
    size: int = PATCH_SIZE,
    context: float = PATCH_CONTEXT,
) -> np.ndarray:
    """(N × V, 3, size, size) patches of where each box's die would show its top face, were
    the box around the front face of a die seen at an angle: for each ``(up, tall)`` of
    ``views``, the band from ``up`` × the box's longer side above its top edge, ``tall`` × that
    side high and as wide as the box, taken ``context`` times as wide and high and stretched to
    a square (a top face seen at an angle looks squashed from above).

    >>> img = np.zeros((40, 40, 3), np.uint8); img[:10] = 255
    >>> p = above_patch_batch(img, [(10, 20, 30, 40)], ((0.9, 0.3), (0.0, 1.0)), 8)
    >>> p.shape, float(p[0].mean()) > 0.9, float(p[1].mean()) < 0.1
    ((2, 3, 8, 8), True, True)
    """
    bgr = to_bgr(frame)
    out = np.empty((len(boxes) * len(views), 3, size, size), np.float32)
    for i, (x0, y0, x1, y1) in enumerate(boxes):
        side = max(x1 - x0, y1 - y0, 1.0)
        cx, half_w = (x0 + x1) / 2, context * max(x1 - x0, 1.0) / 2
        for j, (up, tall) in enumerate(views):
            cy, half_h = y0 - up * side + tall * side / 2, context * tall * side / 2
            sx, sy = size / (2 * half_w), size / (2 * half_h)
            to_square = np.array(
                [[sx, 0.0, sx * (half_w - cx)], [0.0, sy, sy * (half_h - cy)]], np.float64
            )
            p = cv2.warpAffine(
                bgr,
                to_square,
                (size, size),
                flags=cv2.INTER_AREA if sx < 1 else cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_REPLICATE,
            )
            out[i * len(views) + j] = p.transpose(2, 0, 1) * np.float32(1 / 255)
    return out
