"""Win-probability advice for two players: play each throw to win the game, not for points.

* ``solve_winprob(rules)`` is the solved two-player game (``WinTable``), cached in memory and on
  disk (``cache``); ``solve_fresh`` solves afresh.
* ``WinTable`` (``table``) answers positions: ``p_win``, ``option_values`` (each an
  ``Option``), and the handicaps: ``p_start``, ``fair_compensation``.
* ``position_chances(state, table)`` reads a game's state: each player's chance and the throw's
  options (``position``); ``words`` puts chances in sentences.
* The solver: ``model`` (one turn's chances), ``solver`` (every turn start, exactly),
  ``tiebreak`` (final-round ties played off), ``handicap`` (starting points off the board).

>>> from scorekeeper.rules import find_rules
>>> rules = find_rules("minimal", {"target": 500, "final_round": False})
>>> table = solve_winprob(rules, cache_dir=False)
>>> 0.5 < table.p_win(0, 0) < 0.8, table.p_win(450, 0, turn_total=50, dice_left=3)
(True, 1.0)
"""

from scorekeeper.winprob.cache import (
    cached_winprob,
    clear_memory,
    default_cache_dir,
    fair_compensation,
    solve_winprob,
)
from scorekeeper.winprob.model import check_supported
from scorekeeper.winprob.solver import DEFAULT_MARGIN
from scorekeeper.winprob.table import Option, WinTable, solve_fresh

__all__ = [
    "DEFAULT_MARGIN",
    "Option",
    "WinTable",
    "cached_winprob",
    "check_supported",
    "clear_memory",
    "default_cache_dir",
    "fair_compensation",
    "solve_fresh",
    "solve_winprob",
]
