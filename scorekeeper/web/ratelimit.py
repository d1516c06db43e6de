"""How many games one client may create: a sliding window per address, 429 beyond it."""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable

from flask import current_app, request
from werkzeug.exceptions import TooManyRequests

DEFAULT_GAMES_PER_WINDOW = 60
"""Games one address may create in :data:`DEFAULT_WINDOW_S` (new games and rematches)."""
DEFAULT_WINDOW_S = 600.0
MAX_CLIENTS = 4096
"""Addresses remembered at once; the longest idle is forgotten first."""


class WindowLimiter:
    """At most ``limit`` events per ``window_s`` seconds for each client key."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()

    def take(self, key: str, limit: int, window_s: float) -> float:
        """Count one event for ``key``; 0 when allowed, else the seconds until one would be."""
        now = self._clock()
        with self._lock:
            times = self._seen.pop(key, None) or deque()
            while times and times[0] <= now - window_s:
                times.popleft()
            wait = 0.0
            if len(times) >= limit:
                wait = times[0] + window_s - now
            else:
                times.append(now)
            self._seen[key] = times
            while len(self._seen) > MAX_CLIENTS:
                self._seen.popitem(last=False)
            return wait


def check_new_game() -> None:
    """Count a new game for the requesting address.

    :raises TooManyRequests: (429, with ``Retry-After``) when it has created
        ``GAMES_PER_WINDOW`` games in the last ``GAMES_WINDOW_S`` seconds.
    """
    cfg = current_app.config
    limit = int(cfg.get("GAMES_PER_WINDOW", DEFAULT_GAMES_PER_WINDOW))
    window = float(cfg.get("GAMES_WINDOW_S", DEFAULT_WINDOW_S))
    if limit <= 0:
        return
    limiter = current_app.extensions.setdefault("game_limiter", WindowLimiter())
    wait = limiter.take(request.remote_addr or "?", limit, window)
    if wait > 0:
        minutes = round(window / 60)
        raise TooManyRequests(
            f"this device has started {limit} games in the last {minutes} minutes, the most"
            f" allowed; try again in {math.ceil(wait)} s (or continue a game from the list)",
            retry_after=math.ceil(wait),
        )
