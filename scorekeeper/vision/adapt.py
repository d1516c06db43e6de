"""A table's own dice learnt from a few labelled crops: prototypes per face on the second look's
features (:mod:`scorekeeper.vision.features`), numpy only.

Each taught crop is one example (its features, L2-normalised, and its label: 0 "not a die" or a
face 1..6). A die the reader found is compared with every example; each taught label scores the
mean cosine similarity of its ``top`` nearest examples, and those scores, as a softmax at
``temperature``, are the prototypes' own reading. :meth:`FacePrototypes.adjust` combines it with
the network's (a product of the two, the prototypes' weighted by ``weight``) and marks a die
unsure when the prototypes clearly read another face than the network, or "not a die"; with no
weight (:data:`TAUGHT_MARKS`, the app's default) it only marks, the reading kept.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from scorekeeper.errors import ImageError
from scorekeeper.vision.detection import UNSURE_BELOW, Detection, under
from scorekeeper.vision.softmax import log_softmax

LABELS = 7
"""0 = "not a die", 1..6 = the face up."""


@dataclass(frozen=True)
class AdaptConfig:
    """How taught examples change a reading."""

    weight: float = 0.1
    """The prototypes' log-probabilities count this many times the network's (0: unchanged)."""
    temperature: float = 0.05
    """Softmax temperature on the cosine similarities."""
    top: int = 3
    """A label scores the mean similarity of its this many nearest examples."""
    disagree_margin: float = 0.5
    """The prototypes read another face with at least this much more probability: unsure."""
    mark_disagreement: bool = True
    """Whether such a die is marked unsure."""
    keep_reading: bool = False
    """Whether the network's face is kept and no die dropped: a die whose face is taught takes
    the combined probability of that face given a die, times the network's die probability
    (the combined one when "not a die" is taught), when the combined reading agrees (surer or
    less sure), and is marked unsure when it reads another face."""

    @property
    def marks_only(self) -> bool:
        """Whether the taught examples only mark dice (no weight, reading kept): the network's
        readings are not needed, only the dice's features."""
        return self.weight == 0 and not self.keep_reading


ADAPT_DEFAULTS = AdaptConfig()
"""The settings measured in ``training/eval_teach.py``: read with the taught dice."""

TAUGHT_MARKS = AdaptConfig(weight=0.0)
"""The taught dice only mark a die they read as another face, or as not a die (the app's
default)."""


