"""The win chances in words, as the table reads them: percents, options and reasons.

>>> percent(0.5), percent(0.0013), percent(None)
('50%', '0.13%', '–')
"""

from __future__ import annotations

from scorekeeper.winprob.table import Option

TEAMS = "Win chances are for two players without teams: expected-points advice."
NO_THROWER = "No player is throwing."
SOLVING = "Working out the chances to win for these rules; expected-points advice meanwhile."


def player_count(count: int) -> str:
    """Why a game of ``count`` players gets expected-points advice instead of win chances."""
    return (
        f"Win chances are for two players; with {count} the advice maximises expected "
        "points (with the exact final-round play)."
    )


def percent(p: float | None) -> str:
    """A chance in words: whole percents, two decimals near 0 and 1 (0.13%, 99.87%)."""
    if p is None:
        return "–"
    if 0.0 < p < 0.01 or 0.99 < p < 1.0:
        return f"{100 * p:.2f}%"
    return f"{round(100 * p)}%"


def option(o: Option) -> str:
    """One option as a sentence a person reads at the table."""
    if o.hot or o.dice_left == 6:
        throw = f"Throw {o.dice_left} dice again"
    else:
        throw = f"Throw {o.dice_left} {'die' if o.dice_left == 1 else 'dice'}"
    parts = []
    if o.bank is not None:
        parts.append(f"Bank {o.turn_total}: you win {percent(o.bank)}.")
    parts.append(f"{throw}: {percent(o.roll)}.")
    return f"Keep {o.keep}. " + " ".join(parts)


def chances(player: str, p_now: float, approximate_for: list[str]) -> str:
    """The player's chance from here; ``approximate_for``: players off the board on points."""
    words = f"{player} wins {percent(p_now)} of the time from here."
    if approximate_for:
        who = " and ".join(approximate_for)
        words += (
            f" Approximate until {who} {'is' if len(approximate_for) == 1 else 'are'} on the"
            " board: the chances count starting points as if on the board."
        )
    return words
