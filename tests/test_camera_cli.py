"""``scorekeeper camera-stats``, the serve options, and the https front with its certificate."""

from __future__ import annotations

import json
import shutil
import socket
import ssl
import threading
from pathlib import Path

import pytest

from scorekeeper.camera.log import CameraLog, log_path_for
from scorekeeper.cli import main


def test_camera_stats_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "games.sqlite3"
    log = CameraLog(log_path_for(db))
    log.add_proposal("p1", source="webcam", frame_id=3, dice=[5, 1, 1], confidence=0.9)
    log.add_proposal("p2", source="webcam", frame_id=9, dice=[2, 2, 3, 4], confidence=0.8)
    log.add_proposal("p3", source="demo", frame_id=1, dice=[6], confidence=0.9, truth=[6])
    log.add_proposal("p4", source="webcam", frame_id=12, dice=[1], confidence=0.9)
    log.set_outcome("p1", [1, 1, 5], "g1")
    log.set_outcome("p2", [2, 2, 3, 6, 6], "g1")
    log.set_outcome("p4", None)
    log.close()

    assert main(["camera-stats", "--db", str(db), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)  # the demo's proposal is left out
    assert stats["proposals"] == 3 and stats["demo_left_out"] == 1
    assert "demo" not in stats["sources"]
    assert main(["camera-stats", "--db", str(db), "--json", "--with-demo"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["proposals"] == 4 and stats["recorded"] == 2 and stats["dismissed"] == 1
    assert stats["exact"] == 1 and stats["exact_share"] == 0.5
    assert stats["dice_accuracy"] == pytest.approx(6 / 8, abs=1e-4)
    assert stats["count_wrong"] == 1 and stats["pending"] == 1
    assert stats["sources"]["demo"]["truth_exact_share"] == 1.0
    assert stats["sources"]["webcam"]["recorded"] == 2

    assert main(["camera-stats", "--log", str(log_path_for(db))]) == 0
    text = capsys.readouterr().out
    assert "webcam" in text and "50.0%" in text and "75.0%" in text
    assert "1 proposal of the demo camera left out" in text

    assert main(["camera-stats", "--db", str(tmp_path / "none.sqlite3")]) == 2
    assert "no camera log" in capsys.readouterr().err


def test_serve_refuses_an_unknown_camera(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--camera", "potato", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "unknown camera source 'potato'" in err and "demo" in err


def test_serve_reads_with_the_taught_dice_only_when_asked() -> None:
    from scorekeeper.cli import build_parser
    from scorekeeper.cli.camera_cmds import serve_config

    parser = build_parser()
    assert serve_config(parser.parse_args(["serve"])) == {}
    assert serve_config(parser.parse_args(["serve", "--read-taught"])) == {
        "CAMERA_TEACH_ADAPT": "read"
    }
    both = serve_config(parser.parse_args(["serve", "--read-taught", "--camera", "none"]))
    assert both == {"CAMERA_TEACH_ADAPT": "read", "CAMERA": "none"}


@pytest.mark.skipif(shutil.which("openssl") is None, reason="the openssl command is not installed")
def test_https_front_forwards_to_a_plain_backend(tmp_path: Path) -> None:
    from scorekeeper.camera.tls import TLSFront, ensure_certificate

    cert, key = ensure_certificate(tmp_path / "tls", ["192.168.1.20"])
    assert ensure_certificate(tmp_path / "tls") == (cert, key)  # made once, then reused
    backend = socket.create_server(("127.0.0.1", 0))

    def echo_once() -> None:
        conn, _ = backend.accept()
        with conn:
            data = conn.recv(1024)
            conn.sendall(b"HTTP/1.0 200 OK\r\n\r\n" + data.upper())

    threading.Thread(target=echo_once, daemon=True).start()
    front = TLSFront("127.0.0.1", 0, cert, key, backend.getsockname()[1]).start()
    try:
        ctx = ssl.create_default_context(cafile=str(cert))
        raw = socket.create_connection(("127.0.0.1", front.port), timeout=10)
        with ctx.wrap_socket(raw, server_hostname="localhost") as tls:
            tls.sendall(b"get /")
            reply = b""
            while chunk := tls.recv(1024):
                reply += chunk
        assert reply.endswith(b"GET /")
    finally:
        front.stop()
        backend.close()
