"""The final standings of a game: every player ranked, ties sharing a rank (1st, 2nd, 2nd, 4th).

The winners (by the game's own rules: six 1s, a tie-break, an exact target) rank first; the
others follow by score, highest first; equal scores share a rank and the next rank skips.

>>> [s["place"] for s in standings([("Ann", 900), ("Bob", 1200), ("Cy", 900), ("Di", 300)], [1])]
['1st', '2nd', '2nd', '4th']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``21st``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def standings(players: Sequence[tuple[str, int]], winners: Sequence[int]) -> list[dict[str, Any]]:
    """Each player (name, score) ranked: ``{"rank", "place", "name", "score", "winner"}``,
    best first; seats in ``winners`` rank 1st together."""
    won = set(winners)

    def key(seat: int) -> tuple[bool, int]:
        return (seat not in won, -players[seat][1])

    order = sorted(range(len(players)), key=key)
    out: list[dict[str, Any]] = []
    for pos, seat in enumerate(order):
        name, score = players[seat]
        rank = out[-1]["rank"] if out and key(order[pos - 1]) == key(seat) else pos + 1
        out.append(
            {
                "rank": rank,
                "place": ordinal(rank),
                "name": name,
                "score": score,
                "winner": seat in won,
            }
        )
    return out


def standings_text(ranked: Sequence[dict[str, Any]]) -> str:
    """The standings in one line: ``1st Bob 1,200; 2nd Ann 900; 2nd Cy 900``."""
    return "; ".join(f"{s['place']} {s['name']} {s['score']:,}" for s in ranked)
