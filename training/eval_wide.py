"""The reader on wide shots: small dice in a big frame, as a phone photo from across the table.

    python -m training.eval_wide [--tiles 2,3,4] [--synth] [--no-zoom] [--model PATH]

Each validation photo (the webcam set and the tray hold-out, labels as corrected by
``models/dice-data-errata.json``) is laid with the next ones in a K × K mosaic, one frame of
640K pixels across whose dice are K times smaller at the reader's 512 px look but as sharp as in
the photos, as a high-resolution camera further away gives them. ``--synth`` reads synthetic
1920×1440 scenes instead (``--die-size`` bounds the top faces in the big frame; ``--dice 0``
for empty tables). Prints one line per set: precision / recall / value accuracy / exact frames
(a frame holds K × K photos), how many frames the reader read again zoomed
(:meth:`scorekeeper.vision.DiceReader.zoom_side`) and the median side of the dice its first
reading found, in the 512 px look's pixels (``--tiles 1``: the photos as they are).
``--no-zoom`` reads them without.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from scorekeeper.vision import DiceReader, ReaderConfig, default_model_path
from scorekeeper.vision.evaluate import Tally, Truth, list_labelled, load_errata, load_labelled
from training.eval_synth import SEED_BASE
from training.sets import DEFAULT_DATA, ROOT, VALID_FOLDERS
from training.synth import render_scene

ERRATA = ROOT / "models" / "dice-data-errata.json"
SYNTH_STYLES = ("marble", "wood", "clutter", "text", "felt", "tray")


def mosaics(photos: list[tuple[np.ndarray, Truth]], k: int) -> Iterator[tuple[np.ndarray, Truth]]:
    """Consecutive groups of k × k photos laid out in a grid (each in a cell the size of the
    first photo's; left over photos unused), with their dice's boxes moved to match."""
    h, w = photos[0][0].shape[:2]
    for start in range(0, len(photos) - k * k + 1, k * k):
        frame = np.zeros((h * k, w * k, 3), np.uint8)
        truth: Truth = []
        for i, (img, labels) in enumerate(photos[start : start + k * k]):
            y, x = (i // k) * h, (i % k) * w
            cell = img[:h, :w]
            frame[y : y + cell.shape[0], x : x + cell.shape[1]] = cell
            truth += [(v, (b[0] + x, b[1] + y, b[2] + x, b[3] + y)) for v, b in labels]
        yield frame, truth


def _first_reading(
    reader: DiceReader, plain: DiceReader, frame: np.ndarray
) -> tuple[bool, float | None]:
    """Whether ``reader`` reads ``frame`` again zoomed, and the median side of the dice of its
    first reading (``plain``'s) in the 512 px look's pixels (None without dice)."""
    dice = plain.infer(frame)
    size = max(frame.shape[:2])
    median = (
        float(np.median([max(d.box[2] - d.box[0], d.box[3] - d.box[1]) for d in dice]))
        * plain.long_side
        / size
        if dice
        else None
    )
    return reader.zoom and reader.zoom_side(dice, size) is not None, median


def main(argv: list[str] | None = None) -> int:
    """Read the mosaics (or synthetic wide scenes); print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--tiles", default="2,3,4", help="K values: K × K photos a frame")
    ap.add_argument("--synth", action="store_true", help="synthetic 1920×1440 scenes instead")
    ap.add_argument("--die-size", type=float, nargs=2, default=(36.0, 72.0), metavar=("LO", "HI"))
    ap.add_argument("--scenes", type=int, default=30)
    ap.add_argument("--dice", type=int, default=None, help="dice per scene (default: random)")
    ap.add_argument("--no-zoom", action="store_true", help="never read a frame again zoomed")
    args = ap.parse_args(argv)
    model = args.model or default_model_path()
    reader = DiceReader(model, ReaderConfig(threads=2, zoom=not args.no_zoom))
    plain = DiceReader(model, ReaderConfig(threads=2, zoom=False))
    if args.synth:
        for style in SYNTH_STYLES:
            tally, zoomed = Tally(), 0
            for i in range(args.scenes):
                frame, truth = render_scene(
                    SEED_BASE + i,
                    1920,
                    1440,
                    n_dice=args.dice,
                    die_size=tuple(args.die_size),
                    background_style=style,
                )
                tally.add(str(i), reader.infer(frame), truth)
                zoomed += _first_reading(reader, plain, frame)[0]
            print(f"{style:8}", tally.brief(), f"zoomed {zoomed}/{args.scenes}", flush=True)
        return 0
    sets = [(f, s) for f, s in VALID_FOLDERS if (args.data / f).is_dir()]
    if not sets:
        print(f"no validation folders under {args.data}", file=sys.stderr)
        return 2
    errata = load_errata(ERRATA)
    for folder, split in sets:
        pairs = list_labelled(args.data / folder, split)
        photos = [(img, labels) for _, img, labels in load_labelled(pairs, errata=errata)]
        for k in (int(v) for v in args.tiles.split(",")):
            tally, zoomed, frames, sides = Tally(), 0, 0, []
            for frame, truth in mosaics(photos, k):
                tally.add(str(frames), reader.infer(frame), truth)
                again, median = _first_reading(reader, plain, frame)
                zoomed += again
                frames += 1
                sides += [] if median is None else [median]
            print(
                f"{folder:20} {k}x{k}",
                tally.brief(),
                f"zoomed {zoomed}/{frames}",
                f"(dice at 512 px: median {np.median(sides):.1f} px)",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
