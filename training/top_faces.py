"""Rendered scenes labelled by their dice's top faces: a box round the face on top, not the die.

    python -m training.top_faces ../rendered-dice/steep build/top-faces/steep

``make render`` labels each die with a box round the whole die as seen. This writes the same
images (linked, not copied, where the file system allows it) under ``OUT/all/images`` with
labels under ``OUT/all/labels`` whose box covers only the die's top face (projected from each
scene's description in ``RENDERED/scenes.jsonl``, ``dice_scene.top_face_box``; class = top
value - 1), to train a detector that boxes the face to be read (docs/reader-trials.md, "A
detector that boxes the top face"). A scene whose image is missing is named and skipped.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from training.dice_scene import Camera, Die, box_lines, top_face_box
from training.self_labels import link_or_copy


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def scene_parts(record: dict[str, Any]) -> tuple[Camera, list[Die]]:
    """The camera and dice of one ``scenes.jsonl`` record."""
    camera = Camera(**{k: _tuples(v) for k, v in record["camera"].items()})
    dice = [Die(**{k: _tuples(v) for k, v in d.items()}) for d in record["dice"]]
    return camera, dice


def top_face_lines(record: dict[str, Any]) -> list[str]:
    """YOLO lines ``CLASS XC YC W H`` of the scene's top faces, clipped to the frame."""
    return box_lines(*scene_parts(record), box=top_face_box)


def write_top_faces(rendered: Path, out: Path) -> int:
    """Write ``rendered``'s scenes with top-face labels under ``out/all``; returns the count.

    :raises ValueError: when ``rendered`` holds no ``scenes.jsonl`` or a line of it is not a
        scene.
    """
    log = rendered / "scenes.jsonl"
    if not log.is_file():
        raise ValueError(f"{log}: no such file (a folder make render wrote is expected)")
    images, labels = out / "all" / "images", out / "all" / "labels"
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    written = 0
    for number, line in enumerate(log.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            name, lines = record["name"], top_face_lines(record)
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{log}:{number}: not a scene ({exc})") from None
        found = sorted((rendered / "images").glob(f"{name}.*"))
        if not found:
            print(f"top_faces: {name}: no image; skipped", file=sys.stderr)
            continue
        link_or_copy(found[0], images / found[0].name)
        (labels / f"{name}.txt").write_text("".join(f"{x}\n" for x in lines))
        written += 1
    return written


def main(argv: list[str] | None = None) -> int:
    """Write the relabelled scenes and print how many; returns the exit code."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rendered", type=Path, help="a folder make render wrote")
    ap.add_argument("out", type=Path)
    args = ap.parse_args(argv)
    try:
        count = write_top_faces(args.rendered, args.out)
    except ValueError as exc:
        print(f"top_faces: error: {exc}", file=sys.stderr)
        return 2
    print(f"top_faces: {count} scenes written to {args.out / 'all'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
