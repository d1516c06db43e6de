"""Benchmark a busy game night: 20 tablets racing actions on ONE game while 200 live watchers
follow it, on a real ``scorekeeper serve`` (waitress) on loopback (issue 31, item 12).

Each tablet acts at the version it last saw (about every ``--interval`` seconds, jittered; a
409 hands it the new state), over its own kept-alive connection. The 200 watchers each hold
an event stream from an address of their own (127.0.1.x: a device each, as on a LAN) and are
read by one selector thread. A board client reads the game every 0.2 s (a normal request).
At the end the game's event log is checked against every acknowledged action.

Prints one JSON line: actions sent and acknowledged, action latency p50/p90/p99/max (200s and
409s together), the board's p50/p99, how long a new version took to reach the watchers
(p50/p99 over every watcher and version), watchers that saw the final version, acknowledged
actions lost or duplicated in the log, and answers of 5xx.
Run: ``.venv/bin/python benchmarks/bench_load.py`` (``--seconds S``, ``--tablets N``,
``--watchers N``, ``--interval S``, ``--no-advice``).
"""

from __future__ import annotations

import argparse
import bisect
import http.client
import json
import random
import re
import selectors
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

EVENT_ID = re.compile(rb"(?:^|\n)id: (\d+)p?\n")


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100), nearest rank; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def start_server(db: Path, extra: list[str]) -> tuple[subprocess.Popen[str], int]:
    """Start ``scorekeeper serve --port 0``; the process and its port."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "scorekeeper", "serve", "--port", "0", "--db", str(db), *extra],
        stdout=subprocess.PIPE,
        stderr=open(db.parent / "server.log", "w"),  # noqa: SIM115
        text=True,
    )
    assert proc.stdout is not None
    found = re.search(r":(\d+)/", proc.stdout.readline())
    if not found:
        proc.kill()
        raise SystemExit("the server did not start")
    return proc, int(found.group(1))


class Client:
    """A kept-alive JSON client; counts answers of 5xx."""

    def __init__(self, port: int, token: str = "") -> None:
        self.port = port
        self.token = token
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.errors = 0

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """One request; (status, JSON)."""
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        try:
            self.conn.request(method, path, None if body is None else json.dumps(body), headers)
            resp = self.conn.getresponse()
            raw = resp.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            raise
        if resp.status >= 500:
            self.errors += 1
        return resp.status, json.loads(raw) if raw else None


def next_action(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A legal move: keep the best keep, bank when allowed past 300, else throw."""
    turn = state["turn"]
    if turn["throw"]:
        return {"type": "keep", "dice": turn["keeps"][0]["keep"]}
    if turn["can_bank"] and turn["total"] >= 300:
        return {"type": "bank"}
    return {"type": "throw", "dice": [rng.randint(1, 6) for _ in range(turn["dice_left"])]}


class Watchers:
    """``count`` event streams of one game, each from its own loopback address, read by one
    selector thread; records when each watcher first saw each version."""

    def __init__(self, port: int, game_id: str, count: int) -> None:
        self.selector = selectors.DefaultSelector()
        self.seen: list[list[tuple[float, int]]] = [[] for _ in range(count)]
        self.refused = 0
        self.stop = threading.Event()
        request = f"GET /api/games/{game_id}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
        for i in range(count):
            source = f"127.0.1.{1 + i % 250}" if i < 250 else f"127.0.2.{1 + i % 250}"
            sock = socket.create_connection(("127.0.0.1", port), source_address=(source, 0))
            sock.sendall(request)
            sock.setblocking(False)
            self.selector.register(sock, selectors.EVENT_READ, [i, b""])
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while not self.stop.is_set():
            for key, _ in self.selector.select(timeout=0.2):
                index, buf = key.data
                try:
                    data = key.fileobj.recv(65536)  # type: ignore[union-attr]
                except BlockingIOError:
                    continue
                if not data:
                    self.selector.unregister(key.fileobj)
                    continue
                now = time.monotonic()
                buf += data
                if b" 503 " in buf[:20]:
                    self.refused += 1
                    self.selector.unregister(key.fileobj)
                    continue
                seen = self.seen[index]
                for match in EVENT_ID.finditer(buf):
                    version = int(match.group(1))
                    if not seen or version > seen[-1][1]:
                        seen.append((now, version))
                key.data[1] = buf[-64:]

    def close(self) -> None:
        """Stop reading and close every stream."""
        self.stop.set()
        self.thread.join(2)
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]

    def delays(self, acks: list[tuple[float, int]]) -> list[float]:
        """For every watcher and acknowledged version: seconds from the acknowledgement to
        the watcher seeing that version or a later one (never below 0)."""
        out = []
        for seen in self.seen:
            versions = [v for _, v in seen]
            for at, version in acks:
                k = bisect.bisect_left(versions, version)
                if k < len(seen):
                    out.append(max(0.0, seen[k][0] - at))
        return out


