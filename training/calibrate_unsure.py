"""Doubt shown, never guessed: what the two cut-offs that decide it would give on sources the
model never trained on, and a choice of them made on the other sources only.

    python -m training.calibrate_unsure [--data ../dice-extra] [--scores 0.3,0.5,0.7]
        [--cuts 0.7,0.8,0.9,0.95] [--candidates 0.2,0.4] [--budget 0.1]
        [--count-known] [--model PATH | --folds build/loso]

The reader reports a candidate as a die when its face probabilities sum to at least the
**score threshold** (the model's: 0.7), and marks it unsure ("5?") below the **unsure cut**
(the model's ``unsure_below``, by default ``UNSURE_BELOW``, 0.8). A lower score threshold
shows a half-seen die as "?" instead of dropping it (a missed die is a mistake nobody is told
of); a higher cut flags more of the sure-but-wrong readings. Both cost the player checks.
``--candidates`` also sweeps the heat a detector peak needs to be looked at again (the model's
**candidate threshold**: lower, the second look judges more of the dice the detector barely
saw). For every (score, cut) pair (and candidate threshold) the script prints, per source, the
share of photos with an unflagged mistake and the share of readings marked unsure; then, for
each source, the pair chosen **on the other sources** (the fewest photos with an unflagged
mistake on average there, among the pairs that mark at most ``--budget`` more of the readings
unsure than the model's own pair does, on each of them) and what that pair gives on the
left-out source. It only reads; ``python -m training.tune_thresholds --set-score S
--set-unsure U`` stores a chosen pair in a model.

With ``--folds DIR`` (``training.loso``'s work folder) each source is read by its own fold model
``DIR/fold-SOURCE.onnx``, which never saw it: every figure is then a left-out one, and each
source's pair is chosen on the other folds' left-out readings.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from scorekeeper.vision import DiceReader, ReaderConfig, default_model_path
from scorekeeper.vision.detection import Detection
from scorekeeper.vision.evaluate import Truth, judge, labelled_folders, list_labelled, read_labelled
from training.eval_count import float_list
from training.eval_sources import DEFAULT_EXTRA
from training.sets import check_only

Photo = tuple[str, list[Detection], Truth]


def read_source(reader: DiceReader, folder: Path, count_known: bool = False) -> list[Photo]:
    """Every photo of a labelled folder read once: (name, detections, truth); with
    ``count_known`` a photo of 1 to 6 dice is read knowing how many there are
    (:func:`~scorekeeper.vision.evaluate.read_labelled`). Each die keeps its own unsure cut
    only where the reader raised it above the model's (a count exceeded,
    :meth:`~scorekeeper.vision.DiceReader.doubt_surplus`), and 0 elsewhere, so that a cut swept
    by :func:`figures` replaces the model's but never lowers a raised one."""
    out: list[Photo] = []

    def keep(
        path: Path, _image: object, dets: Sequence[Detection], truth: Truth, _v: object
    ) -> None:
        out.append((path.name, raised_cuts(dets, reader.unsure_below), truth))

    read_labelled(reader.infer, list_labelled(folder), each=keep, count_known=count_known)
    return out


def raised_cuts(dets: Sequence[Detection], model_cut: float) -> list[Detection]:
    """``dets`` with each die's own unsure cut kept where it is above ``model_cut`` and set to
    0 elsewhere.

    >>> d = [Detection(5, (0, 0, 9, 9), 0.9, unsure_below=0.95), Detection(2, (9, 0, 18, 9), 0.9)]
    >>> [x.unsure_below for x in raised_cuts(d, 0.8)]
    [0.95, 0.0]
    """
    return [d if d.unsure_below > model_cut else replace(d, unsure_below=0.0) for d in dets]


def at_cut(dets: Sequence[Detection], cut: float) -> list[Detection]:
    """:func:`raised_cuts` readings marked unsure below ``cut``, or below a die's own raised
    cut where that is higher."""
    return [replace(d, unsure_below=max(cut, d.unsure_below)) for d in dets]


def figures(photos: list[Photo], cut: float) -> dict[str, float]:
    """Share of photos with an unflagged mistake and of readings marked unsure at ``cut``, dice
    missed, and throws (photos of 1 to 6 dice) read wrong with no warning. A die is unsure below
    ``cut`` or below its own raised cut (:func:`raised_cuts`), whichever is higher."""
    verdicts = [judge(n, at_cut(dets, cut), truth) for n, dets, truth in photos]
    readings = sum(len(dets) for _, dets, _ in photos)
    return {
        "unflagged": round(sum(not v.trusted for v in verdicts) / max(1, len(verdicts)), 4),
        "unsure": round(sum(v.unsure for v in verdicts) / max(1, readings), 4),
        "missed": sum(v.missed for v in verdicts),
        "slipped": sum(v.is_throw and v.slips_through for v in verdicts),
    }


Setting = tuple[float, float, float]
"""(candidate threshold, score threshold, unsure cut)."""
Grid = dict[Setting, dict[str, dict[str, float]]]


