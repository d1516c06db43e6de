"""Pre-processing: a frame as the detector's grey input tensor."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scorekeeper.vision.config import DEFAULT_LONG_SIDE
from scorekeeper.vision.imageio import check_frame, to_grey

MULTIPLE = 16
"""The model's input height and width are padded to a multiple of this."""


@dataclass(frozen=True)
class Prepared:
    """A frame ready for the model: the (1, 1, H, W) float32 tensor and its scale to the frame."""

    tensor: np.ndarray
    scale: float
    frame_size: tuple[int, int]


def preprocess(frame: np.ndarray, long_side: int = DEFAULT_LONG_SIDE) -> Prepared:
    """Grey, resized so the longer side is ``long_side``, padded to a multiple of 16, in [0, 1].

    >>> p = preprocess(np.zeros((480, 640, 3), np.uint8), 512)
    >>> p.tensor.shape, p.scale, p.frame_size
    ((1, 1, 384, 512), 0.8, (640, 480))

    :raises ImageError: for a frame that :func:`check_frame` refuses.
    """
    grey = to_grey(check_frame(frame))
    h, w = grey.shape
    scale = long_side / max(h, w)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    small = cv2.resize(grey, (nw, nh), interpolation=interp)
    ph, pw = -nh % MULTIPLE, -nw % MULTIPLE
    if ph or pw:
        small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
    tensor = (small.astype(np.float32) * np.float32(1 / 255))[None, None]
    return Prepared(tensor=tensor, scale=scale, frame_size=(w, h))


def halved_for(grey: np.ndarray, long_side: int) -> tuple[np.ndarray, int]:
    """A big grey frame halved (OpenCV's fast 2×2 average) until its longer side is under
    twice ``long_side``, and the factor it shrank by; a smaller frame (or one of odd size) as it
    is, factor 1. Each pass's area resize then has less to do: a 1920×1080 frame is read from
    960×540.

    >>> g, f = halved_for(np.zeros((1080, 1920), np.uint8), 512)
    >>> g.shape, f, halved_for(np.zeros((480, 640), np.uint8), 512)[1]
    ((540, 960), 2, 1)
    """
    factor = 1
    while max(grey.shape) >= 2 * long_side and grey.shape[0] % 2 == 0 and grey.shape[1] % 2 == 0:
        h, w = grey.shape
        grey = cv2.resize(grey, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
        factor *= 2
    return grey, factor
