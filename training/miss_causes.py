"""Why the reader missed the dice it missed: turned down by the second look, never a candidate,
or lost to a neighbour's overlapping box.

    python -m training.miss_causes [--model PATH] [--sheet OUT.png] FOLDER...

For every labelled die no reading's centre falls in, the candidates of the same look (the
zoomed one when the reader zooms) at the model's candidate threshold are searched: none there
means the detector never proposed it; otherwise the second look's die probability of the best
candidate inside the box says whether it was turned down (under the score threshold) or kept
and then dropped for an overlapping reading. Prints the counts and the quartiles of those die
probabilities; ``--sheet`` draws a crop of each missed die (up to 120) labelled with its value
and that probability ("no cand." when there was none), to look at by eye.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from scorekeeper.vision import DiceReader, ReaderConfig, default_model_path
from scorekeeper.vision.detection import Box, inside
from scorekeeper.vision.evaluate import assign, labelled_folders, list_labelled, load_labelled
from training.render_sheet import tile

TILE = 96


def _tile(image: np.ndarray, box: Box, text: str) -> np.ndarray:
    x0, y0, x1, y1 = (int(v) for v in box)
    side, cx, cy = max(x1 - x0, y1 - y0, 8), (x0 + x1) // 2, (y0 + y1) // 2
    crop = image[max(0, cy - side) : cy + side, max(0, cx - side) : cx + side]
    tile = cv2.resize(crop, (TILE, TILE))
    cv2.putText(tile, text, (2, 12), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 255, 255), 1)
    return tile


def miss_causes(
    reader: DiceReader, folders: list[Path]
) -> tuple[Counter[str], list[float], list[np.ndarray]]:
    """The counts of each cause, the die probabilities of turned-down or dropped candidates,
    and a labelled crop of each missed die."""
    causes: Counter[str] = Counter()
    probs: list[float] = []
    tiles: list[np.ndarray] = []
    for folder in folders:
        for _, image, truth in load_labelled(list_labelled(folder)):
            dice = reader.infer(image)
            first = reader._read_at(image, reader.long_side)
            side = reader.zoom_side(first, max(image.shape[:2])) or reader.long_side
            cands = reader.all_candidates(image, long_side=side)
            logits = reader.look(image, cands)
            p_die = 1.0 - np.exp(logits[:, 0] - np.logaddexp.reduce(logits, axis=1))
            causes["dice"] += len(truth)
            found = set(assign(dice, truth))
            for i, (value, box) in enumerate(truth):
                if i in found:
                    continue
                inside_box = [i for i, d in enumerate(cands) if inside(d.centre(), box)]
                if not inside_box:
                    causes["never a candidate"] += 1
                    tiles.append(_tile(image, box, f"{value} no cand."))
                    continue
                best = float(max(p_die[i] for i in inside_box))
                probs.append(best)
                kind = "turned down" if best < reader.score_threshold else "dropped for overlap"
                causes[kind] += 1
                tiles.append(_tile(image, box, f"{value} p{best:.2f}"))
    return causes, probs, tiles


def main(argv: list[str] | None = None) -> int:
    """Print the causes; with --sheet draw the missed dice."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", type=Path, metavar="FOLDER")
    ap.add_argument("--model", type=Path, default=None, help="ONNX model (default the bundled)")
    ap.add_argument("--sheet", type=Path, default=None, metavar="OUT.png")
    args = ap.parse_args(argv)
    try:
        folders = [f for root in args.folders for f in labelled_folders(root)]
    except ValueError as e:
        print(f"miss_causes: error: {e}", file=sys.stderr)
        return 2
    reader = DiceReader(args.model or default_model_path(), ReaderConfig(threads=2))
    if not reader.two_stage:
        print("miss_causes: error: the model has no second look", file=sys.stderr)
        return 2
    causes, probs, tiles = miss_causes(reader, folders)
    missed = causes["never a candidate"] + causes["turned down"] + causes["dropped for overlap"]
    print(f"{missed} of {causes['dice']} dice missed:")
    for kind in ("turned down", "never a candidate", "dropped for overlap"):
        print(f"  {kind}: {causes[kind]}")
    if probs:
        q = np.percentile(probs, [25, 50, 75])
        print(f"  die probability of the candidates: quartiles {q[0]:.2f} {q[1]:.2f} {q[2]:.2f}")
    if args.sheet and tiles:
        cv2.imwrite(str(args.sheet), tile(tiles[:120], 12))
        print(f"sheet: {args.sheet}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