def choose(grid: Grid, sources: list[str], default: Setting, budget: float) -> Setting:
    """The setting with the fewest photos with an unflagged mistake on average over
    ``sources``, among those marking at most ``budget`` more of the readings unsure than
    ``default`` does on each of them (``default`` itself always qualifies).

    >>> g = {(0.4, 0.7, 0.8): {"a": {"unflagged": 0.4, "unsure": 0.1}},
    ...      (0.4, 0.5, 0.8): {"a": {"unflagged": 0.3, "unsure": 0.15}},
    ...      (0.4, 0.2, 0.8): {"a": {"unflagged": 0.1, "unsure": 0.5}}}
    >>> choose(g, ["a"], (0.4, 0.7, 0.8), 0.1)
    (0.4, 0.5, 0.8)
    """
    best = (sum(grid[default][s]["unflagged"] for s in sources) / len(sources), default)
    for pair, per_source in grid.items():
        within = all(
            per_source[s]["unsure"] <= grid[default][s]["unsure"] + budget for s in sources
        )
        unflagged = sum(per_source[s]["unflagged"] for s in sources) / len(sources)
        if within and unflagged < best[0]:
            best = (unflagged, pair)
    return best[1]


def main(argv: list[str] | None = None) -> int:
    """Print the grid and the leave-one-source-out choices as Markdown."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DEFAULT_EXTRA, help="what make data wrote")
    p.add_argument("--scores", type=float_list, default=[0.3, 0.5, 0.7], help="score thresholds")
    p.add_argument("--cuts", type=float_list, default=[0.7, 0.8, 0.9, 0.95], help="unsure cuts")
    p.add_argument(
        "--candidates", type=float_list, default=[], help="candidate thresholds (the model's too)"
    )
    p.add_argument(
        "--budget",
        type=float,
        default=0.1,
        help="most extra share of readings marked unsure, over the model's own pair",
    )
    p.add_argument("--model", type=Path, default=None, help="ONNX model (default the bundled)")
    p.add_argument(
        "--folds",
        type=Path,
        default=None,
        metavar="DIR",
        help="read each source with DIR/fold-SOURCE.onnx (training.loso's folds) instead",
    )
    p.add_argument(
        "--count-known",
        action="store_true",
        help="read each throw knowing how many dice were thrown, as a game does",
    )
    p.add_argument("--json", type=Path, metavar="OUT.json", help="also write the grid")
    args = p.parse_args(argv)
    if args.folds and args.model:
        p.error("--folds and --model: give one")
    folders = labelled_folders(args.data)
    if args.folds:  # an outside check is no fold's left-out source: it has no fold
        tops = {f: f.relative_to(args.data).parts[:1] for f in folders}
        folders = [f for f in folders if not (tops[f] and check_only(args.data / tops[f][0]))]
    names = [f.relative_to(args.data).as_posix() for f in folders]
    models = {n: args.model or default_model_path() for n in names}
    if args.folds:
        models = {n: args.folds / f"fold-{n.split('/')[0]}.onnx" for n in names}
        missing = sorted(str(m) for m in models.values() if not m.exists())
        if missing:
            print(f"calibrate_unsure: error: no fold model {missing}", file=sys.stderr)
            return 2
    grid: Grid = {}
    model = DiceReader(models[names[0]])
    default = (model.candidate_threshold, model.score_threshold, model.unsure_below)
    candidates = sorted(set(args.candidates) | {default[0]})
    scores = sorted(set(args.scores) | {default[1]})
    cuts = sorted(set(args.cuts) | {default[2]})
    for heat in candidates:
        for score in scores:
            config = ReaderConfig(score_threshold=score, candidate_threshold=heat, threads=1)
            for name, folder in zip(names, folders, strict=True):
                photos = read_source(DiceReader(models[name], config), folder, args.count_known)
                for cut in cuts:
                    if cut >= score:
                        grid.setdefault((heat, score, cut), {})[name] = figures(photos, cut)
            print(f"candidate threshold {heat}, score threshold {score}: read", file=sys.stderr)
    print("| candidate threshold | score threshold | unsure cut | " + " | ".join(names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    for (heat, score, cut), per_source in grid.items():
        cells = [
            f"{per_source[n]['unflagged']:.3f} / {per_source[n]['unsure']:.3f}"
            f" / {per_source[n]['slipped']}"
            for n in names
        ]
        print(f"| {heat} | {score} | {cut} | " + " | ".join(cells) + " |")
    print(
        "\ncells: photos with an unflagged mistake / readings marked unsure"
        " / throws read wrong with no warning\n"
    )
    keys = ("candidates", "score", "cut")
    out: dict[str, Any] = {
        "grid": {"/".join(map(str, k)): v for k, v in grid.items()},
        "chosen": {},
    }
    for name in names:
        others = [n for n in names if n != name]
        pick = choose(grid, others, default, args.budget) if others else default
        got = grid[pick][name]
        out["chosen"][name] = {**dict(zip(keys, pick, strict=True)), **got}
        print(
            f"- {name}: chosen on {', '.join(others)}: {_words(pick)};"
            f" here {got['unflagged']:.3f} of photos with an unflagged mistake,"
            f" {got['unsure']:.3f} of readings unsure (the model's own setting:"
            f" {grid[default][name]['unflagged']:.3f} and {grid[default][name]['unsure']:.3f})"
        )
    pick = choose(grid, names, default, args.budget)
    print(f"- chosen on all of them: {_words(pick)}")
    out["chosen on all"] = dict(zip(keys, pick, strict=True))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


def _words(setting: Setting) -> str:
    heat, score, cut = setting
    return f"candidates {heat}, score {score}, cut {cut}"


if __name__ == "__main__":
    sys.exit(main())
