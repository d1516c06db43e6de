"""The reader's figures per source, as one Markdown table: every labelled folder ``make data``
wrote (each marked trained on or never trained on, as the model's ``extra_sources`` metadata
says), then, for comparison, the held-out photos of the two shared sets it trained on.

    python -m training.eval_sources [--data ../dice-extra] [--shared ../shared/dice-data]
        [--model models/dice.onnx] [--per-photo OUT.json]

Columns as ``scorekeeper eval-reader --table``: photos with a mistake the reader did not flag
(a die missed, or a die read surely that is no die or has the wrong value), dice marked unsure,
value accuracy, recall, precision, exact photos.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from scorekeeper.errors import ImageError
from scorekeeper.vision import DiceReader, ReaderConfig, default_model_path
from scorekeeper.vision.evaluate import (
    figures_table,
    labelled_folders,
    list_labelled,
    read_labelled,
)
from training.sets import DEFAULT_DATA, ROOT, VALID_FOLDERS

DEFAULT_EXTRA = Path(os.environ.get("SCOREKEEPER_EXTRA_DATA", ROOT.parent / "dice-extra"))
"""Where ``make data`` writes by default (``DATA=../dice-extra``), or
``$SCOREKEEPER_EXTRA_DATA``."""
TRAINED_ON = "extra_sources"
"""Model metadata: the comma-separated ``make data`` sources a model's training saw."""


def sources_in(metadata_props: Iterable[Any]) -> set[str]:
    """The extra sources in an ONNX model's ``metadata_props`` (its :data:`TRAINED_ON` key)."""
    meta = {p.key: p.value for p in metadata_props}
    return {s for s in meta.get(TRAINED_ON, "").split(",") if s}


def trained_sources(model: Path) -> set[str]:
    """The extra sources ``model`` was trained on (its :data:`TRAINED_ON` metadata)."""
    import onnx

    return sources_in(onnx.load(str(model), load_external_data=False).metadata_props)


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit 2 with a message when a folder cannot be read."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DEFAULT_EXTRA, help="what make data wrote")
    p.add_argument("--shared", type=Path, default=DEFAULT_DATA, help="../shared/dice-data")
    p.add_argument("--model", type=Path, default=None, help="ONNX model (default the bundled)")
    p.add_argument("--per-photo", type=Path, metavar="OUT.json", help="write every verdict")
    args = p.parse_args(argv)
    try:
        reader = DiceReader(args.model or default_model_path(), ReaderConfig(threads=1))
    except ImageError as e:
        print(f"eval_sources: error: {e}", file=sys.stderr)
        return 2
    rows: dict[str, dict[str, Any]] = {}
    photos: dict[str, list[dict[str, Any]]] = {}
    seen = trained_sources(reader.model_path)
    jobs = []
    for f in labelled_folders(args.data):
        name = f.relative_to(args.data).as_posix()
        trained = name.split("/")[0] in seen
        jobs.append((f"{name} ({'trained on' if trained else 'never trained on'})", f, "all"))
    jobs += [
        (
            f"shared {name}{'' if split == 'all' else ' ' + split} (held out)",
            args.shared / name,
            split,
        )
        for name, split in VALID_FOLDERS
    ]
    try:
        for label, folder, split in jobs:
            start = time.perf_counter()
            tally = read_labelled(reader.infer, list_labelled(folder, split))
            rows[label] = tally.figures()
            photos[label] = [v.to_dict() for v in tally.photos]
            print(f"{label}: {time.perf_counter() - start:.1f} s", file=sys.stderr)
    except ImageError as exc:
        print(f"eval_sources: error: {exc}", file=sys.stderr)
        return 2
    print(figures_table(rows))
    if args.per_photo:
        args.per_photo.write_text(json.dumps(photos, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
