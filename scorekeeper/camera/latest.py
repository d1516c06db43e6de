"""The newest reading, for requests to look at or wait for, and the frame rate."""

from __future__ import annotations

import threading
import time
from collections import deque

from scorekeeper.camera.reading import Reading

FPS_WINDOW_S = 3.0
"""The frame rate counts the frames read in the last this many seconds."""

FPS_FRAMES = 60
"""At most this many frame times are kept for the frame rate."""


class LatestReading:
    """Holds the newest :class:`Reading`; waiters wake when a new one comes or on ``stopped``."""

    def __init__(self, stopped: threading.Event) -> None:
        """Nothing read yet; ``stopped`` ends every wait."""
        self._stopped = stopped
        self._cond = threading.Condition()
        self._reading: Reading | None = None
        self._times: deque[float] = deque(maxlen=FPS_FRAMES)

    def publish(self, reading: Reading) -> None:
        """Make ``reading`` the newest and wake the waiters."""
        with self._cond:
            self._reading = reading
            self._times.append(time.monotonic())
            self._cond.notify_all()

    def get(self) -> Reading | None:
        """The newest reading (None before the first frame)."""
        with self._cond:
            return self._reading

    def next_frame_id(self) -> int:
        """The id after the newest reading's (1 before the first)."""
        with self._cond:
            return (self._reading.frame_id if self._reading else 0) + 1

    def wait(self, after_id: int, timeout: float) -> Reading | None:
        """A reading newer than ``after_id``, waiting at most ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self._stopped.is_set():
                r = self._reading
                if r is not None and r.frame_id != after_id:
                    return r
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)
        return None

    def wake(self) -> None:
        """Wake every waiter (after ``stopped`` is set)."""
        with self._cond:
            self._cond.notify_all()

    def fps(self) -> float:
        """Frames read per second over the last :data:`FPS_WINDOW_S` seconds."""
        with self._cond:
            times = [t for t in self._times if t > time.monotonic() - FPS_WINDOW_S]
        if len(times) < 2:
            return 0.0
        return (len(times) - 1) / max(1e-6, times[-1] - times[0])
