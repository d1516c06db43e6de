"""Win chances at the table: ``GET /api/games/<id>/winprob`` and ``GET /api/winprob``.

A two-player game's rules are solved in the background the first time they are asked for
(in a worker process, or a thread with ``WINPROB_WORKER=thread``), and cached on disk under
``CACHE_DIR/winprob`` keyed by the rules' content, so the next game with the same rules starts
ready. Until then the answers say ``"status": "solving"`` and the pages keep showing the
expected-points advice. With more than two players, teams, or rules the solver does not
support, ``available`` is false with the reason in words.

The play and scoreboard pages load ``static/js/winprob.js`` (the pages' optional modules), the
setup page ``static/js/winprob-setup.js`` (the fair handicap for two players); an
``after_app_request`` hook adds them to a page that does not load them already.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Mapping
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, url_for

from scorekeeper.errors import PositionError, UnsupportedRulesError
from scorekeeper.rules import Rules, named_rules
from scorekeeper.scoring import Dice
from scorekeeper.store import snapshot
from scorekeeper.web.api_advice import exit_with_parent
from scorekeeper.winprob import Option, WinTable, cached_winprob, solve_winprob
from scorekeeper.winprob_model import check_supported

bp = Blueprint("winprob", __name__, url_prefix="/api")

PAGES = {
    "pages.play": "js/winprob.js",
    "pages.board": "js/winprob.js",
    "pages.home": "js/winprob-setup.js",
}

_lock = threading.Lock()
_running: dict[str, Future[None]] = {}
_failed: dict[str, str] = {}
_executors: dict[str, Executor] = {}


def cache_dir() -> Path | None:
    """``CACHE_DIR/winprob`` from the app's config, or None for the user cache folder."""
    base = current_app.config.get("CACHE_DIR")
    return Path(base) / "winprob" if base else None


def _solve(rules_dict: dict[str, Any], folder: str | None) -> None:
    """Worker: solve the rules and write the table to the disk cache."""
    solve_winprob(Rules.from_dict(rules_dict), folder)


def _executor(kind: str) -> Executor:
    found = _executors.get(kind)
    if found is None:
        if kind == "thread":
            found = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sk-winprob")
        else:
            ctx = multiprocessing.get_context("spawn")
            found = ProcessPoolExecutor(
                max_workers=1,
                mp_context=ctx,
                initializer=exit_with_parent,
                initargs=(os.getpid(),),
            )
        _executors[kind] = found
    return found


def stop_background_solves() -> None:
    """Stop the running background solves at once (a server shutting down calls this).

    A process pool otherwise waits at interpreter exit for a solve of a minute or more.
    """
    with _lock:
        executors = list(_executors.values())
        _executors.clear()
        _running.clear()
    for executor in executors:
        if isinstance(executor, ProcessPoolExecutor):
            # No public API stops a running task; terminating the workers is the only way.
            for proc in list((getattr(executor, "_processes", None) or {}).values()):
                proc.terminate()
        executor.shutdown(wait=False, cancel_futures=True)


def ensure_solved(rules: Rules, start: bool = True) -> WinTable | None:
    """The solved table when ready; otherwise start (or keep) a background solve, None.

    ``start=False`` only looks: no new solve is started.

    :raises UnsupportedRulesError: for rules the solver cannot play.
    """
    check_supported(rules)
    folder = cache_dir()
    table = cached_winprob(rules, folder)
    if table is not None:
        return table
    key = rules.content_key()
    with _lock:
        if not start and key not in _running:
            return None
        if key in _failed:
            raise RuntimeError(_failed[key])
        job = _running.get(key)
        if job is not None and job.done():
            _running.pop(key)
            error = job.exception()
            if error is not None:
                _failed[key] = f"the win-probability solve failed: {error}"
                raise RuntimeError(_failed[key])
            return cached_winprob(rules, folder)
        if job is None:
            kind = str(current_app.config.get("WINPROB_WORKER", "process"))
            where = str(folder) if folder else None
            _running[key] = _executor(kind).submit(_solve, rules.to_dict(), where)
    return None


def _percent(p: float | None) -> str:
    """A chance in words: whole percents, two decimals near 0 and 1 (0.13%, 99.87%)."""
    if p is None:
        return "–"
    if 0.0 < p < 0.01 or 0.99 < p < 1.0:
        return f"{100 * p:.2f}%"
    return f"{round(100 * p)}%"