def tablet(
    port: int,
    game: dict[str, Any],
    until: float,
    interval: float,
    seed: int,
    out: dict[str, list[Any]],
    lock: threading.Lock,
) -> None:
    """One tablet: act at the version last seen, about every ``interval`` s, until ``until``."""
    rng = random.Random(seed)
    client = Client(port, game["control_token"])
    path = f"/api/games/{game['id']}/actions"
    version, state = game["version"], game["state"]
    while time.monotonic() < until:
        time.sleep(rng.uniform(0, 2 * interval))
        action = next_action(state, rng)
        began = time.monotonic()
        status, body = client.call("POST", path, {"version": version, **action})
        took = time.monotonic() - began
        with lock:
            out["latency"].append(took)
            out["status"].append(status)
            if status == 200:
                out["acks"].append((time.monotonic(), body["version"], action))
        if status in (200, 409):
            version, state = body["version"], body["state"]
    with lock:
        out["errors"].append(client.errors)


def board(port: int, game_id: str, until: float, out: list[float], errors: list[int]) -> None:
    """The projector: read the game every 0.2 s; the latency of each read."""
    client = Client(port)
    while time.monotonic() < until:
        began = time.monotonic()
        client.call("GET", f"/api/games/{game_id}")
        out.append(time.monotonic() - began)
        time.sleep(0.2)
    errors.append(client.errors)


def check_log(
    port: int, game_id: str, acks: list[tuple[float, int, dict[str, Any]]]
) -> dict[str, int]:
    """Acknowledged actions missing from the log, or there twice (or unacknowledged extras)."""
    _, log = Client(port).call("GET", f"/api/games/{game_id}/events")
    events = log["events"][1:]  # after create
    by_version = {}
    duplicated = 0
    for _, version, action in acks:
        if version in by_version:
            duplicated += 1
        by_version[version] = action
    lost = 0
    for version, action in by_version.items():
        event = events[version - 1] if 0 < version <= len(events) else None
        if (
            event is None
            or event["type"] != action["type"]
            or event.get("dice") != action.get("dice")
        ):
            lost += 1
    extra = len(events) - len(by_version)
    return {"lost": lost, "duplicated": duplicated + max(0, extra)}


def main() -> None:
    """Run the load and print the figures as one JSON line."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--tablets", type=int, default=20)
    ap.add_argument("--watchers", type=int, default=200)
    ap.add_argument(
        "--interval", type=float, default=0.5, help="mean seconds between a tablet's actions"
    )
    ap.add_argument("--no-advice", action="store_true")
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-load-"))
    extra = ["--cache-dir", str(folder / "cache")] + (["--no-advice"] if args.no_advice else [])
    proc, port = start_server(folder / "games.sqlite3", extra)
    try:
        status, game = Client(port).call(
            "POST",
            "/api/games",
            {"players": ["Ann", "Bob", "Cy", "Di"], "rules": {"overrides": {"target": 1_000_000}}},
        )
        assert status == 201, game
        watchers = Watchers(port, game["id"], args.watchers)
        time.sleep(1.0)  # every watcher has its first state
        until = time.monotonic() + args.seconds
        out: dict[str, list[Any]] = {"latency": [], "status": [], "acks": [], "errors": []}
        lock = threading.Lock()
        board_latency: list[float] = []
        board_errors: list[int] = []
        threads = [
            threading.Thread(target=tablet, args=(port, game, until, args.interval, i, out, lock))
            for i in range(args.tablets)
        ]
        threads.append(
            threading.Thread(
                target=board, args=(port, game["id"], until, board_latency, board_errors)
            )
        )
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        time.sleep(1.0)  # the last versions reach the watchers
        watchers.close()
        acks = out["acks"]
        final = max((v for _, v, _ in acks), default=0)
        delays = watchers.delays([(at, v) for at, v, _ in acks])
        latency = out["latency"]
        print(
            json.dumps(
                {
                    "seconds": args.seconds,
                    "tablets": args.tablets,
                    "watchers": args.watchers,
                    "watchers_refused": watchers.refused,
                    "actions_sent": len(latency),
                    "acknowledged": len(acks),
                    "conflicts_409": out["status"].count(409),
                    "action_ms": {
                        q: round(percentile(latency, p) * 1000, 1)
                        for q, p in (("p50", 50), ("p90", 90), ("p99", 99), ("max", 100))
                    },
                    "board_ms": {
                        "p50": round(percentile(board_latency, 50) * 1000, 1),
                        "p99": round(percentile(board_latency, 99) * 1000, 1),
                    },
                    "to_watchers_ms": {
                        "p50": round(percentile(delays, 50) * 1000, 1),
                        "p99": round(percentile(delays, 99) * 1000, 1),
                    },
                    "watchers_at_final_version": sum(
                        1 for seen in watchers.seen if seen and seen[-1][1] >= final
                    ),
                    **check_log(port, game["id"], acks),
                    "errors_5xx": sum(out["errors"]) + sum(board_errors),
                }
            )
        )
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
