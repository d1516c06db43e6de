"""Solved tables by rules value, cached: from memory, the disk cache, or a fresh solve.

``solve_winprob(rules)`` keeps the last ``MEMORY_TABLES`` tables in memory and writes each to
the disk cache keyed by ``rules.content_key()``, the margin and ``SOLVER_VERSION``.

>>> from scorekeeper.rules import find_rules
>>> rules = find_rules("minimal", {"target": 500, "final_round": False})
>>> table = solve_winprob(rules, cache_dir=False)
>>> 0.5 < table.p_win(0, 0) < 0.8, cached_winprob(rules, cache_dir=False) is table
(True, True)
"""

from __future__ import annotations

import os
from pathlib import Path

from scorekeeper.cache import LRU, env_cache_dir, npz_path, user_cache_dir
from scorekeeper.rules import Rules
from scorekeeper.winprob.solver import DEFAULT_MARGIN
from scorekeeper.winprob.table import SOLVER_VERSION, WinTable, solve_fresh

MEMORY_TABLES = 8

CacheDir = str | os.PathLike[str] | bool | None

_memory: LRU[tuple[str, int], WinTable] = LRU(MEMORY_TABLES)


def default_cache_dir() -> Path:
    """The on-disk cache: ``$SCOREKEEPER_CACHE_DIR/winprob`` or the user cache's ``winprob``."""
    env = env_cache_dir()
    return env / "winprob" if env is not None else user_cache_dir("winprob")


def cache_path(rules: Rules, margin: int, cache_dir: CacheDir = None) -> Path:
    """The cache file of ``rules`` solved with ``margin`` (``None``: ``default_cache_dir()``)."""
    folder = default_cache_dir() if cache_dir is None or isinstance(cache_dir, bool) else cache_dir
    return npz_path(folder, f"{rules.content_key()}-m{margin}", SOLVER_VERSION)


def clear_memory() -> None:
    """Forget the tables held in memory (the disk cache stays)."""
    _memory.clear()


def _in_memory(rules: Rules, margin: int) -> WinTable | None:
    found = _memory.get((rules.content_key(), margin))
    return found if found is not None and found.rules == rules else None


def solve_winprob(
    rules: Rules, cache_dir: CacheDir = None, *, margin: int = DEFAULT_MARGIN
) -> WinTable:
    """The solved two-player game of ``rules``, from memory, the disk cache, or a fresh solve.

    ``cache_dir``: a folder (``None``: ``default_cache_dir()``; ``False``: no disk cache).
    ``margin``: points past the target from which a final-round leader is taken to bank.

    :raises UnsupportedRulesError: for rules the solver cannot play (see ``check_supported``).
    """
    table = cached_winprob(rules, cache_dir, margin=margin)
    if table is not None:
        return table
    table = solve_fresh(rules, margin=margin)
    if cache_dir is not False:
        table.cache_path = cache_path(rules, margin, cache_dir)
        table.save(table.cache_path)
    _memory.put((rules.content_key(), margin), table)
    return table


def cached_winprob(
    rules: Rules, cache_dir: CacheDir = None, *, margin: int = DEFAULT_MARGIN
) -> WinTable | None:
    """The solved game of ``rules`` from memory or the disk cache, or None (never solves)."""
    found = _in_memory(rules, margin)
    if found is not None or cache_dir is False:
        return found
    table = WinTable.load(cache_path(rules, margin, cache_dir), rules, margin)
    if table is not None:
        _memory.put((rules.content_key(), margin), table)
    return table


def fair_compensation(rules: Rules, cache_dir: CacheDir = None) -> int:
    """The second player's starting points (a multiple of 50) that make the game fairest.

    :raises UnsupportedRulesError: for rules the solver cannot play.
    """
    return solve_winprob(rules, cache_dir).fair_compensation()
