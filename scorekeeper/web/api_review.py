"""``GET /api/games/<id>/review``: the game's review (cached per version; see ``review``)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify

from scorekeeper.review.service import stored_review
from scorekeeper.web.db import get_db

bp = Blueprint("review", __name__, url_prefix="/api")


@bp.get("/games/<game_id>/review")
def game_review(game_id: str) -> Any:
    """The review of one game (so far, while it is in play); 404 for an unknown game."""
    cache = current_app.config.get("CACHE_DIR")
    return jsonify(stored_review(get_db(), game_id, str(cache) if cache else None))
