"""``scorekeeper camera-stats`` and the camera options of ``scorekeeper serve``.

``camera-stats`` reads the camera log beside the game database and prints how often the
camera's proposals were recorded as they were, dice by dice and throw by throw.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from scorekeeper.cli.common import print_json
from scorekeeper.cli.network import lan_address
from scorekeeper.errors import CameraError

SOURCES_HELP = (
    "auto, none, demo (throws the dice the game has left), demo:FOLDER (plays its pictures),"
    " tablet, a webcam index (0, 1, ...), a stream URL or a video file"
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``camera-stats`` subcommand."""
    p = sub.add_parser(
        "camera-stats", help="how often the camera's proposals were recorded unchanged"
    )
    p.add_argument(
        "--db",
        metavar="PATH",
        help="the game database (default: games.sqlite3 in the user's data directory);"
        " the camera log is <db>-camera.sqlite3 beside it",
    )
    p.add_argument("--log", metavar="PATH", help="read this camera log file instead")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--with-demo",
        action="store_true",
        help="count the demo camera's proposals too (left out by default: its dice are no"
        " real table's)",
    )
    p.set_defaults(func=cmd_camera_stats)

    p = sub.add_parser(
        "eval-camera",
        help="replay a recorded video through the camera and score its proposals against the truth",
    )
    p.add_argument("video", metavar="VIDEO", help="a video file (what a camera saw)")
    p.add_argument(
        "truth",
        metavar="TRUTH.json",
        help='{"throws": [{"rest_s": seconds, "dice": [values]}, ...]}: when each throw came to'
        " rest and what it shows",
    )
    p.add_argument("--threads", type=int, default=1, help="threads of the dice reader (1)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_eval_camera)

    p = sub.add_parser(
        "record-demo", help="record throws of the demo tabletop as a video and its truth"
    )
    p.add_argument("video", metavar="OUT.avi", help="the video to write (Motion JPEG)")
    p.add_argument("--throws", type=int, default=6, help="throws to record (6)")
    p.add_argument("--seed", type=int, default=0, help="seed of the dice and tables (0)")
    p.set_defaults(func=cmd_record_demo)

    p = sub.add_parser(
        "camera-teach",
        help="the dice the camera was taught at this table: how many of each face (--list),"
        " or forget them (--clear)",
    )
    p.add_argument(
        "--db",
        metavar="PATH",
        help="the game database (default: games.sqlite3 in the user's data directory);"
        " the taught dice are in the folder <db>-teach beside it",
    )
    p.add_argument("--dir", metavar="FOLDER", help="read this teach folder instead")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--list", action="store_true", help="also list every kept crop")
    what.add_argument("--clear", action="store_true", help="forget every taught die")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_camera_teach)


def _log_path(args: argparse.Namespace) -> Path:
    from scorekeeper.camera.log import log_path_for

    if args.log:
        return Path(args.log).expanduser()
    if args.db:
        return log_path_for(Path(args.db).expanduser())
    from scorekeeper.store import default_db_path

    return log_path_for(default_db_path())


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def format_stats(stats: dict[str, Any]) -> str:
    """The statistics as a few lines of text."""
    lines = [f"camera log: {stats['log']}"]
    rows = [("all", stats), *stats["sources"].items()]
    lines.append(
        f"{'source':<8} {'shown':>6} {'recorded':>8} {'exact':>7} {'dice ok':>8}"
        f" {'count off':>9} {'dismissed':>9} {'pending':>7} {'demo truth':>10}"
    )
    for name, s in rows:
        lines.append(
            f"{name:<8} {s['proposals']:>6} {s['recorded']:>8} {_pct(s['exact_share']):>7}"
            f" {_pct(s['dice_accuracy']):>8} {s['count_wrong']:>9} {s['dismissed']:>9}"
            f" {s['pending']:>7} {_pct(s['truth_exact_share']):>10}"
        )
    lines.append(
        "exact: recorded throws equal to the proposal; dice ok: dice the proposal had right;"
        " demo truth: proposals equal to the demo scene's true dice"
    )
    if stats.get("demo_left_out"):
        n = stats["demo_left_out"]
        lines.append(
            f"{n} proposal{'s' if n != 1 else ''} of the demo camera left out (--with-demo"
            " counts them)"
        )
    return "\n".join(lines)


def cmd_camera_stats(args: argparse.Namespace) -> int:
    """Print the accuracy of the camera's proposals against what was recorded.

    :raises CameraError: the log file does not exist.
    """
    from scorekeeper.camera.log import CameraLog

    path = _log_path(args)
    if not path.is_file():
        raise CameraError(
            f"no camera log at {path}: it is made when the camera proposes a throw"
            " (give --db of the server's database or --log FILE)"
        )
    log = CameraLog(path)
    try:
        stats = log.stats(include_demo=args.with_demo)
    finally:
        log.close()
    if args.json:
        print_json(stats)
    else:
        print(format_stats(stats))
    return 0


def format_eval(result: dict[str, Any]) -> str:
    """The replay's score as a few lines of text."""
    lines = [
        f"{'rest s':>7} {'true':<14} {'proposed':<14} {'delay s':>7}",
        *(
            f"{t['rest_s']:>7.2f} {' '.join(map(str, t['dice'])):<14}"
            f" {' '.join(map(str, t['proposed'])) if t['proposed'] else 'missed':<14}"
            f" {t['delay_s'] if t['delay_s'] is not None else '-':>7}"
            for t in result["per_throw"]
        ),
        f"{result['throws']} throws: {result['right']} right, {result['wrong']} wrong,"
        f" {result['missed']} missed, {result['extra']} extra; delay after rest: median"
        f" {result['delay_s_median']} s, at most {result['delay_s_max']} s",
    ]
    return "\n".join(lines)


