"""Would a stricter doubt catch the throws that slip through? A higher cut, and second opinions.

    python -m training.eval_doubt [--data ../dice-extra] [--shared ../shared/dice-data]
        [--model models/dice.onnx] [--cuts 0.8,0.85,0.9,0.95] [--shift 0.2]

Reads every photo of 1 to 6 labelled dice of each source (``make data``'s, then the shared
held-out sets) as the camera reads a throw whose count the game knows (``infer(expect=N)``),
then prints per source, for each **unsure cut** (a die is marked "?" below it; the app's is
0.8), the throws that slip through (the right count, no "?", a value wrong), the throws right
as read with nothing to check, and the share of readings marked unsure. Last, at the app's
cut, a **shifted second read**: each sure die's patch is read again four times, its box moved
``--shift`` of its side up, down, left and right, and once shrunk to 0.7 of its side; the die is
marked unsure when one of those reads calls it another face (a die probability of at least
0.5). And the **detector's own value**: a sure die is marked unsure when the first stage's value
head, at the candidate the die came from, reads another face. And the **pips counted plainly**
(:func:`~training.pips.count_pips`, no training): a sure die is marked unsure when that count is
another face; then the other way, an unsure die's mark is taken off when the count is its value.
The question it answers: are the sure misreads (mostly a die seen at an angle, its side face
read instead of its top) close calls a stricter mark, another framing or another reader would
expose, and can one of them vouch for the right dice marked "?"?
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from scorekeeper.camera.settle import box_iou
from scorekeeper.errors import ImageError
from scorekeeper.scoring import MAX_DICE
from scorekeeper.vision import DiceReader, default_model_path
from scorekeeper.vision.detection import UNSURE_BELOW, Box, Detection
from scorekeeper.vision.evaluate import Truth, judge, list_labelled, load_labelled
from scorekeeper.vision.softmax import softmax
from training.calibrate_unsure import at_cut, raised_cuts
from training.eval_count import add_source_arguments, float_list, throw_folders
from training.pips import count_pips

Throw = tuple[str, Truth, list[Detection], np.ndarray, list[int | None], list[int | None]]
"""A photo's name, labelled dice, count-known reading, (N, 5, 7) shifted second reads, the
detector's value for each die (None: no candidate matched) and its pips counted plainly (None:
not 1 to 6 found, :func:`~training.pips.count_pips`)."""

CHECKS = ("shifted", "detector", "pips", "pips agree")
"""The second opinions :func:`figures` can mark unsure by ("pips agree" instead takes the mark
off an unsure die whose pips, counted plainly, are its value)."""

SHRINK = 0.7
"""The shifted second read's fifth view: the box shrunk to this share of its side."""


def shifted_boxes(box: Box, shift: float) -> list[Box]:
    """The box moved ``shift`` of its longer side up, down, left and right, then shrunk.

    >>> [tuple(round(v) for v in b) for b in shifted_boxes((0, 0, 10, 10), 0.2)][:2]
    [(0, -2, 10, 8), (0, 2, 10, 12)]
    """
    x0, y0, x1, y1 = box
    m = shift * max(x1 - x0, y1 - y0)
    cx, cy, hw, hh = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2, (y1 - y0) / 2
    views = [(0.0, -m, 1.0), (0.0, m, 1.0), (-m, 0.0, 1.0), (m, 0.0, 1.0), (0.0, 0.0, SHRINK)]
    return [
        (cx + dx - k * hw, cy + dy - k * hh, cx + dx + k * hw, cy + dy + k * hh)
        for dx, dy, k in views
    ]


def disagrees(die: Detection, logits: np.ndarray) -> bool:
    """Whether any of a die's (V, 7) second reads calls it a die of another face.

    >>> lg = np.log(np.array([[0.1, 0.9, 0, 0, 0, 0, 0], [0.6, 0, 0.4, 0, 0, 0, 0]]) + 1e-9)
    >>> disagrees(Detection(1, (0, 0, 9, 9), 0.9), lg)
    False
    >>> disagrees(Detection(2, (0, 0, 9, 9), 0.9), lg)
    True
    """
    p = softmax(logits.astype(np.float64), axis=1)
    faces = np.argmax(p[:, 1:], axis=1) + 1
    return bool(np.any((p[:, 0] <= 0.5) & (faces != die.value)))


def detector_values(dice: list[Detection], candidates: list[Detection]) -> list[int | None]:
    """For each die, the value of the candidate whose box overlaps it most (IoU at least 0.5).

    >>> detector_values([Detection(4, (0, 0, 10, 10), 0.9)], [Detection(1, (1, 0, 11, 10), 0.5)])
    [1]
    """
    out: list[int | None] = []
    for d in dice:
        best = max(candidates, key=lambda c: box_iou(c.box, d.box), default=None)
        out.append(best.value if best is not None and box_iou(best.box, d.box) >= 0.5 else None)
    return out


