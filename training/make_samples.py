"""Render the demo scenes in sample_images/ with their truth (numpy + OpenCV, no torch).

    python -m training.make_samples [--out sample_images]

Writes scene-01.jpg ... scene-08.jpg (640×480), truth.json (name -> sorted dice values) and
labels.json (name -> [{"value", "box"}] with top-face boxes in pixels). Deterministic.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2

from scorekeeper.vision.synth import render_scene

ROOT = Path(__file__).resolve().parents[1]
# (seed, background, number of dice, die size range in px)
SCENES = (
    (101, "wood", 1, (60.0, 75.0)),
    (102, "felt", 2, (50.0, 65.0)),
    (103, "paper", 3, (45.0, 60.0)),
    (104, "tray", 4, (40.0, 55.0)),
    (105, "text", 5, (45.0, 55.0)),
    (106, "tiles", 6, (40.0, 50.0)),
    (107, "marble", 5, (45.0, 60.0)),
    (108, "clutter", 6, (40.0, 55.0)),
)


def main(argv: list[str] | None = None) -> int:
    """Write the scenes and their truth files."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "sample_images")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    truth: dict[str, list[int]] = {}
    labels: dict[str, list[dict[str, object]]] = {}
    for i, (seed, style, n, size) in enumerate(SCENES, 1):
        image, dice = render_scene(seed, 640, 480, n_dice=n, die_size=size, background_style=style)
        name = f"scene-{i:02d}-{style}.jpg"
        cv2.imwrite(str(args.out / name), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        truth[name] = sorted(v for v, _ in dice)
        labels[name] = [{"value": v, "box": [round(c, 1) for c in b]} for v, b in dice]
    (args.out / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    (args.out / "labels.json").write_text(json.dumps(labels, indent=1) + "\n")
    print(f"wrote {len(SCENES)} scenes to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
