"""Does teaching the camera a table's own dice help? A simulation on sources never trained on.

    python -m training.eval_teach [--data ../dice-extra] [--k 1,3,10] [--draws 20]
        [--model models/dice.onnx] [--cache FILE.npz]

For each source ``make data`` wrote, k photos are drawn at random as the table's teaching
(every die the reader found there is kept as a crop, labelled with its true value, or as "not a
die" when it matches no labelled die: a player correcting the proposal); the reader taught
those crops (:meth:`DiceReader.teach`) then reads the other photos, scored as ``eval-reader``
does (photos with an unflagged mistake, dice marked unsure, value accuracy, recall, precision),
against the reader without teaching on the same photos. Means over ``--draws`` draws.

Teaching changes the dice the looks read, before the reader's checks, so each photo is read
once and the dice its looks found kept with their features (:meth:`DiceReader.found`); every
draw applies its prototypes to those (:meth:`FacePrototypes.adjust`, the call the reader makes
after its looks) and then the reader's checks (:meth:`DiceReader.doubt`), as ``infer`` does.
Only the choice of a zoomed look is made on the untaught dice.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from scorekeeper.errors import ImageError
from scorekeeper.vision import DiceReader, ReaderConfig, default_model_path
from scorekeeper.vision.adapt import AdaptConfig, FacePrototypes
from scorekeeper.vision.detection import Detection
from scorekeeper.vision.evaluate import Tally, assign, labelled_folders, list_labelled
from scorekeeper.vision.evaluate import load_labelled as load_photos
from scorekeeper.vision.reader import teach_crop
from training.eval_sources import DEFAULT_EXTRA


@dataclass
class Photo:
    """One photo read once: the image, the dice its looks found (before the reader's checks)
    and as the reader gives them (after), their log-probabilities and features, the features of
    their teaching crops, the labels a player would give them, and the labelled dice."""

    name: str
    image: np.ndarray
    dice: list[Detection]
    checked: list[Detection]
    log_probs: np.ndarray
    features: np.ndarray
    crop_features: np.ndarray
    labels: np.ndarray
    truth: list[tuple[int, tuple[float, float, float, float]]]


def read_source(reader: DiceReader, folder: Path) -> list[Photo]:
    """Every photo of a labelled folder read once (see :class:`Photo`)."""
    out = []
    width = reader.crop_features([np.zeros((96, 96, 3), np.uint8)]).shape[1]
    for path, image, truth in load_photos(list_labelled(folder)):
        dice = reader.found(image)
        if dice:
            log_probs, feats = reader.readings(image, dice)
            crops = reader.crop_features([teach_crop(image, d.box) for d in dice])
        else:
            log_probs, feats, crops = (np.zeros((0, 7)), np.zeros((0, width)), np.zeros((0, width)))
        found = assign(dice, truth)
        labels = np.array([truth[i][0] if i >= 0 else 0 for i in found], np.int64)
        checked = reader.doubt(image, dice)
        out.append(Photo(path.name, image, dice, checked, log_probs, feats, crops, labels, truth))
    return out


def score(
    photos: list[Photo], prototypes: FacePrototypes | None, reader: DiceReader
) -> dict[str, float]:
    """``eval-reader``'s figures of these photos read by ``reader`` with ``prototypes`` (None:
    untaught)."""
    tally = Tally()
    for p in photos:
        dice = p.checked
        if prototypes is not None and p.dice:
            taught = prototypes.adjust(
                p.dice, p.log_probs, p.features, reader.score_threshold, reader.unsure_below
            )
            dice = reader.doubt(p.image, taught)
        tally.add(p.name, dice, p.truth)
    fig = tally.figures()
    keys = ("unflagged_mistake_rate", "unsure_share", "value_accuracy", "recall", "precision")
    return {k: float(fig[k] or 0.0) for k in keys}


def simulate(
    photos: list[Photo], k: int, draws: int, config: AdaptConfig, reader: DiceReader
) -> tuple[dict[str, float], dict[str, float], int]:
    """Mean figures over ``draws`` random draws of k teaching photos: untaught and taught, both
    on the photos not drawn; and the mean number of crops taught."""
    rng = np.random.default_rng(0)
    base_sum: dict[str, float] = {}
    taught_sum: dict[str, float] = {}
    crops = 0
    for _ in range(draws):
        pick = set(rng.choice(len(photos), size=k, replace=False).tolist())
        teach = [photos[i] for i in sorted(pick)]
        rest = [p for i, p in enumerate(photos) if i not in pick]
        feats = np.concatenate([p.crop_features for p in teach])
        labels = np.concatenate([p.labels for p in teach])
        crops += len(labels)
        proto = FacePrototypes(feats, labels, config) if len(labels) else None
        for total, fig in (
            (base_sum, score(rest, None, reader)),
            (taught_sum, score(rest, proto, reader)),
        ):
            for key, v in fig.items():
                total[key] = total.get(key, 0.0) + v / draws
    return base_sum, taught_sum, round(crops / draws)


VARIANTS = {
    "prototypes": AdaptConfig(),
    "prototypes, no marks": AdaptConfig(mark_disagreement=False),
    "marks only": AdaptConfig(weight=0.0),
    "faces kept": AdaptConfig(keep_reading=True),
}
"""The ways of using the taught crops that the table compares."""


def main(argv: list[str] | None = None) -> int:
    """Print one Markdown table row per source, k and variant; exit 2 on unreadable data."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DEFAULT_EXTRA, help="what make data wrote")
    p.add_argument("--model", type=Path, default=None, help="ONNX model (default the bundled)")
    p.add_argument("--k", default="1,3,10", help="teaching photos per draw, comma-separated")
    p.add_argument("--draws", type=int, default=20, help="random draws per k")
    p.add_argument("--weight", type=float, default=None, help="only this prototype weight")
    args = p.parse_args(argv)
    reader = DiceReader(args.model or default_model_path(), ReaderConfig(threads=1))
    variants = dict(VARIANTS)
    if args.weight is not None:
        variants = {f"weight {args.weight}": replace(AdaptConfig(), weight=args.weight)}
    print(
        "| source | k | crops | variant | photos with an unflagged mistake | dice marked unsure"
        " | value accuracy | recall | precision |"
    )
    print("|---" * 9 + "|")
    fmt = ("unflagged_mistake_rate", "unsure_share", "value_accuracy", "recall", "precision")
    try:
        for folder in labelled_folders(args.data):
            start = time.perf_counter()
            photos = read_source(reader, folder)
            name = folder.relative_to(args.data).parts[0]
            print(f"{name}: read in {time.perf_counter() - start:.0f} s", file=sys.stderr)
            for k in (int(x) for x in args.k.split(",")):
                if k >= len(photos):
                    continue
                for i, (label, cfg) in enumerate(variants.items()):
                    base, taught, crops = simulate(photos, k, args.draws, cfg, reader)
                    if i == 0:
                        cells = " | ".join(f"{base[f]:.3f}" for f in fmt)
                        print(f"| {name} | {k} | | untaught | {cells} |")
                    cells = " | ".join(f"{taught[f]:.3f}" for f in fmt)
                    print(f"| {name} | {k} | {crops} | {label} | {cells} |", flush=True)
    except ImageError as exc:
        print(f"eval_teach: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
