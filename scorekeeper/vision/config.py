"""The dice reader's settings (:class:`ReaderConfig`) and where the bundled model lives.

The tuning constants' measurements (which photos and scenes set them) are in
``models/MODEL_CARD.md``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from scorekeeper.vision.detection import UNSURE_BELOW

DEFAULT_LONG_SIDE = 512
"""The model's input long side when the ONNX file does not say otherwise."""

DEFAULT_STRIDE = 4
"""Input pixels per heat-map cell when the ONNX file does not say otherwise."""

MIN_LONG_SIDE, MAX_LONG_SIDE = 64, 4096
"""The input long sides a reader accepts."""


def number_or_nan(text: str) -> float:
    """``text`` as a number, NaN when it is none, which every range check then refuses.

    >>> number_or_nan("1.5"), number_or_nan("wide")
    (1.5, nan)
    """
    try:
        return float(text)
    except ValueError:
        return float("nan")


MAX_RESCUE_SCALE = 3.0
"""The widest second patch a turned-down candidate may get (:attr:`ReaderConfig.rescue_scale`)."""


def is_rescue_scale(value: float) -> bool:
    """Whether ``value`` is a :attr:`ReaderConfig.rescue_scale`: 0 (none), or over 1 up to
    :data:`MAX_RESCUE_SCALE`.

    >>> [is_rescue_scale(k) for k in (0.0, 1.0, 1.6, 3.5, float("nan"))]
    [True, False, True, False, False]
    """
    return value == 0.0 or 1.0 < value <= MAX_RESCUE_SCALE


MAX_ZOOM_ENLARGE = 4.0
"""The most the zoomed reading may enlarge a frame (:attr:`ReaderConfig.zoom_enlarge`)."""


def is_zoom_enlarge(value: float) -> bool:
    """Whether ``value`` is a :attr:`ReaderConfig.zoom_enlarge`: 1 (never enlarge) up to
    :data:`MAX_ZOOM_ENLARGE`.

    >>> [is_zoom_enlarge(k) for k in (1.0, 2.0, 0.5, 4.5, float("nan"))]
    [True, True, False, False, False]
    """
    return 1.0 <= value <= MAX_ZOOM_ENLARGE


def is_dice_share(value: float) -> bool:
    """Whether ``value`` is a share of the dice read, as :attr:`ReaderConfig.zoom_share` and
    :attr:`ReaderConfig.oversize_share` are: over 0, up to 1 (all the dice).

    >>> [is_dice_share(k) for k in (0.25, 1.0, 0.0, 1.5, float("nan"))]
    [True, True, False, False, False]
    """
    return 0.0 < value <= 1.0


MAX_OVERSIZE_RATIO = 10.0
"""The largest :attr:`ReaderConfig.oversize_ratio`."""


def is_oversize_ratio(value: float) -> bool:
    """Whether ``value`` is a :attr:`ReaderConfig.oversize_ratio`: 0 (never) or over 1 up to
    :data:`MAX_OVERSIZE_RATIO`.

    >>> [is_oversize_ratio(k) for k in (0.0, 2.0, 1.0, 12.0, float("nan"))]
    [True, True, False, False, False]
    """
    return value == 0.0 or 1.0 < value <= MAX_OVERSIZE_RATIO


def is_from_0_to_1(value: float) -> bool:
    """Whether ``value`` is from 0 to 1, as :attr:`ReaderConfig.relook_face_below`,
    :attr:`ReaderConfig.one_solidity`, :attr:`ReaderConfig.one_roundness` and
    :attr:`ReaderConfig.colour_above` (0: never) are.

    >>> [is_from_0_to_1(k) for k in (0.0, 0.85, 1.0, 1.2, float("nan"))]
    [True, True, True, False, False]
    """
    return 0.0 <= value <= 1.0


def is_heap_heat(value: float) -> bool:
    """Whether ``value`` is a :attr:`ReaderConfig.heap_heat`: 0 (never) or a heat under 1.

    >>> [is_heap_heat(k) for k in (0.0, 0.2, 1.0, -0.1, float("nan"))]
    [True, True, False, False, False]
    """
    return 0.0 <= value < 1.0


MAX_HEAP_REACH = 4.0
"""The farthest from a sure die, in its box sides, that :attr:`ReaderConfig.heap_reach` may look."""

MAX_ABOVE = 2.0
"""The farthest above a die's box, and the tallest, a view of :attr:`ReaderConfig.above_views`
may be, in box sides."""


