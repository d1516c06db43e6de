"""The throws the play pages wait for: when each began, and the one asked of the built-in demo.

A play page names the throw its game waits for with a key (the game and its version, new after
every keep, bank, undo or turn change). The first time a key is seen, the newest frame's id is
noted as the throw's start: a proposal settled from frames no newer than that shows dice that
were lying there before the throw began (dice already recorded), and is not offered for it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

ASKED_KEYS = 256
"""Throw keys remembered (:meth:`ThrowAsks.ask`); the oldest are forgotten first."""


class ThrowAsks:
    """The last throw asked for, and for each key seen the frame its throw began after."""

    def __init__(self) -> None:
        """No throw asked yet."""
        self._lock = threading.Lock()
        self._keys: OrderedDict[str, int] = OrderedDict()
        self._last: tuple[int, str] | None = None

    def ask(self, dice: int, key: str, frame_id: int) -> int:
        """Ask for a throw of ``dice`` dice named ``key``, which begins after frame ``frame_id``
        (the newest when it is first asked); a key seen before changes nothing. Returns the
        frame the key's throw began after."""
        with self._lock:
            mark = self._keys.get(key)
            if mark is not None:
                self._keys.move_to_end(key)
                return mark
            self._keys[key] = frame_id
            while len(self._keys) > ASKED_KEYS:
                self._keys.popitem(last=False)
            self._last = (dice, key)
            return frame_id

    def last(self) -> tuple[int, str] | None:
        """The last throw asked for: (dice, key), or None."""
        return self._last
