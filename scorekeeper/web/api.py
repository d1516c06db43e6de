"""The JSON API (``/api/...``): thin views that parse, call the engine and return JSON.

Games: ``POST /api/games``, ``GET /api/games``, ``GET /api/games/<id>``,
``DELETE /api/games/<id>``, ``POST /api/games/<id>/rematch``,
``POST /api/games/<id>/actions``, ``POST /api/games/<id>/corrections/preview``, the export
and event-stream views of :mod:`scorekeeper.web.api_stream`;
scoring: ``GET /api/score``, ``GET /api/suggest``.
Errors are ``{"error": code, "message": words}`` with 400 (malformed), 401/403 (no or wrong
control token), 404, 409 (stale version or stale undo, with the current ``version`` and
``state``), 413 and
422 (against the rules).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from scorekeeper.errors import ActionError, ControlTokenError, StaleUndoError, StaleVersionError
from scorekeeper.game.actions import clean_name, parse_action, parse_setup
from scorekeeper.game.corrections import correction_event, preview_correction
from scorekeeper.game.log import replay
from scorekeeper.game.rematch import parse_order, rematch_body
from scorekeeper.game.teams import team_draw
from scorekeeper.rules import named_rules
from scorekeeper.scoring import Dice, check_tripled, keeps_report
from scorekeeper.store import (
    Snapshot,
    append,
    check_token,
    create_game,
    delete_game,
    list_games,
    read_log,
    snapshot,
)
from scorekeeper.web.api_advice import AdviceSettings, suggest, with_advice
from scorekeeper.web.db import get_db
from scorekeeper.web.params import faces_arg, int_arg, parse_json, rules_args, text_arg
from scorekeeper.web.ratelimit import check_new_game

bp = Blueprint("api", __name__, url_prefix="/api")

COOKIE_PREFIX = "sk_token_"
COOKIE_MAX_AGE = 30 * 24 * 3600


def request_token(game_id: str) -> str | None:
    """The control token sent with the request: ``Authorization: Bearer`` or the cookie."""
    auth = request.headers.get("Authorization", "")
    scheme, _, value = auth.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return request.cookies.get(COOKIE_PREFIX + game_id) or None


def require_control(game_id: str) -> None:
    """Refuse unless the request carries the game's control token.

    :raises GameNotFoundError: when there is no such game.
    :raises ControlTokenError: when the token is missing (401) or wrong (403).
    """
    token = request_token(game_id)
    if check_token(get_db(), game_id, token):  # an unknown game is 404 before any 401
        return
    if token is None:
        raise ControlTokenError(
            "this game is read-only without its control token: send Authorization: Bearer"
            " TOKEN (the token given when the game was created)",
            missing=True,
        )
    raise ControlTokenError("that is not this game's control token", missing=False)


def json_body() -> Any:
    """The request's JSON body (the guard has checked its Content-Type), bounded in nesting.

    :raises ActionError: when there is no body.
    :raises RequestFieldError: when it is not JSON, nests too deep or holds a lone surrogate.
    """
    data = request.get_data(cache=True)
    if not data:
        raise ActionError("the body must be JSON (Content-Type: application/json)")
    return parse_json(data)


def advice_settings() -> AdviceSettings:
    """The app's advice settings: ``ADVICE`` (on/off), ``ADVICE_WAIT_S``, ``CACHE_DIR`` and
    ``ADVICE_WORKER`` (``thread``, or ``process``: a worker process, as ``serve`` uses)."""
    cfg = current_app.config
    cache = cfg["CACHE_DIR"]
    return AdviceSettings(
        enabled=bool(cfg["ADVICE"]),
        wait=float(cfg["ADVICE_WAIT_S"]),
        cache_dir=str(cache) if cache else None,
        in_process=cfg["ADVICE_WORKER"] == "process",
    )


def game_json(snap: Snapshot, settings: AdviceSettings | None = None) -> dict[str, Any]:
    """The response body for one game: id, version and state (with advice when available)."""
    state = with_advice(snap, settings if settings is not None else advice_settings())
    return {"id": snap.id, "version": snap.version, "state": state}


@bp.get("/score")
def score() -> Any:
    """``GET /api/score?dice=1,1,5&rules=standard&set=KEY=VALUE``: every legal keep
    (``tripled=6``: under ``triple_addon``, the faces kept as triples earlier in the turn)."""
    name, rules = named_rules(*rules_args(request.args))
    throw = Dice.parse(text_arg(request.args, "dice", "", 40))
    tripled = check_tripled(rules, faces_arg(request.args, "tripled", "6"))
    return jsonify(dice=throw.to_list(), rules=name, **keeps_report(throw, rules, tripled))


@bp.get("/suggest")
def suggest_view() -> Any:
    """``GET /api/suggest?dice=..&rules=..&set=..&turn_total=..&banked=..``: the advisor."""
    return jsonify(suggest(request.args, advice_settings().cache_dir))


@bp.post("/teams/draw")
def draw_teams() -> Any:
    """``POST /api/teams/draw`` ``{"players": [...], "teams": K, "names": [...]}``: teams drawn
    by fair virtual dice, to send back as the new game's ``team_draw`` (nothing is stored)."""
    body = json_body()
    if not isinstance(body, dict) or set(body) - {"players", "teams", "names"}:
        raise ActionError('the body must be {"players": ["Ann", "Bob", ...], "teams": 2}')
    players = body.get("players")
    if not isinstance(players, list) or len(players) < 2:
        raise ActionError("a team draw needs the players' names: two or more")
    names = [clean_name(p) for p in players]
    labels = body.get("names")
    if labels is not None:
        if not isinstance(labels, list):
            raise ActionError("names must list the team names")
        labels = [clean_name(t, "a team name") for t in labels]
    draw = team_draw(names, body.get("teams"), team_names=labels)
    return jsonify({**draw.to_json(), "assignment": draw.assignment})


