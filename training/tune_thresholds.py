"""Choose a two-stage model's thresholds on synthetic scenes and store them in the model.

    python -m training.tune_thresholds --model models/dice.onnx
        [--write | --set-score S | --set-unsure U]

Renders scenes of the training backgrounds with seeds used nowhere else (never the held-out
``marble`` style, never the validation photos), reads them at every pair of candidate threshold
(heat) and score threshold (die probability) in the grid, and picks the pair that reads the most
scenes exactly right (ties: the higher F1 of found dice, then the lower thresholds). With
``--write`` the pair goes into the model's metadata, which the reader uses as its defaults.
``--set-score`` and ``--set-unsure`` store, with no sweep, a score threshold and an unsure cut
chosen elsewhere (``training.calibrate_unsure --folds``, on sources the model never saw).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path

from scorekeeper.vision import DiceReader, ReaderConfig
from scorekeeper.vision.evaluate import Tally
from scorekeeper.vision.overlaps import resolve_overlaps
from scorekeeper.vision.second_look import second_look
from training.synth import TRAIN_BACKGROUNDS, render_scene

SEED_BASE = 8_000_000
CANDIDATE_GRID = (0.15, 0.2, 0.25, 0.3, 0.4)
SCORE_GRID = (0.5, 0.6, 0.7, 0.8, 0.9)


def main(argv: list[str] | None = None) -> int:
    """Sweep, print the table and the choice; with --write store it in the model."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--scenes", type=int, default=40, help="scenes per background style")
    ap.add_argument("--write", action="store_true", help="store the choice in the model")
    ap.add_argument(
        "--set-score",
        type=float,
        default=None,
        metavar="S",
        help="no sweep: store S as the score threshold (one chosen by calibrate_unsure --folds)",
    )
    ap.add_argument(
        "--set-unsure",
        type=float,
        default=None,
        metavar="U",
        help="no sweep: store U as the unsure cut, a die read less surely is marked '5?'",
    )
    args = ap.parse_args(argv)
    chosen = [
        ("--set-score", "score_threshold", args.set_score),
        ("--set-unsure", "unsure_below", args.set_unsure),
    ]
    given = [(flag, key, value) for flag, key, value in chosen if value is not None]
    if given:
        for flag, _, value in given:
            if not 0 < value < 1:
                ap.error(f"{flag} {value}: expected a probability between 0 and 1")
        write_thresholds(args.model, {key: value for _, key, value in given})
        return 0
    reader = DiceReader(args.model, ReaderConfig(threads=2))
    if not reader.two_stage:
        print(f"{args.model} has no second look; nothing to tune", file=sys.stderr)
        return 2
    tallies = {(c, s): Tally() for c in CANDIDATE_GRID for s in SCORE_GRID}
    for k, style in enumerate(TRAIN_BACKGROUNDS):
        for i in range(args.scenes):
            seed = SEED_BASE + 1000 * k + i
            image, truth = render_scene(
                seed, 640, 480, die_size=(16.0, 90.0), background_style=style
            )
            for c in CANDIDATE_GRID:
                found = reader.all_candidates(image, c)
                log_probs = reader.look(image, found)  # as the reader judges: close calls again
                for s in SCORE_GRID:
                    read = resolve_overlaps(
                        second_look(found, log_probs, s), reader.whole_side(image)
                    )
                    tallies[(c, s)].add(str(seed), read, truth)
    rows = []
    for (c, s), tally in tallies.items():
        fig = tally.figures()
        p, r = float(fig["precision"] or 0.0), float(fig["recall"] or 0.0)
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        rows.append((float(fig["exact_images"]), f1, -c, -s, c, s, fig))
        print(
            f"candidate {c:.2f} score {s:.2f}: precision {p:.3f} recall {r:.3f} "
            f"value {fig['value_accuracy'] or 0.0:.3f} exact {fig['exact_images']:.3f}"
        )
    best = max(rows, key=lambda row: row[:4])
    c, s = best[4], best[5]
    print(f"chosen: candidate_threshold {c} score_threshold {s}")
    if args.write:
        write_thresholds(args.model, {"candidate_threshold": c, "score_threshold": s})
    return 0


def write_thresholds(path: Path, values: Mapping[str, float | str]) -> None:
    """Store thresholds, or other metadata (key: value), in the model at ``path``, replacing
    those keys."""
    import onnx

    model = onnx.load(str(path))
    keep = [p for p in model.metadata_props if p.key not in values]
    del model.metadata_props[:]
    model.metadata_props.extend(keep)
    for key, value in values.items():
        prop = model.metadata_props.add()
        prop.key, prop.value = key, str(value)
    onnx.save(model, str(path))
    print(f"{', '.join(f'{k} {v}' for k, v in values.items())}: written to {path}")


if __name__ == "__main__":
    sys.exit(main())
