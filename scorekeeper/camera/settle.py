"""Settled-throw detection: frame differences say when the dice stopped, votes say what they show.

The pieces are pure and single-threaded: :class:`MotionDetector` scores how much of the
throwing area changed since the previous frame, :class:`Settler` waits until the scene has been
still for a moment (in seconds of capture time), has the reader read the first still frames,
and proposes one throw as soon as the reads agree and the reader is confident. It proposes once
per settle; the next motion starts a new throw.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from scorekeeper.camera.frames import Image, to_grey
from scorekeeper.errors import CameraError
from scorekeeper.vision.detection import Detection, shared_area

Die = Detection
"""One die in a frame: the dice reader's own value type (value, box in pixels, confidence)."""


@dataclass(frozen=True)
class Area:
    """The throwing area: a rectangle in fractions of the frame (0..1), dice outside it are ignored.

    >>> Area.parse({"x0": 0.5, "y0": 0, "x1": 1, "y1": 1}).contains(600, 10, 640, 480)
    True
    >>> Area.parse({"x0": 0.5, "y0": 0, "x1": 1, "y1": 1}).contains(100, 10, 640, 480)
    False
    """

    x0: float = 0.0
    y0: float = 0.0
    x1: float = 1.0
    y1: float = 1.0

    @classmethod
    def parse(cls, obj: object) -> Area:
        """An area from ``{"x0", "y0", "x1", "y1"}`` fractions of the frame.

        :raises CameraError: not such an object, values outside 0..1, or a rectangle too small.
        """
        if not isinstance(obj, Mapping):
            raise CameraError(
                'the throwing area must be an object {"x0", "y0", "x1", "y1"} of fractions 0..1'
            )
        vals: list[float] = []
        for key in ("x0", "y0", "x1", "y1"):
            v = obj.get(key)
            if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v <= 1:
                raise CameraError(f"throwing area {key} must be a number from 0 to 1, got {v!r}")
            vals.append(float(v))
        x0, x1 = sorted(vals[0::2])
        y0, y1 = sorted(vals[1::2])
        if x1 - x0 < 0.05 or y1 - y0 < 0.05:
            raise CameraError("the throwing area is too small; drag a rectangle of at least 5%")
        return cls(x0, y0, x1, y1)

    def is_whole(self) -> bool:
        """True when the area is the whole frame."""
        return (self.x0, self.y0, self.x1, self.y1) == (0.0, 0.0, 1.0, 1.0)

    def to_dict(self) -> dict[str, float]:
        """``{"x0", "y0", "x1", "y1"}``."""
        return {"x0": self.x0, "y0": self.y0, "x1": self.x1, "y1": self.y1}

    def pixels(self, width: int, height: int) -> tuple[int, int, int, int]:
        """The area in pixels of a ``width`` x ``height`` frame (at least one pixel each way)."""
        x0, y0 = int(self.x0 * width), int(self.y0 * height)
        x1 = max(x0 + 1, round(self.x1 * width))
        y1 = max(y0 + 1, round(self.y1 * height))
        return x0, y0, x1, y1

    def contains(self, x: float, y: float, width: int, height: int) -> bool:
        """True when the point ``(x, y)`` of a frame of that size lies in the area."""
        return self.x0 * width <= x <= self.x1 * width and self.y0 * height <= y <= self.y1 * height


def split_by_area(
    dice: Iterable[Die], area: Area, width: int, height: int
) -> tuple[list[Die], list[Die]]:
    """``(inside, outside)``: the dice whose box centre lies in the area, and the others."""
    inside: list[Die] = []
    outside: list[Die] = []
    for d in dice:
        (inside if area.contains(*d.centre(), width, height) else outside).append(d)
    return inside, outside


class MotionDetector:
    """The share of pixels of the area that changed since the previous frame (0..1)."""

    def __init__(self, width: int = 160, pixel_threshold: int = 20) -> None:
        """Compare frames scaled to ``width`` pixels wide; a pixel changed if grey differs > thr."""
        self.width = width
        self.pixel_threshold = pixel_threshold
        self._prev: Image | None = None

    def reset(self) -> None:
        """Forget the previous frame (the next frame counts as moving)."""
        self._prev = None

    def update(self, frame: Image, area: Area | None = None) -> float:
        """Score ``frame`` against the previous one; 1.0 for the first frame or a new size."""
        grey = to_grey(frame)
        h, w = grey.shape[:2]
        if area is not None and not area.is_whole():
            x0, y0, x1, y1 = area.pixels(w, h)
            grey = grey[y0:y1, x0:x1]
            h, w = grey.shape[:2]
        scale = min(1.0, self.width / max(1, w))
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        resized = cv2.resize(grey, size, interpolation=cv2.INTER_AREA)
        small: Image = np.asarray(cv2.GaussianBlur(resized, (3, 3), 0), np.uint8)
        prev, self._prev = self._prev, small
        if prev is None or prev.shape != small.shape:
            return 1.0
        changed = cv2.absdiff(prev, small) > self.pixel_threshold
        return float(np.count_nonzero(changed)) / changed.size