@bp.post("/games")
def new_game() -> Any:
    """Create a game; 201 with its id, control token (shown once), version 0 and state."""
    return created_game(parse_setup(json_body()))


@bp.post("/games/<game_id>/rematch")
def rematch(game_id: str) -> Any:
    """``{"order": "keep" | "rotate"}``: a new game with this game's players (still at the
    table), teams, starting points, preset and every option; control token of this game
    needed; 201 as ``POST /api/games``, with ``rematch_of``."""
    conn = get_db()
    require_control(game_id)
    body = json_body() if request.content_length else {}
    if not isinstance(body, dict) or set(body) - {"order"}:
        raise ActionError('the body must be {"order": "keep"} or {"order": "rotate"} (or empty)')
    order = parse_order(body.get("order"))
    _version, _created, events = read_log(conn, game_id)
    create = parse_setup(rematch_body(events[0], replay(events), order))
    create["rematch_of"] = game_id
    return created_game(create)


def created_game(create: dict[str, Any]) -> Any:
    """Store the checked ``create`` event; the 201 answer with the control token's cookie.

    :raises TooManyRequests: when this address has started too many games lately.
    """
    check_new_game()
    conn = get_db()
    game_id, token = create_game(conn, create)
    body = {
        "id": game_id,
        "control_token": token,
        "version": 0,
        "preset": create["preset"],
        "rules": create["rules"],
        "state": game_json(snapshot(conn, game_id))["state"],
    }
    if "rematch_of" in create:
        body["rematch_of"] = create["rematch_of"]
    resp = jsonify(body)
    resp.status_code = 201
    resp.headers["Location"] = f"/api/games/{game_id}"
    resp.set_cookie(
        COOKIE_PREFIX + game_id,
        token,
        max_age=COOKIE_MAX_AGE,
        path="/",
        samesite="Strict",
        httponly=False,
    )
    return resp


@bp.get("/games")
def games() -> Any:
    """The latest games, newest first (``?limit=N``, 1 to 500, default 50)."""
    limit = int_arg(request.args, "limit", 50, 1, 500)
    return jsonify(games=list_games(get_db(), limit))


@bp.get("/games/<game_id>")
def get_game(game_id: str) -> Any:
    """One game: id, version, preset, rules, whether this request controls it, and state."""
    conn = get_db()
    snap = snapshot(conn, game_id)
    token = request_token(game_id)
    body = game_json(snap)
    body.update(
        preset=snap.preset,
        rules=snap.rules.to_dict(),
        created_at=snap.created_at,
        control=bool(token) and check_token(conn, game_id, token),
    )
    return jsonify(body)


@bp.delete("/games/<game_id>")
def delete_game_view(game_id: str) -> Any:
    """Delete a game for good: control token and ``{"confirm": "<the game's id>"}`` needed;
    200 ``{"deleted": id}``."""
    conn = get_db()
    require_control(game_id)
    body = json_body() if request.content_length else None
    if not isinstance(body, dict) or set(body) != {"confirm"} or body["confirm"] != game_id:
        raise ActionError(
            f'deleting a game cannot be undone: confirm with the body {{"confirm": "{game_id}"}}'
            " (the game's id)"
        )
    delete_game(conn, game_id)
    resp = jsonify(deleted=game_id)
    resp.delete_cookie(COOKIE_PREFIX + game_id, path="/", samesite="Strict")
    return resp


@bp.post("/games/<game_id>/actions")
def act(game_id: str) -> Any:
    """Apply one action ``{"version": N, "type": ..., ...}``; 200 with the new version and state."""
    conn = get_db()
    require_control(game_id)
    body = json_body()
    if not isinstance(body, dict):
        raise ActionError('the body must be a JSON object like {"version": 3, "type": "bank"}')
    version = body.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise ActionError(
            "an action needs version: the game version it was based on (a whole number)"
        )
    event = parse_action(body)
    try:
        done = append(conn, game_id, version, event)
    except (StaleVersionError, StaleUndoError) as exc:
        code = "stale_undo" if isinstance(exc, StaleUndoError) else "stale_version"
        out = {"error": code, "message": str(exc), **game_json(snapshot(conn, game_id))}
        return jsonify(out), 409
    return jsonify(game_json(done))


@bp.post("/games/<game_id>/corrections/preview")
def preview_correction_view(game_id: str) -> Any:
    """What correcting a past turn ``{"turn": N, "actions": [...]}`` would change, or why it
    would be refused; nothing is stored (save it as a ``correct`` action)."""
    conn = get_db()
    require_control(game_id)
    body = json_body()
    if not isinstance(body, dict) or set(body) - {"turn", "actions", "version"}:
        raise ActionError(
            'the body must be a JSON object {"turn": N, "actions": [...]} (the turn\'s throws,'
            " keeps and bank, as in a correct action)"
        )
    event = correction_event(body.get("turn"), body.get("actions"))
    version, _created, events = read_log(conn, game_id)
    return jsonify({"version": version, **preview_correction(events, event)})


def sse_response(body: Any) -> Response:
    """A ``text/event-stream`` response that proxies and browsers do not buffer."""
    resp = Response(body, mimetype="text/event-stream")
    resp.headers["Cache-Control"] = "no-cache"
    resp.headers["X-Accel-Buffering"] = "no"
    return resp
