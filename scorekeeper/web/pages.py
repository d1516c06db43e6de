"""The HTML pages: setup (``/``), tablet play page, projector board, history and score sheet.

The pages are plain templates plus JavaScript modules from the repository's ``static/`` folder
(served at ``/static/``); everything live comes from the JSON API and its event stream. This
blueprint also serves ``/api/rules/options`` (every rules option and preset, for the setup
page) and the board's QR code as SVG.
"""

from __future__ import annotations

import functools
import io
import ipaddress
import re
import socket
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import segno
from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request

from scorekeeper.game.actions import MAX_NAME, MAX_PLAYERS, game_limits
from scorekeeper.rules import PRESET_HELP, PRESETS, describe_options
from scorekeeper.web.params import text_arg

PACKAGE_DIR = Path(__file__).resolve().parent.parent
TEMPLATE_DIR = PACKAGE_DIR / "templates"


def find_static_dir() -> Path:
    """The ``static/`` folder: ``<repo>/static`` beside the package (a source checkout or an
    editable install), else ``scorekeeper/static`` (a link to it in the source, which a wheel
    build copies into the package).
    """
    for candidate in (PACKAGE_DIR.parent / "static", PACKAGE_DIR / "static"):
        if (candidate / "css" / "app.css").is_file() and (candidate / "js" / "play.js").is_file():
            return candidate
    return PACKAGE_DIR.parent / "static"


STATIC_DIR = find_static_dir()

bp = Blueprint(
    "pages",
    __name__,
    template_folder=str(TEMPLATE_DIR),
    static_folder=str(STATIC_DIR),
    static_url_path="/static",
)


@bp.record_once
def _serve_static_from_repo(state: Any) -> None:
    """Point the app's own ``/static`` route (Flask adds one first) at the same folder."""
    state.app.static_folder = str(STATIC_DIR)


GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
TOKEN = re.compile(r"[A-Za-z0-9_.~-]{1,200}")

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


# Optional modules other features add to a page: included when the file exists in static/.
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "play": ("js/camera.js", "js/winprob.js", "js/review.js"),
    "board": ("js/winprob.js", "js/review.js"),
}


def extra_modules(page: str) -> list[str]:
    """The optional modules of ``page`` that are present, as paths under ``static/``."""
    return [m for m in EXTRA_MODULES.get(page, ()) if (STATIC_DIR / m).is_file()]


def _check_id(game_id: str) -> str:
    if not GAME_ID.fullmatch(game_id):
        abort(404, description=f"no game {game_id!r}: ids are letters, digits, - and _")
    return game_id


def _page(template: str, title: str, **data: Any) -> Response:
    """Render a page with its data embedded as JSON, with security headers."""
    body = render_template(template, title=title, page_data=data, **data)
    resp = Response(body, mimetype="text/html")
    resp.headers["Content-Security-Policy"] = CSP
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Referrer-Policy"] = "no-referrer"
    resp.headers["Cache-Control"] = "no-cache"
    return resp


@bp.get("/")
def home() -> Response:
    """The home page: resume a running game or set up a new one."""
    return _page(
        "home.html", "Farkle score keeper", options=rules_options(), max_players=MAX_PLAYERS
    )


@bp.get("/play/<game_id>")
def play(game_id: str) -> Response:
    """The tablet play page of one game."""
    _check_id(game_id)
    return _page("play.html", "Play", game_id=game_id, extra_modules=extra_modules("play"))


@bp.get("/board/<game_id>")
def board(game_id: str) -> Response:
    """The projector scoreboard of one game (read-only)."""
    _check_id(game_id)
    return _page(
        "board.html",
        "Scoreboard",
        game_id=game_id,
        base_url=public_base_url(),
        extra_modules=extra_modules("board"),
    )


@bp.get("/history/<game_id>")
def history(game_id: str) -> Response:
    """The turn-by-turn log of one game, with CSV download and a printable score sheet."""
    return _page("history.html", "History", game_id=_check_id(game_id))


SHEET_COLUMNS = 12
"""Players on one printed page of the blank score sheet; more continue on the next pages."""


@bp.get("/sheet")
def blank_sheet() -> Response:
    """A blank printable score sheet (``?players=Ann,Bob`` heads the columns): one table for
    every :data:`SHEET_COLUMNS` players, each printed on a page of its own."""
    raw = text_arg(request.args, "players", "", 8000)
    given = [n.strip()[:MAX_NAME] for n in raw.split(",") if n.strip()]
    names = given[:MAX_PLAYERS]
    columns = names or [""] * 6
    groups = [columns[i : i + SHEET_COLUMNS] for i in range(0, len(columns), SHEET_COLUMNS)]
    left_out = given[MAX_PLAYERS:]
    return _page(
        "sheet.html",
        "Score sheet",
        groups=groups,
        players=len(names),
        left_out=left_out,
        max_players=MAX_PLAYERS,
        rows=30,
    )


@bp.get("/board/<game_id>/qr.svg")
def board_qr(game_id: str) -> Response:
    """A QR code (SVG) of the play page's address; ``?t=TOKEN`` adds control to the link."""
    _check_id(game_id)
    url = f"{public_base_url()}play/{game_id}"
    token = text_arg(request.args, "t", "", 200)
    if token:
        if not TOKEN.fullmatch(token):
            abort(400, description="bad token: letters, digits and - _ . ~ only")
        url += f"#t={token}"
    buf = io.BytesIO()
    segno.make(url, error="m").save(
        buf, kind="svg", scale=8, border=2, dark="#000", light="#fff", xmldecl=False
    )
    resp = Response(buf.getvalue(), mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/api/rules/options")
def rules_options_json() -> Any:
    """``GET /api/rules/options``: every rules option with help, and every preset's values."""
    return jsonify(rules_options())


def rules_options() -> dict[str, Any]:
    """The options, presets and game limits as JSON-able data (the setup page embeds this)."""
    return {
        "limits": game_limits(),
        "options": describe_options(),
        "presets": [
            {"name": name, "help": PRESET_HELP.get(name, ""), "rules": rules.to_dict()}
            for name, rules in PRESETS.items()
        ],
    }


def public_base_url() -> str:
    """The address a tablet on the LAN should open, ending in ``/``.

    ``PUBLIC_URL`` in the app config wins. A request to a loopback address is answered with
    this machine's LAN address when it has one (the projector laptop opened ``localhost``,
    but the tablets cannot); otherwise the address the request came to.
    """
    configured = current_app.config["PUBLIC_URL"]
    if configured:
        return str(configured).rstrip("/") + "/"
    base = request.host_url
    parts = urlsplit(base)
    host = parts.hostname or ""
    if _is_loopback(host):
        lan = lan_address()
        if lan:
            port = f":{parts.port}" if parts.port else ""
            return f"{parts.scheme}://{lan}{port}/"
    return base


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@functools.cache
def lan_address() -> str | None:
    """This machine's first non-loopback IPv4 address from its own host name, or ``None``."""
    try:
        _, _, addresses = socket.gethostbyname_ex(socket.gethostname())
    except OSError:
        return None
    for addr in addresses:
        ip = ipaddress.ip_address(addr)
        if not ip.is_loopback and not ip.is_link_local:
            return addr
    return None
