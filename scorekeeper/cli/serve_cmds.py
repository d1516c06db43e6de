"""``scorekeeper serve``, ``scorekeeper games`` and ``scorekeeper export``: the game server and
its database from the command line."""

from __future__ import annotations

import argparse
import errno
import json
import signal
import socket
import sys
from pathlib import Path

from scorekeeper.cli.camera_cmds import add_serve_options, https_front, serve_config
from scorekeeper.cli.network import lan_address
from scorekeeper.errors import ServeError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_THREADS = 32
DEFAULT_MAX_STREAMS = 240
DEFAULT_STREAMS_PER_CLIENT = 8


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``serve``, ``games`` and ``export`` subcommands."""
    p = sub.add_parser("serve", help="run the app on waitress (default http://127.0.0.1:8000)")
    p.add_argument("--host", default=DEFAULT_HOST, help="address to listen on; 0.0.0.0 = LAN")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help="port (0 = any free port)")
    _db_option(p)
    p.add_argument(
        "--threads",
        type=int,
        default=DEFAULT_THREADS,
        help=f"worker threads for requests (default {DEFAULT_THREADS}); live streams get"
        " their own on top",
    )
    p.add_argument(
        "--max-streams",
        type=int,
        default=DEFAULT_MAX_STREAMS,
        help=f"live views open at once, all devices together (default {DEFAULT_MAX_STREAMS})",
    )
    p.add_argument(
        "--streams-per-client",
        type=int,
        default=DEFAULT_STREAMS_PER_CLIENT,
        help="live views open at once from one address"
        f" (default {DEFAULT_STREAMS_PER_CLIENT}; with --https every device is one address,"
        " so this is --max-streams there)",
    )
    p.add_argument(
        "--cache-dir",
        metavar="PATH",
        help="the advisor's cache of solved policies (default: the user's cache directory)",
    )
    p.add_argument(
        "--no-advice",
        action="store_true",
        help="do not attach the strategy advisor's advice to throws",
    )
    add_serve_options(p)  # --camera SRC, --https, --read-taught (scorekeeper.cli.camera_cmds)
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("games", help="list the stored games as JSON, newest first")
    _db_option(p)
    p.add_argument("--limit", type=int, default=50, help="at most this many (default 50)")
    p.add_argument(
        "--delete",
        metavar="GAME_ID",
        help="delete this game for good (its events and review too) instead of listing",
    )
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("export", help="export a game as CSV (turn by turn) or JSON")
    p.add_argument(
        "game_id",
        metavar="GAME_ID",
        help="the game's id (see `scorekeeper games`); put an old id that starts with - after --",
    )
    p.add_argument("--format", choices=("csv", "json"), default="csv", help="default csv")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    _db_option(p)
    p.set_defaults(func=cmd_export)


def _db_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        metavar="PATH",
        help="the SQLite database (default: games.sqlite3 in the user's data directory)",
    )


def _db_path(args: argparse.Namespace) -> Path:
    from scorekeeper.store import default_db_path

    return Path(args.db).expanduser() if args.db else default_db_path()


def _existing_db(db: Path) -> Path:
    """``db`` if it is a file; a command that only reads games does not create one.

    :raises ServeError: there is no file at ``db``.
    """
    if not db.is_file():
        raise ServeError(
            f"no game database at {db}: `scorekeeper serve` makes it when a game is started"
            " (give --db of the server's database)"
        )
    return db


def _listen_problem(exc: OSError, host: str, port: int) -> str:
    """What to tell the user when the server cannot listen on ``host``:``port``."""
    if exc.errno == errno.EADDRINUSE:
        return (
            f"port {port} on {host} is in use (another server, perhaps another scorekeeper,"
            " is running there): stop it, or choose another with --port (0 = any free port)"
        )
    if exc.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT) or isinstance(exc, socket.gaierror):
        return (
            f"cannot listen on --host {host}: it is not an address of this machine"
            " (use 127.0.0.1 for this machine only, 0.0.0.0 for the whole network)"
        )
    if exc.errno == errno.EACCES:
        return f"port {port} needs more privileges: choose one above 1023 with --port"
    return f"cannot listen on {host}:{port}: {exc.strerror or exc}"


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the app with waitress until interrupted.

    :raises ServeError: on a port outside 0–65535, fewer than 4 threads, or a host and port
        it cannot listen on (the port in use, an address not of this machine).
    """
    from waitress.server import BaseWSGIServer

    from scorekeeper.web import create_app
    from scorekeeper.web.server import ServerLimits, make_server

    if not 0 <= args.port <= 65535:
        raise ServeError(f"bad --port {args.port}: a port is 0 to 65535 (0 = any free port)")
    if args.threads < 4:
        raise ServeError(f"bad --threads {args.threads}: at least 4 are needed")
    if not 1 <= args.max_streams <= 2000:
        raise ServeError(f"bad --max-streams {args.max_streams}: a whole number from 1 to 2000")
    if not 1 <= args.streams_per_client <= args.max_streams:
        raise ServeError(
            f"bad --streams-per-client {args.streams_per_client}: from 1 to --max-streams"
        )
    per_client = args.max_streams if args.https else args.streams_per_client
    db = _db_path(args)
    config: dict[str, object] = {
        "DATABASE": str(db),
        "MAX_STREAMS": args.max_streams,
        "MAX_STREAMS_PER_CLIENT": per_client,
        "ADVICE": not args.no_advice,
        "ADVICE_WORKER": "process",
        **serve_config(args),
    }
    if args.cache_dir:
        config["CACHE_DIR"] = str(Path(args.cache_dir).expanduser())
    app = create_app(config)
    host = "127.0.0.1" if args.https else args.host
    try:
        connections = args.max_streams + 4 * args.threads + 100
        limits = ServerLimits(
            threads=args.threads + args.max_streams,  # a live stream holds a thread
            connection_limit=connections,
            per_client=connections if args.https else 4 * per_client + 32,
        )
        server = make_server(app, host, 0 if args.https else args.port, limits)
    except OSError as exc:
        raise ServeError(_listen_problem(exc, host, args.port)) from exc
    if not args.no_advice:
        from scorekeeper.web.api_advice import start_worker_process

        start_worker_process()
    if isinstance(server, BaseWSGIServer) and server.socket is not None:
        port = int(server.socket.getsockname()[1])
    elif isinstance(server, BaseWSGIServer):
        port = args.port
    else:
        port = int(server.effective_listen[0][1])
    front = https_front(args, db, port)  # None without --https
    scheme, port = ("https", front.port) if front else ("http", port)
    shown = lan_address() if args.host in ("0.0.0.0", "") else args.host
    if ":" in shown:
        shown = f"[{shown}]"
    print(f"Scorekeeper is serving on {scheme}://{shown}:{port}/  (database: {db})", flush=True)
    if args.host in ("0.0.0.0", ""):
        print(f"Open {scheme}://{shown}:{port}/ on the tablets of this network.", flush=True)
    print("Press Ctrl+C to stop.", flush=True)
    signal.signal(signal.SIGTERM, _interrupt)  # stop cleanly on `kill` too
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        if front:
            front.stop()
        from scorekeeper.web.jobs import stop_background_solves

        stop_background_solves()
    return 0


