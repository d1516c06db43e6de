"""Real photos' whole-die boxes narrowed to the top face, where a model reads the labelled value.

    python -m training.narrow_boxes --model build/joined-folds/joined-wood-stone.onnx \\
        ../dice-extra/catan-table ../dice-extra/webcam-desk build/narrowed/wood-stone

Real sets box the whole die; seen at an angle, that box holds the top face (the one labelled)
and a side face below it. For each labelled die, boxes from its top edge down (``FRACTIONS`` of
its height, ``SPANS`` of its width) are read by MODEL's second look; a die's six faces all differ,
so a box read surely as the labelled value holds the top face. The likeliest such box replaces the
whole-die box where MODEL reads it at least ``SURE`` likely and ``GAIN`` likelier than the whole
box; every other die keeps its box. Each SOURCE is written again under ``OUT/SOURCE`` (its
``SOURCE.json``, its folders' images linked, not copied, where the file system allows it, and the
new labels), for a detector trained to box the face to be read (``training.train --extra-data
OUT``; docs/reader-trials.md, "Real top faces found by reading"). MODEL must never have seen the
source the detector will be measured on. It prints how many boxes each source had narrowed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import numpy as np

from scorekeeper.vision import DiceReader, ReaderConfig
from scorekeeper.vision.datasets import yolo_line
from scorekeeper.vision.detection import Box
from scorekeeper.vision.evaluate import labelled_folders, list_labelled, load_labelled
from scorekeeper.vision.softmax import softmax
from training.self_labels import link_or_copy

FRACTIONS = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4)
"""Heights of the boxes read, as shares of the whole die's box, each from its top edge."""

SPANS = ((0.0, 1.0), (0.0, 0.85), (0.15, 1.0), (0.0, 0.7), (0.3, 1.0))
"""Left and right edges of the boxes read, as shares of the whole die's box width."""

SURE = 0.9
"""How likely the labelled value must be read in a box for it to replace the whole die's."""

GAIN = 0.05
"""How much likelier than in the whole die's box the labelled value must be read there."""


def candidate_boxes(box: Box) -> list[Box]:
    """The boxes read for one whole-die box, the whole box first.

    >>> candidate_boxes((0, 0, 10, 20))[:2]
    [(0.0, 0.0, 10.0, 20.0), (0.0, 0.0, 8.5, 20.0)]
    >>> len(candidate_boxes((0, 0, 10, 20))) == len(FRACTIONS) * len(SPANS)
    True
    """
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    return [
        (float(x0 + a * w), float(y0), float(x0 + b * w), float(y0 + f * h))
        for f in FRACTIONS
        for a, b in SPANS
    ]


def narrowest_sure(boxes: list[Box], value_probs: np.ndarray) -> tuple[Box, bool]:
    """The box to label a die with, given each of its ``candidate_boxes``' probability of the
    labelled value (the whole box first), and whether it was narrowed.

    >>> boxes = [(0, 0, 10, 10), (0, 0, 10, 5)]
    >>> narrowest_sure(boxes, np.array([0.5, 0.97]))
    ((0, 0, 10, 5), True)
    >>> narrowest_sure(boxes, np.array([0.93, 0.96]))
    ((0, 0, 10, 10), False)
    """
    best = int(np.argmax(value_probs))
    if value_probs[best] >= SURE and value_probs[best] - value_probs[0] >= GAIN:
        return boxes[best], True
    return boxes[0], False


def narrow_source(reader: DiceReader, source: Path, out: Path) -> dict[str, int]:
    """Write ``source`` again under ``out`` with its dice's boxes narrowed (the module's
    docstring says how); returns the counts of dice narrowed and kept whole.

    :raises ImageError: for a folder without labelled photos, an image that does not decode or a
        malformed label line (named).
    """
    counts = {"photos": 0, "dice": 0, "narrowed": 0}
    folders = labelled_folders(source)
    out.mkdir(parents=True, exist_ok=True)
    if (source / "SOURCE.json").is_file():
        shutil.copyfile(source / "SOURCE.json", out / "SOURCE.json")
    for folder in folders:
        dest = out / folder.relative_to(source)
        (dest / "images").mkdir(parents=True, exist_ok=True)
        (dest / "labels").mkdir(parents=True, exist_ok=True)
        pairs = list_labelled(folder)
        labels = dict(pairs)
        for img, image, truth in load_labelled(pairs):
            h, w = image.shape[:2]
            lines = []
            for value, box in truth:
                boxes = candidate_boxes(box)
                probs = softmax(reader.patch_logits(image, boxes), axis=1)[:, value]
                chosen, narrowed = narrowest_sure(boxes, probs)
                counts["narrowed"] += narrowed
                lines.append(f"{yolo_line(value, chosen, w, h)}\n")
            counts["photos"] += 1
            counts["dice"] += len(truth)
            link_or_copy(img, dest / "images" / img.name)
            (dest / "labels" / labels[img].name).write_text("".join(lines))
    return counts


def main(argv: list[str] | None = None) -> int:
    """Write each source narrowed and print its counts as JSON lines; returns the exit code."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, required=True, help="the reader whose second look reads")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("sources", type=Path, nargs="+", help="source folders as make data writes them")
    ap.add_argument("out", type=Path, help="where each source is written again, by name")
    args = ap.parse_args(argv)
    try:
        reader = DiceReader(args.model, ReaderConfig(threads=args.threads))
        for source in args.sources:
            counts = narrow_source(reader, source, args.out / source.name)
            print(json.dumps({"source": source.name, **counts}))
    except ValueError as exc:  # ImageError, or a bad --threads
        print(f"narrow_boxes: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
