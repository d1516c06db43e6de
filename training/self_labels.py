"""Half a source's photos labelled with a reader's sure readings: a self-training extra.

    python -m training.self_labels --model build/joined-folds/joined-wood-stone.onnx \\
        --half first ../dice-extra/wood-stone build/self/wood-stone

The photos of SOURCE (every labelled folder in it), sorted by name, are cut in two halves (with
``--turn-about``, taken turn about instead: the first, third, fifth... photo in the first half,
so that both halves hold the same cameras and tables). Into
``OUT/first/self-NAME-first/all`` (for ``--half first``) go the chosen half's photos, each with
the dice the model read **surely** as its labels (value as read, the dice it marked unsure left
out), for ``training.loso --also OUT/first --also-negatives 0`` (dice only: a die left out
would otherwise be mined as "not a die"). Into ``OUT/true-second/all`` goes the other half with
its own labels, to read a model taught that way on (``scorekeeper eval-reader``), as a table
would read later throws. Images are linked, not copied, where the file system allows it. It
prints how many sure readings were kept and how many of them the true labels call right,
wrong or not a die (docs/reader-trials.md, "The table's own throws, read surely, taught back").
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

from scorekeeper.vision import DiceReader, ReaderConfig
from scorekeeper.vision.datasets import yolo_line
from scorekeeper.vision.evaluate import judge, labelled_folders, list_labelled, load_labelled

HALVES = ("first", "second")


def link_or_copy(src: Path, dst: Path) -> None:
    """Put ``src`` at ``dst`` as a link, or as a copy where the file system has no links."""
    if dst.is_symlink() or dst.exists():
        dst.unlink()
    try:
        os.symlink(src.resolve(), dst)
    except OSError:
        shutil.copyfile(src, dst)


def split_halves(source: Path, turn_about: bool = False) -> dict[str, list[tuple[Path, Path]]]:
    """The source's labelled (image, label) pairs sorted by image name, cut in two halves, or
    with ``turn_about`` dealt to them in turn (the first pair to the first half).

    :raises ImageError: when the folder is missing or holds no labelled folder.
    """
    folders = labelled_folders(source)
    pairs = sorted((p for f in folders for p in list_labelled(f)), key=lambda p: p[0].name)
    if turn_about:
        return {"first": pairs[0::2], "second": pairs[1::2]}
    cut = len(pairs) // 2
    return {"first": pairs[:cut], "second": pairs[cut:]}


def lay_out(pairs: list[tuple[Path, Path]], folder: Path) -> None:
    """Link (or copy) the labelled ``pairs`` into ``folder``'s ``images`` and ``labels``, as
    ``eval-reader`` reads a folder; a photo without a label file is laid out without one."""
    for sub in ("images", "labels"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    for img, lab in pairs:
        link_or_copy(img, folder / "images" / img.name)
        if lab.exists():
            link_or_copy(lab, folder / "labels" / lab.name)


def write_halves(
    reader: DiceReader, source: Path, half: str, out: Path, turn_about: bool = False
) -> dict[str, int]:
    """Write ``half`` labelled with ``reader``'s sure readings and the other half with its own
    labels (the module's docstring says where); returns the counts of the readings kept."""
    halves = split_halves(source, turn_about)
    other = HALVES[1 - HALVES.index(half)]
    taught = out / half / f"self-{source.name}-{half}" / "all"
    for sub in ("images", "labels"):
        (taught / sub).mkdir(parents=True, exist_ok=True)
    lay_out(halves[other], out / f"true-{other}" / "all")
    counts = dict.fromkeys(("photos", "dice", "kept", "right", "wrong", "not_a_die", "unsure"), 0)
    labels = dict(halves[half])
    for img, image, truth in load_labelled(halves[half]):
        dets = reader.infer(image)
        verdict = judge(img.name, dets, truth)
        sure = [d for d in dets if not d.unsure]
        counts["photos"] += 1
        counts["dice"] += verdict.dice
        counts["unsure"] += verdict.unsure
        counts["kept"] += len(sure)
        counts["wrong"] += verdict.wrong_sure
        counts["not_a_die"] += verdict.extra_sure
        counts["right"] += len(sure) - verdict.wrong_sure - verdict.extra_sure
        link_or_copy(img, taught / "images" / img.name)
        h, w = image.shape[:2]
        lines = "".join(f"{yolo_line(d.value, d.box, w, h)}\n" for d in sure)
        (taught / "labels" / labels[img].name).write_text(lines)
    return counts


def main(argv: list[str] | None = None) -> int:
    """Write the halves and print the kept readings' counts as JSON; returns the exit code."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--model", type=Path, required=True, help="the reader whose sure readings label"
    )
    ap.add_argument("--half", choices=HALVES, required=True, help="the half to label")
    ap.add_argument(
        "--turn-about", action="store_true", help="deal the photos to the halves in turn"
    )
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("source", type=Path, help="a source folder as make data writes it")
    ap.add_argument("out", type=Path)
    args = ap.parse_args(argv)
    try:
        reader = DiceReader(args.model, ReaderConfig(threads=args.threads))
        counts = write_halves(reader, args.source, args.half, args.out, args.turn_about)
    except ValueError as exc:  # ImageError, or a bad --threads
        print(f"self_labels: error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"source": args.source.name, "half": args.half, **counts}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
