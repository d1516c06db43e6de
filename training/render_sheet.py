"""A contact sheet of labelled photos: each image with its YOLO boxes and values drawn on it.

    python -m training.render_sheet FOLDER [--out /tmp/sheet.png] [--count 12] [--columns 4]

FOLDER holds ``images/`` and ``labels/`` (YOLO lines, class = value - 1), as ``make render`` and
``make data`` write them: how the labels of rendered dice are checked by eye.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from scorekeeper.errors import ImageError
from scorekeeper.vision.evaluate import Truth, parse_yolo

__all__ = ["draw_labels", "main", "sheet", "tile"]


def draw_labels(image: np.ndarray, truth: Truth) -> np.ndarray:
    """A copy of the image with each labelled die's box and value drawn on it."""
    out = image.copy()
    for value, box in truth:
        x0, y0, x1, y1 = (round(v) for v in box)
        cv2.rectangle(out, (x0, y0), (x1, y1), (0, 255, 0), 1)
        label = str(value)
        org = (x0, max(12, y0 - 3))
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 255, 0), 1, cv2.LINE_AA)
    return out


def sheet(folder: Path, count: int, columns: int, start: int = 0) -> np.ndarray:
    """The first ``count`` images of ``folder`` from ``start``, labelled and tiled."""
    images = sorted((folder / "images").glob("*.jpg"))[start : start + count]
    if not images:
        raise ValueError(f"no images/*.jpg in {folder}")
    tiles = []
    for path in images:
        img = cv2.imread(str(path))
        if img is None:
            raise ValueError(f"{path} does not decode")
        label = folder / "labels" / f"{path.stem}.txt"
        try:
            truth = parse_yolo(label.read_text(), img.shape[1], img.shape[0])
        except FileNotFoundError:
            truth = []
        except ImageError as err:
            raise ValueError(f"{label}: {err}") from None
        drawn = draw_labels(img, truth)
        cv2.putText(
            drawn,
            path.stem,
            (4, drawn.shape[0] - 6),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.4,
            (255, 255, 255),
            1,
            cv2.LINE_AA,
        )
        tiles.append(drawn)
    th, tw = tiles[0].shape[:2]
    return tile([cv2.resize(t, (tw, th)) for t in tiles], columns)


def tile(tiles: list[np.ndarray], columns: int) -> np.ndarray:
    """Same-sized images in rows of ``columns`` (at most as many as there are), the last row
    filled out with black."""
    columns = min(columns, len(tiles))
    tiles = tiles + [np.zeros_like(tiles[0])] * (-len(tiles) % columns)
    return np.vstack([np.hstack(tiles[i : i + columns]) for i in range(0, len(tiles), columns)])


def main(argv: list[str] | None = None) -> int:
    """Write the contact sheet."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--out", type=Path, default=Path("/tmp/render-sheet.png"))
    ap.add_argument("--count", type=int, default=12)
    ap.add_argument("--columns", type=int, default=4)
    ap.add_argument("--start", type=int, default=0)
    args = ap.parse_args(argv)
    try:
        img = sheet(args.folder, args.count, max(1, args.columns), args.start)
    except ValueError as err:
        print(f"error: {err}")
        return 2
    cv2.imwrite(str(args.out), img)
    print(f"wrote {args.out} ({img.shape[1]}×{img.shape[0]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
