"""Render the demo scenes in sample_images/ with their truth (numpy + OpenCV, no torch).

    python -m training.make_samples [--out sample_images]

Writes scene-01-*.jpg ... (640×480), truth.json (name -> sorted dice values) and labels.json
(name -> [{"value", "box"}] with top-face boxes in pixels). Deterministic; the scenes are
rendered ``clean`` (well lit, in focus), as a demo camera would see them. Two harder scenes (the
``marble`` background never used in training, and a cluttered table) go to ``hard/`` with their
own truth files: the current model misreads them (see models/MODEL_CARD.md), so they are kept
out of the demo camera's folder.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2

from training.synth import render_scene

ROOT = Path(__file__).resolve().parents[1]
# (seed, background, number of dice, die size range in px, sub-folder)
SCENES = (
    (101, "wood", 1, (60.0, 75.0), ""),
    (102, "felt", 2, (50.0, 65.0), ""),
    (103, "paper", 3, (45.0, 60.0), ""),
    (104, "tray", 4, (40.0, 55.0), ""),
    (105, "text", 5, (45.0, 55.0), ""),
    (106, "tiles", 6, (40.0, 50.0), ""),
    (107, "marble", 5, (45.0, 60.0), "hard"),
    (108, "clutter", 6, (40.0, 55.0), "hard"),
)


def main(argv: list[str] | None = None) -> int:
    """Write the scenes and their truth files."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "sample_images")
    args = ap.parse_args(argv)
    truth: dict[str, dict[str, list[int]]] = {}
    labels: dict[str, dict[str, list[dict[str, object]]]] = {}
    for i, (seed, style, n, size, sub) in enumerate(SCENES, 1):
        folder = args.out / sub
        folder.mkdir(parents=True, exist_ok=True)
        image, dice = render_scene(
            seed, 640, 480, n_dice=n, die_size=size, background_style=style, clean=True
        )
        name = f"scene-{i:02d}-{style}.jpg"
        cv2.imwrite(str(folder / name), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        truth.setdefault(sub, {})[name] = sorted(v for v, _ in dice)
        labels.setdefault(sub, {})[name] = [
            {"value": v, "box": [round(c, 1) for c in b]} for v, b in dice
        ]
    for sub in truth:
        (args.out / sub / "truth.json").write_text(json.dumps(truth[sub], indent=1) + "\n")
        (args.out / sub / "labels.json").write_text(json.dumps(labels[sub], indent=1) + "\n")
    print(f"wrote {len(SCENES)} scenes to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
