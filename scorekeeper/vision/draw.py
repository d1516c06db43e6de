"""Drawing detections on an image (for ``scorekeeper read --annotate`` and the demo)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from scorekeeper.errors import ImageError
from scorekeeper.vision.detection import Box, Detection
from scorekeeper.vision.imageio import to_grey


def draw(image: np.ndarray, dets: Sequence[Detection]) -> np.ndarray:
    """A BGR copy of ``image`` with each die's box and value drawn on it ("5?" when unsure)."""
    if image.ndim == 2 or image.shape[2] == 1:
        out = cv2.cvtColor(to_grey(image), cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        out = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    else:
        out = image.copy()
    thick = max(1, round(max(out.shape[:2]) / 400))
    for d in dets:
        x0, y0, x1, y1 = (round(v) for v in d.box)
        cv2.rectangle(out, (x0, y0), (x1, y1), (0, 0, 255), thick)
        label = f"{d.value}?" if d.unsure else f"{d.value}"
        # the label grows with the die, up to a size readable on the whole frame
        scale = min(max(0.5, (y1 - y0) / 40), max(0.8, max(out.shape[:2]) / 500))
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, thick + 1)
        ty = y0 - 3 if y0 - th - 3 >= 0 else y0 + th + 3  # above the box, else inside it
        cv2.rectangle(out, (x0, ty - th - 2), (x0 + tw + 2, ty + 2), (0, 0, 255), -1)
        cv2.putText(
            out,
            label,
            (x0 + 1, ty),
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            (255, 255, 255),
            thick + 1,
            cv2.LINE_AA,
        )
    return np.asarray(out)


def annotate(image: np.ndarray, dets: Sequence[Detection], path: str | os.PathLike[str]) -> None:
    """Write ``draw(image, dets)`` to ``path`` (format from its suffix).

    :raises ImageError: when the file cannot be written.
    """
    p = Path(path)
    ok = False
    try:
        ok = bool(cv2.imwrite(str(p), draw(image, dets)))
    except cv2.error as exc:
        raise ImageError(f"cannot write {p}: {exc}; use a .png or .jpg path") from exc
    if not ok:
        raise ImageError(f"cannot write {p}; use a .png or .jpg path in an existing folder")


def draw_verdict(
    image: np.ndarray, dets: Sequence[Detection], truth: Sequence[tuple[int, Box]]
) -> np.ndarray:
    """:func:`draw` of the readings (red, "5?" when unsure) over the labelled dice: each
    labelled box in green with its value in a green tag under it, to check a reading, or a
    label, by eye."""
    out = draw(image, [])
    thick = max(1, round(max(out.shape[:2]) / 400))
    for value, box in truth:
        x0, y0, x1, y1 = (round(v) for v in box)
        cv2.rectangle(out, (x0, y0), (x1, y1), (0, 160, 0), thick)
        scale = min(max(0.5, (y1 - y0) / 40), max(0.8, max(out.shape[:2]) / 500))
        (tw, th), _ = cv2.getTextSize(str(value), cv2.FONT_HERSHEY_SIMPLEX, scale, thick + 1)
        ty = y1 + th + 3 if y1 + th + 5 < out.shape[0] else y1 - 3  # under the box, else inside
        cv2.rectangle(out, (x0, ty - th - 2), (x0 + tw + 2, ty + 2), (0, 160, 0), -1)
        cv2.putText(
            out,
            str(value),
            (x0 + 1, ty),
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            (255, 255, 255),
            thick + 1,
            cv2.LINE_AA,
        )
    return draw(out, dets)