def cmd_games(args: argparse.Namespace) -> int:
    """Print the stored games, newest first, as one JSON object (or delete one)."""
    from scorekeeper.store import connect, delete_game, list_games

    if args.delete is not None:
        conn = connect(_existing_db(_db_path(args)))
        try:
            delete_game(conn, args.delete)
        finally:
            conn.close()
        print(json.dumps({"deleted": args.delete}))
        return 0
    if not 1 <= args.limit <= 10_000:
        raise ServeError(f"bad --limit {args.limit}: a whole number from 1 to 10000")
    db = _db_path(args)
    if not db.exists() and not args.db:  # nothing played here yet: do not make a database
        print(json.dumps({"games": []}))
        return 0
    conn = connect(_existing_db(db))
    try:
        print(json.dumps({"games": list_games(conn, args.limit)}))
    finally:
        conn.close()
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """Write one game as CSV or JSON."""
    from scorekeeper.game import replay
    from scorekeeper.game.export import game_csv, game_export
    from scorekeeper.store import connect, read_log

    conn = connect(_existing_db(_db_path(args)))
    try:
        version, created, events = read_log(conn, args.game_id)
    finally:
        conn.close()
    game = replay(events)
    if args.format == "csv":
        text = game_csv(game)
    else:
        text = json.dumps(game_export(args.game_id, version, created, events, game), indent=1)
        text += "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0
