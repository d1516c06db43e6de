"""The reader on close-ups: each die of the validation photos as a camera close to it sees it.

    python -m training.eval_closeup [--model PATH] [--sizes 100,160,250] [--scale K] [--data DIR]

Each labelled die of the validation photos (the webcam set and the tray hold-out, labels as
corrected by ``models/dice-data-errata.json``) is cut out with the photo around it and scaled
so that the die is SIZE pixels across in a 640×480 frame, as a webcam close to the table or a
phone photo of a die or two gives it. A photo's die size is its largest labelled box: the
webcam set's boxes hold the top face only, and a 1's box only its pip. Prints one line per set
and size: the share of centre dice found, the share of those read right, false dice per frame
(a prediction inside the photo whose centre lies in no labelled box), the share of frames
read exactly (the centre die found once and right, nothing false), and of the other dice
wholly in the frame, how many there are and the share read right (a prediction of the right
value with its centre in the die's box). ``--scale K`` makes each frame K times bigger first, as
a camera of K times the resolution gives it (``--no-zoom``: without the reader's zoomed look).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import cv2
import numpy as np

from scorekeeper.vision import DiceReader, ReaderConfig, default_model_path
from scorekeeper.vision.detection import Box, Detection, inside
from scorekeeper.vision.evaluate import Truth, list_labelled, load_errata, load_labelled
from training.sets import DEFAULT_DATA, ROOT, VALID_FOLDERS

ERRATA = ROOT / "models" / "dice-data-errata.json"
WIDTH, HEIGHT = 640, 480
DEFAULT_SIZES = (100, 130, 160, 200, 250, 320)


def close_up(
    img: np.ndarray, centre: tuple[float, float], scale: float
) -> tuple[np.ndarray, Callable[[Box], Box]]:
    """The 640×480 frame of ``img`` scaled by ``scale`` about ``centre`` (edges replicated),
    and the map of a box in the photo's pixels into it."""
    dx, dy = WIDTH / 2 - scale * centre[0], HEIGHT / 2 - scale * centre[1]
    m = np.array([[scale, 0, dx], [0, scale, dy]])
    interp = cv2.INTER_CUBIC if scale > 1 else cv2.INTER_AREA
    frame = cv2.warpAffine(img, m, (WIDTH, HEIGHT), flags=interp, borderMode=cv2.BORDER_REPLICATE)

    def mapped(b: Box) -> Box:
        return b[0] * scale + dx, b[1] * scale + dy, b[2] * scale + dx, b[3] * scale + dy

    return np.asarray(frame, np.uint8), mapped


def closeup_figures(
    infer: Callable[[np.ndarray], Sequence[Detection]],
    photos: Iterable[tuple[np.ndarray, Truth]],
    size: float,
) -> dict[str, float]:
    """``infer`` on a close-up of every labelled die of ``photos`` at ``size`` pixels: dice,
    found, right (of those found), false (per frame) and exact (share of frames)."""
    dice = found = right = false = exact = others = others_right = 0
    frame_box = (0.0, 0.0, float(WIDTH), float(HEIGHT))
    for img, labels in photos:
        if not labels:
            continue
        side = max(max(b[2] - b[0], b[3] - b[1]) for _, b in labels)
        whole = (0.0, 0.0, float(img.shape[1]), float(img.shape[0]))
        for i, (value, box) in enumerate(labels):
            frame, mapped = close_up(
                img, ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), size / side
            )
            target, photo = mapped(box), mapped(whole)
            boxes = [mapped(b) for _, b in labels]
            read = infer(frame)
            hits = [d for d in read if inside(d.centre(), target)]
            wrong = [
                d
                for d in read
                if inside(d.centre(), photo) and not any(inside(d.centre(), b) for b in boxes)
            ]
            ok = bool(hits) and hits[0].value == value
            dice += 1
            found += bool(hits)
            right += ok
            false += len(wrong)
            exact += ok and len(hits) == 1 and not wrong
            for j, ((v, _), b) in enumerate(zip(labels, boxes, strict=True)):
                if j == i or not (inside(b[:2], frame_box) and inside(b[2:], frame_box)):
                    continue
                others += 1
                others_right += any(inside(d.centre(), b) and d.value == v for d in read)
    return {
        "dice": dice,
        "found": found / max(dice, 1),
        "right": right / max(found, 1),
        "false": false / max(dice, 1),
        "exact": exact / max(dice, 1),
        "others": others,
        "others_right": others_right / max(others, 1),
    }


def main(argv: list[str] | None = None) -> int:
    """Cut, read and tally; print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument(
        "--sizes",
        default=",".join(map(str, DEFAULT_SIZES)),
        help="die sizes in the 640×480 frame, in pixels, comma-separated",
    )
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--scale", type=float, default=1.0, help="frames made this many times bigger")
    ap.add_argument("--no-zoom", action="store_true", help="the reader without its zoomed look")
    args = ap.parse_args(argv)
    sizes = [float(s) for s in args.sizes.split(",")]
    reader = DiceReader(
        args.model or default_model_path(),
        ReaderConfig(threads=args.threads, zoom=not args.no_zoom),
    )
    k = args.scale

    def infer(frame: np.ndarray) -> list[Detection]:
        if k == 1:
            return reader.infer(frame)
        big = cv2.resize(frame, None, fx=k, fy=k, interpolation=cv2.INTER_CUBIC)
        return [d.scaled(1 / k) for d in reader.infer(big)]

    errata = load_errata(ERRATA)
    sets = [(f, s) for f, s in VALID_FOLDERS if (args.data / f).is_dir()]
    if not sets:
        print(f"no validation folders under {args.data}", file=sys.stderr)
        return 2
    for folder, split in sets:
        pairs = list_labelled(args.data / folder, split)
        photos = [(img, labels) for _, img, labels in load_labelled(pairs, errata=errata)]
        for size in sizes:
            fig = closeup_figures(infer, photos, size)
            print(
                f"{folder} size {size:.0f}: dice {fig['dice']}, found {fig['found']:.3f}, "
                f"right {fig['right']:.3f}, false per frame {fig['false']:.3f}, "
                f"exact {fig['exact']:.3f}; whole other dice {fig['others']}, "
                f"read right {fig['others_right']:.3f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
