"""A die found in a frame (:class:`Detection`) and the box geometry the reader's steps share."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

Box = tuple[float, float, float, float]
"""A box (x0, y0, x1, y1) in pixels."""

UNSURE_BELOW = 0.8
"""A die read with less confidence is one to check: the camera marks it, ``read`` prints "5?".
The default unsure cut; a model may carry its own (metadata ``unsure_below``)."""


def under(cut: float) -> float:
    """The highest confidence still marked unsure under the cut ``cut``.

    >>> under(0.8) < 0.8, under(0.8) > 0.7999999
    (True, True)
    """
    return math.nextafter(cut, 0.0)


@dataclass(frozen=True)
class Detection:
    """One die: its face value, its box (x0, y0, x1, y1) in frame pixels, and a confidence."""

    value: int
    box: Box
    confidence: float
    unsure_below: float = field(default=UNSURE_BELOW, compare=False, repr=False)
    """The confidence below which it is marked unsure: the cut of the reader that read it."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: ``{"value", "box", "confidence"}`` with rounded floats."""
        return {
            "value": self.value,
            "box": [round(v, 1) for v in self.box],
            "confidence": round(self.confidence, 4),
        }

    @property
    def unsure(self) -> bool:
        """Whether the reader's confidence is below its unsure cut (:attr:`unsure_below`, by
        default :data:`UNSURE_BELOW`): worth a second look.

        >>> Detection(5, (0, 0, 9, 9), 0.55).unsure, Detection(5, (0, 0, 9, 9), 0.97).unsure
        (True, False)
        >>> Detection(5, (0, 0, 9, 9), 0.75).unsure, Detection(5, (0, 0, 9, 9), 0.75, 0.7).unsure
        (True, False)
        """
        return self.confidence < self.unsure_below

    def centre(self) -> tuple[float, float]:
        """The centre of the box."""
        return box_centre(self.box)

    def scaled(self, k: float) -> Detection:
        """The same die with every box coordinate times ``k`` (a frame read at 1/k of a size).

        >>> Detection(3, (1, 2, 3, 4), 0.9).scaled(2).box
        (2, 4, 6, 8)
        """
        return replace(self, box=scaled_box(self.box, k))


def doubt_surplus(
    dice: Sequence[Detection],
    count: int,
    cut: float,
    where: Callable[[Detection], bool] | None = None,
) -> list[Detection]:
    """``dice`` when more of them (those ``where`` accepts, default all) were read than the
    ``count`` thrown: the reading contradicts the throw, so each counted die below ``cut`` is
    marked unsure (its own cut raised to ``cut``), as is each one beyond the ``count`` surest;
    the others as they are. Fewer or as many as ``count``: ``dice`` unchanged.

    >>> dice = [Detection(5, (0, 0, 9, 9), 0.99), Detection(2, (20, 0, 29, 9), 0.9),
    ...         Detection(4, (40, 0, 49, 9), 0.85)]
    >>> [d.unsure for d in doubt_surplus(dice, 2, 0.95)]
    [False, True, True]
    >>> [d.unsure for d in doubt_surplus(dice, 3, 0.95)]
    [False, False, False]
    """
    counted = [i for i, d in enumerate(dice) if where is None or where(d)]
    if len(counted) <= count:
        return list(dice)
    surest = set(sorted(counted, key=lambda i: -dice[i].confidence)[: max(count, 0)])
    out = list(dice)
    for i in counted:
        d = out[i]
        raised = max(d.unsure_below, cut)
        conf = d.confidence if i in surest else min(d.confidence, under(raised))
        out[i] = replace(d, unsure_below=raised, confidence=conf)
    return out


def scaled_box(box: Box, k: float) -> Box:
    """A box with every coordinate times ``k``."""
    x0, y0, x1, y1 = box
    return x0 * k, y0 * k, x1 * k, y1 * k


def grown_box(box: Box, k: float) -> Box:
    """A box ``k`` times as wide and high about the same centre.

    >>> grown_box((10, 10, 20, 30), 2.0)
    (5.0, 0.0, 25.0, 40.0)
    """
    x0, y0, x1, y1 = box
    cx, cy, hw, hh = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2 * k, (y1 - y0) / 2 * k
    return cx - hw, cy - hh, cx + hw, cy + hh


def box_side(box: Box) -> float:
    """The longer side of a box."""
    return max(box[2] - box[0], box[3] - box[1])


def box_centre(box: Box) -> tuple[float, float]:
    """The centre of a box."""
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def box_area(box: Box) -> float:
    """The area of a box (0 for an empty one)."""
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def shared_area(a: Box, b: Box) -> float:
    """The area two boxes share (0 when they do not meet).

    >>> shared_area((0, 0, 10, 10), (5, 0, 15, 10)), shared_area((0, 0, 1, 1), (2, 2, 3, 3))
    (50, 0.0)
    """
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def inside(point: tuple[float, float], box: Box) -> bool:
    """Whether ``point`` lies in ``box`` (edges included)."""
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def boxes_meet(a: Box, b: Box) -> bool:
    """Whether two boxes share some area (touching edges do not count).

    >>> boxes_meet((0, 0, 10, 10), (9, 9, 20, 20)), boxes_meet((0, 0, 10, 10), (10, 0, 20, 10))
    (True, False)
    """
    return shared_area(a, b) > 0


def overlap(a: Detection, b: Detection) -> bool:
    """True when either box holds the other's centre."""
    return inside(a.centre(), b.box) or inside(b.centre(), a.box)
