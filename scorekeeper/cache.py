"""Caches shared by the solvers and the web layer: versioned ``.npz`` files and bounded LRUs.

* ``npz_path(folder, stem, version)`` names a cache file; ``save_npz`` writes arrays and a JSON
  ``meta`` atomically (a temporary file, then ``os.replace``); ``load_npz`` reads them back,
  or None for a file that is missing, damaged or written for another version or rules.
* ``LRU`` is a thread-safe mapping that keeps its ``size`` most recently used entries: for
  values stored from elsewhere (a worker's result, a table loaded from disk). Pure functions
  are memoised with ``functools.lru_cache`` instead.

>>> cache = LRU[str, int](2)
>>> cache.put("a", 1); cache.put("b", 2); cache.get("a"); cache.put("c", 3)
1
>>> "b" in cache, cache.get_or_make("c", lambda: 0), len(cache)
(False, 3, 2)
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
import zipfile
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np

K = TypeVar("K")
V = TypeVar("V")

CACHE_ENV = "SCOREKEEPER_CACHE_DIR"


def env_cache_dir() -> Path | None:
    """``$SCOREKEEPER_CACHE_DIR`` when it is set, else None."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else None


def user_cache_dir(kind: str) -> Path:
    """The user's cache folder of ``kind`` (under the platform's cache folder)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("scorekeeper")) / kind


def npz_path(folder: str | os.PathLike[str], stem: str, version: int) -> Path:
    """The cache file of ``stem`` written by ``version`` of its solver, under ``folder``."""
    return Path(folder) / f"{stem}-v{version}.npz"


@dataclass(frozen=True)
class Npz:
    """A cache file's contents: its JSON ``meta`` and its arrays (``meta`` left out)."""

    meta: dict[str, Any]
    arrays: dict[str, np.ndarray]


def save_npz(
    path: Path,
    arrays: Mapping[str, np.ndarray],
    meta: Mapping[str, Any],
    *,
    compress: bool = False,
) -> bool:
    """Write ``arrays`` and ``meta`` to ``path`` atomically; False when it cannot be written.

    Readers see the old file or the new one, never a part: a cache folder that cannot be
    written only costs a solve next time.
    """
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.stem, suffix=".tmp.npz")
        with os.fdopen(fd, "wb") as handle:
            contents: dict[str, Any] = {"meta": np.array(json.dumps(dict(meta))), **arrays}
            if compress:
                np.savez_compressed(handle, **contents)
            else:
                np.savez(handle, **contents)
        os.replace(tmp, path)
        return True
    except OSError:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        return False


def load_npz(path: Path, version: int, rules: Mapping[str, Any]) -> Npz | None:
    """The contents of ``path`` when written by ``version`` for ``rules`` (their dict form).

    None for a missing, unreadable or damaged file, or one of another version or rules.
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            if meta.get("version") != version or meta.get("rules") != dict(rules):
                return None
            arrays = {name: np.array(data[name]) for name in data.files if name != "meta"}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    return Npz(meta, arrays)


class LRU(Generic[K, V]):
    """A thread-safe mapping that forgets its least recently used entries beyond ``size``."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._items

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def get(self, key: K) -> V | None:
        """The value of ``key`` (now the most recently used), or None."""
        with self._lock:
            if key not in self._items:
                return None
            self._items.move_to_end(key)
            return self._items[key]

    def put(self, key: K, value: V) -> None:
        """Store ``value`` under ``key``, forgetting the oldest entries beyond ``size``."""
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        """The value of ``key``, made and stored first when missing (``make`` runs unlocked)."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()
        self.put(key, value)
        return value

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._items.clear()
