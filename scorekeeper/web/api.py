"""The JSON API (``/api/...``): thin views that parse, call the engine and return JSON."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, request

from scorekeeper.rules import canonical_preset, find_rules, parse_assignments
from scorekeeper.scoring import Dice, legal_keeps

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.get("/score")
def score() -> Any:
    """``GET /api/score?dice=1,1,5&rules=standard&set=KEY=VALUE``: every legal keep."""
    name = canonical_preset(request.args.get("rules", "standard"))
    rules = find_rules(name, parse_assignments(request.args.getlist("set")))
    throw = Dice.parse(request.args.get("dice", ""))
    keeps = legal_keeps(throw, rules)
    return jsonify(
        dice=throw.to_list(),
        rules=name,
        farkle=not keeps,
        max={"keep": keeps[0].dice.to_list(), "points": keeps[0].points} if keeps else None,
        keeps=[k.to_dict() for k in keeps],
    )
