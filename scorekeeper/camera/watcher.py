"""Watching the table frame by frame: motion, light, settling, and the proposal of a throw."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from scorekeeper.camera.frames import Image, to_bgr
from scorekeeper.camera.reader_slot import ReaderSlot
from scorekeeper.camera.reading import Proposal, Reading, read_throw, to_die
from scorekeeper.camera.settle import (
    Area,
    Die,
    MotionDetector,
    SettleConfig,
    Settler,
    split_by_area,
    still_lying,
)
from scorekeeper.vision.exposure import (
    ADVISE_AT,
    KEEP_ADVISING_AT,
    blown_out_share,
    exposure_advice,
)


class ThrowWatcher:
    """Turns frames into :class:`Reading` objects: it reads the dice only while the scene is
    still, and proposes a throw once the frames agree (:class:`Settler`)."""

    def __init__(self, config: SettleConfig, area: Area) -> None:
        """Watch ``area`` of the frames, settling as ``config`` says."""
        self.config = config
        self._area = area
        self._motion = MotionDetector()
        self._settler = Settler(config)
        self._proposal: Proposal | None = None
        self._light: str | None = None
        self._resting: tuple[list[Die], list[Die]] | None = None
        self._still_from = 0
        self._previous: Proposal | None = None
        self._lock = threading.Lock()

    @property
    def area(self) -> Area:
        """The throwing area (the whole frame by default)."""
        return self._area

    def set_area(self, area: Area) -> None:
        """Watch ``area`` from now on; settling starts afresh."""
        with self._lock:
            self._area = area
            self._motion.reset()
            self._settler = Settler(self.config)
            self._proposal = None
            self._resting = None
            self._still_from = 0
            self._previous = None

    @staticmethod
    def _read(model: Any, img: Image, area: Area, expect: int | None) -> list[Die]:
        """The dice of one frame; fewer than ``expect`` in the area made up (:func:`read_throw`)."""
        h, w = img.shape[:2]

        def in_area(d: Any) -> bool:
            x, y = to_die(d).centre()
            return area.contains(x, y, w, h)

        return [to_die(d) for d in read_throw(model, img, expect, in_area)]

    def process(
        self,
        image: Image,
        frame_id: int,
        info: Mapping[str, Any] | None,
        captured: float,
        reader: ReaderSlot,
        remember: Callable[[Proposal], None],
        expect: int | None = None,
    ) -> Reading:
        """Settle and read one frame with ``reader``; a new proposal goes to ``remember``. With
        ``expect`` (the dice the game waits for), fewer dice read in the throwing area are made
        up from those the reader turned down, marked unsure (the reader's ``fill``, if any)."""
        t0 = time.perf_counter()
        with self._lock:
            img = to_bgr(image)
            h, w = img.shape[:2]
            area = self._area
            motion = self._motion.update(img, area)
            blown = blown_out_share(img, area.pixels(w, h))
            self._light = exposure_advice(blown, KEEP_ADVISING_AT if self._light else ADVISE_AT)
            stable = self._settler.motion(motion > self.config.moving_fraction, captured)
            if motion > self.config.moving_fraction:
                self._still_from = 0
            elif not self._still_from:
                self._still_from = frame_id
            if not stable:
                self._proposal = None
                self._resting = None
            # once a still throw is proposed, nothing changes until the next motion: its
            # dice stand for every frame till then, and the reader rests (a Pi's core with it)
            resting = self._resting if stable and self._settler.locked else None
            dice: list[Die] = []
            model = reader.get() if stable and resting is None else None
            if model is not None:
                try:
                    with reader.timed():
                        dice = self._read(model, img, area, expect)
                except Exception as exc:
                    reader.error = f"the dice reader failed on a frame: {exc}"
                    dice = []
            if resting is not None:
                inside, outside = resting
            else:
                inside, outside = split_by_area(dice, area, w, h)
            vote = self._settler.vote(inside) if model is not None else None
            if vote is not None:
                self._resting = (list(vote.dice), outside)  # they stand until the next motion
                truth = (info or {}).get("truth")
                prev = self._previous
                lying = (
                    prev.lying_since
                    if prev is not None and still_lying(vote.dice, prev.boxes)
                    else self._still_from
                )
                self._proposal = Proposal(
                    id=uuid.uuid4().hex[:12],
                    frame_id=frame_id,
                    dice=vote.values,
                    boxes=vote.dice,
                    confidence=vote.confidence,
                    votes=vote.votes,
                    time=time.time(),
                    truth=tuple(sorted(truth)) if truth is not None else None,
                    since_frame=self._still_from,
                    lying_since=lying,
                )
                self._previous = self._proposal
                remember(self._proposal)
            return Reading(
                frame_id=frame_id,
                time=time.time(),
                image=img,
                stable=stable,
                motion=motion,
                dice=tuple(inside),
                ignored=tuple(outside),
                proposal=self._proposal,
                process_ms=(time.perf_counter() - t0) * 1000,
                captured=captured,
                info=dict(info or {}),
                blown_out=blown,
                light=self._light,
            )
