"""The second look's post-processing: close calls, their extra views, and the dice it keeps."""

from __future__ import annotations

import numpy as np

from scorekeeper.vision.config import DEFAULTS
from scorekeeper.vision.detection import (
    Box,
    Detection,
    box_centre,
    boxes_meet,
    grown_box,
    inside,
)
from scorekeeper.vision.softmax import softmax


def relook_rows(
    log_probs: np.ndarray,
    band: tuple[float, float] = DEFAULTS.relook_band,
    face_below: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the rows of (N, 7) second-look log-probabilities to look at again: the close
    calls (die probability in ``band``, :attr:`ReaderConfig.relook_band`), and the likelier dice
    whose likeliest face is under ``face_below`` (:attr:`ReaderConfig.relook_face_below`).

    >>> not_die = np.array([0.9, 0.5, 0.05])  # die probabilities 0.1, 0.5 and 0.95
    >>> lp = np.log(np.column_stack([not_die] + [(1 - not_die) / 6] * 6))
    >>> sure_one = np.log([[0.004, 0.991, 0.001, 0.001, 0.001, 0.001, 0.001]])
    >>> close, checked = relook_rows(np.concatenate([lp, sure_one]), face_below=0.99)
    >>> close.tolist(), checked.tolist()
    ([1], [2])
    >>> [rows.tolist() for rows in relook_rows(lp)]  # face_below 0: close calls only
    [[1], []]
    """
    die = 1.0 - np.exp(log_probs[:, 0])
    face = np.exp(log_probs[:, 1:].max(axis=1))
    close = (die >= band[0]) & (die < band[1])
    checked = (die >= band[1]) & (face < face_below)
    return np.nonzero(close)[0], np.nonzero(checked)[0]


def rescue_rows(log_probs: np.ndarray, threshold: float, above: float) -> np.ndarray:
    """Indices of the rows of (N, 7) second-look log-probabilities turned down as dice (die
    probability under ``threshold``) but not outright (at least ``above``): those read again in
    a wider patch (:attr:`ReaderConfig.rescue_scale`).

    >>> not_die = np.array([0.99, 0.6, 0.1])  # die probabilities 0.01, 0.4 and 0.9
    >>> lp = np.log(np.column_stack([not_die] + [(1 - not_die) / 6] * 6))
    >>> rescue_rows(lp, 0.7, 0.02).tolist()
    [1]
    """
    die = 1.0 - np.exp(log_probs[:, 0])
    return np.nonzero((die >= above) & (die < threshold))[0]


def rescue_boxes(
    boxes: list[Box], log_probs: np.ndarray, threshold: float, above: float, scale: float
) -> dict[int, Box]:
    """The patches to read again, by row: for each candidate turned down (:func:`rescue_rows`)
    its box ``scale`` times as wide, unless that wider box holds the centre of a die kept
    (die probability at least ``threshold``), whose face it would read, or the candidate's own
    box meets a kept die's box (a die's side face beside its top, say).

    >>> lp = np.log([[0.1] + [0.9 / 6] * 6, [0.6] + [0.4 / 6] * 6])  # a die, a candidate
    >>> rescue_boxes([(0, 0, 10, 10), (30, 0, 40, 10)], lp, 0.7, 0.02, 2.0)
    {1: (25.0, -5.0, 45.0, 15.0)}
    >>> rescue_boxes([(0, 0, 10, 10), (9, 0, 19, 10)], lp, 0.7, 0.02, 1.2)  # meets the die
    {}
    """
    die = 1.0 - np.exp(log_probs[:, 0])
    kept = [box for box, p in zip(boxes, die, strict=True) if p >= threshold]
    out = {}
    for i in rescue_rows(log_probs, threshold, above):
        wide = grown_box(boxes[i], scale)
        if not any(inside(box_centre(k), wide) or boxes_meet(k, boxes[i]) for k in kept):
            out[int(i)] = wide
    return out


def likelier_die(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Row by row, whichever of two (N, 7) log-probability readings makes a die likelier.

    >>> a, b = np.log([[0.8] + [0.2 / 6] * 6]), np.log([[0.1] + [0.9 / 6] * 6])
    >>> bool(np.allclose(likelier_die(a, b), b)), bool(np.allclose(likelier_die(b, a), b))
    (True, True)
    """
    return np.where((second[:, 0] < first[:, 0])[:, None], second, first)


def half_turned(patches: np.ndarray) -> np.ndarray:
    """(N, 3, H, W) patches turned half round."""
    return np.ascontiguousarray(patches[:, :, ::-1, ::-1])


def patch_views(patches: np.ndarray) -> list[np.ndarray]:
    """Three more views of (N, 3, H, W) patches: turned a quarter, mirrored, turned half round."""
    return [
        np.ascontiguousarray(np.rot90(patches, 1, axes=(2, 3))),
        np.ascontiguousarray(patches[:, :, :, ::-1]),
        half_turned(patches),
    ]


def second_look(
    candidates: list[Detection], logits: np.ndarray, threshold: float
) -> list[Detection]:
    """Keep the candidates whose patch the second look calls a die, with its value.

    ``logits`` is (N, 7): "not a die" then faces 1..6. A candidate stays when the summed
    probability of the six faces is at least ``threshold``; its value is the likeliest face and
    its confidence that face's probability.

    >>> c = [Detection(3, (0, 0, 9, 9), 0.9), Detection(2, (20, 0, 29, 9), 0.8)]
    >>> lg = np.array([[-5, 0, 0, 0, 0, 6, 0], [5, 0, 0, 0, 0, 0, 0]], np.float32)
    >>> [(d.value, round(d.confidence, 2)) for d in second_look(c, lg, 0.5)]
    [(5, 0.99)]
    """
    if logits.shape != (len(candidates), 7):
        raise ValueError(f"expected ({len(candidates)}, 7) patch logits, got {logits.shape}")
    probs = softmax(logits.astype(np.float64), axis=1)
    out = []
    for cand, p in zip(candidates, probs, strict=True):
        if 1.0 - p[0] < threshold:
            continue
        value = int(np.argmax(p[1:])) + 1
        out.append(Detection(value=value, box=cand.box, confidence=float(p[value])))
    out.sort(key=lambda d: -d.confidence)
    return out


def other_face(logits: np.ndarray, value: int, above: float = 0.5) -> tuple[int, float] | None:
    """The face other than ``value``, and its probability, that one of a die's (V, 7) readings
    in other views calls it more likely than ``above`` (the likeliest such, if several), or None.

    >>> lg = np.log(np.array([[0.7, 0.2, 0.1, 0, 0, 0, 0], [0.1, 0, 0.8, 0.1, 0, 0, 0]]) + 1e-9)
    >>> other_face(lg, 2), other_face(lg[:1], 3)
    (None, None)
    >>> face, p = other_face(lg, 3); face, round(p, 3)
    (2, 0.8)
    """
    p = softmax(logits.astype(np.float64), axis=1)[:, 1:]
    p[:, value - 1] = 0.0
    view, face = np.unravel_index(int(np.argmax(p)), p.shape)
    best = float(p[view, face])
    return (int(face) + 1, best) if best > above else None
