"""Labelled photo folders laid out as ``make data`` writes a source, from synthetic scenes."""

from __future__ import annotations

from pathlib import Path

import cv2

from training.synth import render_scene


def write_source(root: Path, name: str, seeds: range, frame_box: bool) -> None:
    """Synthetic scenes laid out as make data writes a source; a frame-box source gets one die
    a photo labelled with the whole frame."""
    (root / name / "images").mkdir(parents=True)
    (root / name / "labels").mkdir(parents=True)
    for s in seeds:
        image, truth = render_scene(s, 320, 240, n_dice=1 if frame_box else 3, die_size=(30, 40))
        cv2.imwrite(str(root / name / "images" / f"p{s}.jpg"), image)
        lines = []
        for value, (x0, y0, x1, y1) in truth:
            if frame_box:
                lines.append(f"{value - 1} 0.5 0.5 1 1")
            else:
                cx, cy, w, h = (x0 + x1) / 640, (y0 + y1) / 480, (x1 - x0) / 320, (y1 - y0) / 240
                lines.append(f"{value - 1} {cx:.5f} {cy:.5f} {w:.5f} {h:.5f}")
        (root / name / "labels" / f"p{s}.txt").write_text("\n".join(lines) + "\n")


def write_shared(root: Path, first_seed: int, webcam: int, tray: int) -> None:
    """The two shared held-out folders the evaluation scripts also read, ``webcam`` photos in
    ``webcam-table/Valid`` and ``tray`` in ``dice-tray/train`` (whose last 20% is held out)."""
    write_source(root, "webcam-table/Valid", range(first_seed, first_seed + webcam), False)
    write_source(
        root, "dice-tray/train", range(first_seed + webcam, first_seed + webcam + tray), False
    )
