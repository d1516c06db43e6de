"""Merging the looks' candidates and keeping one die per place (the reader's NMS)."""

from __future__ import annotations

import math

from scorekeeper.vision.config import DEFAULTS, ReaderConfig
from scorekeeper.vision.detection import (
    Box,
    Detection,
    box_area,
    box_side,
    inside,
    overlap,
    shared_area,
)


def merge_scales(
    fine: list[Detection], coarse: list[Detection], size_ratio: float = DEFAULTS.size_ratio
) -> list[Detection]:
    """The fine pass's candidates plus the coarse pass's that no fine candidate already covers.

    A coarse candidate is covered when a fine one of similar size (area within ``size_ratio``
    either way) overlaps it.

    >>> fine = [Detection(2, (0, 0, 10, 10), 0.9)]
    >>> coarse = [Detection(2, (1, 1, 11, 11), 0.8), Detection(5, (-20, -20, 40, 40), 0.7)]
    >>> [d.value for d in merge_scales(fine, coarse)]
    [2, 5]
    """
    out = list(fine)
    for c in coarse:
        a = box_area(c.box)
        if not any(
            overlap(c, f) and a / size_ratio <= box_area(f.box) <= a * size_ratio for f in fine
        ):
            out.append(c)
    return out


def part_of(
    small: Detection, big: Detection, whole_side: float, config: ReaderConfig = DEFAULTS
) -> bool:
    """True when ``big``, its longer side at least ``whole_side``, holds ``small`` as a part
    (:attr:`ReaderConfig.part_ratio`, :attr:`ReaderConfig.part_reach`)."""
    x0, y0, x1, y1 = big.box
    ratio = box_area(big.box) / max(box_area(small.box), 1e-9)
    if (
        box_side(big.box) < whole_side
        or big.confidence < config.part_confidence
        or ratio < config.part_ratio
    ):
        return False
    if inside(small.centre(), big.box):
        return True
    cx, cy = big.centre()
    reach = config.part_reach
    half_w, half_h = (x1 - x0) * reach / 2, (y1 - y0) * reach / 2
    near = inside(small.centre(), (cx - half_w, cy - half_h, cx + half_w, cy + half_h))
    return near and ratio >= config.pip_ratio


def resolve_overlaps(
    dice: list[Detection], whole_side: float = math.inf, config: ReaderConfig = DEFAULTS
) -> list[Detection]:
    """One die per place. A die near one of at least ``whole_side`` pixels (the fine look's
    :attr:`ReaderConfig.whole_side`, in the frame's pixels) and many times its size goes: a pip
    or two of that die (:func:`part_of`). Then, of dice whose boxes hold each other's centre,
    the most confident stays.

    >>> pip = Detection(1, (40, 40, 50, 50), 0.95)
    >>> big = Detection(4, (10, 10, 90, 90), 0.9)
    >>> twin = Detection(3, (12, 12, 88, 88), 0.5)
    >>> far = Detection(2, (200, 0, 220, 20), 0.4)
    >>> [d.value for d in resolve_overlaps([pip, big, twin, far])]
    [1, 2]
    >>> [d.value for d in resolve_overlaps([pip, big, twin, far], whole_side=60)]
    [4, 2]
    """
    whole = [d for d in dice if not any(part_of(d, b, whole_side, config) for b in dice)]
    kept: list[Detection] = []
    for d in sorted(whole, key=lambda d: -d.confidence):
        if not any(overlap(d, k) for k in kept):
            kept.append(d)
    return kept


def beside_sure(
    candidates: list[Detection],
    dice: list[Detection],
    unsure_below: float,
    config: ReaderConfig = DEFAULTS,
) -> list[Detection]:
    """The candidates worth a look in a heap (:attr:`ReaderConfig.heap_heat`): each beside a
    die read at least ``unsure_below`` surely and of about its size (``heap_reach``,
    ``heap_size_band``), its centre in no die's box and its box over no die's by more than
    ``heap_overlap``.

    >>> sure = Detection(5, (0, 0, 10, 10), 0.95)
    >>> next_to = Detection(2, (11, 0, 21, 10), 0.3)
    >>> on_top = Detection(3, (0, -6, 10, 4), 0.3)  # the same die's top face, seen at an angle
    >>> far, pip = Detection(4, (40, 0, 50, 10), 0.3), Detection(1, (11, 2, 14, 5), 0.3)
    >>> [d.value for d in beside_sure([next_to, on_top, far, pip], [sure], 0.8)]
    [2]
    >>> beside_sure([next_to], [Detection(5, (0, 0, 10, 10), 0.6)], 0.8)  # not read surely
    []
    """
    sure = [d for d in dice if d.confidence >= unsure_below]
    lo, hi = config.heap_size_band

    def wanted(c: Detection) -> bool:
        if any(
            inside(c.centre(), d.box) or _covered(c.box, d.box) > config.heap_overlap for d in dice
        ):
            return False
        x, y = c.centre()
        for d in sure:
            side, (cx, cy) = box_side(d.box), d.centre()
            if (
                math.hypot(x - cx, y - cy) <= config.heap_reach * side
                and lo <= box_side(c.box) / side <= hi
            ):
                return True
        return False

    return [c for c in candidates if wanted(c)]


def _covered(a: Box, b: Box) -> float:
    """The share of box ``a``'s area that lies in box ``b``."""
    area = box_area(a)
    return shared_area(a, b) / area if area > 0 else 0.0
