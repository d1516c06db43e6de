"""Where the labelled photos live and which of them train and which validate the reader."""

from __future__ import annotations

from pathlib import Path

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
