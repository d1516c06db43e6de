"""An independent, plain (slow, simple) solver of the two-player game, to check the fast one.

It shares nothing with ``scorekeeper.winprob`` but the rules and the scoring of one throw:
every raw legal keep of every throw (no grouping), turn totals relative to the turn's start,
and plain value iteration (no Newton steps) until no value moves by more than 1e-15. Dice
states: 1 to 6 "n dice left, may bank", 7 "a whole hand that must be thrown" (six dice, or
five under ``dice=5``).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from scorekeeper.rules import Rules, find_rules
from scorekeeper.scoring import table_for, throw_outcomes
from scorekeeper.winprob import solve_fresh

# the slow checks (minutes) run only when asked: SCOREKEEPER_SLOW_TESTS=1
SLOW = pytest.mark.skipif(
    os.environ.get("SCOREKEEPER_SLOW_TESTS") != "1", reason="slow: set SCOREKEEPER_SLOW_TESTS=1"
)

ROLL6 = 7


class Reference:
    """Plain value iteration over the whole two-player game of ``rules``."""

    def __init__(self, rules: Rules, margin: int) -> None:
        self.rules = rules
        self.unit = 50
        self.target = rules.target // 50
        self.margin = margin // 50
        table = table_for(rules)
        self.hand = hand = rules.dice
        hot = ROLL6 if rules.hot_dice == "must_roll" else hand
        self.plans = {}
        self.farkle = np.zeros(8)
        self.win = np.zeros(8)
        self.maxp = 0
        for n in range(1, hand + 1):
            probs, moves = [], []
            for counts, ways in throw_outcomes(n):
                p = ways / 6**n
                if n == 6 and rules.six_ones_win and counts == (6, 0, 0, 0, 0, 0):
                    self.win[n] += p
                    continue
                keeps = table.keeps(counts)
                if not keeps:
                    if n == 6 and rules.six_dice_farkle_bonus:
                        moves.append([(rules.six_dice_farkle_bonus // 50, ROLL6)])
                        probs.append(p)
                    else:
                        self.farkle[n] += p
                    continue
                opts = []
                for k in keeps:
                    left = n - len(k.dice)
                    opts.append((k.points // 50, hot if left == 0 else left))
                    self.maxp = max(self.maxp, k.points // 50)
                moves.append(opts)
                probs.append(p)
            self.maxp = max(self.maxp, rules.six_dice_farkle_bonus // 50)
            probs, moves = merge(probs, moves)
            width = max(len(m) for m in moves)
            dt = np.zeros((len(moves), width), dtype=int)
            ds = np.zeros((len(moves), width), dtype=int)
            ok = np.zeros((len(moves), width), dtype=bool)
            for r, opts in enumerate(moves):
                for c, (pt, st) in enumerate(opts):
                    dt[r, c], ds[r, c], ok[r, c] = pt, st, True
            self.plans[n] = (np.array(probs), dt, ds, ok)
        self.farkle[ROLL6] = self.farkle[hand]
        self.win[ROLL6] = self.win[hand]
        if rules.final_round:
            self.cap = self.target + max(self.margin, self.least(False))
        else:
            self.cap = self.target + self.least(False)

    def least(self, on_board: bool) -> int:
        """The least bankable turn total in units."""
        r = self.rules
        out = max(1, r.bank_minimum // 50)
        if not on_board:
            out = max(out, r.opening_minimum // 50)
        return out

    def on_board(self, score: int) -> bool:
        """Score 0 is off the board when there is an opening minimum."""
        return score > 0 or self.rules.opening_minimum == 0

    def turn(
        self,
        forced: np.ndarray,
        bank: np.ndarray,
        allowed: np.ndarray,
        farkle: np.ndarray,
        top: int,
    ) -> np.ndarray:
        """Values (rows, 8, batch) of a turn by backward induction over the turn total.

        Rows ``>= top`` take ``forced``; below, bank (where allowed) or throw.
        """
        rows = top + self.maxp + 1
        batch = farkle.shape[0]
        v = np.zeros((rows, 8, batch))
        v[top:] = forced[top:rows]
        for t in range(top - 1, -1, -1):
            roll = np.zeros((8, batch))
            for n in range(1, self.hand + 1):
                probs, dt, ds, ok = self.plans[n]
                got = v[t + dt, ds]  # (outcomes, keeps, batch)
                got = np.where(ok[:, :, None], got, -1.0)
                roll[n] = probs @ got.max(axis=1) + self.farkle[n] * farkle + self.win[n]
            roll[ROLL6] = roll[self.hand]
            here = np.where(allowed[t][None, :], np.maximum(roll, bank[t][None, :]), roll)
            here[ROLL6] = roll[ROLL6]
            here[0] = 0.0
            v[t] = np.where(forced_mask(forced, t), forced[t], here)
        return v

    def chase_all(self, leader: int) -> np.ndarray:
        """Each final-round chaser's chance (by score 0..target-1) to beat ``leader``."""
        chasers = np.arange(self.target)
        least = np.array([self.least(self.on_board(int(c))) for c in chasers])
        tie = None if self.rules.final_round_must_beat else self.tie_value()
        leaders = np.full(len(chasers), leader)
        return self.chase(chasers, leaders, least, tie, np.zeros(len(chasers)))

    def tie_value(self) -> float:
        """What banking a final-round tie is worth to the chaser."""
        if self.rules.tie_break == "shared":
            return 0.5
        if not hasattr(self, "_play_off"):
            self._play_off = self.play_off()
        return 1.0 - self._play_off

    def play_off(self) -> float:
        """The chance that the first player of a tie-break round wins the play-off.

        Both throw one turn, the first one first; the higher round total wins; a tied round
        (both farkling included) is played again. The second banks a tie when that is better.
        """
        least = self.least(True)
        cap = max(self.margin, least)
        rows = cap + self.maxp + 1
        totals = np.arange(rows)
        e = 0.5
        for _ in range(1000):
            second = self.chase(
                np.zeros(rows, dtype=int),
                totals,
                np.full(rows, least),
                1.0 - e,
                np.where(totals == 0, 1.0 - e, 0.0),
            )
            bank = (1.0 - second)[:, None]
            allowed = (totals >= least)[:, None]
            forced = np.full((rows, 8, 1), np.nan)
            forced[cap:, :, 0] = bank[cap:]
            v = self.turn(forced, bank, allowed, np.array([1.0 - second[0]]), cap)
            new = float(v[0, ROLL6, 0])
            if abs(new - e) <= 1e-15:
                return new
            e = new
        return e

    def chase(
        self,
        chasers: np.ndarray,
        leaders: np.ndarray,
        least: np.ndarray,
        tie: float | None,
        farkle: np.ndarray,
    ) -> np.ndarray:
        """One turn each (batch): the chance to end above the leader's score.

        ``tie``: the value of banking a tie (None: not allowed); ``farkle``: of farkling.
        """
        tops = np.maximum(leaders - chasers + 1, least) + 1
        top = int(tops.max())
        rows = top + self.maxp + 1
        t = np.arange(rows)[:, None]
        reach = chasers[None, :] + t
        may = t >= least[None, :]
        bank = np.where(may & (reach > leaders[None, :]), 1.0, 0.0)
        if tie is not None:
            bank = np.where(may & (reach == leaders[None, :]), tie, bank)
        allowed = may & (
            (reach > leaders[None, :]) | ((reach == leaders[None, :]) & (tie is not None))
        )
        # from ``tops`` on the chaser has won whenever banking is allowed; six dice that must
        # be thrown win unless they farkle (a tiny fixed point when all six may be kept again)
        w7 = 1.0
        for _ in range(400):
            w7 = self._roll_ahead(w7)
        forced = np.full((rows, 8, len(chasers)), np.nan)
        won = t >= tops[None, :]
        forced[:, 1:7, :] = np.where(won[:, None, :], 1.0, np.nan)
        forced[:, 0, :] = np.where(won, 1.0, np.nan)
        forced[:, ROLL6, :] = np.where(won, w7, np.nan)
        v = self.turn(forced, bank, allowed, farkle, top)
        out: np.ndarray = v[0, ROLL6]
        return out

    def _roll_ahead(self, w7: float) -> float:
        probs, _dt, ds, ok = self.plans[self.hand]
        vals = np.where(ds == ROLL6, w7, 1.0)
        vals = np.where(ok, vals, -1.0)
        return float(probs @ vals.max(axis=1) + self.win[self.hand])

    def solve(self, sweeps: int = 100000) -> np.ndarray:
        """``P[i, j]``: the player to throw on ``i`` units beats the one on ``j``."""
        size = self.target
        p = np.full((size, size), 0.5)
        chase: dict[int, np.ndarray] = {}
        for total in range(2 * size - 2, -1, -1):
            pairs = [(i, total - i) for i in range(size) if 0 <= total - i < size]
            me = np.array([a for a, _ in pairs])
            opp = np.array([b for _, b in pairs])
            top = self.cap - int(me.min())
            rows = top + self.maxp + 1
            bank = np.zeros((rows, len(pairs)))
            allowed = np.zeros((rows, len(pairs)), dtype=bool)
            forced = np.full((rows, 8, len(pairs)), np.nan)
            for b, (i, j) in enumerate(pairs):
                least = self.least(self.on_board(i))
                for t in range(rows):
                    u = i + t
                    if u < size:
                        value = 1.0 - p[j, u] if t > 0 else 0.0
                    elif self.rules.final_round:
                        if u not in chase:
                            chase[u] = self.chase_all(u)
                        value = 1.0 - float(chase[u][j])
                    else:
                        value = 1.0
                    bank[t, b] = value
                    allowed[t, b] = t >= least
                    if u >= self.cap:
                        forced[t, :, b] = value
            for _ in range(sweeps):
                farkle = 1.0 - p[opp, me]
                v = self.turn(forced, bank, allowed, farkle, top)
                new = v[0, ROLL6]
                change = float(np.max(np.abs(new - p[me, opp])))
                p[me, opp] = new
                if change <= 1e-15:
                    break
        return p


