"""How well the reader's confidence flags its own mistakes: the share of right and of wrong
readings below the "check this die" mark (``UNSURE_BELOW``) and a few other cut-offs.

    python benchmarks/bench_unsure.py [--scenes 100] [--data ../shared/dice-data]
                                      [--model PATH] [--fold K/N]

Prints one JSON line per set: the real validation photos (when ``--data`` holds them) and
synthetic scenes of the held-out marble and the clutter and wood backgrounds. A reading is
right when it matches a labelled die (the evaluation's rule) with its value; wrong when the
value differs or it matches no die. With ``--fold K/N`` the real set is that fold of the
training photos instead, for a second look trained without it (``train_patch --leave-out``).
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

from scorekeeper.vision import DiceReader, ReaderConfig  # noqa: E402
from scorekeeper.vision.detection import UNSURE_BELOW  # noqa: E402
from scorekeeper.vision.evaluate import Truth, assign, list_labelled, load_labelled  # noqa: E402
from training.sets import DEFAULT_DATA, VALID_FOLDERS  # noqa: E402
from training.synth import render_scene  # noqa: E402

CUTS = (0.5, 0.6, 0.7, UNSURE_BELOW, 0.9)


def _real(pairs: list[tuple[Path, Path]]) -> Iterator[tuple[np.ndarray, Truth]]:
    return ((image, truth) for _, image, truth in load_labelled(pairs))


def _synthetic(style: str, scenes: int) -> Iterator[tuple[np.ndarray, Truth]]:
    for i in range(scenes):
        yield render_scene(7_000_000 + i, 640, 480, background_style=style)


def main() -> int:
    """Read every set and print the shares."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=100, help="synthetic scenes per background")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--model", type=Path, default=None, help="default: the bundled model")
    ap.add_argument("--fold", metavar="K/N", help="read that fold of the training photos")
    ap.add_argument("--threshold", type=float, default=None, help="default: the model's")
    ap.add_argument("--candidate-threshold", type=float, default=None)
    args = ap.parse_args()
    reader = DiceReader(
        args.model,
        ReaderConfig(args.threshold, threads=2, candidate_threshold=args.candidate_threshold),
    )
    sets: list[tuple[str, Iterator[tuple[np.ndarray, Truth]]]] = []
    if args.fold:  # the train extra: mining's helpers need tqdm
        from training.patch_data import fold_images, parse_fold

        for folder, pairs in fold_images(args.data, *parse_fold(args.fold)).items():
            sets.append((f"fold {args.fold} of {folder}", _real(pairs)))
    elif all((args.data / folder).is_dir() for folder, _ in VALID_FOLDERS):
        pairs = [p for f, split in VALID_FOLDERS for p in list_labelled(args.data / f, split)]
        sets.append(("real validation photos", _real(pairs)))
    for style in ("marble", "clutter", "wood") if args.scenes > 0 else ():
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
                    "right_below": {
                        str(c): round(float(np.mean(r < c)), 3) if len(r) else None for c in CUTS
                    },
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
