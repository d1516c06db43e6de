"""The dark mark at the middle of a die read as a 1: a round pip, or a printed number's strokes."""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np

from scorekeeper.vision.detection import Box
from scorekeeper.vision.imageio import to_grey
from scorekeeper.vision.patches import box_pixels

SIDE = 64
"""A box is looked at this many pixels square."""
MIDDLE = 0.6
"""... in its middle this share of its side, where a 1's pip lies."""
REACH = 0.3
"""A mark's centre lies within this share of the middle's side of the middle's centre."""
AREAS = (0.01, 0.35)
"""A mark covers this share of the middle, least and most."""
ROUND_MIN_SIDE = 20.0
"""A mark's roundness is judged only in a box at least this many pixels on its shorter side: in
a smaller one the pip is too few pixels (a 12 px die's drawn pip measures 0.88)."""


class MarkShape(NamedTuple):
    """The shape of the dark mark at a box's middle (:func:`mark_shape`)."""

    solidity: float
    """Its pixels over its convex hull's area: about 1 for a pip or a numeral 1's bar, well
    under it for a number's bent strokes."""
    roundness: float
    """4π times its pixels over its convex hull's length squared: about 1 for a round pip (about
    0.9 for one seen steeply, twice as wide as high), well under it for a stroke (a numeral's
    bar or bends); the hull's length, not the outline's, which a pixel staircase lengthens."""


def mark_shape(frame: np.ndarray, box: Box) -> MarkShape | None:
    """The shape of the dark mark nearest the middle of ``box`` in the checked ``frame`` (grey,
    BGR or BGRA; only the box is made grey): a 1's pip is solid and round, the number printed
    dark on a light board token is strokes, less solid or less round, or None when no dark mark
    is found there (a light pip on a dark die: the dark part is the face, too big to be a mark).

    The box is looked at :data:`SIDE` pixels square; its middle (:data:`MIDDLE` of its side) is
    split in two at Otsu's level, and the darker part's blobs count as marks when they cover
    :data:`AREAS` of the middle and lie within :data:`REACH` of its centre.

    >>> face = np.full((40, 40), 230, np.uint8)
    >>> pip = cv2.circle(face.copy(), (20, 20), 5, 30, -1)
    >>> two = cv2.putText(face.copy(), "2", (13, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.6, 30, 2)
    >>> one = cv2.line(face.copy(), (20, 12), (20, 28), 30, 3)
    >>> [tuple(round(x, 2) for x in mark_shape(f, (0, 0, 40, 40))) for f in (pip, two, one)]
    [(0.99, 0.95), (0.73, 0.62), (1.15, 0.58)]
    >>> light = cv2.circle(np.full((40, 40), 40, np.uint8), (20, 20), 5, 230, -1)
    >>> [mark_shape(f, b) for f, b in ((face, (0, 0, 40, 40)), (light, (0, 0, 40, 40)))]
    [None, None]
    >>> mark_shape(pip, (0, 0, 3, 3)) is None, mark_shape(pip, (50, 50, 90, 90)) is None
    (True, True)
    """
    crop = box_pixels(frame, box)
    if min(crop.shape[:2]) < 4:
        return None
    crop = cv2.resize(to_grey(crop), (SIDE, SIDE), interpolation=cv2.INTER_CUBIC)
    lo, hi = int(SIDE * (1 - MIDDLE) / 2), int(SIDE * (1 + MIDDLE) / 2)
    middle = crop[lo:hi, lo:hi]
    height, width = middle.shape
    _, marks = cv2.threshold(middle, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    count, labels, stats, centres = cv2.connectedComponentsWithStats(marks)
    nearest: tuple[float, MarkShape] | None = None
    for i in range(1, count):
        area = int(stats[i, cv2.CC_STAT_AREA])
        if not AREAS[0] * height * width <= area <= AREAS[1] * height * width:
            continue
        cx, cy = centres[i]
        reach = float(np.hypot(cx - width / 2, cy - height / 2)) / width
        if reach > REACH or (nearest is not None and reach >= nearest[0]):
            continue
        outlines, _ = cv2.findContours(
            (labels == i).astype(np.uint8), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE
        )
        outline = max(outlines, key=cv2.contourArea)
        hull = float(cv2.contourArea(cv2.convexHull(outline)))
        length = float(cv2.arcLength(cv2.convexHull(outline), True))
        shape = MarkShape(area / max(hull, 1.0), 4 * np.pi * area / max(length * length, 1.0))
        nearest = (reach, shape)
    return None if nearest is None else nearest[1]


def number_like(shape: MarkShape | None, box: Box, solidity: float, roundness: float) -> bool:
    """Whether a 1's middle mark measured as ``shape`` (:func:`mark_shape`) is a printed number's
    strokes rather than a pip: less solid than ``solidity``, or, in a box at least
    :data:`ROUND_MIN_SIDE` pixels on its shorter side, less round than ``roundness`` (0: never).

    >>> bar = MarkShape(1.1, 0.6)
    >>> [number_like(bar, b, 0.85, 0.9) for b in ((0, 0, 40, 40), (0, 0, 12, 12))]
    [True, False]
    >>> number_like(MarkShape(0.7, 1.0), (0, 0, 12, 12), 0.85, 0.9)
    True
    >>> number_like(None, (0, 0, 40, 40), 0.85, 0.9)
    False
    """
    if shape is None:
        return False
    x0, y0, x1, y1 = box
    judged = min(x1 - x0, y1 - y0) >= ROUND_MIN_SIDE
    return shape.solidity < solidity or (judged and shape.roundness < roundness)
