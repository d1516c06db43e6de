"""The table's taught dice: crops of dice with the value a player gave them, kept on disk.

One PNG file a crop in a folder beside the game database (``<db>-teach/``), named
``NNNNNNNN-V.png`` (a sequence number, then the label: 0 = not a die, 1..6 the face up). Each
file is written whole to a temporary name and renamed into place, so a crash leaves no
half-written crop (a stray temporary file is removed when the store opens). The store holds at
most ``max_count`` crops and ``max_bytes`` bytes; the oldest go first. A full or read-only disk
raises :class:`~scorekeeper.errors.TeachStoreError` with words for the player, and leaves the
store as it was.
"""

from __future__ import annotations

import errno
import os
import re
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scorekeeper.errors import TeachStoreError

MAX_CROPS = 600
"""Crops kept at most (100 a face)."""

MAX_BYTES = 16 * 1024 * 1024
"""Bytes of crops kept at most."""

_NAME = re.compile(r"^(\d{8})-([0-6])\.png$")
_TEMP_SUFFIX = ".part"


def teach_dir_for(db: str | os.PathLike[str]) -> Path:
    """The taught dice's folder beside a game database: ``games.sqlite3`` ->
    ``games-teach``.

    >>> teach_dir_for("/data/games.sqlite3").name
    'games-teach'
    """
    path = Path(db)
    return path.with_name(f"{path.stem}-teach")


@dataclass(frozen=True)
class TaughtCrop:
    """One kept crop: its file, its sequence number and its label (0 not a die, 1..6)."""

    path: Path
    seq: int
    label: int
    size: int


class TeachStore:
    """Crops of a table's dice with their labels, bounded in count and bytes, oldest dropped."""

    def __init__(
        self, folder: str | os.PathLike[str], max_count: int = MAX_CROPS, max_bytes: int = MAX_BYTES
    ) -> None:
        """Keep crops in ``folder`` (made when the first crop is kept)."""
        if max_count < 1 or max_bytes < 1:
            raise ValueError("the teach store needs room for at least one crop")
        self.folder = Path(folder)
        self.max_count = max_count
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._remove_partial()

    def _remove_partial(self) -> None:
        """Remove temporary files a crash left behind (never a whole crop)."""
        try:
            leftovers = [p for p in self.folder.iterdir() if p.name.endswith(_TEMP_SUFFIX)]
        except OSError:
            return
        for p in leftovers:
            p.unlink(missing_ok=True)

    def crops(self) -> list[TaughtCrop]:
        """Every kept crop, oldest first (files of other names are ignored)."""
        try:
            entries = list(os.scandir(self.folder))
        except OSError:
            return []
        out = []
        for e in entries:
            m = _NAME.match(e.name)
            if m is None:
                continue
            try:
                size = e.stat().st_size
            except OSError:
                continue
            out.append(TaughtCrop(Path(e.path), int(m.group(1)), int(m.group(2)), size))
        out.sort(key=lambda c: c.seq)
        return out

    def add(self, crops: list[tuple[np.ndarray, int]]) -> int:
        """Keep (crop, label) pairs (uint8 BGR images; label 0 not a die, 1..6 the face); drop
        the oldest beyond the bounds. Returns how many were kept.

        :raises TeachStoreError: the disk is full or cannot be written (nothing half-written
            stays; the crops kept before are untouched).
        :raises ValueError: a label outside 0..6 or a crop that is not an image.
        """
        for crop, label in crops:
            if not (isinstance(label, int) and 0 <= label <= 6):
                raise ValueError(f"a taught label is 0 (not a die) or a face 1..6, got {label!r}")
            if (
                not isinstance(crop, np.ndarray)
                or crop.dtype != np.uint8
                or crop.ndim not in (2, 3)
            ):
                raise ValueError("a taught crop is a uint8 image array")
        with self._lock:
            existing = self.crops()
            seq = existing[-1].seq + 1 if existing else 1
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                for crop, label in crops:
                    self._write(crop, label, seq)
                    seq += 1
            except OSError as exc:
                raise TeachStoreError(_disk_words(exc, self.folder)) from None
            self._trim()
        return len(crops)

    def _write(self, crop: np.ndarray, label: int, seq: int) -> None:
        """One crop written to a temporary file, flushed, then renamed into place."""
        ok, data = cv2.imencode(".png", crop)
        if not ok:
            raise ValueError("the crop could not be encoded as PNG")
        final = self.folder / f"{seq:08d}-{label}.png"
        temp = final.with_name(final.name + _TEMP_SUFFIX)
        try:
            with open(temp, "wb") as f:
                f.write(data.tobytes())
                f.flush()
                os.fsync(f.fileno())
            os.replace(temp, final)
        except OSError:
            temp.unlink(missing_ok=True)
            raise

    def _trim(self) -> None:
        """Remove the oldest crops until the store is within its bounds."""
        kept = self.crops()
        total = sum(c.size for c in kept)
        while kept and (len(kept) > self.max_count or total > self.max_bytes):
            old = kept.pop(0)
            total -= old.size
            old.path.unlink(missing_ok=True)

    def load(self) -> tuple[list[np.ndarray], list[int]]:
        """Every crop that decodes, with its label (a file that does not decode is skipped)."""
        images, labels = [], []
        for c in self.crops():
            img = cv2.imread(str(c.path), cv2.IMREAD_COLOR)
            if img is None:
                continue
            images.append(img)
            labels.append(c.label)
        return images, labels

    def clear(self) -> int:
        """Remove every crop; returns how many were removed.

        :raises TeachStoreError: a crop cannot be removed (a read-only disk).
        """
        with self._lock:
            kept = self.crops()
            try:
                for c in kept:
                    c.path.unlink(missing_ok=True)
            except OSError as exc:
                raise TeachStoreError(_disk_words(exc, self.folder)) from None
            return len(kept)

    def stats(self) -> dict[str, Any]:
        """``{"crops", "bytes", "faces": {"1": n, ...}, "not_dice", "max_crops", "max_bytes",
        "folder"}``."""
        kept = self.crops()
        by = Counter(c.label for c in kept)
        return {
            "crops": len(kept),
            "bytes": sum(c.size for c in kept),
            "faces": {str(v): by.get(v, 0) for v in range(1, 7)},
            "not_dice": by.get(0, 0),
            "max_crops": self.max_count,
            "max_bytes": self.max_bytes,
            "folder": str(self.folder),
        }


def _disk_words(exc: OSError, folder: Path) -> str:
    """What a failed write or removal means for the player, in words."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        why = "the disk is full"
    elif exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        why = "the folder cannot be written"
    else:
        why = f"the disk refused ({exc.strerror or exc})"
    return (
        f"the camera could not keep the taught dice in {folder}: {why}. Play goes on; the camera"
        " reads as before. Free some space, or clear the taught dice."
    )