def is_above_view(view: tuple[float, ...]) -> bool:
    """Whether ``view`` is one of :attr:`ReaderConfig.above_views`: ``(up, tall)``, up from 0
    and tall over 0, both up to :data:`MAX_ABOVE` box sides.

    >>> [is_above_view(v) for v in ((0.5, 0.8), (0.0, 0.0), (0.5,), (3.0, 1.0))]
    [True, False, False, False]
    """
    return len(view) == 2 and 0.0 <= view[0] <= MAX_ABOVE and 0.0 < view[1] <= MAX_ABOVE


def parse_above_views(text: str) -> tuple[tuple[float, float], ...]:
    """:attr:`ReaderConfig.above_views` from text: ``UP:TALL`` views joined by commas, or
    ``none``.

    :raises ValueError: for text in neither form, or a view :func:`is_above_view` refuses.

    >>> parse_above_views("0.5:0.8,0.6:0.8"), parse_above_views("none")
    (((0.5, 0.8), (0.6, 0.8)), ())
    """
    if text.strip().lower() == "none":
        return ()
    views = tuple(tuple(number_or_nan(v) for v in part.split(":")) for part in text.split(","))
    if not all(is_above_view(v) for v in views):
        raise ValueError(
            f"expected UP:TALL views joined by commas (each from 0, TALL over 0, up to"
            f" {MAX_ABOVE:g} box sides), or none; got {text!r}"
        )
    return tuple((v[0], v[1]) for v in views)


DEFAULT_SCORE_THRESHOLD = 0.5
"""Die probability (heat, for a one-stage model) a die needs, unless the model says."""

DEFAULT_CANDIDATE_THRESHOLD = 0.3
"""Heat a peak needs to become a candidate for the second look, unless the model says."""


def default_model_path() -> Path:
    """The bundled model: ``$SCOREKEEPER_MODEL`` if set, else ``models/dice.onnx`` in the repo."""
    env = os.environ.get("SCOREKEEPER_MODEL")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "models" / "dice.onnx"


