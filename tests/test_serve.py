"""``scorekeeper serve`` for real: a waitress subprocess on a free loopback port; ``kill -9``
durability, the live stream, and the ``games``/``export`` commands."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scorekeeper.cli import main


class Server:
    """A ``scorekeeper serve --port 0`` subprocess; ``port`` is read from its first line."""

    def __init__(self, db: Path, advice: bool = False) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "scorekeeper",
                "serve",
                "--port",
                "0",
                "--db",
                str(db),
                "--threads",
                "8",
                "--cache-dir",
                str(db.parent / "cache"),
                *([] if advice else ["--no-advice"]),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, f"unexpected first line {line!r}"
        self.port = int(found.group(1))

    def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        """One JSON request; returns (status, parsed body)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        conn.request(method, path, None if body is None else json.dumps(body), headers)
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        return resp.status, json.loads(data)

    def kill(self) -> None:
        """``kill -9``: no chance to flush or close anything."""
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        """Stop it gently if it still runs."""
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        if self.proc.stdout:
            self.proc.stdout.close()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A fresh database path."""
    return tmp_path / "games.sqlite3"


@pytest.fixture
def server(db: Path) -> Iterator[Server]:
    """A running server on ``db``."""
    s = Server(db)
    yield s
    s.stop()


def test_kill_9_keeps_every_acknowledged_action(db: Path) -> None:
    first = Server(db)
    try:
        status, created = first.request(
            "POST", "/api/games", {"players": ["Ann", "Bob"], "rules": {"preset": "zilch-online"}}
        )
        assert status == 201
        gid, token = created["id"], created["control_token"]
        acked: list[int] = []
        stop = threading.Event()

        def play() -> None:
            version = 0
            while not stop.is_set():
                try:
                    status, body = first.request(
                        "POST",
                        f"/api/games/{gid}/actions",
                        {"version": version, "type": "quick_score", "points": 300},
                        token,
                    )
                except (OSError, http.client.HTTPException, json.JSONDecodeError):
                    return
                assert status == 200, body
                version = body["version"]
                acked.append(version)

        player = threading.Thread(target=play)
        player.start()
        deadline = time.monotonic() + 10
        while len(acked) < 25 and time.monotonic() < deadline:
            time.sleep(0.01)
        first.kill()  # mid-game, while the player is still sending actions
        stop.set()
        player.join(timeout=10)
    finally:
        first.stop()
    assert len(acked) >= 25
    second = Server(db)
    try:
        status, game = second.request("GET", f"/api/games/{gid}")
        assert status == 200
        # every acknowledged action is there; at most the one in flight was also committed
        assert acked[-1] <= game["version"] <= acked[-1] + 1
        scores = [p["score"] for p in game["state"]["players"]]
        assert sum(scores) == 300 * game["version"]
        status, body = second.request(
            "POST",
            f"/api/games/{gid}/actions",
            {"version": game["version"], "type": "undo"},
            token,
        )
        assert status == 200 and body["version"] == game["version"] + 1
    finally:
        second.stop()


def _read_event(resp: http.client.HTTPResponse) -> dict[str, str]:
    fields: dict[str, str] = {}
    while True:
        line = resp.readline().decode()
        if line in ("\n", ""):
            if fields or line == "":
                return fields
            continue
        if line.startswith(":"):
            continue
        key, _, value = line.rstrip("\n").partition(": ")
        fields[key] = value


def test_stream_on_the_real_server(server: Server) -> None:
    _, created = server.request("POST", "/api/games", {"players": ["Ann", "Bob"]})
    gid, token = created["id"], created["control_token"]
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("GET", f"/api/games/{gid}/stream")
    resp = conn.getresponse()
    assert resp.status == 200 and resp.getheader("Content-Type", "").startswith("text/event-stream")
    assert _read_event(resp).get("retry") == "1000"
    first = _read_event(resp)
    assert first["id"] == "0" and first["event"] == "state"
    server.request(
        "POST",
        f"/api/games/{gid}/actions",
        {"version": 0, "type": "throw", "dice": [1, 1, 5, 2, 3, 4]},
        token,
    )
    nxt = _read_event(resp)
    assert nxt["id"] == "1"
    assert json.loads(nxt["data"])["state"]["turn"]["throw"] == [1, 1, 2, 3, 4, 5]
    # other requests are still served while the stream is open
    assert server.request("GET", f"/api/games/{gid}")[0] == 200
    conn.close()


def test_games_and_export_commands(
    server: Server, db: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, created = server.request(
        "POST", "/api/games", {"players": ["Ann"], "rules": {"overrides": {"opening_minimum": 0}}}
    )
    gid, token = created["id"], created["control_token"]
    server.request(
        "POST",
        f"/api/games/{gid}/actions",
        {"version": 0, "type": "quick_score", "points": 450},
        token,
    )
    assert main(["games", "--db", str(db)]) == 0
    assert json.loads(capsys.readouterr().out)["games"][0]["id"] == gid
    assert main(["export", gid, "--db", str(db)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("1,Ann,quick_score,450,450,450")
    out = tmp_path / "g.json"
    assert main(["export", gid, "--db", str(db), "--format", "json", "-o", str(out)]) == 0
    assert json.loads(out.read_text())["state"]["players"][0]["score"] == 450
    assert main(["export", "nope", "--db", str(db)]) == 2
    assert "no game has the id 'nope'" in capsys.readouterr().err


def test_games_and_export_do_not_make_a_database(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "typo" / "games.sqlite3"
    for argv in (["games", "--db", str(missing)], ["export", "abc", "--db", str(missing)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"no game database at {missing}" in err and "give --db" in err
    assert not missing.parent.exists()
    # the default database before any game: an empty list, and still no file
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert main(["games"]) == 0
    assert json.loads(capsys.readouterr().out) == {"games": []}
    assert not (tmp_path / "data").exists()


def test_serve_refuses_bad_options(capsys: pytest.CaptureFixture[str], db: Path) -> None:
    assert main(["serve", "--port", "70000", "--db", str(db)]) == 2
    assert "a port is 0 to 65535" in capsys.readouterr().err
    assert main(["serve", "--threads", "1", "--db", str(db)]) == 2
    assert "at least 4" in capsys.readouterr().err
    # a port another server holds, a host that is not this machine: said, no traceback
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        assert main(["serve", "--port", port, "--db", str(db), "--no-advice"]) == 2
    err = capsys.readouterr().err
    assert f"port {port} on 127.0.0.1 is in use" in err and "Traceback" not in err
    assert main(["serve", "--host", "192.0.2.1", "--port", "0", "--db", str(db)]) == 2
    assert "not an address of this machine" in capsys.readouterr().err


def test_advice_from_the_worker_process(db: Path) -> None:
    server = Server(db, advice=True)
    try:
        _, created = server.request("POST", "/api/games", {"players": ["Ann", "Bob"]})
        gid, token = created["id"], created["control_token"]
        status, body = server.request(
            "POST",
            f"/api/games/{gid}/actions",
            {"version": 0, "type": "throw", "dice": [1, 5, 2, 3, 4, 4]},
            token,
        )
        assert status == 200
        deadline = time.monotonic() + 60
        turn = body["state"]["turn"]
        while turn["advice_pending"] and time.monotonic() < deadline:
            time.sleep(0.1)
            turn = server.request("GET", f"/api/games/{gid}")[1]["state"]["turn"]
        assert turn["advice_pending"] is False
        advice = turn["advice"]
        if advice is not None:  # null only when the advisor is not installed
            assert advice["best"]["keep"] in ([1], [1, 5]) and advice["message"]
    finally:
        server.stop()
