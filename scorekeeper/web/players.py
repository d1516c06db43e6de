"""The players page (``/players``) and its API: ``GET /api/players``,
``POST /api/players/merge`` ``{"name": "bob", "into": "Bob"}`` (see ``review.players``)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, render_template

from scorekeeper.errors import ActionError
from scorekeeper.review.players import merge_names, player_histories
from scorekeeper.web.api import json_body
from scorekeeper.web.db import get_db
from scorekeeper.web.pages import CSP, TEMPLATE_DIR

bp = Blueprint("players", __name__, template_folder=str(TEMPLATE_DIR))


def _cache() -> str | None:
    cache = current_app.config.get("CACHE_DIR")
    return str(cache) if cache else None


def _players_json() -> dict[str, Any]:
    return {"players": [p.to_json() for p in player_histories(get_db(), _cache())]}


@bp.get("/players")
def players_page() -> Response:
    """Every player's record across the finished games, with charts and name merging."""
    body = render_template("players.html", title="Players", page_data={})
    resp = Response(body, mimetype="text/html")
    resp.headers["Content-Security-Policy"] = CSP
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Cache-Control"] = "no-cache"
    return resp


@bp.get("/api/players")
def players() -> Any:
    """Every player of the finished games: totals, rates, accuracy and luck per game."""
    return jsonify(_players_json())


@bp.post("/api/players/merge")
def merge() -> Any:
    """Count ``name`` as the same player as ``into`` from now on; answers the players."""
    body = json_body()
    if not isinstance(body, dict) or not all(
        isinstance(body.get(k), str) and body[k].strip() for k in ("name", "into")
    ):
        raise ActionError('the body must be {"name": "bob", "into": "Bob"}: two player names')
    merged = merge_names(get_db(), body["name"].strip(), body["into"].strip())
    return jsonify(merged=merged, **_players_json())
