"""Which sizes the reader looks at a frame: the close-up's third look and the zoomed reading."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from scorekeeper.vision.config import DEFAULTS, ReaderConfig
from scorekeeper.vision.detection import Detection, box_side
from scorekeeper.vision.preprocess import MULTIPLE


def wants_third_look(
    coarse: list[Detection],
    found: list[Detection],
    to_input: float,
    config: ReaderConfig = DEFAULTS,
) -> bool:
    """Whether the first two looks suggest a close-up: a coarse candidate of at least
    :attr:`ReaderConfig.coarsest_after` coarse-input pixels (``to_input``: frame pixels to those),
    or one to :attr:`ReaderConfig.coarsest_few` candidates in all (``found``).

    >>> big = Detection(4, (0, 0, 100, 100), 0.9)
    >>> wants_third_look([big], [big] * 3, 0.4), wants_third_look([], [big] * 3, 0.4)
    (True, False)
    """
    biggest = max((box_side(d.box) for d in coarse), default=0.0) * to_input
    return biggest >= config.coarsest_after or 0 < len(found) <= config.coarsest_few


def smallest_median(sides: list[float], share: float, least: int = 1) -> float:
    """The median of the smallest ``share`` of ``sides`` (rounded up, at least ``least``).

    >>> sides = [40.0, 12.0, 44.0, 10.0, 42.0]
    >>> smallest_median(sides, 0.25), smallest_median(sides, 0.25, 3), smallest_median(sides, 1.0)
    (11.0, 12.0, 40.0)
    """
    ranked = sorted(sides)
    return float(np.median(ranked[: max(least, math.ceil(len(ranked) * share))]))


def oversize(dice: Sequence[Detection], config: ReaderConfig = DEFAULTS) -> list[int]:
    """The indices of the dice in ``dice`` whose box side is over
    :attr:`ReaderConfig.oversize_ratio` times the median side of the smallest of them
    (:attr:`ReaderConfig.oversize_share`, and at least two, :func:`smallest_median`; one small
    false die alone does not make the dice beside it too big): too big to be dice of the same
    throw, such as board tokens read as dice. None with a ratio of 0.

    >>> dice = [Detection(3, (0, 0, 20, 20), 0.9), Detection(5, (30, 0, 52, 22), 0.9)]
    >>> token = Detection(1, (60, 0, 110, 50), 0.95)  # 50 px beside dice of 20-22
    >>> oversize([token, *dice]), oversize([token, *dice], ReaderConfig(oversize_ratio=0.0))
    ([0], [])
    >>> nearer = Detection(4, (60, 0, 96, 36), 0.9)  # 36 px: a die nearer the camera
    >>> speck = Detection(2, (0, 40, 10, 50), 0.9)  # 10 px: one small false die
    >>> oversize([nearer, *dice]), oversize([token, dice[0]]), oversize([speck, *dice])
    ([], [], [])
    """
    if not config.oversize_ratio or len(dice) < 2:
        return []
    sides = [box_side(d.box) for d in dice]
    most = config.oversize_ratio * smallest_median(sides, config.oversize_share, least=2)
    return [i for i, side in enumerate(sides) if side > most]


def zoom_side(
    dice: list[Detection], size: int, long_side: int, config: ReaderConfig = DEFAULTS
) -> int | None:
    """The fine look's size for reading again a frame whose longer side is ``size`` pixels,
    given the dice read in it at ``long_side``, or None when it needs no second reading.

    There must be dice (a frame of none, or only of false candidates, is not read again), and
    their median side must be under :attr:`ReaderConfig.zoom_below` pixels of the fine look's
    input, or failing that the median of the smallest of them
    (:attr:`ReaderConfig.zoom_share` of them, rounded up) under
    :attr:`ReaderConfig.zoom_small_below`: small dice among bigger false ones, such as board
    tokens read as dice. The zoomed size makes that median
    :attr:`ReaderConfig.zoom_to`, at most
    :attr:`ReaderConfig.zoom_enlarge` times ``size`` and :attr:`ReaderConfig.max_zoom_side`,
    and it must be at least :attr:`ReaderConfig.zoom_room` times ``long_side``.

    >>> dice = [Detection(2, (0, 0, 80, 80), 0.9), Detection(5, (90, 0, 166, 76), 0.9)]
    >>> zoom_side(dice, 2048, 512), zoom_side(dice, 4032, 512), zoom_side(dice[:1], 640, 512)
    (1088, 1536, None)
    >>> small = [Detection(3, (0, 0, 20, 20), 0.9)]  # 16 px at the 512 px look
    >>> zoom_side(small, 640, 512), zoom_side(small, 640, 512, ReaderConfig(zoom_enlarge=1.0))
    (1280, None)
    >>> tokens = [Detection(1, (0, 0, 60, 60), 0.9)] * 6  # 48 px: board tokens read as dice
    >>> every = ReaderConfig(zoom_share=1.0)  # the median of all: the tokens'
    >>> zoom_side(tokens + small * 2, 640, 512), zoom_side(tokens + small * 2, 640, 512, every)
    (1280, None)
    >>> nearer = [Detection(4, (0, 0, 34, 34), 0.9)] * 2  # 27 px: a little smaller, not small
    >>> zoom_side(tokens + nearer, 640, 512) is None
    True
    """
    most = min(size * config.zoom_enlarge, config.max_zoom_side)
    if not dice or most < config.zoom_room * long_side:
        return None
    sides = [box_side(d.box) * long_side / size for d in dice]
    medians = (float(np.median(sides)), smallest_median(sides, config.zoom_share))
    for median, below in zip(medians, (config.zoom_below, config.zoom_small_below), strict=True):
        if median < below:
            side = int(min(most, long_side * config.zoom_to / max(median, 1.0)))
            side = side // MULTIPLE * MULTIPLE
            if side >= config.zoom_room * long_side:
                return side
    return None
