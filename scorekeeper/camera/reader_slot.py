"""The camera's dice reader, built on first use, and the last thing that went wrong with it."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from scorekeeper.camera.reading import ReaderLike

READ_TIMES = 20
"""The reads per second are the mean of the last this many reads' durations."""

READER_RETRY_S = 30.0
"""Seconds before the camera tries again to build a reader that failed to load."""


class ReaderSlot:
    """Builds the reader with ``factory`` when first asked (None: the camera reads no dice).

    :attr:`error` holds what went wrong last (loading, or reading a frame), for the status and
    the overlay's banner; a loaded reader clears it.
    """

    def __init__(self, factory: Callable[[], ReaderLike] | None) -> None:
        """Keep ``factory``; nothing is built yet."""
        self.factory = factory
        self.error: str | None = None
        self._reader: ReaderLike | None = None
        self._retry_at = 0.0
        self._lock = threading.Lock()
        self._durations: deque[float] = deque(maxlen=READ_TIMES)

    @contextmanager
    def timed(self) -> Iterator[None]:
        """Time one read of a frame (for :meth:`reads_per_s`)."""
        t0 = time.perf_counter()
        try:
            yield
        finally:
            with self._lock:
                self._durations.append(time.perf_counter() - t0)

    def reads_per_s(self) -> float | None:
        """Frames the reader manages to read a second (from its last reads), None before any."""
        with self._lock:
            if not self._durations:
                return None
            return len(self._durations) / max(1e-9, sum(self._durations))

    def get(self) -> ReaderLike | None:
        """The reader, built now if need be; None without a factory or while a failed build
        waits :data:`READER_RETRY_S` to be tried again."""
        if self._reader is not None or self.factory is None:
            return self._reader
        if time.monotonic() < self._retry_at:
            return None
        try:
            self._reader = self.factory()
            self.error = None
        except Exception as exc:
            self.error = f"the dice reader is unavailable: {exc}"
            self._retry_at = time.monotonic() + READER_RETRY_S
        return self._reader
