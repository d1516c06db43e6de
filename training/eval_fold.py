"""The reader's figures on one fold of the real training photos (see ``train_patch --leave-out``).

    python -m training.eval_fold --model build/fold0.onnx --fold 0/5

Only meaningful for a second look trained with that fold left out; the detector has seen the
photos, so detection figures are optimistic and the value figures are the ones to compare.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from scorekeeper.vision import DiceReader, ReaderConfig
from scorekeeper.vision.evaluate import load_errata, read_labelled
from training.patch_data import fold_images, parse_fold
from training.sets import DEFAULT_DATA
from training.train import brief_figures


def main(argv: list[str] | None = None) -> int:
    """Print one JSON object of figures per training folder; returns the exit code."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--fold", required=True, metavar="K/N")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--threshold", type=float, default=None, help="default: the model's")
    ap.add_argument("--candidate-threshold", type=float, default=None)
    ap.add_argument("--errata", type=Path, default=None, help="corrected labels (eval-reader's)")
    args = ap.parse_args(argv)
    errata = load_errata(args.errata) if args.errata else None
    reader = DiceReader(
        args.model,
        ReaderConfig(args.threshold, threads=2, candidate_threshold=args.candidate_threshold),
    )
    folds = fold_images(args.data, *parse_fold(args.fold))
    out = {
        f: brief_figures(read_labelled(reader.infer, pairs, errata=errata))
        for f, pairs in folds.items()
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
