"""What the camera made of a frame: the reader protocol, :class:`Reading`, :class:`Proposal`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from scorekeeper.camera.frames import Image
from scorekeeper.camera.settle import Die, count_message
from scorekeeper.vision.detection import UNSURE_BELOW


class ReaderLike(Protocol):
    """The dice reader's one method: frame in, detections (value, box, confidence) out."""

    def infer(self, frame: Image) -> Sequence[Any]:
        """Detections of one frame."""


@runtime_checkable
class CountingReader(ReaderLike, Protocol):
    """A reader that can hold a reading to the dice thrown: make up a short count, doubt a
    surplus (the project's reader; :func:`read_throw` uses it when a reader has it)."""

    def meet_count(
        self,
        frame: Image,
        dice: Sequence[Any],
        count: int,
        where: Callable[[Any], bool] | None = None,
    ) -> Sequence[Any]:
        """``dice`` of ``frame`` with the ones ``where`` accepts held to ``count``."""


def default_reader_factory(
    threads: int = 1, score_threshold: float | None = None
) -> Callable[[], Any]:
    """A factory building the project's ONNX dice reader (imported when first called)."""

    def make() -> Any:
        from scorekeeper.vision import DiceReader, ReaderConfig

        return DiceReader(None, ReaderConfig(score_threshold=score_threshold, threads=threads))

    return make


def read_throw(
    model: Any, frame: Image, expect: int | None, where: Callable[[Any], bool] | None = None
) -> list[Any]:
    """The reader's detections of a frame, held to ``expect`` (the dice the game waits for,
    counting those ``where`` accepts) by the reader's ``meet_count`` when it has one
    (:class:`CountingReader`; the project's reader does, see
    :meth:`~scorekeeper.vision.reader.DiceReader.meet_count`); as read otherwise."""
    found = list(model.infer(frame))
    if expect is None or not isinstance(model, CountingReader):
        return found
    return list(model.meet_count(frame, found, expect, where=where))


def to_die(det: Any) -> Die:
    """A reader detection (or a ``{"value", "box", "confidence"}`` dict, with ``unsure_below``
    if the reader has its own cut) as a :class:`Die`, keeping the reader's unsure cut."""
    if isinstance(det, Mapping):
        value, box, conf = det["value"], det["box"], det["confidence"]
        cut = det.get("unsure_below", UNSURE_BELOW)
    else:
        value, box, conf = det.value, det.box, det.confidence
        cut = getattr(det, "unsure_below", UNSURE_BELOW)
    x0, y0, x1, y1 = (float(v) for v in box)
    return Die(int(value), (x0, y0, x1, y1), float(conf), float(cut))


@dataclass(frozen=True)
class Proposal:
    """A settled throw the camera proposes: sorted values, the boxes, confidence and votes."""

    id: str
    frame_id: int
    dice: tuple[int, ...]
    boxes: tuple[Die, ...]
    confidence: float
    votes: int
    time: float
    truth: tuple[int, ...] | None = None
    since_frame: int = 0
    """The first still frame of the settle it was read from (every voted frame is as new)."""
    lying_since: int = 0
    """The first still frame since which its dice have lain where they lie: the settle's own,
    or an earlier settle's whose dice they all were, at the same places (only other things,
    such as a hand taking kept dice away, moved in between)."""

    def unsure(self) -> list[bool]:
        """For each of :attr:`dice` (sorted), whether the reader was unsure of it (confidence
        below the reader's unsure cut, ``Detection.unsure``); of equal values the least sure
        come first.

        >>> box = (0.0, 0.0, 9.0, 9.0)
        >>> p = Proposal("p", 1, (2, 5, 5), (Die(5, box, 0.99), Die(2, box, 0.9),
        ...     Die(5, box, 0.5)), 0.8, 4, 0.0)
        >>> p.unsure()
        [False, True, False]
        """
        ranked = sorted(self.boxes, key=lambda d: (d.value, d.confidence))
        if [d.value for d in ranked] != list(self.dice):
            return [False] * len(self.dice)
        return [d.unsure for d in ranked]

    def to_dict(self, dice_left: int | None = None) -> dict[str, Any]:
        """The proposal as JSON, with the dice count compared to ``dice_left`` when given."""
        return {
            "id": self.id,
            "frame_id": self.frame_id,
            "dice": list(self.dice),
            "unsure": self.unsure(),
            "count": len(self.dice),
            "confidence": round(self.confidence, 3),
            "votes": self.votes,
            "dice_left": dice_left,
            "count_matches": dice_left is None or dice_left == len(self.dice),
            "message": count_message(len(self.dice), dice_left),
        }


@dataclass(frozen=True)
class Reading:
    """What the camera made of one frame."""

    frame_id: int
    time: float
    image: Image = field(repr=False)
    stable: bool
    motion: float
    dice: tuple[Die, ...]
    ignored: tuple[Die, ...]
    proposal: Proposal | None
    process_ms: float = 0.0
    captured: float = 0.0
    """When the frame was captured (``time.time()``)."""
    info: Mapping[str, Any] = field(default_factory=dict, repr=False)
    """What the source said about the frame (the demo's scene and phase)."""
    blown_out: float = 0.0
    """Share of the throwing area blown out to white (``vision.exposure.blown_out_share``)."""
    light: str | None = None
    """Advice on the exposure for the player, or None when the picture is fine."""

    def to_dict(self, dice_left: int | None = None) -> dict[str, Any]:
        """``{"frame_id", "stable", "dice", "count", "ignored", "proposal", ...}``; each die
        carries ``unsure`` (:attr:`Die.unsure`); ``light`` is advice on the exposure or null."""
        return {
            "frame_id": self.frame_id,
            "stable": self.stable,
            "motion": round(self.motion, 4),
            "dice": [{**d.to_dict(), "unsure": d.unsure} for d in self.dice],
            "count": len(self.dice),
            "ignored": [d.to_dict() for d in self.ignored],
            "proposal": self.proposal.to_dict(dice_left) if self.proposal else None,
            "width": int(self.image.shape[1]),
            "height": int(self.image.shape[0]),
            "blown_out": round(self.blown_out, 3),
            "light": self.light,
        }
