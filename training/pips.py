"""A die's pips counted by plain image processing: a second opinion no training shaped (a trial).

The box is looked at :data:`SIDE` pixels square, its lightness split at Otsu's level. The face
is the larger of the two sides' largest connected parts; the pips are the other side's blobs
inside the face's convex hull that are about round, of a pip's size and alike in size.
"""

from __future__ import annotations

import cv2
import numpy as np

from scorekeeper.vision.detection import Box
from scorekeeper.vision.patches import box_pixels

SIDE = 64
"""A box is looked at this many pixels square."""
AREAS = (0.004, 0.09)
"""A pip covers this share of the box, least and most."""
ROUND_MIN = 0.45
"""A pip's pixels over its bounding circle's area, at least."""
ALIKE = 2.5
"""A pip's area lies within this factor of the blobs' median."""
CONTRAST_MIN = 30
"""A box whose lightness spans fewer levels than this holds no pips to count."""


def count_pips(frame: np.ndarray, box: Box) -> int | None:
    """The number of pips on the face in ``box`` of the BGR ``frame``, 1 to 6, or None when
    no pips, or more than six, are found.

    >>> face = np.full((60, 60, 3), 230, np.uint8)
    >>> for c in ((15, 15), (45, 45), (30, 30)):
    ...     _ = cv2.circle(face, c, 5, (30, 30, 30), -1)
    >>> count_pips(face, (0, 0, 60, 60))
    3
    >>> dark = cv2.circle(np.full((60, 60, 3), 40, np.uint8), (30, 30), 8, (240, 240, 240), -1)
    >>> count_pips(dark, (0, 0, 60, 60))
    1
    >>> count_pips(np.full((60, 60, 3), 230, np.uint8), (0, 0, 60, 60)) is None
    True
    >>> count_pips(face, (0, 0, 3, 3)) is None
    True
    """
    crop = box_pixels(frame, box)
    if min(crop.shape[:2]) < 6:
        return None
    small = cv2.resize(crop, (SIDE, SIDE), interpolation=cv2.INTER_CUBIC)
    grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2LAB)[:, :, 0], (3, 3), 0)
    if int(grey.max()) - int(grey.min()) < CONTRAST_MIN:
        return None
    _, dark = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    light = cv2.bitwise_not(dark)
    dark_face, light_face = _largest(dark), _largest(light)
    face, pips = (
        (dark_face, light)
        if np.count_nonzero(dark_face) > np.count_nonzero(light_face)
        else (light_face, dark)
    )
    points = cv2.findNonZero(face)
    if points is None:
        return None
    hull = cv2.fillConvexPoly(np.zeros_like(face), cv2.convexHull(points), 255)
    hull = cv2.erode(hull, np.ones((3, 3), np.uint8))
    areas = _pip_areas(cv2.bitwise_and(pips, hull))
    if not areas:
        return None
    median = float(np.median(areas))
    alike = sum(median / ALIKE <= a <= median * ALIKE for a in areas)
    return alike if 1 <= alike <= 6 else None


def _largest(mask: np.ndarray) -> np.ndarray:
    """The largest connected part of a mask (all zero when it has none)."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    if count <= 1:
        return np.zeros_like(mask)
    i = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    return np.where(labels == i, 255, 0).astype(np.uint8)


def _pip_areas(mask: np.ndarray) -> list[float]:
    """The areas of a mask's blobs of a pip's size that are about round."""
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    out = []
    for i in range(1, count):
        _, _, bw, bh, area = (int(v) for v in stats[i])
        radius = max(bw, bh) / 2
        if AREAS[0] * SIDE * SIDE <= area <= AREAS[1] * SIDE * SIDE and (
            area / (np.pi * radius * radius) >= ROUND_MIN
        ):
            out.append(float(area))
    return out