def option_json(o: Option) -> dict[str, Any]:
    """One option with its chances and a sentence a person reads at the table."""
    if o.dice_left == 6:
        throw = "Throw 6 dice again"
    else:
        throw = f"Throw {o.dice_left} {'die' if o.dice_left == 1 else 'dice'}"
    parts = []
    if o.bank is not None:
        parts.append(f"Bank {o.turn_total}: you win {_percent(o.bank)}.")
    parts.append(f"{throw}: {_percent(o.roll)}.")
    return {**o.to_dict(), "words": f"Keep {o.keep}. " + " ".join(parts)}


def _two_players(state: Mapping[str, Any]) -> tuple[int, int] | str:
    """The seats of the player to throw and the opponent, or why win chances do not apply."""
    if state.get("teams"):
        return "Win chances are for two players without teams: expected-points advice."
    seats = [i for i, p in enumerate(state["players"]) if p.get("active", True)]
    if len(seats) != 2:
        return (
            f"Win chances are for two players; with {len(seats)} the advice maximises expected "
            "points (with the exact final-round play)."
        )
    cur = int(state["current"])
    if cur not in seats:
        return "No player is throwing."
    return cur, seats[0] if seats[1] == cur else seats[1]


def final_chances(state: Mapping[str, Any]) -> dict[str, Any]:
    """A finished game's chances: 1 for the winner (shared on a tie), 0 for the others; no
    table is needed (``"status": "over"``)."""
    winners = set(state.get("winners") or [])
    share = 1.0 / len(winners) if winners else 0.0
    return {
        "available": True,
        "status": "over",
        "over": True,
        "chances": {p["name"]: share if p["name"] in winners else 0.0 for p in state["players"]},
        "options": [],
    }


def game_chances(state: Mapping[str, Any], table: WinTable) -> dict[str, Any]:
    """Each player's chance to win now, and every option of the pending throw."""
    players = state["players"]
    seats = _two_players(state)
    assert not isinstance(seats, str)
    cur, other = seats
    me, opp = players[cur], players[other]
    if state.get("over"):
        return final_chances(state)
    turn = state["turn"]
    total, dice = int(turn["total"]), int(turn["dice_left"])
    final = bool(state.get("final_round")) and state.get("to_beat") is not None
    opp_score = int(state["to_beat"]) if final else int(opp["score"])
    if final and (opp["score"] != opp_score or state.get("leader") != opp["name"]):
        raise PositionError("a tie-break round is not covered by the win-probability table")
    handicapped = _off_board_with_points(state, table)
    off = _exact_handicap(handicapped, me, opp, final, table)
    approximate = bool(handicapped) and off is None
    options: list[dict[str, Any]] = []
    throw = turn.get("throw")
    must_roll = bool(turn.get("must_roll"))
    if throw:
        if off is not None:
            found = table.handicap_options(
                me["score"], opp_score, total, Dice(throw), off_board=off
            )
        else:
            found = table.option_values(
                me["score"], opp_score, total, Dice(throw), final_round=final
            )
        options = [option_json(o) for o in found]
        if found:
            p_now = found[0].value
        elif final:
            p_now = 0.0
        elif off is not None:  # a farkle: the opponent throws next, the scores unchanged
            swapped = "opp" if off == "me" else "me"
            p_now = 1.0 - table.handicap_p_win(opp_score, me["score"], off_board=swapped)
        else:
            p_now = 1.0 - table.p_win(opp_score, me["score"])
    elif off is not None:
        dice_now = dice if total else 6
        p_now = table.handicap_p_win(
            me["score"], opp_score, total, dice_now, off_board=off, must_roll=must_roll
        )
    else:
        p_now = table.p_win(
            me["score"],
            opp_score,
            total,
            dice if total else 6,
            final_round=final,
            must_roll=must_roll,
        )
        if not final:
            table.warm_turn(me["score"], opp_score)  # the throw's advice is then a lookup
    words = f"{me['name']} wins {_percent(p_now)} of the time from here."
    if approximate:
        who = " and ".join(handicapped)
        words += (
            f" Approximate until {who} {'is' if len(handicapped) == 1 else 'are'} on the board:"
            " the chances count starting points as if on the board."
        )
    return {
        "available": True,
        "status": "ready",
        "player": me["name"],
        "chances": {me["name"]: p_now, opp["name"]: 1.0 - p_now},
        "options": options,
        "approximate": approximate,
        "words": words,
    }