def normalised(features: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (a zero row stays zero).

    >>> normalised(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
    [[0.6, 0.8], [0.0, 0.0]]
    """
    f = np.asarray(features, np.float64)
    norms = np.linalg.norm(f, axis=1, keepdims=True)
    out: np.ndarray = np.divide(f, norms, out=np.zeros_like(f), where=norms > 0)
    return out


class FacePrototypes:
    """Taught examples (features and labels 0..6) and how they change the network's reading.

    :raises ImageError: for features and labels of different lengths, or a label outside 0..6.
    """

    def __init__(
        self, features: np.ndarray, labels: np.ndarray, config: AdaptConfig = ADAPT_DEFAULTS
    ) -> None:
        """Keep ``features`` (M, F) with their ``labels`` (M,), 0 = not a die, 1..6 faces."""
        labels = np.asarray(labels, np.int64).reshape(-1)
        if len(features) != len(labels):
            raise ImageError(f"{len(features)} feature rows for {len(labels)} labels")
        if len(labels) and (labels.min() < 0 or labels.max() >= LABELS):
            raise ImageError("taught labels must be 0 (not a die) or a face 1..6")
        self.features = normalised(np.asarray(features).reshape(len(labels), -1))
        self.labels = labels
        self.config = config

    @property
    def taught(self) -> list[int]:
        """The labels with at least one example, ascending."""
        return sorted(int(v) for v in np.unique(self.labels))

    def __len__(self) -> int:
        """How many examples."""
        return len(self.labels)

    def scores(self, features: np.ndarray) -> np.ndarray:
        """(N, 7) similarity scores: per label the mean cosine similarity of its ``top`` nearest
        examples; an untaught label gets the lowest taught score of that row.

        >>> fp = FacePrototypes(np.eye(3)[:2], np.array([1, 2]))
        >>> fp.scores(np.array([[1.0, 0.1, 0.0]]))[0].round(3).tolist()
        [0.1, 0.995, 0.1, 0.1, 0.1, 0.1, 0.1]
        """
        sims = normalised(features) @ self.features.T  # (N, M)
        out = np.full((len(sims), LABELS), np.nan)
        for label in self.taught:
            mine = sims[:, self.labels == label]
            k = min(self.config.top, mine.shape[1])
            out[:, label] = np.sort(mine, axis=1)[:, -k:].mean(axis=1)
        floor = np.nanmin(out, axis=1, keepdims=True)
        return np.where(np.isnan(out), floor, out)

    def log_probs(self, features: np.ndarray) -> np.ndarray:
        """(N, 7) the prototypes' own log-probabilities (softmax of :meth:`scores`)."""
        return log_softmax(self.scores(features) / self.config.temperature)

    def adjust(
        self,
        dice: list[Detection],
        logits: np.ndarray | None,
        features: np.ndarray,
        threshold: float,
        unsure_below: float = UNSURE_BELOW,
    ) -> list[Detection]:
        """The dice as read with the taught examples: the network's (N, 7) ``logits`` and the
        prototypes combined; a die whose combined die probability falls below ``threshold``
        is dropped (only when "not a die" is taught can that happen); a die whose face is taught
        and which the taught examples read as another face is put under ``unsure_below`` (the
        reader's cut); strongest first. With :attr:`AdaptConfig.keep_reading`, faces are kept
        and no die is dropped (see there); with :attr:`AdaptConfig.marks_only`, only that mark
        is added to the dice as read, and ``logits`` may be None.

        :raises ImageError: ``logits`` None when the taught examples do more than mark.
        """
        if not len(self) or not dice:
            return dice
        cfg = self.config
        proto = self.log_probs(features)
        taught = set(self.taught)
        if cfg.marks_only:
            readings: list[tuple[int, float] | None] = [(d.value, d.confidence) for d in dice]
        elif logits is None:
            raise ImageError("reading with taught dice needs the network's readings of them")
        else:
            readings = self._combined(dice, logits, proto, taught, threshold, unsure_below)
        out = []
        for d, reading, q in zip(dice, readings, np.exp(proto), strict=True):
            if reading is None:
                continue
            value, confidence = reading
            if cfg.mark_disagreement and self._disagrees(value, q, taught):
                confidence = min(confidence, under(unsure_below))
            out.append(replace(d, value=value, confidence=confidence, unsure_below=unsure_below))
        out.sort(key=lambda d: -d.confidence)
        return out

    def _combined(
        self,
        dice: list[Detection],
        logits: np.ndarray,
        proto: np.ndarray,
        taught: set[int],
        threshold: float,
        unsure_below: float,
    ) -> list[tuple[int, float] | None]:
        """Each die's face and confidence from the network's ``logits`` and the prototypes'
        log-probabilities ``proto`` combined (:meth:`adjust`), None for a die dropped."""
        cfg = self.config
        net = log_softmax(np.asarray(logits, np.float64))
        both = np.exp(log_softmax(net + cfg.weight * proto))
        out: list[tuple[int, float] | None] = []
        for d, n, p in zip(dice, net, both, strict=True):
            if cfg.keep_reading:
                value, confidence = d.value, d.confidence
                if value in taught:
                    # how likely a die stays the network's unless "not a die" is taught
                    die = 1.0 - (p[0] if 0 in taught else float(np.exp(n[0])))
                    faces = p[1:] / max(float(p[1:].sum()), 1e-12)
                    if int(np.argmax(faces)) + 1 == value:
                        confidence = die * float(faces[value - 1])
                    else:
                        confidence = min(d.confidence, under(unsure_below))
                out.append((value, confidence))
            elif 1.0 - p[0] < threshold:
                out.append(None)
            else:
                value = int(np.argmax(p[1:])) + 1
                out.append((value, float(p[value])))
        return out

    def _disagrees(self, value: int, q: np.ndarray, taught: set[int]) -> bool:
        """Whether the prototypes' probabilities ``q`` read another face than ``value``, itself
        taught, or (when taught) "not a die", by :attr:`AdaptConfig.disagree_margin`."""
        theirs = int(np.argmax(q)) if 0 in taught else int(np.argmax(q[1:])) + 1
        return (
            theirs != value
            and value in taught
            and q[theirs] - q[value] >= self.config.disagree_margin
        )
