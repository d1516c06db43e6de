"""The throws the play pages ask of the built-in demo, each key taken once."""

from __future__ import annotations

import threading
from collections import OrderedDict

ASKED_KEYS = 256
"""Throw keys remembered (:meth:`ThrowAsks.ask`); the oldest are forgotten first."""


class ThrowAsks:
    """The last throw asked for, and the keys already seen."""

    def __init__(self) -> None:
        """No throw asked yet."""
        self._lock = threading.Lock()
        self._keys: OrderedDict[str, None] = OrderedDict()
        self._last: tuple[int, str] | None = None

    def ask(self, dice: int, key: str) -> None:
        """Ask for a throw of ``dice`` dice; a key seen before changes nothing."""
        with self._lock:
            if key in self._keys:
                self._keys.move_to_end(key)
                return
            self._keys[key] = None
            while len(self._keys) > ASKED_KEYS:
                self._keys.popitem(last=False)
            self._last = (dice, key)

    def last(self) -> tuple[int, str] | None:
        """The last throw asked for: (dice, key), or None."""
        return self._last
