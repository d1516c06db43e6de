"""The live view's JPEG pictures: a reading with its overlay (one cached), or a placeholder."""

from __future__ import annotations

import threading

from scorekeeper.camera.frames import encode_jpeg
from scorekeeper.camera.overlay import draw_overlay, placeholder
from scorekeeper.camera.reading import Reading
from scorekeeper.camera.settle import Area

PLACEHOLDER_QUALITY = 70
"""JPEG quality of the placeholder shown before the first frame."""

OVERLAY_QUALITY = 75
"""JPEG quality of a frame with its overlay."""


def placeholder_jpeg(text: str) -> bytes:
    """The placeholder picture saying ``text``, as JPEG."""
    return encode_jpeg(placeholder(text), PLACEHOLDER_QUALITY)


class OverlayPictures:
    """Encodes a reading with its overlay as JPEG, keeping the last frame's for other viewers."""

    def __init__(self) -> None:
        """Nothing encoded yet."""
        self._lock = threading.Lock()
        self._last: tuple[int, bytes] | None = None

    def jpeg(self, reading: Reading, area: Area, banner: str | None) -> bytes:
        """``reading``'s picture with its dice, ``area`` and ``banner`` drawn on it."""
        with self._lock:
            if self._last is not None and self._last[0] == reading.frame_id:
                return self._last[1]
        img = draw_overlay(
            reading.image,
            reading.dice,
            reading.ignored,
            area=area,
            stable=reading.stable,
            proposal=reading.proposal.dice if reading.proposal else None,
            banner=banner,
        )
        data = encode_jpeg(img, OVERLAY_QUALITY)
        with self._lock:
            self._last = (reading.frame_id, data)
        return data