def merge(
    probs: list[float], moves: list[list[tuple[int, int]]]
) -> tuple[list[float], list[list[tuple[int, int]]]]:
    """Merge throws offering the same set of (points, next dice state) choices."""
    merged: dict[tuple[tuple[int, int], ...], float] = {}
    for p, opts in zip(probs, moves, strict=True):
        key = tuple(sorted(set(opts)))
        merged[key] = merged.get(key, 0.0) + p
    return list(merged.values()), [list(k) for k in merged]


def forced_mask(forced: np.ndarray, t: int) -> np.ndarray:
    """Where row ``t`` of ``forced`` holds a value (not NaN)."""
    return ~np.isnan(forced[t])


# -- the fast solver against the plain one --------------------------------------------------

CASES = [
    # a five-dice game (Greed): five dice a turn, hot dice re-roll five; with a final round
    ("standard", {"target": 300, "dice": 5, "partial_straight": 750}, 150),
    ("minimal", {"target": 800, "final_round": False, "dice": 5, "hot_dice": "must_roll"}, 0),
    # Busche & Neller's game: 1s, 5s and triples, first to bank the target wins
    ("minimal", {"target": 800, "final_round": False}, 0),
    # final round with must-beat, a 500 opening minimum, six-dice combinations
    ("standard", {"target": 300}, 150),
    # hot dice must roll, an opening minimum above the target
    ("original", {"target": 300}, 150),
    # doubling multiples, bank minimum 300, six-dice farkle bonus (no streak penalty)
    ("zilch-online", {"target": 500, "farkle_streak_penalty": 0, "final_round": False}, 0),
    # final-round ties may be banked and are played off in extra rounds
    ("minimal", {"target": 300, "final_round_must_beat": False}, 150),
    # final-round ties may be banked and are shared; six 1s win outright
    (
        "standard",
        {
            "target": 300,
            "final_round_must_beat": False,
            "tie_break": "shared",
            "six_ones_win": True,
            "opening_minimum": 0,
        },
        200,
    ),
]


