"""The solved two-player game of one rules value, and its lookups.

A ``WinTable`` answers any position in a few milliseconds: the chance to win at the start of a
turn or inside one, and the value of every option of a throw (each legal keep followed by
banking or throwing on). ``solve_fresh`` builds one; ``scorekeeper.winprob.cache`` keeps them.

>>> from scorekeeper.rules import find_rules
>>> table = solve_fresh(find_rules("minimal", {"target": 500, "final_round": False}))
>>> 0.5 < table.p_win(0, 0) < 0.8, table.p_win(450, 0, turn_total=50, dice_left=3)
(True, 1.0)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scorekeeper.cache import LRU, load_npz, save_npz
from scorekeeper.errors import PositionError
from scorekeeper.rules import Rules
from scorekeeper.scoring import Dice, all_dice_word, table_for
from scorekeeper.strategy.model import UNIT
from scorekeeper.winprob.handicap import handicap_positions, handicap_turn, start_chances
from scorekeeper.winprob.model import MUST_ROLL, FloatArray, threshold
from scorekeeper.winprob.solver import DEFAULT_MARGIN, Geometry, solve_table, turn_single

SOLVER_VERSION = 2
HANDICAP_RANGE = 1000  # compensations solved with the table (points); more on demand
MEMORY_TURNS = 64

TurnKey = tuple[int, ...]  # (i, j) for a turn, (i, j, side) for a handicap turn


@dataclass(frozen=True)
class Option:
    """One option of a throw: a keep, then bank (None when not allowed) or throw on."""

    keep: Dice
    points: int
    turn_total: int
    dice_left: int
    bank: float | None
    roll: float
    hot: bool = False  # every die kept: the whole hand (six, or five) is thrown again

    @property
    def best(self) -> str:
        """``"bank"`` or ``"roll"``: the better way to go on after this keep."""
        return "bank" if self.bank is not None and self.bank >= self.roll else "roll"

    @property
    def value(self) -> float:
        """The chance to win after this keep, played on as well as possible."""
        return max(self.roll, self.bank if self.bank is not None else 0.0)

    def to_dict(self) -> dict[str, Any]:
        """JSON form, chances as floats."""
        return {
            "keep": self.keep.to_list(),
            "points": self.points,
            "turn_total": self.turn_total,
            "dice_left": self.dice_left,
            "bank": self.bank,
            "roll": self.roll,
            "best": self.best,
            "value": self.value,
        }


@dataclass
class WinTable:
    """The solved two-player game of one rules value (build it with ``solve_winprob``)."""

    rules: Rules
    table: FloatArray  # P[i, j] in units: the player to throw on i beats the one on j
    margin: int  # points past the target from which a final-round leader banks
    seconds: float  # how long the solve took
    passes: int  # turn passes the solver used
    start: FloatArray | None  # the first player's chance at the start, by compensation
    cache_path: Path | None = None  # where the table is cached (the handicaps join it later)
    handicap_seconds: float = 0.0  # how long the handicaps took (this process)
    # (q1, q2) of ``handicap_positions`` by compensation 0, 50, ...: turn starts against a
    # player off the board on starting points (with an opening minimum; else None)
    handicap_q: FloatArray | None = None
    _geo: Geometry | None = field(default=None, repr=False)
    _turns: LRU[TurnKey, tuple[FloatArray, FloatArray]] = field(
        default_factory=lambda: LRU(MEMORY_TURNS), repr=False
    )

    @property
    def geo(self) -> Geometry:
        """The solver's geometry (built on first use)."""
        if self._geo is None:
            self._geo = Geometry.build(self.rules, self.margin)
        return self._geo

    def p_first(self, my_score: int = 0, opp_score: int = 0) -> float:
        """The chance that the player about to start a turn on ``my_score`` wins."""
        return self.p_win(my_score, opp_score)

    def p_start(self, compensation: int = 0) -> float:
        """The first player's chance at the game's start, the second given ``compensation``.

        With an opening minimum the compensation does not put its player on the board.

        :raises PositionError: unless the compensation is a multiple of 50 below the target.
        """
        if (
            isinstance(compensation, bool)
            or not isinstance(compensation, int)
            or compensation < 0
            or compensation % UNIT
            or compensation >= self.rules.target
        ):
            raise PositionError(
                f"bad compensation {compensation!r}: it must be a multiple of 50 from 0 to "
                f"below the target {self.rules.target}"
            )
        c = compensation // UNIT
        if self.rules.opening_minimum == 0:
            return float(self.table[0, c])
        start = self.handicaps()
        if c < len(start):
            return float(start[c])
        return float(start_chances(self.geo, self.table, np.array([c]))[0])

    def handicaps(self, upto: int = HANDICAP_RANGE) -> FloatArray:
        """The first player's chance at the start by compensation 0, 50, ... ``upto`` points.

        Solved on first use when there is an opening minimum (about half a full solve), then
        kept with the table in the disk cache.
        """
        size = min(self.geo.target, upto // UNIT + 1) if self.rules.opening_minimum else 0
        if self.rules.opening_minimum == 0:
            out: FloatArray = self.table[0, : min(self.rules.target // UNIT, upto // UNIT + 1)]
            return out
        have = self.handicap_q
        if self.start is None or len(self.start) < size or have is None or have.shape[2] < size:
            began = time.perf_counter()
            q1, q2 = handicap_positions(self.geo, self.table, np.arange(size))
            self.handicap_q = np.stack([q1, q2])
            self.start = q1[0]
            self.handicap_seconds = time.perf_counter() - began
            if self.cache_path is not None:
                self.save(self.cache_path)
        return self.start

    def p_win(
        self,
        my_score: int,
        opp_score: int,
        turn_total: int = 0,
        dice_left: int | None = None,
        *,
        final_round: bool = False,
        must_roll: bool = False,
    ) -> float:
        """The chance to win from a position inside a turn, both players playing to win.

        ``final_round=True``: the opponent has banked ``opp_score`` at or above the target and
        this is my last turn (I must finish above it). A turn total of 0 is the turn's start
        (six dice). A score of 0 means not yet on the board when there is an opening minimum.
        ``must_roll``: six dice that must be thrown before banking (hot dice under
        ``hot_dice=must_roll``, or after a six-dice farkle bonus).

        :raises PositionError: on scores, turn total or dice impossible under the rules.
        """
        dice_left = self.rules.dice if dice_left is None else dice_left
        i, j, t = self._check(my_score, opp_score, turn_total, dice_left, final_round)
        state = (
            MUST_ROLL if must_roll and dice_left == self.rules.dice else self._state(t, dice_left)
        )
        if final_round:
            return float(self._chase(i, j, np.array([t]), np.array([state]))[0])
        u = i + t
        if t == 0:
            return float(self.table[i, j])
        if u >= self.geo.cap:
            return float(self._bank(i, j, u) or 0.0)
        return float(self._turn(i, j)[u, state])

    def option_values(
        self,
        my_score: int,
        opp_score: int,
        turn_total: int,
        throw: Dice | list[int] | str,
        *,
        final_round: bool = False,
    ) -> list[Option]:
        """Every legal keep of ``throw`` with the chance to win after banking or throwing on.

        The list is best first; it is empty when the throw farkles.

        :raises PositionError: on an impossible position (see ``p_win``).
        :raises DiceError: on a bad throw.
        """
        if isinstance(throw, Dice):
            dice = throw
        else:
            dice = Dice.parse(throw) if isinstance(throw, str) else Dice(throw)
        i, j, t = self._check(my_score, opp_score, turn_total, len(dice), final_round)
        least = int(self.geo.thresholds(np.array([i]))[0])

        def bank_of(after: int) -> float | None:
            return self._bank_final(i, j, after) if final_round else self._bank(i, j, i + after)

        return self._options(
            dice,
            t,
            least,
            lambda after, state: self._roll(i, j, after, state, final_round),
            bank_of,
        )

    def _options(
        self,
        dice: Dice,
        t: int,
        least: int,
        roll_of: Callable[[int, int], float],
        bank_of: Callable[[int], float | None],
    ) -> list[Option]:
        """Every keep of ``dice`` on a turn of ``t`` units, best first: ``roll_of(after, state)``
        values throwing on with ``after`` units, ``bank_of(after)`` banking them (from ``least``
        units, never while hot dice must be thrown)."""
        hot = MUST_ROLL if self.rules.hot_dice == "must_roll" else self.rules.dice
        out = []
        for keep in table_for(self.rules).keeps(dice.counts):
            after = t + keep.points // UNIT
            left = len(dice) - len(keep.dice)
            state = hot if left == 0 else left
            bank = bank_of(after) if after >= least and state != MUST_ROLL else None
            out.append(
                Option(
                    keep.dice,
                    keep.points,
                    after * UNIT,
                    left or self.rules.dice,
                    bank,
                    roll_of(after, state),
                    hot=left == 0,
                )
            )
        out.sort(key=lambda o: (-o.value, -o.points))
        return out

    def handicap_ready(self, starting_points: int) -> bool:
        """Whether positions against a player off the board on ``starting_points`` are solved
        (``handicaps`` solves them; without an opening minimum the table itself covers them).
        """
        if not self.rules.opening_minimum:
            return True
        q = self.handicap_q
        return q is not None and 0 <= starting_points // UNIT < q.shape[2]

    def handicap_p_win(
        self,
        my_score: int,
        opp_score: int,
        turn_total: int = 0,
        dice_left: int | None = None,
        *,
        off_board: str,
        must_roll: bool = False,
    ) -> float:
        """``p_win`` where one player is off the board on starting points (a handicap).

        ``off_board`` is ``"me"`` or ``"opp"``: who started on points and has not met the
        opening minimum yet; the other is on the board, or off it on 0. Not the final round.

        :raises PositionError: on an impossible position, or handicaps not solved yet.
        """
        values, _, _, _ = self._handicap_turn(my_score, opp_score, off_board)
        dice_left = self.rules.dice if dice_left is None else dice_left
        _, _, t = self._check(my_score, opp_score, turn_total, dice_left, False)
        state = (
            MUST_ROLL if must_roll and dice_left == self.rules.dice else self._state(t, dice_left)
        )
        u = min(my_score // UNIT + t, self.geo.rows - 1)
        return float(values[u, state])

    def handicap_options(
        self,
        my_score: int,
        opp_score: int,
        turn_total: int,
        throw: Dice | list[int],
        *,
        off_board: str,
    ) -> list[Option]:
        """``option_values`` where one player is off the board on starting points.

        :raises PositionError: as ``handicap_p_win``.
        """
        dice = throw if isinstance(throw, Dice) else Dice(throw)
        values, bank_at, farkle, least = self._handicap_turn(my_score, opp_score, off_board)
        i, _, t = self._check(my_score, opp_score, turn_total, len(dice), False)
        geo, model = self.geo, self.geo.model
        span = model.max_points + 1

        def roll_of(after: int, state: int) -> float:
            base = min(i + after, geo.cap)
            rows = np.ascontiguousarray(values[base : base + span]).reshape(span * 7, 1)
            n = self.rules.dice if state == MUST_ROLL else state
            return float(
                model.roll_values(rows, 0)[n - 1, 0] + model.farkle[n] * farkle + model.win[n]
            )

        return self._options(
            dice, t, least, roll_of, lambda after: float(bank_at[min(i + after, geo.rows - 1)])
        )

    def _handicap_turn(
        self, my_score: int, opp_score: int, off_board: str
    ) -> tuple[FloatArray, FloatArray, float, int]:
        if off_board not in ("me", "opp"):
            raise PositionError(f"off_board is 'me' or 'opp', not {off_board!r}")
        i, j, _ = self._check(my_score, opp_score, 0, self.rules.dice, False)
        c, x = (i, j) if off_board == "me" else (j, i)
        if not self.rules.opening_minimum or c == 0 or not self.handicap_ready(c * UNIT):
            raise PositionError(
                f"no solved handicap position for starting points {c * UNIT} (needs an opening"
                " minimum, points above 0, and the handicaps solved: WinTable.handicaps)"
            )
        assert self.handicap_q is not None
        q = self.handicap_q

        def solve() -> tuple[FloatArray, FloatArray]:
            values, bank, _, _ = handicap_turn(self.geo, self.table, q, x, c, off_board == "me")
            return values, bank

        found = self._turns.get_or_make((i, j, 1 if off_board == "me" else 2), solve)
        if off_board == "me":
            farkle, least = 1.0 - float(q[0, x, c]), threshold(self.rules, on_board=False)
        else:
            farkle, least = 1.0 - float(q[1, x, c]), int(self.geo.thresholds(np.array([x]))[0])
        return found[0], found[1], farkle, least

    def fair_compensation(self) -> int:
        """The second player's starting points that bring the first one nearest 50%.

        With an opening minimum the starting points do not put their player on the board.
        """
        start = self.handicaps()
        if start[-1] > 0.5 and len(start) < self.rules.target // UNIT:  # beyond the range
            start = self.handicaps(self.rules.target)
        return int(np.argmin(np.abs(start - 0.5))) * UNIT

    def save(self, path: Path) -> bool:
        """Write the table (and any handicaps) to the cache file ``path``; False on failure."""
        meta = {
            "rules": self.rules.cache_dict(),
            "version": SOLVER_VERSION,
            "margin": self.margin,
            "seconds": self.seconds,
            "passes": self.passes,
        }
        arrays = {
            "table": self.table,
            "start": self.start if self.start is not None else np.zeros(0),
        }
        if self.handicap_q is not None:
            arrays["handicap_q"] = self.handicap_q
        return save_npz(path, arrays, meta, compress=True)

    @classmethod
    def load(cls, path: Path, rules: Rules, margin: int) -> WinTable | None:
        """The table of ``rules`` saved at ``path``, or None when absent, damaged or stale."""
        found = load_npz(path, SOLVER_VERSION, rules.cache_dict())
        if found is None:
            return None
        try:
            arrays, meta = found.arrays, found.meta
            start = arrays["start"]
            return cls(
                rules,
                arrays["table"],
                margin,
                float(meta["seconds"]),
                int(meta["passes"]),
                start if len(start) else None,
                path,
                handicap_q=arrays.get("handicap_q"),
            )
        except (KeyError, ValueError, TypeError):
            return None

    # -- internals -------------------------------------------------------------------------

    def _check(
        self, my: int, opp: int, turn: int, dice: int, final_round: bool
    ) -> tuple[int, int, int]:
        target = self.rules.target
        for name, value in (("my_score", my), ("opp_score", opp), ("turn_total", turn)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value % UNIT:
                raise PositionError(f"bad {name} {value!r}: it must be a multiple of 50, 0 or more")
        most = self.rules.dice
        if isinstance(dice, bool) or not isinstance(dice, int) or not 1 <= dice <= most:
            raise PositionError(
                f"bad dice_left {dice!r}: it must be 1 to {most} (this table plays with"
                f" {most} dice)"
            )
        if turn == 0 and dice != most:
            raise PositionError(
                f"a turn starts with {all_dice_word(most)} dice: dice_left must be"
                f" {most} at turn total 0"
            )
        if my >= target:
            raise PositionError(f"my_score {my} has reached the target {target}: the game is over")
        if final_round:
            if opp < target:
                raise PositionError(
                    f"in the final round opp_score is the leader's, at least the target {target}"
                )
            if opp >= target + self.margin:
                raise PositionError(
                    f"opp_score {opp} is beyond what the table covers (target + {self.margin})"
                )
        elif opp >= target:
            raise PositionError(
                f"opp_score {opp} has reached the target {target}: pass final_round=True "
                "for the last turn of a final round"
            )
        return my // UNIT, opp // UNIT, turn // UNIT

    def _state(self, t: int, dice: int) -> int:
        if t == 0 or (dice == self.rules.dice and self.rules.hot_dice == "must_roll"):
            return MUST_ROLL
        return dice

    def warm_turn(self, my_score: int, opp_score: int) -> None:
        """Solve the turn of the player on ``my_score`` now, so its advice is a lookup.

        :raises PositionError: on scores impossible under the rules.
        """
        i, j, _ = self._check(my_score, opp_score, 0, self.rules.dice, False)
        self._turn(i, j)

    def _turn(self, i: int, j: int) -> FloatArray:
        """Every state's value of the turn of the player on ``i`` against ``j`` (cached)."""
        return self._turn_and_bank(i, j)[0]

    def _turn_and_bank(self, i: int, j: int) -> tuple[FloatArray, FloatArray]:
        """The turn's values and its bank values by score reached (cached, thread-safe)."""

        def solve() -> tuple[FloatArray, FloatArray]:
            geo = self.geo
            me = np.array([i])
            bank = geo.bank_values(self.table, me, np.array([j]))[:, 0]
            farkle = 1.0 - float(self.table[j, i])
            return turn_single(geo, i, bank, geo.allowed(me)[:, 0], farkle), bank

        return self._turns.get_or_make((i, j), solve)

    def _bank(self, i: int, j: int, u: int) -> float:
        geo = self.geo
        if u >= geo.target:
            bank = self._turn_and_bank(i, j)[1]
            return float(bank[min(u, geo.rows - 1)])
        return float(1.0 - self.table[j, u])

    def _bank_final(self, i: int, leader: int, t: int) -> float | None:
        if i + t > leader:
            return 1.0
        if i + t == leader and self.rules.final_round and not self.rules.final_round_must_beat:
            return 0.5
        return None

    def _chase(self, i: int, leader: int, turn: Any, state: Any) -> FloatArray:
        n = len(turn)
        return self.geo.chase(np.full(n, i), np.full(n, leader), turn, state)

    def _roll(self, i: int, j: int, t: int, state: int, final_round: bool) -> float:
        """The chance to win by throwing ``state``'s dice at turn total ``t`` (units)."""
        geo = self.geo
        model = geo.model
        span = model.max_points + 1
        if final_round:
            turns = np.repeat(t + np.arange(span), 7)
            states = np.tile(np.arange(7), span)
            rows = self._chase(i, j, turns, states).reshape(span * 7, 1)
            farkle = 0.0
        else:
            base = min(i + t, geo.cap)
            rows = np.ascontiguousarray(self._turn(i, j)[base : base + span]).reshape(span * 7, 1)
            farkle = 1.0 - float(self.table[j, i])
        n = self.rules.dice if state == MUST_ROLL else state
        roll = model.roll_values(rows, 0)[n - 1, 0]
        return float(roll + model.farkle[n] * farkle + model.win[n])


def solve_fresh(rules: Rules, *, margin: int = DEFAULT_MARGIN) -> WinTable:
    """Solve the game of ``rules`` afresh, bypassing every cache.

    :raises UnsupportedRulesError: for rules the solver cannot play (see ``check_supported``).
    """
    began = time.perf_counter()
    geo = Geometry.build(rules, margin)
    values, passes = solve_table(geo)
    seconds = time.perf_counter() - began
    return WinTable(rules, values, margin, seconds, passes, None, _geo=geo)
