"""Solved policies per rules value: the farkle-streak average, base tables, and their caches.

``policy_for(rules)`` returns a ``Policy``: the long-run points per turn and the relative value
of each farkle-streak state (relative value iteration, solved exactly by a secant on the
average), plus the solved turn tables of a player on the board and off it (banked score 0).
Policies are cached in memory (LRU) and on disk as ``.npz`` files keyed by
``rules.content_key()`` and the solver version (``scorekeeper.cache``), in the folder the caller
gives, so a page request never waits for a solve twice. Tables for other game contexts (a
banked score near the target, toxic twos, the final round) are solved on demand in
milliseconds and kept in a second in-memory LRU.

The farkle streak penalty. With ``h(k)`` the relative value of starting a turn on streak
``k`` (``h(0) = 0``) and ``g`` the average points per turn, a bank of ``t`` is worth
``t + h(0)``, a farkle on streak ``k < 2`` is worth ``h(k + 1)`` and on streak 2 it is worth
``h(0) - penalty``. A turn is therefore the plain turn problem with a farkle worth
``f_k``, and ``g + h(k) = V(f_k)`` where ``V(f)`` is the optimal turn value. So
``h(2) = V(-penalty) - g``, ``h(1) = V(h(2)) - g`` and ``g = V(h(1))``: one equation in ``g``,
decreasing and piecewise linear, which the secant method solves exactly in a few steps.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from scorekeeper.cache import env_cache_dir, load_npz, npz_path, save_npz, user_cache_dir
from scorekeeper.rules import Rules
from scorekeeper.strategy.model import UNIT, chance_model
from scorekeeper.strategy.solver import Context, TurnTable, solve_turn

SOLVER_VERSION = 4
MEMORY_POLICIES = 32
MEMORY_TABLES = 128


def default_cache_dir() -> Path:
    """The on-disk policy cache folder: ``$SCOREKEEPER_CACHE_DIR``, else the user cache's
    ``policies`` (the web app and the CLI pass their own folder to ``policy_for``)."""
    return env_cache_dir() or user_cache_dir("policies")


def base_context(rules: Rules, on_board: bool) -> Context:
    """The context of a player with nothing banked: minimums, and the target banks at once."""
    least = rules.bank_minimum if on_board else max(rules.bank_minimum, rules.opening_minimum)
    return Context(
        kind="points",
        min_units=least // UNIT,
        six_ones_floor=float(rules.target) if rules.six_ones_win else None,
        target_units=None if rules.exact_target else -(-rules.target // UNIT),
        exact_units=rules.target // UNIT if rules.exact_target else None,
    )


def turn_value(rules: Rules, farkle_value: float, *, least: int | None = None) -> float:
    """The optimal expectation of a whole turn on the board (no target) for a farkle value."""
    least = rules.bank_minimum if least is None else least
    table = solve_turn(chance_model(rules), Context(min_units=least // UNIT), (farkle_value,))
    return float(table.R[0, rules.dice, 0])


def streak_values(rules: Rules) -> tuple[float, tuple[float, float, float]]:
    """The long-run average ``g`` and the farkle values ``f_k`` of streak states 0, 1, 2.

    ``psi(g) = V(V(V(-penalty) - g) - g) - g`` is continuous, piecewise linear and strictly
    decreasing (slope <= -1), with ``psi(V(-penalty)) >= 0 >= psi(V(0))``: regula falsi
    (Illinois) on that bracket finds its root, exactly once the bracket lies on one piece.
    """
    penalty = float(rules.farkle_streak_penalty)
    if penalty == 0:
        return turn_value(rules, 0.0), (0.0, 0.0, 0.0)
    c = turn_value(rules, -penalty)

    seen: dict[float, tuple[float, float, float]] = {}

    def psi(g: float) -> tuple[float, float, float]:
        if g not in seen:
            h2 = c - g
            h1 = turn_value(rules, h2) - g
            seen[g] = (turn_value(rules, h1) - g, h1, h2)
        return seen[g]

    lo, hi = c, turn_value(rules, 0.0)
    r_lo, r_hi = psi(lo)[0], psi(hi)[0]
    g, side = hi, 0
    for _ in range(100):
        if r_lo == 0.0:
            g = lo
            break
        if r_hi == 0.0 or hi - lo < 1e-12:
            g = hi
            break
        g = hi - r_hi * (hi - lo) / (r_hi - r_lo)
        r = psi(g)[0]
        if abs(r) < 1e-10:
            break
        if r > 0:
            lo, r_lo = g, r
            if side == -1:
                r_hi /= 2
            side = -1
        else:
            hi, r_hi = g, r
            if side == 1:
                r_lo /= 2
            side = 1
    _, h1, h2 = psi(g)
    return g, (h1, h2, -penalty)


@dataclass
class Policy:
    """A solved rules value: streak values, averages, and the base turn tables."""

    rules: Rules
    farkle_values: tuple[float, float, float]
    points_per_turn: float
    expected_turn_score: float
    on_board: TurnTable
    off_board: TurnTable
    seconds: float
    loss: tuple[float, ...]

    def next_loss(self, n: int) -> float:
        """The chance that a throw of ``n`` dice loses the turn (a farkle or toxic twos)."""
        return self.loss[n]

    def batch(self, streak: int) -> int:
        """The batch index of a streak state in the base tables."""
        return streak if self.rules.farkle_streak_penalty else 0

    def farkle_value(self, streak: int) -> float:
        """What a farkle is worth (relative points) for a player on ``streak`` farkles."""
        return self.farkle_values[streak] if self.rules.farkle_streak_penalty else 0.0

    def table(self, on_board: bool, ctx: Context, streak: int) -> tuple[TurnTable, int]:
        """The table (and batch index) for a context: a base table or one solved on demand."""
        if ctx == base_context(self.rules, on_board):
            base = self.on_board if on_board else self.off_board
            return base, self.batch(streak)
        fv = self.farkle_value(streak) if ctx.kind == "points" else 0.0
        scoring = self.rules if on_board else self.rules.opening_scoring()
        return _context_table(scoring, ctx, fv), 0


def _batch_values(rules: Rules, fvals: tuple[float, float, float]) -> tuple[float, ...]:
    return fvals if rules.farkle_streak_penalty else (0.0,)


def solve_policy(rules: Rules) -> Policy:
    """Solve a rules value afresh (no caches): streak values and both base tables."""
    start = time.perf_counter()
    model = chance_model(rules)
    g, fvals = streak_values(rules)
    batch = _batch_values(rules, fvals)
    on = solve_turn(model, base_context(rules, True), batch)
    off_ctx = base_context(rules, False)
    off_model = chance_model(rules.opening_scoring())  # only singles under singles_until_open
    same = off_ctx == base_context(rules, True) and off_model is model
    off = on if same else solve_turn(off_model, off_ctx, batch)
    ets = turn_value(rules, 0.0) if rules.farkle_streak_penalty else g
    loss = tuple(model.loss_probability(n) if n else 0.0 for n in range(7))
    return Policy(rules, fvals, g, ets, on, off, time.perf_counter() - start, loss)


@lru_cache(maxsize=MEMORY_TABLES)
def _context_table(rules: Rules, ctx: Context, farkle_value: float) -> TurnTable:
    return solve_turn(chance_model(rules), ctx, (farkle_value,))


def policy_for(rules: Rules, cache_dir: str | os.PathLike[str] | None = None) -> Policy:
    """The policy of ``rules`` from memory, else from the disk cache under ``cache_dir``
    (default: ``default_cache_dir()``), else solved and stored there."""
    folder = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    return _policy(rules, folder)


@lru_cache(maxsize=MEMORY_POLICIES)
def _policy(rules: Rules, folder: Path) -> Policy:
    return _load_or_solve(rules, folder)


def clear_memory() -> None:
    """Forget every policy and table held in memory (the disk cache stays)."""
    _policy.cache_clear()
    _context_table.cache_clear()


def cache_path(rules: Rules, folder: Path) -> Path:
    """Where the policy of ``rules`` is stored under ``folder``."""
    return npz_path(folder, f"policy-{rules.content_key()}", SOLVER_VERSION)


def _load_or_solve(rules: Rules, folder: Path) -> Policy:
    path = cache_path(rules, folder)
    found = load_npz(path, SOLVER_VERSION, rules.cache_dict())
    if found is not None:
        try:
            return _from_npz(rules, found.meta, found.arrays)
        except (ValueError, KeyError):
            pass  # a damaged file is replaced below
    policy = solve_policy(rules)
    _save(policy, path)  # a read-only cache folder costs a re-solve next time
    return policy


def _save(policy: Policy, path: Path) -> bool:
    meta = {
        "version": SOLVER_VERSION,
        "rules": policy.rules.cache_dict(),
        "farkle_values": list(policy.farkle_values),
        "points_per_turn": policy.points_per_turn,
        "expected_turn_score": policy.expected_turn_score,
        "seconds": policy.seconds,
        "loss": list(policy.loss),
    }
    arrays: dict[str, np.ndarray] = {}
    for name, t in (("on", policy.on_board), ("off", policy.off_board)):
        arrays[f"{name}_D"] = t.D
        arrays[f"{name}_R"] = t.R
        arrays[f"{name}_b"] = t.b
        arrays[f"{name}_scalars"] = np.array([t.top, t.a, float(t.hot_forced_top)])
    return save_npz(path, arrays, meta)


def _from_npz(rules: Rules, meta: dict[str, Any], data: dict[str, np.ndarray]) -> Policy:
    fvals = tuple(float(v) for v in meta["farkle_values"])
    batch = np.array(_batch_values(rules, (fvals[0], fvals[1], fvals[2])))
    tables = []
    for name, on_board in (("on", True), ("off", False)):
        top, a, forced = data[f"{name}_scalars"].tolist()
        tables.append(
            TurnTable(
                rules if on_board else rules.opening_scoring(),
                base_context(rules, on_board),
                batch,
                int(top),
                data[f"{name}_D"],
                data[f"{name}_R"],
                float(a),
                data[f"{name}_b"],
                bool(forced),
            )
        )
    return Policy(
        rules,
        (fvals[0], fvals[1], fvals[2]),
        float(meta["points_per_turn"]),
        float(meta["expected_turn_score"]),
        tables[0],
        tables[1],
        float(meta["seconds"]),
        tuple(float(v) for v in meta["loss"]),
    )