@pytest.mark.parametrize(("preset", "overrides", "margin"), CASES)
def test_solver_agrees_with_plain_value_iteration(
    preset: str, overrides: dict[str, object], margin: int
) -> None:
    rules = find_rules(preset, overrides)
    fast = solve_fresh(rules, margin=margin).table
    plain = Reference(rules, margin).solve()
    assert fast.shape == plain.shape
    assert np.max(np.abs(fast - plain)) < 1e-9


@pytest.mark.slow
@SLOW
@pytest.mark.parametrize(
    ("preset", "overrides", "margin"),
    [
        ("minimal", {"target": 1000, "final_round": False}, 0),
        ("minimal", {"target": 3000, "final_round": False}, 0),
        ("standard", {"target": 1000}, 1000),
    ],
)
def test_solver_agrees_on_larger_targets(
    preset: str, overrides: dict[str, object], margin: int
) -> None:
    rules = find_rules(preset, overrides)
    fast = solve_fresh(rules, margin=margin).table
    plain = Reference(rules, margin).solve()
    assert np.max(np.abs(fast - plain)) < 1e-9


@pytest.mark.parametrize("preset", ["minimal", "original", "standard"])
def test_play_off_value_agrees_with_plain_iteration(preset: str) -> None:
    from scorekeeper.winprob.model import TurnModel
    from scorekeeper.winprob.tiebreak import play_off_value

    rules = find_rules(preset, {"target": 300, "final_round_must_beat": False})
    fast = play_off_value(rules, TurnModel.build(rules), 6)
    plain = Reference(rules, 300).play_off()
    assert fast == pytest.approx(plain, abs=1e-12)
    assert 0.3 < fast < 0.5  # the second player of a round knows what to beat