@dataclass(frozen=True)
class ReaderConfig:
    """How a :class:`~scorekeeper.vision.reader.DiceReader` reads: its options and tuning.

    :raises ValueError: for a threshold outside (0, 1), a ``fill_confidence`` not under the
        unsure mark, threads < 1, a ``zoom_enlarge`` outside 1–4, a ``zoom_share`` outside
        (0, 1], a ``zoom_small_below`` outside (0, ``zoom_below``], an ``oversize_ratio`` neither 0
        nor over 1 up to 10, an ``oversize_share`` outside (0, 1], a ``one_solidity`` or
        ``one_roundness`` outside 0–1, a ``one_check_below`` outside (0, 1], an ``above_views`` view
        outside 0–2 box sides, a ``heap_heat`` outside 0–1, a ``heap_reach`` outside 0–4 box
        sides or a ``long_side`` outside 64–4096.
    """

    score_threshold: float | None = None
    """Die probability the second look needs (heat, one-stage model); None: the model's."""
    candidate_threshold: float | None = None
    """Heat a peak needs to be looked at again; None: the model's."""
    unsure_below: float | None = None
    """A die read with less confidence is marked unsure; None: the model's (by default
    :data:`~scorekeeper.vision.detection.UNSURE_BELOW`)."""
    long_side: int | None = None
    """The fine look's input long side (larger reads smaller dice, slower); None: the model's."""
    threads: int = 1
    """CPU threads the model runs on."""
    coarse: bool = True
    """Whether a two-stage reader also looks at smaller sizes, for dice too big for the first."""
    third_look: bool = True
    """Whether a frame that looks like a close-up gets the third and smallest look."""
    zoom: bool = True
    """Whether small dice in a big frame are read again at a larger size."""

    coarse_factor: float = 0.4
    """The coarse look's input size, as a fraction of ``long_side``."""
    coarsest_factor: float = 0.15625
    """The third look's size as a fraction of ``long_side`` (80 px of 512, a multiple of 16)."""
    coarsest_after: float = 32.0
    """A coarse candidate this big (in coarse-input pixels) calls for the third look."""
    coarsest_few: int = 2
    """So do one to this many candidates from the first two looks together."""
    coarsest_least: float = 0.75
    """The third look adds only candidates of at least this share of the coarse ``whole_side``."""
    zoom_below: float = 30.0
    """Dice whose median side (fine-input pixels) is under this are read again zoomed."""
    zoom_share: float = 0.25
    """When the dice read are too big for that, the smallest of them, this share (rounded up),
    decide: small dice among bigger false ones, such as board tokens read as dice (1.0: the
    median of all alone)."""
    zoom_small_below: float = 25.0
    """Those smallest dice are read again zoomed when their median side (fine-input pixels) is
    under this: dice small enough for the detector to miss, not dice a little under
    ``zoom_below`` seen nearer and farther."""
    zoom_to: float = 42.0
    """The zoomed reading makes the deciding median side about this many input pixels."""
    zoom_room: float = 1.5
    """A zoomed look must be at least this many times ``long_side`` across."""
    zoom_enlarge: float = 2.0
    """The zoomed look may enlarge the frame up to this many times (1.0: never; small dice
    in a 640×480 frame are found more often enlarged, though it adds no detail)."""
    max_zoom_side: int = 1536
    """The zoomed reading's fine look is at most this long (9 times the 512 px look's pixels)."""
    oversize_ratio: float = 2.0
    """A die read surely whose box side is over this many times the median side of the
    smallest dice read (:attr:`oversize_share` of them, rounded up, at least two) is marked
    unsure: the dice of one throw are one size, and a board token or printed tile read as a die
    is bigger (:meth:`DiceReader.doubt_oversize`; 0.0: never)."""
    oversize_share: float = 0.25
    """... that share of the dice read, the smallest (1.0: the median of all)."""
    one_solidity: float = 0.85
    """A die read surely as a 1 whose mark at the middle is less solid than this (its pixels
    over its convex hull's area: a round pip is about 1, a number's strokes less) is marked
    unsure: a board token's printed number read as a 1's pip
    (:func:`~scorekeeper.vision.marks.mark_shape`, :meth:`DiceReader.doubt_numbers`; 0.0:
    never)."""
    one_roundness: float = 0.9
    """... or less round than this (4π times its pixels over its convex hull's length squared:
    a round pip is about 1, a numeral 1's bar, solid as a pip, well under it; 0.0: never)."""
    one_check_below: float = 0.95
    """... when read less surely than this: a 1 the second look is nearly certain of is left
    alone (marbled dice whose swirls run into the pip measure as strokes too)."""
    above_views: tuple[tuple[float, float], ...] = ((0.5, 0.8),)
    """Each die read surely is read again above its box, where its top face lies when the box
    holds the front face of a die seen at an angle, in each ``(up, tall)`` view (in box sides:
    :func:`~scorekeeper.vision.patches.above_patch_batch`); a view read as a die of another face
    gives the die that face, marked unsure (:meth:`DiceReader.check_above`). Empty: never."""
    colour_above: float | None = None
    """A die read surely whose colour fills this much more of a strip just above its box than of
    the strip just below is marked unsure (:func:`~scorekeeper.vision.continuation.colour_above`,
    :meth:`DiceReader.doubt_colour_above`): a die seen at an angle whose box holds its front face,
    its top face above it (0.0: never; default: the model's, metadata ``colour_above``, else
    0.0)."""
    heap_heat: float = 0.2
    """A peak this hot, under the candidate threshold, beside a die read surely is looked at
    too (:meth:`DiceReader.heap_look`): in a heap the detector's peaks for touching dice run
    together and the weaker is lost (0.0: never)."""
    heap_reach: float = 1.5
    """Beside: the peak's centre within this many of the sure die's box sides of its centre ..."""
    heap_size_band: tuple[float, float] = (0.6, 1.6)
    """... its box's longer side within this band of the sure die's ..."""
    heap_overlap: float = 0.1
    """... and at most this share of its box over any die read (more: the same die's other
    face, seen at an angle)."""
    relook_band: tuple[float, float] = (0.3, 0.9)
    """A die probability in [from, up to) is a close call, looked at again in three more views."""
    relook_face_below: float | None = None
    """A candidate above the close calls whose likeliest face is under this is looked at again
    turned half round (1.0: every one; 0.0: close calls only; default: the model's, metadata
    ``relook_face_below``, else 0.0)."""
    rescue_scale: float | None = None
    """A candidate the second look turns down (die probability from :attr:`rescue_above` up to
    the score threshold) is read again in a patch this many times as wide about its centre, and
    that reading kept when it makes a die likelier (the detector draws some dice's boxes small;
    0.0: never; default: the model's, metadata ``rescue_scale``, else 0.0)."""
    rescue_above: float = 0.02
    """The least die probability a turned-down candidate needs for the wider look."""
    fill_candidate_threshold: float = 0.3
    """When fewer dice are read than were thrown (:meth:`DiceReader.fill`), the heat a peak needs
    to be looked at again for the missing ones."""
    fill_score_threshold: float = 0.3
    """... and the die probability the second look needs to offer one of them."""
    fill_confidence: float = 0.6
    """A die offered to make up the count is at most this sure, and always under the reader's
    unsure cut: always marked unsure."""
    surplus_unsure_below: float = 0.95
    """When more dice are read than were thrown (:meth:`DiceReader.doubt_surplus`), every die
    read less surely than this is marked unsure, as are the weakest beyond the count."""
    fill_size_band: tuple[float, float] = (0.5, 2.0)
    """... and its box's longer side is within this band of the median of the dice read (the
    dice of one throw look about the same size; pips and side faces look smaller)."""
    size_ratio: float = 2.5
    """A coarse candidate is the same as an overlapping fine one within this ratio of areas."""
    whole_side: float = 72.0
    """The largest die the detector was trained to see whole, in model-input pixels."""
    part_ratio: float = 4.0
    """A die too big for the fine look outranks a die near it of at most 1/this of its area."""
    part_confidence: float = 0.8
    """... when that big die is read at least this surely."""
    part_reach: float = 2.5
    """Near: in the big die's box, or for a pip-sized die in that box grown this many times."""
    pip_ratio: float = 9.0
    """Pip-sized: a box of at most 1/this of the big die's box area (a third of its side)."""

    def __post_init__(self) -> None:
        """Check the options."""
        for name, t in (
            ("score_threshold", self.score_threshold),
            ("candidate_threshold", self.candidate_threshold),
            ("unsure_below", self.unsure_below),
            ("fill_candidate_threshold", self.fill_candidate_threshold),
            ("fill_score_threshold", self.fill_score_threshold),
            ("fill_confidence", self.fill_confidence),
            ("surplus_unsure_below", self.surplus_unsure_below),
            ("rescue_above", self.rescue_above),
        ):
            if t is not None and not 0.0 < t < 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {t}")
        if self.relook_face_below is not None and not is_from_0_to_1(self.relook_face_below):
            raise ValueError(f"relook_face_below must be from 0 to 1, got {self.relook_face_below}")
        if self.rescue_scale is not None and not is_rescue_scale(self.rescue_scale):
            raise ValueError(
                f"rescue_scale must be 0 (off) or over 1 up to {MAX_RESCUE_SCALE:g}, got"
                f" {self.rescue_scale}"
            )
        if self.unsure_below is None and self.fill_confidence >= UNSURE_BELOW:
            raise ValueError(
                f"fill_confidence must be under {UNSURE_BELOW} (the unsure mark), got"
                f" {self.fill_confidence}"
            )
        if not is_zoom_enlarge(self.zoom_enlarge):
            raise ValueError(
                f"zoom_enlarge must be from 1 (never enlarge) to {MAX_ZOOM_ENLARGE:g},"
                f" got {self.zoom_enlarge}"
            )
        if not 0.0 < self.zoom_small_below <= self.zoom_below:
            raise ValueError(
                f"zoom_small_below must be over 0 and at most zoom_below ({self.zoom_below:g}),"
                f" got {self.zoom_small_below}"
            )
        if not is_dice_share(self.zoom_share):
            raise ValueError(
                f"zoom_share must be over 0 and up to 1 (all the dice read), got {self.zoom_share}"
            )
        if not is_oversize_ratio(self.oversize_ratio):
            raise ValueError(
                f"oversize_ratio must be 0 (never) or over 1 up to {MAX_OVERSIZE_RATIO:g},"
                f" got {self.oversize_ratio}"
            )
        if not is_dice_share(self.oversize_share):
            raise ValueError(
                f"oversize_share must be over 0 and up to 1 (all the dice read), got"
                f" {self.oversize_share}"
            )
        for name in ("one_solidity", "one_roundness", "colour_above"):
            cut = getattr(self, name)
            if cut is not None and not is_from_0_to_1(cut):
                raise ValueError(f"{name} must be from 0 (never) up to 1, got {cut}")
        if not 0.0 < self.one_check_below <= 1.0:
            raise ValueError(
                f"one_check_below must be over 0 and up to 1, got {self.one_check_below}"
            )
        if not is_heap_heat(self.heap_heat):
            raise ValueError(f"heap_heat must be from 0 (never) to under 1, got {self.heap_heat}")
        if not 0.0 < self.heap_reach <= MAX_HEAP_REACH:
            raise ValueError(
                f"heap_reach must be over 0 and up to {MAX_HEAP_REACH:g} box sides, got"
                f" {self.heap_reach}"
            )
        if not all(is_above_view(v) for v in self.above_views):
            raise ValueError(
                f"above_views must be (up, tall) pairs, up from 0 and tall over 0, both up to"
                f" {MAX_ABOVE:g} box sides, got {self.above_views}"
            )
        if self.threads < 1:
            raise ValueError(f"threads must be at least 1, got {self.threads}")
        if self.long_side is not None and not MIN_LONG_SIDE <= self.long_side <= MAX_LONG_SIDE:
            raise ValueError(
                f"long_side must be {MIN_LONG_SIDE} to {MAX_LONG_SIDE} pixels, got {self.long_side}"
            )


DEFAULTS = ReaderConfig()
"""The shipped settings: the model's thresholds and input size, every look on."""
