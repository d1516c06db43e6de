"""Where the labelled photos live and which of them train and which validate the reader."""

from __future__ import annotations

import json
from pathlib import Path

from scorekeeper.vision.evaluate import labelled_folders

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "dice-data"
"""``../shared/dice-data`` beside the repository (read from there, never copied)."""
BASE_MODEL = ROOT / "models" / "dice-base.onnx"
"""The reader trained on the shared sources alone (``make model``): the start of every fold and
of the shipped ``models/dice.onnx``, whose second look is fine-tuned from it (``make
model-joined``)."""
TRAIN_FOLDERS = (("webcam-table/Train", "all"), ("dice-tray/train", "train"))
"""(folder, split) pairs the model trains on."""
VALID_FOLDERS = (("webcam-table/Valid", "all"), ("dice-tray/train", "holdout"))
"""(folder, split) pairs it never trains on: the held-out figures."""


def check_only(source: Path) -> bool:
    """Whether ``make data`` wrote ``source`` (a top folder) as an outside check only, which no
    model trains on (``"train": false`` in its ``SOURCE.json``)."""
    record = source / "SOURCE.json"
    try:
        return json.loads(record.read_text()).get("train", True) is False
    except (OSError, ValueError, AttributeError):
        return False


def source_folders(root: Path) -> dict[str, list[Path]]:
    """The labelled folders under ``root`` by source: a top folder there is a source (``make
    data``'s layout), or ``root`` itself, by its own name, when it is the labelled folder; a
    source written as an outside check only (:func:`check_only`) is left out."""
    out: dict[str, list[Path]] = {}
    for folder in labelled_folders(root):
        parts = folder.relative_to(root).parts
        if parts and check_only(root / parts[0]):
            continue
        out.setdefault(parts[0] if parts else root.resolve().name, []).append(folder)
    return out
