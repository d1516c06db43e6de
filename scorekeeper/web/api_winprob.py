"""Win chances at the table: ``GET /api/games/<id>/winprob`` and ``GET /api/winprob``.

A two-player game's rules are solved in the background the first time they are asked for
(``web.jobs``: a worker process, or a thread with ``WINPROB_WORKER=thread``), and cached on
disk under ``CACHE_DIR/winprob`` keyed by the rules' content, so the next game with the same
rules starts ready. Until then the answers say ``"status": "solving"`` and the pages keep
showing the expected-points advice. With more than two players, teams, or rules the solver
does not support, ``available`` is false with the reason in words.

The play and scoreboard pages load ``static/js/winprob.js``, the setup page
``static/js/winprob-setup.js`` (the fair handicap for two players).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, jsonify, request

from scorekeeper.errors import PositionError, RequestFieldError, UnsupportedRulesError
from scorekeeper.rules import Rules, named_rules
from scorekeeper.store import snapshot
from scorekeeper.web import jobs
from scorekeeper.web.db import get_db
from scorekeeper.web.params import bool_arg, int_field, opt_int_arg, rules_args
from scorekeeper.winprob import Option, WinTable, words
from scorekeeper.winprob.position import Chances, final_chances, position_chances, two_players

bp = Blueprint("winprob", __name__, url_prefix="/api")


def cache_dir() -> Path | None:
    """``CACHE_DIR/winprob`` from the app's config, or None for the user cache folder."""
    base = current_app.config.get("CACHE_DIR")
    return Path(base) / "winprob" if base else None


def ensure_solved(rules: Rules, start: bool = True, priority: int = jobs.ASKED) -> WinTable | None:
    """``jobs.ensure_solved`` with the app's cache folder and ``WINPROB_WORKER``."""
    kind = str(current_app.config.get("WINPROB_WORKER", "process"))
    return jobs.ensure_solved(rules, cache_dir(), kind, start, priority)


def option_json(o: Option) -> dict[str, Any]:
    """One option with its chances and a sentence a person reads at the table."""
    return {**o.to_dict(), "words": words.option(o)}


def final_json(state: Mapping[str, Any]) -> dict[str, Any]:
    """A finished game's body: 1 for the winner (shared on a tie), 0 for the others."""
    return {
        "available": True,
        "status": "over",
        "over": True,
        "chances": final_chances(state),
        "options": [],
    }


def game_chances(state: Mapping[str, Any], table: WinTable) -> dict[str, Any]:
    """The body of a ready answer for a game's state (see ``position_chances``).

    :raises PositionError: when the table does not cover the position.
    """
    if state.get("over"):
        return final_json(state)
    return chances_json(position_chances(state, table))


def chances_json(c: Chances) -> dict[str, Any]:
    """The body of a ready answer: both chances, the options, and the chance in words."""
    return {
        "available": True,
        "status": "ready",
        "player": c.player,
        "chances": {c.player: c.p_now, c.opponent: 1.0 - c.p_now},
        "options": [option_json(o) for o in c.options],
        "approximate": bool(c.approximate_for),
        "words": words.chances(c.player, c.p_now, c.approximate_for),
    }


@bp.get("/games/<game_id>/winprob")
def game_winprob(game_id: str) -> Any:
    """``GET /api/games/<id>/winprob``: live chances to win and the options' chances."""
    snap = snapshot(get_db(), game_id)
    seats = two_players(snap.state)
    if isinstance(seats, str):
        return jsonify(available=False, status="not_applicable", reason=seats)
    if snap.state.get("over"):  # the outcome is known: no solve for it
        return jsonify(final_json(snap.state))
    try:
        table = ensure_solved(snap.rules, priority=jobs.GAME)
    except UnsupportedRulesError as exc:
        return jsonify(available=False, status="unsupported", reason=str(exc))
    except RuntimeError as exc:
        return jsonify(available=False, status="failed", reason=str(exc))
    if table is None:
        return jsonify(available=False, status="solving", reason=words.SOLVING)
    try:
        return jsonify(game_chances(snap.state, table))
    except PositionError as exc:
        return jsonify(available=False, status="not_applicable", reason=str(exc))


MOST_POINTS = 1_000_000
"""The largest score or compensation ``/api/winprob`` accepts (the largest target)."""


def _scores_arg(raw: str | None) -> tuple[int, int] | None:
    """``scores=A,B`` as two numbers, or None when absent or empty."""
    if not raw:
        return None
    parts = raw.split(",")
    if len(parts) != 2:
        raise RequestFieldError(f"scores must be two numbers A,B, not {raw[:20]!r}")
    a, b = (int_field("scores", p.strip(), 0, MOST_POINTS) for p in parts)
    return a, b


@bp.get("/winprob")
def rules_winprob() -> Any:
    """``GET /api/winprob?rules=PRESET&set=K=V[&compensation=C|&scores=A,B][&solve=0]``.

    The first player's chance to win (at the start, the second given ``C`` starting points
    that do not put them on the board; or from scores ``A`` against ``B``) and the fairest
    compensation. Starts a background solve when the rules are new (``"status": "solving"``),
    unless ``solve=0`` (then ``"status": "not_solved"``).
    """
    args = request.args
    _, rules = named_rules(*rules_args(args))
    start = bool_arg(args, "solve", True)
    scores = _scores_arg(args.get("scores"))
    compensation = opt_int_arg(args, "compensation", 0, MOST_POINTS)
    try:
        table = ensure_solved(rules, start)
    except UnsupportedRulesError as exc:
        return jsonify(available=False, status="unsupported", reason=str(exc))
    except RuntimeError as exc:
        return jsonify(available=False, status="failed", reason=str(exc))
    key = rules.content_key()
    if table is None:
        status = "solving" if jobs.solving(rules) else "not_solved"
        return jsonify(available=False, status=status, key=key)
    try:
        p_first = table.p_win(*scores) if scores else table.p_start(compensation or 0)
    except PositionError as exc:
        raise PositionError(
            f"bad scores or compensation: {exc} (write scores=A,B or compensation=C, "
            "multiples of 50 below the target)"
        ) from exc
    return jsonify(
        available=True,
        status="ready",
        key=key,
        p_first=p_first,
        fair_compensation=table.fair_compensation(),
        seconds=table.seconds,
    )