def read_throws(reader: DiceReader, folder: Path, split: str, shift: float) -> list[Throw]:
    """Every photo of 1 to 6 dice read with its count known, with each die's shifted reads;
    each die keeps its own unsure cut only where the reader raised it
    (:func:`~training.calibrate_unsure.raised_cuts`)."""
    out: list[Throw] = []
    for p, image, truth in load_labelled(list_labelled(folder, split)):
        if not 1 <= len(truth) <= MAX_DICE:
            continue
        read = raised_cuts(reader.infer(image, expect=len(truth)), reader.unsure_below)
        boxes = [b for d in read for b in shifted_boxes(d.box, shift)]
        views = len(boxes) // max(1, len(read))
        logits = reader.patch_logits(image, boxes) if boxes else np.zeros((0, 7), np.float32)
        heads = detector_values(read, reader.all_candidates(image, 0.1))
        pips = [count_pips(image, d.box) for d in read]
        out.append(
            (p.name, truth, read, np.asarray(logits).reshape(len(read), views, 7), heads, pips)
        )
    return out


def figures(throws: list[Throw], cut: float, check: str | None = None) -> dict[str, float]:
    """Throws slipped through, right as read, and readings marked unsure at ``cut`` (or at a
    die's own cut where the reader raised it: the readings as :func:`read_throws` keeps them);
    with a ``check`` of :data:`CHECKS`, sure dice that second opinion disagrees with are marked
    too ("pips agree": unsure dice whose plain pip count is their value are unmarked)."""
    if check is not None and check not in CHECKS:
        raise ValueError(f"no check {check!r}; expected one of {', '.join(CHECKS)}")
    slipped = right = unsure = readings = 0
    for name, truth, read, logits, heads, pips in throws:
        if check == "pips agree":
            read = [
                replace(d, confidence=max(d.confidence, cut, d.unsure_below))
                if pips[i] == d.value
                else d
                for i, d in enumerate(read)
            ]
        elif check is not None:
            opinions = {"detector": heads, "pips": pips}.get(check)
            doubted = [
                disagrees(d, logits[i]) if opinions is None else opinions[i] not in (None, d.value)
                for i, d in enumerate(read)
            ]
            read = [
                replace(d, confidence=min(d.confidence, cut / 2))
                if d.confidence >= cut and doubt
                else d
                for d, doubt in zip(read, doubted, strict=True)
            ]
        v = judge(name, at_cut(read, cut), truth)
        slipped += v.slips_through
        right += v.right_as_is
        unsure += v.unsure
        readings += len(read)
    n = max(1, len(throws))
    return {
        "slipped": slipped,
        "right_as_read": round(right / n, 3),
        "unsure": round(unsure / max(1, readings), 3),
    }


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit 2 with a message when a folder cannot be read."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_source_arguments(ap)
    ap.add_argument("--cuts", type=float_list, default=[UNSURE_BELOW, 0.85, 0.9, 0.95])
    ap.add_argument("--shift", type=float, default=0.2, help="of a die's side")
    args = ap.parse_args(argv)
    if not 0 < args.shift < 1 or not args.cuts or not all(0 < c < 1 for c in args.cuts):
        print(
            "eval_doubt: error: --shift and every --cuts value must be between 0 and 1",
            file=sys.stderr,
        )
        return 2
    reader = DiceReader(args.model or default_model_path())
    try:
        sets = {
            k: read_throws(reader, f, s, args.shift) for k, (f, s) in throw_folders(args).items()
        }
    except ImageError as exc:
        print(f"eval_doubt: error: {exc}", file=sys.stderr)
        return 2
    print("| doubt | " + " | ".join(sets) + " |\n" + "|---" * (len(sets) + 1) + "|")
    rows: list[tuple[str, float, str | None]] = [(f"unsure below {c}", c, None) for c in args.cuts]
    rows.append(
        (f"shifted second read ({args.shift}), below {UNSURE_BELOW}", UNSURE_BELOW, "shifted")
    )
    rows.append((f"the detector's value, below {UNSURE_BELOW}", UNSURE_BELOW, "detector"))
    rows.append((f"pips counted plainly, below {UNSURE_BELOW}", UNSURE_BELOW, "pips"))
    rows.append(
        (
            f"unsure below {UNSURE_BELOW} unless pips counted plainly agree",
            UNSURE_BELOW,
            "pips agree",
        )
    )
    for label, cut, check in rows:
        cells = []
        for throws in sets.values():
            f = figures(throws, cut, check)
            cells.append(f"{f['slipped']}, {f['right_as_read']:.3f}, {f['unsure']:.3f}")
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)
    print(
        "\ncells: throws slipped through (count), share right as read, share of readings marked"
        f" unsure. Throws per source: {', '.join(f'{k} {len(v)}' for k, v in sets.items())}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
