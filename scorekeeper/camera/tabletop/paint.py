"""The painter's basics for tabletop pictures: seeded generators, smooth noise and colours.

Images are float32 BGR in [0, 1] while drawn (:data:`FloatImage`).
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

Box = tuple[float, float, float, float]
"""A box (x0, y0, x1, y1) in pixels."""

Label = tuple[int, Box]
"""A die drawn: its face value and the box of its top face."""

FloatImage = NDArray[Any]
"""A float32 image being drawn, values in [0, 1]."""


def rng_of(seed: int | np.random.Generator) -> np.random.Generator:
    """A generator from a seed, or the generator itself."""
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def lowfreq(rng: np.random.Generator, h: int, w: int, cells: int = 6) -> FloatImage:
    """Smooth noise in [-1, 1] of shape (h, w) from a coarse random grid."""
    gh, gw = max(2, cells * h // max(h, w) + 1), max(2, cells * w // max(h, w) + 1)
    grid = rng.uniform(-1, 1, (gh, gw)).astype(np.float32)
    return np.asarray(cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC), np.float32)


def random_colour(
    rng: np.random.Generator, sat: tuple[float, float], val: tuple[float, float]
) -> FloatImage:
    """A random BGR colour in [0, 1] with saturation and value in the given ranges."""
    hsv = np.array(
        [[[rng.uniform(0, 180), rng.uniform(*sat) * 255, rng.uniform(*val) * 255]]], np.uint8
    )
    return np.asarray(cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0], np.float32) / 255


def luma(c: FloatImage) -> float:
    """Grey level of a BGR colour in [0, 1]."""
    return float(0.114 * c[0] + 0.587 * c[1] + 0.299 * c[2])


def filled(h: int, w: int, colour: FloatImage) -> FloatImage:
    """An (h, w, 3) image of one colour."""
    out = np.empty((h, w, 3), np.float32)
    out[:] = colour
    return out
