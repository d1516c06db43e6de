"""``scorekeeper review GAME_ID [--json]``: what each player's choices and luck cost them."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from scorekeeper.errors import ServeError


def register(sub: Any) -> None:
    """Add the ``review`` subcommand."""
    p = sub.add_parser("review", help="review a stored game: decisions, accuracy, luck")
    p.add_argument("game_id", metavar="GAME_ID", help="the game's id (see `scorekeeper games`)")
    p.add_argument("--json", action="store_true", help="print the whole review as JSON")
    p.add_argument(
        "--db",
        metavar="PATH",
        help="the SQLite database (default: games.sqlite3 in the user's data directory)",
    )
    p.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="the solved-policy cache (default: the user's cache directory)",
    )
    p.set_defaults(func=cmd_review)


def cmd_review(args: argparse.Namespace) -> int:
    """Print the review of one game, in words or as JSON."""
    from scorekeeper.review.service import stored_review
    from scorekeeper.store import connect, default_db_path

    db = Path(args.db).expanduser() if args.db else default_db_path()
    if not db.is_file():
        raise ServeError(
            f"no game database at {db}: `scorekeeper serve` makes it when a game is started"
            " (give --db of the server's database)"
        )
    conn = connect(db)
    try:
        body = stored_review(conn, args.game_id, args.cache_dir)
    finally:
        conn.close()
    if args.json:
        print(json.dumps(body))
    else:
        print(review_text(body))
    return 0


def review_text(body: dict[str, Any]) -> str:
    """The review in a few lines per player."""
    lines = [f"Review of game {body['id']} (version {body['version']}, {body['status']})"]
    if body.get("message"):
        lines.append(body["message"])
    if body.get("win_chance_message"):
        lines.append(body["win_chance_message"])
    for p in body["players"]:
        acc = "n/a" if p["accuracy"] is None else f"{p['accuracy']:.1f}%"
        lines.append(
            f"{p['name']}: accuracy {acc} over {p['judged_decisions']} decisions,"
            f" {p['points_lost']:.0f} points lost to choices, luck {p['luck']:+.0f}"
        )
        if p["win_chance_lost"] is not None:
            lines.append(f"  win chance lost to choices: {p['win_chance_lost']:.1%}")
        if p["biggest_mistake"]:
            lines.append(f"  biggest mistake: {p['biggest_mistake']['words']}")
    for label, key in (("luckiest", "luckiest_throw"), ("unluckiest", "unluckiest_throw")):
        th = body.get(key)
        if th:
            dice = " ".join(map(str, th["dice"]))
            lines.append(
                f"The {label} throw: {th['player']}'s {dice} in turn {th['turn']}"
                f" ({th['luck']:+.0f} points against expectation)"
            )
    return "\n".join(lines)