def cmd_eval_camera(args: argparse.Namespace) -> int:
    """Replay a recording through the camera and score its proposals.

    :raises CameraError: a video or truth file that cannot be read.
    """
    from scorekeeper.camera.reading import default_reader_factory
    from scorekeeper.camera.replay import load_truth, replay, score

    if not 1 <= args.threads <= 64:
        raise CameraError(f"--threads must be from 1 to 64, got {args.threads}")
    video = Path(args.video).expanduser()
    if not video.is_file():
        raise CameraError(f"no video at {video}")
    truth = load_truth(Path(args.truth).expanduser())
    reader = default_reader_factory(threads=args.threads)()
    proposals, fps = replay(video, reader)
    result = {"video": str(video), "fps": fps, **score(proposals, truth)}
    if args.json:
        print_json(result)
    else:
        print(format_eval(result))
    return 0


def cmd_record_demo(args: argparse.Namespace) -> int:
    """Record throws of the demo tabletop and write their truth beside the video."""
    from scorekeeper.camera.replay import make_demo_recording

    if not 1 <= args.throws <= 100:
        raise CameraError(f"--throws must be from 1 to 100, got {args.throws}")
    truth = make_demo_recording(Path(args.video).expanduser(), args.throws, seed=args.seed)
    print(f"wrote {args.video} ({len(truth['throws'])} throws) and {args.video}.json")
    return 0


def add_serve_options(p: argparse.ArgumentParser) -> None:
    """Add ``--camera SRC``, ``--https`` and ``--read-taught`` to ``scorekeeper serve``."""
    p.add_argument(
        "--camera",
        metavar="SRC",
        default=None,
        help=f"camera source: {SOURCES_HELP} (default auto: a webcam if one opens, else none,"
        " with the demo camera offered on the play page)",
    )
    p.add_argument(
        "--https",
        action="store_true",
        help="serve https with a self-signed certificate kept in the data directory"
        " (tablets need https to use their own camera)",
    )
    p.add_argument(
        "--read-taught",
        action="store_true",
        help="read with the dice taught at this table (by default they only mark '?' a die they"
        " read as another face; measured, reading with them marks fewer dice '?' on one set of"
        " plain dice but lets more mistakes through on mixed dice)",
    )


def serve_config(args: argparse.Namespace) -> dict[str, Any]:
    """The app config keys of the camera options (checks ``--camera``).

    :raises CameraError: an unknown camera source.
    """
    config: dict[str, Any] = {}
    if getattr(args, "read_taught", False):
        config["CAMERA_TEACH_ADAPT"] = "read"
    if getattr(args, "camera", None) is None:
        return config
    from scorekeeper.camera.sources import parse_source

    parse_source(args.camera)
    config["CAMERA"] = args.camera
    return config


def https_front(args: argparse.Namespace, db: Path, backend_port: int) -> Any:
    """With ``--https``: a started TLS front on ``--host:--port`` for waitress's port; else None.

    :raises CameraError: no way to make the certificate.
    """
    if not getattr(args, "https", False):
        return None
    from scorekeeper.camera.tls import TLSFront, ensure_certificate

    hosts = [args.host, lan_address()]
    cert, key = ensure_certificate(db.parent / "tls", hosts)
    try:
        front = TLSFront(args.host, args.port, cert, key, backend_port)
    except OSError as exc:
        raise CameraError(f"cannot listen on {args.host}:{args.port}: {exc}") from exc
    print(f"https certificate: {cert} (self-signed; accept it once in the browser)", flush=True)
    return front.start()


def cmd_camera_teach(args: argparse.Namespace) -> int:
    """Print the taught dice's counts (and with ``--list`` each crop), or clear them."""
    from scorekeeper.camera.teach_store import TeachStore, teach_dir_for

    if args.dir:
        folder = Path(args.dir).expanduser()
        if folder.exists() and not folder.is_dir():
            raise CameraError(f"{folder} is not a folder; --dir names the teach folder")
    else:
        from scorekeeper.store import default_db_path

        folder = teach_dir_for(Path(args.db).expanduser() if args.db else default_db_path())
    store = TeachStore(folder)
    if args.clear:
        removed = store.clear()
        if args.json:
            print_json({"cleared": removed, "folder": str(folder)})
        else:
            print(f"forgot {removed} taught {'die' if removed == 1 else 'dice'} ({folder})")
        return 0
    stats = store.stats()
    crops = [{"file": c.path.name, "label": c.label, "bytes": c.size} for c in store.crops()]
    if args.json:
        print_json({**stats, **({"list": crops} if args.list else {})})
        return 0
    faces = "  ".join(f"{v}s: {n}" for v, n in stats["faces"].items())
    print(f"taught dice: {folder}")
    print(f"{stats['crops']} crops ({stats['bytes'] / 1024:.0f} KB; at most {stats['max_crops']})")
    print(f"{faces}  not dice: {stats['not_dice']}")
    if args.list:
        for c in crops:
            label = "not a die" if c["label"] == 0 else f"a {c['label']}"
            print(f"{c['file']}  {label}  {c['bytes']} bytes")
    return 0
