"""How well the reader's confidence flags its own mistakes: the share of right and of wrong
readings below the "check this die" mark (``UNSURE_BELOW``) and a few other cut-offs.

    python benchmarks/bench_unsure.py [--scenes 100] [--data ../shared/dice-data]

Prints one JSON line per set: the real validation photos (when ``--data`` holds them) and
synthetic scenes of the held-out marble and the clutter and wood backgrounds. A reading is
right when it matches a labelled die (the evaluation's rule) with its value; wrong when the
value differs or it matches no die.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scorekeeper.vision import DiceReader, load_image  # noqa: E402
from scorekeeper.vision.evaluate import Truth, assign, list_labelled, parse_yolo  # noqa: E402
from scorekeeper.vision.reader import UNSURE_BELOW  # noqa: E402
from scorekeeper.vision.synth import render_scene  # noqa: E402

CUTS = (0.5, 0.6, 0.7, UNSURE_BELOW, 0.9)
VALID = (("webcam-table/Valid", "all"), ("dice-tray/train", "holdout"))


def _real(data: Path) -> Iterator[tuple[np.ndarray, Truth]]:
    for folder, split in VALID:
        for img, label in list_labelled(data / folder, split):
            image = load_image(img)
            yield image, parse_yolo(label.read_text(), image.shape[1], image.shape[0])


def _synthetic(style: str, scenes: int) -> Iterator[tuple[np.ndarray, Truth]]:
    for i in range(scenes):
        yield render_scene(7_000_000 + i, 640, 480, background_style=style)


def main() -> int:
    """Read every set and print the shares."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=100, help="synthetic scenes per background")
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "dice-data")
    args = ap.parse_args()
    reader = DiceReader(threads=2)
    sets: list[tuple[str, Iterator[tuple[np.ndarray, Truth]]]] = []
    if all((args.data / folder).is_dir() for folder, _ in VALID):
        sets.append(("real validation photos", _real(args.data)))
    for style in ("marble", "clutter", "wood"):
        sets.append((f"synthetic {style}", _synthetic(style, args.scenes)))
    for name, items in sets:
        right: list[float] = []
        wrong: list[float] = []
        for image, truth in items:
            dice = reader.infer(image)
            for die, k in zip(dice, assign(dice, truth), strict=True):
                ok = k >= 0 and truth[k][0] == die.value
                (right if ok else wrong).append(die.confidence)
        r, w = np.array(right), np.array(wrong)
        print(
            json.dumps(
                {
                    "set": name,
                    "right": len(r),
                    "wrong": len(w),
                    "unsure_below": UNSURE_BELOW,
                    "right_below": {str(c): round(float(np.mean(r < c)), 3) for c in CUTS},
                    "wrong_below": {
                        str(c): round(float(np.mean(w < c)), 2) if len(w) else None for c in CUTS
                    },
                }
            ),
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
