"""The rate limit on frames the tablet uploads: a token bucket."""

from __future__ import annotations

import threading
import time


class UploadLimit:
    """At most ``rate`` frames a second on average, in bursts of up to ``rate`` frames."""

    def __init__(self, rate: float) -> None:
        """Start with a full bucket."""
        self.rate = rate
        self._tokens = rate
        self._at = time.monotonic()
        self._lock = threading.Lock()

    def take(self) -> bool:
        """Take one token (False: too many frames, try later)."""
        with self._lock:
            now = time.monotonic()
            self._tokens = min(self.rate, self._tokens + (now - self._at) * self.rate)
            self._at = now
            if self._tokens < 1:
                return False
            self._tokens -= 1
            return True
