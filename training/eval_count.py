"""A throw's known count: what making up a short count gains, and what it invents.

    python -m training.eval_count [--data ../dice-extra] [--shared ../shared/dice-data]
        [--model models/dice.onnx] [--fill-scores 0.3,0.4,0.5] [--fill-candidates 0.2,0.3]

Reads every photo of 1 to 6 labelled dice of each source (``make data``'s, then the shared
held-out sets) once as it is, then, for each pair of fill thresholds
(``ReaderConfig.fill_score_threshold`` and ``fill_candidate_threshold``), makes the reading up
to the photo's count (``DiceReader.fill``), as the camera does for the throw a game waits for,
and, on the photos of 1 to 5 dice, to one die more than lies there (a die rolled out of sight):
prints per source the throws with an unflagged mistake as read and with the count known, and
the share of those one-more throws given a die that is not there (always marked unsure).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from scorekeeper.errors import ImageError
from scorekeeper.scoring import MAX_DICE
from scorekeeper.vision import DiceReader, ReaderConfig, default_model_path
from scorekeeper.vision.detection import Detection
from scorekeeper.vision.evaluate import Truth, judge, labelled_folders, list_labelled, load_labelled
from training.eval_sources import DEFAULT_EXTRA
from training.sets import DEFAULT_DATA, VALID_FOLDERS

Throw = tuple[str, np.ndarray, Truth, list[Detection]]
"""A photo's name, image, labelled dice and reading as read."""


def float_list(text: str) -> list[float]:
    """A comma-separated list of numbers, as the evaluation scripts' grid options take them.

    >>> float_list("0.3, 0.5,")
    [0.3, 0.5]
    """
    return [float(v) for v in text.split(",") if v.strip()]


def _made_up(
    reader: DiceReader, image: np.ndarray, read: list[Detection], count: int
) -> list[Detection]:
    short = count - len(read)
    return read + reader.fill(image, read, short) if short > 0 else read


def figures(reader: DiceReader, throws: list[Throw]) -> dict[str, float]:
    """Throws with an unflagged mistake as read and count known; one-more throws given a die
    that is not there."""
    as_read = known = invented = fewer = 0
    for name, image, truth, read in throws:
        as_read += not judge(name, read, truth).trusted
        filled = judge(name, _made_up(reader, image, read, len(truth)), truth)
        known += not filled.trusted
        if len(truth) < MAX_DICE:
            fewer += 1
            more = judge(name, _made_up(reader, image, read, len(truth) + 1), truth)
            invented += (
                more.extra_sure + more.extra_unsure > filled.extra_sure + filled.extra_unsure
            )
    n = max(1, len(throws))
    return {
        "throws": len(throws),
        "unflagged": round(as_read / n, 3),
        "unflagged_count_known": round(known / n, 3),
        "one_more_invented": round(invented / max(1, fewer), 3),
    }


def add_source_arguments(ap: argparse.ArgumentParser) -> None:
    """``--data``, ``--shared`` and ``--model``: the folders read and the model reading them."""
    ap.add_argument("--data", type=Path, default=DEFAULT_EXTRA, help="what make data wrote")
    ap.add_argument("--shared", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--model", type=Path, default=None, help="ONNX model (default the bundled)")


def throw_folders(args: argparse.Namespace) -> dict[str, tuple[Path, str]]:
    """Each source ``make data`` wrote, then the shared held-out sets: name -> (folder, split)."""
    folders = {str(f.relative_to(args.data)): (f, "all") for f in labelled_folders(args.data)}
    return folders | {f"shared {n}": (args.shared / n, split) for n, split in VALID_FOLDERS}


def main(argv: list[str] | None = None) -> int:
    """Print the grid; exit 2 with a message when a folder cannot be read."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_source_arguments(ap)
    ap.add_argument("--fill-scores", type=float_list, default=[0.3, 0.4, 0.5])
    ap.add_argument("--fill-candidates", type=float_list, default=[0.2, 0.3])
    args = ap.parse_args(argv)
    model = args.model or default_model_path()
    folders = throw_folders(args)
    plain = DiceReader(model)
    sets: dict[str, list[Throw]] = {}
    try:
        for name, (folder, split) in folders.items():
            pairs = list_labelled(folder, split)
            sets[name] = [
                (p.name, image, truth, plain.infer(image))
                for p, image, truth in load_labelled(pairs)
                if 1 <= len(truth) <= MAX_DICE
            ]
    except ImageError as exc:
        print(f"eval_count: error: {exc}", file=sys.stderr)
        return 2
    head = "| fill score | fill candidates | " + " | ".join(sets) + " |"
    print(head + "\n" + "|---" * (len(sets) + 2) + "|")
    for score in args.fill_scores:
        for cand in args.fill_candidates:
            cfg = ReaderConfig(fill_score_threshold=score, fill_candidate_threshold=cand)
            reader = DiceReader(model, cfg)
            cells = []
            for throws in sets.values():
                f = figures(reader, throws)
                cells.append(
                    f"{f['unflagged']:.3f} → {f['unflagged_count_known']:.3f}, "
                    f"{f['one_more_invented']:.3f}"
                )
            print(f"| {score} | {cand} | " + " | ".join(cells) + " |", flush=True)
    print(
        "\ncells: throws (photos of 1-6 dice) with an unflagged mistake as read → with the count"
        " known; share of the throws of 1-5 dice, told one die more, given a die that is not"
        f" there. Throws per source: {', '.join(f'{k} {len(v)}' for k, v in sets.items())}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