def _exact_handicap(
    handicapped: list[str],
    me: Mapping[str, Any],
    opp: Mapping[str, Any],
    final: bool,
    table: WinTable,
) -> str | None:
    """``"me"`` or ``"opp"``: who is off the board on starting points, when the table's
    handicap positions cover the position exactly (one such player, not the final round, the
    handicaps solved; a page's request never waits for them); else None."""
    if len(handicapped) != 1 or final:
        return None
    who = me if me["name"] == handicapped[0] else opp
    if not table.handicap_ready(int(who["score"])):
        return None
    return "me" if who is me else "opp"


def _off_board_with_points(state: Mapping[str, Any], table: WinTable) -> list[str]:
    """The players who started on points (a handicap) and are not on the board yet.

    The main table's only off-the-board score is 0; the handicap positions
    (``WinTable.handicap_p_win``) cover one such player outside the final round, and the
    chances are approximate otherwise (starting points counted as if on the board) until they
    meet the opening minimum. Without an opening minimum being on the board does not matter.
    """
    if not table.rules.opening_minimum:
        return []
    return [
        str(p["name"])
        for p in state["players"]
        if p.get("active", True) and not p.get("on_board") and int(p["score"]) > 0
    ]


@bp.get("/games/<game_id>/winprob")
def game_winprob(game_id: str) -> Any:
    """``GET /api/games/<id>/winprob``: live chances to win and the options' chances."""
    from scorekeeper.web.api import get_db

    snap = snapshot(get_db(), game_id)
    seats = _two_players(snap.state)
    if isinstance(seats, str):
        return jsonify(available=False, status="not_applicable", reason=seats)
    if snap.state.get("over"):  # the outcome is known: no solve for it
        return jsonify(final_chances(snap.state))
    try:
        table = ensure_solved(snap.rules)
    except UnsupportedRulesError as exc:
        return jsonify(available=False, status="unsupported", reason=str(exc))
    except RuntimeError as exc:
        return jsonify(available=False, status="failed", reason=str(exc))
    if table is None:
        return jsonify(
            available=False,
            status="solving",
            reason="Working out the chances to win for these rules; expected-points advice "
            "meanwhile.",
        )
    try:
        return jsonify(game_chances(snap.state, table))
    except PositionError as exc:
        return jsonify(available=False, status="not_applicable", reason=str(exc))


@bp.get("/winprob")
def rules_winprob() -> Any:
    """``GET /api/winprob?rules=PRESET&set=K=V[&compensation=C|&scores=A,B][&solve=0]``.

    The first player's chance to win (at the start, the second given ``C`` starting points
    that do not put them on the board; or from scores ``A`` against ``B``) and the fairest
    compensation. Starts a background solve when the rules are new (``"status": "solving"``),
    unless ``solve=0`` (then ``"status": "not_solved"``).
    """
    args = request.args
    _, rules = named_rules(args.get("rules", "standard"), args.getlist("set"))
    start = args.get("solve", "1") not in {"0", "false", "no"}
    try:
        table = ensure_solved(rules, start)
    except UnsupportedRulesError as exc:
        return jsonify(available=False, status="unsupported", reason=str(exc))
    except RuntimeError as exc:
        return jsonify(available=False, status="failed", reason=str(exc))
    key = rules.content_key()
    if table is None:
        status = "solving" if key in _running else "not_solved"
        return jsonify(available=False, status=status, key=key)
    try:
        if args.get("scores"):
            a, b = (int(x) for x in args["scores"].split(","))
            p_first = table.p_win(a, b)
        else:
            p_first = table.p_start(int(args.get("compensation", "0")))
    except ValueError as exc:  # PositionError is one; so is a bad number
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


@bp.after_app_request
def add_script(response: Response) -> Response:
    """Add the win-chance script of ``PAGES`` to its page unless the page loads it already."""
    module = PAGES.get(request.endpoint or "")
    if module and response.status_code == 200 and response.mimetype == "text/html":
        src = url_for("pages.static", filename=module)
        html = response.get_data(as_text=True)
        tag = f'<script type="module" src="{src}"></script>\n</body>'
        if f'src="{src}"' not in html and "</body>" in html:
            response.set_data(html.replace("</body>", tag, 1))
    return response
