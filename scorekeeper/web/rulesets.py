"""Saved house rules (``/api/rulesets``): a table saves a named rule set, picks it in setup,
exports and imports it as JSON. Thin views over :mod:`scorekeeper.store.rulesets`."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, request

from scorekeeper.errors import RulesError
from scorekeeper.store.rulesets import (
    delete_ruleset,
    exported,
    get_ruleset,
    list_rulesets,
    parse_ruleset,
    save_ruleset,
)
from scorekeeper.web.api import json_body
from scorekeeper.web.db import get_db
from scorekeeper.web.params import text_arg

bp = Blueprint("rulesets", __name__, url_prefix="/api/rulesets")


@bp.get("")
def rulesets() -> Any:
    """Every saved rule set, by name: ``{"rulesets": [{"name", "preset", "overrides",
    "updated_at"}]}``."""
    return jsonify(rulesets=list_rulesets(get_db()))


@bp.post("")
def save() -> Any:
    """Save (or import) ``{"name", "preset", "overrides"}`` (an export's ``format`` and
    ``version`` allowed); a rule set of the same name is replaced. 201 with the stored set."""
    ruleset = parse_ruleset(json_body())
    replaced = save_ruleset(get_db(), ruleset)
    return jsonify(ruleset=exported(ruleset), replaced=replaced), 201


@bp.get("/export")
def export() -> Any:
    """``?name=NAME``: the rule set as a JSON file to keep or take to another server."""
    name = text_arg(request.args, "name", "", 80)
    if not name:
        raise RulesError("say which rule set to export: ?name=NAME")
    body = exported(get_ruleset(get_db(), name))
    resp = jsonify(body)
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in name)
    resp.headers["Content-Disposition"] = f'attachment; filename="rules-{safe}.json"'
    return resp


@bp.delete("")
def delete() -> Any:
    """``{"name": NAME}``: forget a saved rule set; 200 ``{"deleted": NAME}``."""
    body = json_body()
    if not isinstance(body, dict) or set(body) != {"name"} or not isinstance(body["name"], str):
        raise RulesError('say which rule set to delete: {"name": "Friday night"}')
    delete_ruleset(get_db(), body["name"])
    return jsonify(deleted=body["name"])