@dataclass(frozen=True)
class SettleConfig:
    """Thresholds of settled-throw detection, in seconds of the frames' capture times (not in
    frames: a slow machine reads fewer frames a second, and must not take longer to propose)."""

    moving_fraction: float = 0.003
    """A frame moves when more than this share of the area's pixels changed."""
    still_s: float = 0.06
    """Seconds the scene must have been still before the reader runs."""
    vote_s: float = 0.25
    """Seconds of reads voted over, from the first read of a settle: a reader that manages
    fewer than :attr:`vote_reads` reads in them votes with those it made."""
    vote_reads: int = 5
    """At most this many reads (the latest) are voted over; as many are enough to vote."""
    min_reads: int = 2
    """Reads that must agree, however slow the reader."""
    min_agree_share: float = 0.75
    """Share of the reads voted over that must read the same dice (4 of 5, 2 of 2)."""
    min_confidence: float = 0.6
    """Mean confidence of the agreeing readings needed to propose."""

    def __post_init__(self) -> None:
        """Refuse thresholds that could never propose or make no sense.

        :raises CameraError: a negative time, or read counts out of order.
        """
        if self.still_s < 0 or self.vote_s < 0:
            raise CameraError("still_s and vote_s are seconds, 0 or more")
        if not 1 <= self.min_reads <= self.vote_reads:
            raise CameraError("min_reads must be from 1 to vote_reads")
        if not 0 < self.min_agree_share <= 1:
            raise CameraError("min_agree_share must be above 0 and at most 1")


@dataclass(frozen=True)
class Vote:
    """A proposal drawn from the votes: the dice values (sorted), boxes and confidence."""

    values: tuple[int, ...]
    dice: tuple[Die, ...]
    confidence: float
    votes: int


@dataclass
class Settler:
    """Turns a stream of (moving?, dice) with capture times into at most one proposal per
    settled throw: the reader runs on the first frames still for :attr:`SettleConfig.still_s`,
    and the throw is proposed as soon as its reads agree."""

    config: SettleConfig = field(default_factory=SettleConfig)
    still_since: float | None = None
    """Capture time of the first still frame since the last motion (None: moving)."""
    locked: bool = False
    _now: float = 0.0
    _first_read: float | None = None
    _votes: deque[tuple[tuple[int, ...], tuple[Die, ...], float]] = field(
        default_factory=deque, repr=False
    )

    @property
    def stable(self) -> bool:
        """True when the scene has been still long enough to read."""
        return self.still_since is not None and self._now - self.still_since >= self.config.still_s

    def motion(self, moving: bool, now: float) -> bool:
        """Note the motion of the frame captured at ``now`` (seconds); returns :attr:`stable`
        (whether to read this frame)."""
        self._now = now
        if moving:
            self.still_since = None
            self.locked = False
            self._first_read = None
            self._votes.clear()
        elif self.still_since is None:
            self.still_since = now
        return self.stable

    def vote(self, dice: Sequence[Die]) -> Vote | None:
        """Add the reading of the stable frame just noted (:meth:`motion`); a :class:`Vote`
        the first time the reads agree."""
        if not self.stable:
            return None
        cfg = self.config
        values = tuple(sorted(d.value for d in dice))
        conf = float(np.mean([d.confidence for d in dice])) if dice else 0.0
        if self._first_read is None:
            self._first_read = self._now
        self._votes.append((values, tuple(dice), conf))
        while len(self._votes) > cfg.vote_reads:
            self._votes.popleft()
        n_votes = len(self._votes)
        window_done = self._now - self._first_read >= cfg.vote_s
        if self.locked or not (n_votes >= cfg.vote_reads or window_done):
            return None
        best, n = Counter(v for v, _, _ in self._votes).most_common(1)[0]
        if not best or n < cfg.min_reads or n < cfg.min_agree_share * n_votes:
            return None
        agreeing = [(d, c) for v, d, c in self._votes if v == best]
        confidence = float(np.mean([c for _, c in agreeing]))
        if confidence < cfg.min_confidence:
            return None
        self.locked = True
        return Vote(values=best, dice=agreeing[-1][0], confidence=confidence, votes=n)


LYING_IOU = 0.6
"""A die counts as lying where it lay when its box overlaps its old one by this much (IoU)."""


def box_iou(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """Intersection over union of two boxes (x0, y0, x1, y1).

    >>> box_iou((0, 0, 10, 10), (5, 0, 15, 10))
    0.3333333333333333
    """
    inter = shared_area(a, b)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def still_lying(new: Sequence[Die], old: Sequence[Die], min_iou: float = LYING_IOU) -> bool:
    """True when every die of ``new`` lies where a die of ``old`` lay, showing the same value
    (each old die matched once): nobody threw them in between, whatever else moved.

    >>> a, b = Die(5, (0, 0, 10, 10), 0.9), Die(2, (50, 0, 60, 10), 0.9)
    >>> still_lying([a], [a, b]), still_lying([a, b], [a]), still_lying([], [a])
    (True, False, False)
    """
    free = list(old)
    for d in new:
        match = next(
            (o for o in free if o.value == d.value and box_iou(o.box, d.box) >= min_iou), None
        )
        if match is None:
            return False
        free.remove(match)
    return bool(new)


def count_message(seen: int, dice_left: int | None) -> str:
    """What the proposal says about the number of dice.

    >>> count_message(5, 4)
    'I see 5 dice, 4 are left to throw'
    >>> count_message(1, 1)
    'I see 1 die'
    """
    noun = "die" if seen == 1 else "dice"
    if dice_left is None or dice_left == seen:
        return f"I see {seen} {noun}"
    verb = "is" if dice_left == 1 else "are"
    return f"I see {seen} {noun}, {dice_left} {verb} left to throw"
