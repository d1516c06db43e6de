"""The dice reader: :class:`DiceReader`, the model and its looks at a frame put together.

The steps are pure functions in their own modules: :mod:`~scorekeeper.vision.preprocess`,
:mod:`~scorekeeper.vision.decode` (heat-map peaks), :mod:`~scorekeeper.vision.second_look`,
:mod:`~scorekeeper.vision.overlaps` (merging looks, one die per place) and
:mod:`~scorekeeper.vision.looks` (which sizes to look at); the ONNX session is
:class:`~scorekeeper.vision.onnx_model.DiceModel`, the settings :class:`ReaderConfig`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from scorekeeper.errors import ImageError
from scorekeeper.vision.adapt import ADAPT_DEFAULTS, AdaptConfig, FacePrototypes
from scorekeeper.vision.config import DEFAULTS, ReaderConfig, default_model_path
from scorekeeper.vision.continuation import colour_above
from scorekeeper.vision.decode import decode_levels
from scorekeeper.vision.detection import (
    Box,
    Detection,
    box_side,
    doubt_surplus,
    inside,
    overlap,
    under,
)
from scorekeeper.vision.imageio import check_frame, to_grey
from scorekeeper.vision.looks import oversize, wants_third_look, zoom_side
from scorekeeper.vision.marks import mark_shape, number_like
from scorekeeper.vision.onnx_model import DiceModel
from scorekeeper.vision.overlaps import beside_sure, merge_scales, resolve_overlaps
from scorekeeper.vision.patches import above_patch_batch, crop_patch, patch_batch, to_bgr
from scorekeeper.vision.preprocess import Prepared, halved_for, preprocess
from scorekeeper.vision.second_look import (
    half_turned,
    likelier_die,
    other_face,
    patch_views,
    relook_rows,
    rescue_boxes,
    second_look,
)
from scorekeeper.vision.softmax import log_softmax

TEACH_CROP_SIDE = 96
"""A taught crop's side in pixels: twice its die's box side (:func:`teach_crop`)."""


def teach_crop(frame: np.ndarray, box: Box) -> np.ndarray:
    """The (96, 96, 3) uint8 BGR crop kept of a die to teach the reader: the square of twice the
    box's longer side around its centre (room for any patch context up to 2).

    >>> teach_crop(np.zeros((40, 60), np.uint8), (10, 10, 20, 30)).shape
    (96, 96, 3)
    """
    x0, y0, x1, y1 = box
    side = 2.0 * max(x1 - x0, y1 - y0, 1.0)
    bgr = to_bgr(check_frame(frame))
    return crop_patch(bgr, (x0 + x1) / 2, (y0 + y1) / 2, side, TEACH_CROP_SIDE)


def marked_unsure(dice: Sequence[Detection], which: Sequence[int]) -> list[Detection]:
    """``dice`` with those at the indices ``which`` marked unsure (just under each one's cut,
    value kept), strongest first again when any is.

    >>> dice = [Detection(1, (0, 0, 9, 9), 0.9, 0.8), Detection(5, (20, 0, 29, 9), 0.85, 0.8)]
    >>> [(d.value, d.unsure) for d in marked_unsure(dice, [0])], marked_unsure(dice, []) == dice
    ([(5, False), (1, True)], True)
    """
    if not which:
        return list(dice)
    out = list(dice)
    for i in which:
        out[i] = replace(dice[i], confidence=under(dice[i].unsure_below))
    return sorted(out, key=lambda d: -d.confidence)


class DiceReader:
    """Finds every die in a frame and reads its face, with an ONNX model on the CPU.

    The model's first stage finds candidate dice on a grey heat map at up to three sizes (fine,
    coarse for big dice, and the smallest in a close-up); when the model has a second-look head,
    a colour patch around each candidate, cut from the full-resolution frame, decides whether it
    is a die and reads its face; a close call is looked at again in three more views
    (:meth:`relook`). Small dice in a big frame are read again at a larger size
    (:meth:`zoom_side`).
    """

    def __init__(
        self, model_path: str | os.PathLike[str] | None = None, config: ReaderConfig = DEFAULTS
    ) -> None:
        """Load the model (``default_model_path()`` when None) to read as ``config`` says.

        :raises ImageError: when the model file is missing or not a dice model.
        """
        self.config = config
        self.model_path = Path(model_path) if model_path is not None else default_model_path()
        self.model = DiceModel(self.model_path, config.threads)
        model, fixed = self.model, self.model.fixed_side
        self.two_stage: bool = model.two_stage
        """True when the model has the second-look head."""
        self.long_side: int = fixed or int(config.long_side or model.long_side)
        """The fine look's input long side."""
        coarse = self.two_stage and config.coarse and fixed is None
        self.coarse_side: int | None = (
            round(self.long_side * config.coarse_factor) if coarse else None
        )
        """The second, smaller input size a two-stage reader also looks at (big dice), if any."""
        self.coarsest_side: int | None = (
            round(self.long_side * config.coarsest_factor)
            if self.coarse_side and config.third_look
            else None
        )
        """The third and smallest size, looked at when the first two suggest a close-up."""
        self.zoom: bool = config.zoom and self.two_stage and fixed is None
        """Whether small dice in a big frame get a zoomed look."""
        self.score_threshold: float = (
            model.score_threshold if config.score_threshold is None else config.score_threshold
        )
        """The die probability the second look needs (the heat, for a one-stage model)."""
        self.candidate_threshold: float = config.candidate_threshold or (
            model.candidate_threshold if self.two_stage else self.score_threshold
        )
        """The heat a peak needs to be looked at again."""
        self.unsure_below: float = (
            model.unsure_below if config.unsure_below is None else config.unsure_below
        )
        """A die read with less confidence is marked unsure (:attr:`Detection.unsure`)."""
        self.relook_face_below: float = (
            model.relook_face_below
            if config.relook_face_below is None
            else config.relook_face_below
        )
        """A die above the close calls whose likeliest face is under this is read again turned
        half round (:meth:`relook`)."""
        self.rescue_scale: float = (
            model.rescue_scale if config.rescue_scale is None else config.rescue_scale
        )
        """A candidate turned down is read again in a patch this many times as wide (0: never;
        :meth:`look`)."""
        self.colour_above: float = (
            model.colour_above if config.colour_above is None else config.colour_above
        )
        """A die read surely whose colour runs on above its box by more than this share is
        marked unsure (0: never; :meth:`doubt_colour_above`)."""
        self.prototypes: FacePrototypes | None = None
        """A table's own dice (:meth:`teach`), used by :meth:`infer` when set."""
        self._sides: list[int] | None = None  # the sizes looked at, while look_sides counts

    @property
    def stride(self) -> int:
        """Input pixels per heat-map cell."""
        return self.model.stride

    @property
    def patch_size(self) -> int:
        """The second look's patch side in pixels."""
        return self.model.patch_size

    @property
    def patch_context(self) -> float:
        """A patch covers this many times its candidate box's longer side."""
        return self.model.patch_context

    def infer(self, frame: np.ndarray, expect: int | None = None) -> list[Detection]:
        """Every die in the frame (uint8 BGR, grey or BGRA), strongest first; when they are
        small dice in a big frame, as read again at a larger size (:meth:`zoom_side`); weaker
        peaks beside dice read surely looked at too (:meth:`heap_look`); a die too big beside
        the others marked unsure (:meth:`doubt_oversize`), a 1 whose pip is a printed number
        (:meth:`doubt_numbers`) and, when set, a die whose colour runs on above its box
        (:meth:`doubt_colour_above`). With ``expect`` (the
        dice thrown, when the game knows it), those weaker peaks only when fewer dice are read;
        fewer dice read are made up from those the reader turned down, marked unsure
        (:meth:`fill`), and more are doubted (:meth:`doubt_surplus`).

        :raises ImageError: for a frame that is not a uint8 image array of an accepted size.
        """
        dice = self.doubt(frame, self.found(frame, expect))
        return dice if expect is None else self.meet_count(frame, dice, expect)

    def found(self, frame: np.ndarray, expect: int | None = None) -> list[Detection]:
        """The dice in the frame as the looks read them (with a table's taught dice when set),
        before the checks of :meth:`doubt`: :meth:`infer` without them and without the count.

        :raises ImageError: for a frame that is not a uint8 image array of an accepted size.
        """
        dice = self._read_at(frame, self.long_side, expect)
        zoom = self.zoom_side(dice, max(frame.shape[:2]))
        if zoom:
            dice = self._read_at(frame, zoom, expect)
        return [replace(d, unsure_below=self.unsure_below) for d in dice]

    def doubt(self, frame: np.ndarray, dice: Sequence[Detection]) -> list[Detection]:
        """``dice`` read from ``frame`` after the checks on each die read surely: the face a
        view above it reads (:meth:`check_above`), a die too big beside the others
        (:meth:`doubt_oversize`), a 1 whose pip is a printed number (:meth:`doubt_numbers`) and,
        when set, its colour running on above its box (:meth:`doubt_colour_above`).

        :raises ImageError: for a frame that is not a uint8 image array of an accepted size.
        """
        checked = self.doubt_numbers(frame, self.doubt_oversize(self.check_above(frame, dice)))
        return self.doubt_colour_above(frame, checked)

    def doubt_colour_above(self, frame: np.ndarray, dice: Sequence[Detection]) -> list[Detection]:
        """``dice`` with each one read surely whose colour fills more of a strip above its box
        than below by over :attr:`colour_above`
        (:func:`~scorekeeper.vision.continuation.colour_above`) marked unsure, strongest first
        again when one is: a die seen at an angle whose box holds its front face.

        :raises ImageError: for a frame that is not a uint8 image array of an accepted size.
        """
        cut = self.colour_above
        sure = [i for i, d in enumerate(dice) if not d.unsure]
        if not cut or not sure:
            return list(dice)
        checked = check_frame(frame)
        return marked_unsure(dice, [i for i in sure if colour_above(checked, dice[i].box) > cut])

    def doubt_oversize(self, dice: Sequence[Detection]) -> list[Detection]:
        """``dice`` with each one read surely that is too big beside the smallest of them
        (:func:`~scorekeeper.vision.looks.oversize`) marked unsure, strongest first again when
        one is: a board token or a printed tile read as a die among the dice of a throw."""
        return marked_unsure(dice, [i for i in oversize(dice, self.config) if not dice[i].unsure])

    def doubt_numbers(self, frame: np.ndarray, dice: Sequence[Detection]) -> list[Detection]:
        """``dice`` with each one read surely as a 1, but under
        :attr:`ReaderConfig.one_check_below`, whose dark mark at the middle is less solid than
        :attr:`ReaderConfig.one_solidity` or less round than :attr:`ReaderConfig.one_roundness`
        (:func:`~scorekeeper.vision.marks.number_like`) marked unsure, strongest first again
        when one is: a board token's printed number read as a 1's pip.

        :raises ImageError: for a frame that is not a uint8 image array of an accepted size.
        """
        solid, round_ = self.config.one_solidity, self.config.one_roundness
        below = self.config.one_check_below
        ones = [
            i for i, d in enumerate(dice) if d.value == 1 and not d.unsure and d.confidence < below
        ]
        if not (solid or round_) or not ones:
            return list(dice)
        checked = check_frame(frame)
        shapes = {i: mark_shape(checked, dice[i].box) for i in ones}
        return marked_unsure(
            dice, [i for i, m in shapes.items() if number_like(m, dice[i].box, solid, round_)]
        )

    def check_above(self, frame: np.ndarray, dice: Sequence[Detection]) -> list[Detection]:
        """``dice`` with each one read surely that a view above its box
        (:attr:`ReaderConfig.above_views`) reads as a die of another face given that face and
        marked unsure (strongest first again when one is): a die seen at an angle whose box
        holds its front face, the top face (the one that counts) above it.

        :raises ImageError: for a frame that is not a uint8 image array of an accepted size.
        """
        views = self.config.above_views
        sure = [i for i, d in enumerate(dice) if not d.unsure]
        if not views or not sure or not self.two_stage:
            return list(dice)
        boxes = [dice[i].box for i in sure]
        patches = above_patch_batch(
            check_frame(frame), boxes, views, self.patch_size, self.patch_context
        )
        logits = self.run_patches(patches).reshape(len(sure), len(views), 7)
        out, changed = list(dice), False
        for i, lg in zip(sure, logits, strict=True):
            d = dice[i]
            seen = other_face(lg, d.value)
            if seen is not None:
                face, p = seen
                out[i] = replace(d, value=face, confidence=min(p, under(d.unsure_below)))
                changed = True
        return sorted(out, key=lambda d: -d.confidence) if changed else out

    def meet_count(
        self,
        frame: np.ndarray,
        dice: Sequence[Detection],
        count: int,
        where: Callable[[Detection], bool] | None = None,
    ) -> list[Detection]:
        """``dice`` read from ``frame`` held to the ``count`` thrown, counting those ``where``
        accepts (default all): fewer are made up from the dice turned down, marked unsure
        (:meth:`fill`); more are doubted (:meth:`doubt_surplus`); as many are kept as read."""
        counted = len(dice) if where is None else sum(1 for d in dice if where(d))
        if counted < count:
            return [*dice, *self.fill(frame, dice, count - counted, where=where)]
        if counted > count:
            return self.doubt_surplus(dice, count, where)
        return list(dice)

    def doubt_surplus(
        self,
        dice: Sequence[Detection],
        count: int,
        where: Callable[[Detection], bool] | None = None,
    ) -> list[Detection]:
        """``dice`` with, when more of them (those ``where`` accepts) were read than the
        ``count`` thrown, each below :attr:`ReaderConfig.surplus_unsure_below` and each beyond
        the ``count`` surest marked unsure (:func:`~scorekeeper.vision.detection.doubt_surplus`)."""
        return doubt_surplus(dice, count, self.config.surplus_unsure_below, where)

    def fill(
        self,
        frame: np.ndarray,
        dice: Sequence[Detection],
        count: int,
        where: Callable[[Detection], bool] | None = None,
    ) -> list[Detection]:
        """Up to ``count`` more dice for a frame whose reading ``dice`` holds fewer than were
        thrown: the candidates the reader turned down (down to
        :attr:`ReaderConfig.fill_candidate_threshold` heat and
        :attr:`ReaderConfig.fill_score_threshold` die probability) that ``dice`` does not
        already cover, about the size of ``dice`` (:attr:`ReaderConfig.fill_size_band`) and
        ``where`` accepts (default: all), likeliest first, each at most
        :attr:`ReaderConfig.fill_confidence` sure and under the unsure cut, so a player is asked
        to check it.

        :raises ImageError: for a frame that is not a uint8 image array of an accepted size.
        """
        if count <= 0 or not self.two_stage:
            return []
        cfg = self.config
        side = self.zoom_side(list(dice), max(frame.shape[:2])) or self.long_side
        found = [
            c
            for c in self.all_candidates(frame, cfg.fill_candidate_threshold, long_side=side)
            if not any(overlap(c, d) for d in dice)
        ]
        if not found:
            return []
        more = resolve_overlaps(
            second_look(found, self.look(frame, found), cfg.fill_score_threshold),
            self.whole_side(frame, side),
            cfg,
        )
        if dice:
            median = float(np.median([box_side(d.box) for d in dice]))
            low, high = (median * k for k in cfg.fill_size_band)
            more = [d for d in more if low <= box_side(d.box) <= high]
        if where is not None:
            more = [d for d in more if where(d)]
        more.sort(key=lambda d: -d.confidence)
        most = min(cfg.fill_confidence, under(self.unsure_below))
        return [
            replace(d, confidence=min(d.confidence, most), unsure_below=self.unsure_below)
            for d in more[:count]
        ]

    def _read_at(self, frame: np.ndarray, side: int, expect: int | None = None) -> list[Detection]:
        """:meth:`infer` with the fine look at ``side`` pixels, and no zoomed look; with
        ``expect``, the dice in a heap are looked for (:meth:`heap_look`) only when fewer are
        read (a die more than were thrown is one to doubt, not one found)."""
        heap = self.config.heap_heat
        if not self.two_stage or not 0 < heap < self.candidate_threshold:
            found, low = self.all_candidates(frame, long_side=side), []
        else:
            found, weak = self.candidate_levels(
                frame, (self.candidate_threshold, heap), long_side=side
            )
            judged = {c.box for c in found}
            low = [c for c in weak if c.box not in judged]
        if not self.two_stage or not found:
            return found
        taught = self.prototypes
        marks = taught is not None and taught.config.marks_only
        looked, seen = self._look(frame, found, features=marks)
        dice = resolve_overlaps(
            second_look(found, looked, self.score_threshold),
            self.whole_side(frame, side),
            self.config,
        )
        if expect is None or len(dice) < expect:
            dice = self.heap_look(frame, dice, low)
        if taught is None or not dice:
            return dice
        if marks:
            known = dict(zip((c.box for c in found), seen, strict=True))
            log_probs, features = None, self._features_of(frame, dice, known)
        else:
            log_probs, features = self.readings(frame, dice)
        return taught.adjust(dice, log_probs, features, self.score_threshold, self.unsure_below)

    def _features_of(
        self, frame: np.ndarray, dice: Sequence[Detection], known: dict[Box, np.ndarray]
    ) -> np.ndarray:
        """The (N, F) features of ``dice``: from ``known`` (by box; the look that judged them
        fetched them) or, for the others, read from ``frame`` in one more pass."""
        rest = [d for d in dice if d.box not in known]
        if rest:
            more = zip((d.box for d in rest), self.features(frame, rest), strict=True)
            known = {**known, **dict(more)}
        return np.stack([known[d.box] for d in dice])

    def heap_look(
        self, frame: np.ndarray, dice: list[Detection], low: list[Detection]
    ) -> list[Detection]:
        """``dice`` plus those of the weaker candidates ``low`` (peaks from
        :attr:`ReaderConfig.heap_heat` up to the candidate threshold) that lie beside a die
        read surely (:func:`beside_sure`) and that the second look calls dice, strongest
        first: a die in a heap whose peak ran into its neighbour's.

        :raises ImageError: for a frame that is not a uint8 image array of an accepted size.
        """
        wanted = beside_sure(low, dice, self.unsure_below, self.config)
        if not wanted:
            return dice
        added: list[Detection] = []
        for d in second_look(wanted, self.look(frame, wanted), self.score_threshold):
            if not any(inside(d.centre(), k.box) for k in (*dice, *added)):
                added.append(d)
        return sorted([*dice, *added], key=lambda d: -d.confidence) if added else dice

    def readings(
        self, frame: np.ndarray, dice: Sequence[Detection]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The (N, 7) log-probabilities of ``dice`` read from ``frame`` as the second look
        judged them (:meth:`look`: a close call looked at again, a die turned down in its own
        patch read wider), and their (N, F) features, on which taught dice are compared, both
        from one run of the second look."""
        return self._look(frame, list(dice), features=True)

    def features(self, frame: np.ndarray, dice: Sequence[Detection]) -> np.ndarray:
        """The second look's (N, F) features of ``dice`` read from ``frame``."""
        self._load_features()
        return self.model.classify_features(self._patches(frame, [d.box for d in dice]))[1]

    def _load_features(self) -> None:
        """Reload the model with its second look's features as an output, once."""
        if not self.model.features:
            self.model = DiceModel(self.model_path, self.config.threads, features=True)

    def teach(
        self, crops: list[np.ndarray], labels: list[int], config: AdaptConfig = ADAPT_DEFAULTS
    ) -> FacePrototypes | None:
        """Learn a table's own dice from :func:`teach_crop` crops and their labels (0 not a die,
        1..6 the face): :meth:`infer` reads with them from now on. No crops: back to the
        network alone. Returns the prototypes in use.

        :raises ImageError: for a one-stage model, a model whose features cannot be found, or
            labels outside 0..6.
        """
        if not crops:
            self.prototypes = None
            return None
        self.prototypes = FacePrototypes(self.crop_features(crops), np.asarray(labels), config)
        return self.prototypes

    def crop_features(self, crops: list[np.ndarray]) -> np.ndarray:
        """The second look's (N, F) features of :func:`teach_crop` crops."""
        if not self.two_stage:
            raise ImageError(f"{self.model_path} has no second look to learn dice on")
        self._load_features()
        c = TEACH_CROP_SIDE / 2
        box = (c - c / 2, c - c / 2, c + c / 2, c + c / 2)
        patches = np.concatenate(
            [patch_batch(crop, [box], self.patch_size, self.patch_context) for crop in crops]
        )
        return self.model.classify_features(patches)[1]

    def raw(self, prepared: Prepared) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Run the model on a prepared tensor: (heat (h, w), values (6, h, w), sizes (2, h, w))."""
        return self.model.detect(prepared.tensor)

    def candidates(
        self, frame: np.ndarray, threshold: float | None = None, *, long_side: int | None = None
    ) -> list[Detection]:
        """The first stage alone at one input size (default ``self.long_side``): peaks of the
        heat map at ``threshold`` (default: the candidate threshold), valued by the heat-map
        head, strongest first.

        :raises ImageError: for a frame that is not a uint8 image array of an accepted size.
        """
        t = self.candidate_threshold if threshold is None else threshold
        return self.candidates_at(frame, (t,), long_side or self.long_side)[0]

    def look_sides(self, frame: np.ndarray) -> list[int]:
        """The input long sides the first stage runs at, in order, while :meth:`infer` reads
        ``frame``: which looks the frame takes (512 and 205 px, 80 px for a close-up, ...).

        :raises ImageError: for a frame that is not a uint8 image array of an accepted size.
        """
        sides: list[int] = []
        self._sides = sides
        try:
            self.infer(frame)
        finally:
            self._sides = None
        return sides

    def candidates_at(
        self, frame: np.ndarray, thresholds: Sequence[float], long_side: int
    ) -> list[list[Detection]]:
        """:meth:`candidates` at each of ``thresholds``, the first stage run once at
        ``long_side`` (every look of :meth:`all_candidates` goes through here).

        :raises ImageError: for a frame that is not a uint8 image array of an accepted size.
        """
        if self._sides is not None:
            self._sides.append(long_side)
        prepared = preprocess(frame, long_side)
        return decode_levels(
            *self.raw(prepared),
            stride=self.stride,
            scale=prepared.scale,
            frame_size=prepared.frame_size,
            thresholds=thresholds,
        )

    def all_candidates(
        self, frame: np.ndarray, threshold: float | None = None, *, long_side: int | None = None
    ) -> list[Detection]:
        """What the second look judges: the first stage's candidates at ``long_side`` (default
        the reader's) plus those of the coarse look that they do not already cover
        (:func:`merge_scales`), and when these suggest a close-up (:func:`wants_third_look`),
        the big ones of the third look too. A frame of twice ``long_side`` or more is halved
        first (:func:`halved_for`); the boxes are in the frame's own pixels either way.

        :raises ImageError: for a frame that is not a uint8 image array of an accepted size.
        """
        t = self.candidate_threshold if threshold is None else threshold
        return self.candidate_levels(frame, (t,), long_side=long_side)[0]

    def candidate_levels(
        self, frame: np.ndarray, thresholds: Sequence[float], *, long_side: int | None = None
    ) -> list[list[Detection]]:
        """:meth:`all_candidates` at each of ``thresholds``, the first stage run once for each
        size; the first threshold's candidates decide whether the third look is taken.

        :raises ImageError: for a frame that is not a uint8 image array of an accepted size.
        """
        side = long_side or self.long_side
        k = side / self.long_side
        coarse_side = round(self.coarse_side * k) if self.coarse_side else None
        coarsest_side = round(self.coarsest_side * k) if self.coarsest_side else None
        grey = to_grey(check_frame(frame))  # once for every size
        grey, factor = halved_for(grey, side)
        found = self.candidates_at(grey, thresholds, side)
        if coarse_side:
            coarse = self.candidates_at(grey, thresholds, coarse_side)
            ratio = self.config.size_ratio
            found = [merge_scales(f, c, ratio) for f, c in zip(found, coarse, strict=True)]
            if coarsest_side:
                found = self._with_third_look(
                    grey, thresholds, coarse[0], found, coarse_side, coarsest_side
                )
        if factor > 1:
            found = [[d.scaled(factor) for d in level] for level in found]
        return found

    def _with_third_look(
        self,
        grey: np.ndarray,
        thresholds: Sequence[float],
        coarse: list[Detection],
        found: list[list[Detection]],
        coarse_side: int,
        coarsest_side: int,
    ) -> list[list[Detection]]:
        """``found`` plus the third look's big dice at each threshold, when ``coarse`` and
        ``found``'s first level call for it."""
        cfg = self.config
        to_input = coarse_side / max(grey.shape[:2])  # grey's pixels -> coarse input
        if not wants_third_look(coarse, found[0], to_input, cfg):
            return found
        least = cfg.coarsest_least * cfg.whole_side / to_input
        bigs = self.candidates_at(grey, thresholds, coarsest_side)
        return [
            merge_scales(f, [d for d in big if box_side(d.box) >= least], cfg.size_ratio)
            for f, big in zip(found, bigs, strict=True)
        ]

    def look(self, frame: np.ndarray, candidates: list[Detection]) -> np.ndarray:
        """The second look's (N, 7) log-probabilities ("not a die", faces 1..6) for candidates
        in a frame, each close call looked at again in more views (:meth:`relook`); with a
        :attr:`rescue_scale`, each candidate turned down read again in a patch that much wider
        about its centre, that reading kept when it makes a die likelier (the detector draws
        the boxes of some dice, such as translucent ones, too small); not a candidate beside a
        kept die, whose face the wider patch would read (:func:`rescue_boxes`)."""
        return self._look(frame, candidates)[0]

    def _look(
        self, frame: np.ndarray, candidates: list[Detection], *, features: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`look`, and with ``features`` the (N, F) features of the candidates' own
        patches fetched in the same run (else an (N, 0) array)."""
        if not self.two_stage:
            raise ImageError(f"{self.model_path} has no second-look head")
        if not candidates:
            return np.zeros((0, 7), np.float64), np.zeros((0, 0), np.float32)
        patches = self._patches(frame, [d.box for d in candidates])
        if features:
            self._load_features()
            logits, feats = self.model.classify_features(patches)
        else:
            logits, feats = self.run_patches(patches), np.zeros((len(patches), 0), np.float32)
        out = self.relook(patches, logits)
        if not self.rescue_scale:
            return out, feats
        boxes = rescue_boxes(
            [d.box for d in candidates],
            out,
            self.score_threshold,
            self.config.rescue_above,
            self.rescue_scale,
        )
        rows = list(boxes)
        if rows:
            wide = self._patches(frame, [boxes[i] for i in rows])
            out[rows] = likelier_die(out[rows], self.relook(wide, self.run_patches(wide)))
        return out, feats

    def patch_logits(self, frame: np.ndarray, boxes: list[Box]) -> np.ndarray:
        """The second look's (N, 7) logits ("not a die", faces 1..6) for boxes in a frame."""
        if not self.two_stage:
            raise ImageError(f"{self.model_path} has no second-look head")
        if not boxes:
            return np.zeros((0, 7), np.float32)
        return self.run_patches(self._patches(frame, boxes))

    def _patches(self, frame: np.ndarray, boxes: list[Box]) -> np.ndarray:
        """The second look's input patches round ``boxes`` in a frame."""
        return patch_batch(check_frame(frame), boxes, self.patch_size, self.patch_context)

    def run_patches(self, patches: np.ndarray) -> np.ndarray:
        """The second look's (N, 7) logits for ready (N, 3, size, size) float32 patches."""
        return self.model.classify(patches)

    def relook(self, patches: np.ndarray, logits: np.ndarray) -> np.ndarray:
        """The second look's log-probabilities for ``patches`` given their first ``logits``,
        with each close call (:func:`relook_rows`) replaced by the mean over four views of its
        patch (:func:`patch_views`) and each other die not read surely by the mean of two (as
        cut and turned half round)."""
        out = log_softmax(logits)
        close, checked = relook_rows(out, self.config.relook_band, self.relook_face_below)
        if not len(close) and not len(checked):
            return out
        views = [*patch_views(patches[close]), half_turned(patches[checked])]
        more = log_softmax(self.run_patches(np.concatenate(views)))
        turned, mirrored, half, checked_half = np.split(more, np.cumsum([len(close)] * 3))
        out[close] = np.mean([out[close], turned, mirrored, half], axis=0)
        out[checked] = np.mean([out[checked], checked_half], axis=0)
        return out

    def whole_side(self, frame: np.ndarray, long_side: int | None = None) -> float:
        """The largest die the fine look (at ``long_side``, default the reader's) sees whole
        (:attr:`ReaderConfig.whole_side`), in ``frame``'s pixels."""
        return self.config.whole_side * float(max(frame.shape[:2])) / (long_side or self.long_side)

    def zoom_side(self, dice: list[Detection], size: int) -> int | None:
        """The fine look's size for reading again a frame whose longer side is ``size`` pixels,
        given the dice read in it, or None when it needs no second reading (:func:`zoom_side`).
        """
        if not self.zoom:
            return None
        return zoom_side(dice, size, self.long_side, self.config)
