"""Benchmark the game server: ``scorekeeper serve`` on loopback with 20 concurrent clients.

Each client plays its own game (throw, keep, bank, legal moves read from the answers) over a
kept-alive HTTP connection, first paced (about 10 actions per second each, far busier than
any real table), then flat out (saturation); one live stream watches client 0's game. Then
20 clients race on ONE game (each acts at the version it last saw; a 409 reloads). Prints
one JSON line per measurement: actions per second, p50/p99 latency of an action, and the
delay from sending an action to its event arriving on the stream.
Run: ``.venv/bin/python benchmarks/bench_api.py`` (``--seconds S``, ``--clients N``,
``--no-advice``).
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


class Client:
    """A kept-alive JSON client of the server."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(self, method: str, path: str, body: Any = None, token: str = "") -> tuple[int, Any]:
        """One request; (status, JSON)."""
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.conn.request(method, path, None if body is None else json.dumps(body), headers)
        resp = self.conn.getresponse()
        return resp.status, json.loads(resp.read())


def next_action(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A legal move: keep the best keep, bank when allowed past 300, else throw."""
    turn = state["turn"]
    if state["over"]:
        return {"type": "undo"}
    if turn["throw"]:
        return {"type": "keep", "dice": turn["keeps"][0]["keep"]}
    if turn["can_bank"] and turn["total"] >= 300:
        return {"type": "bank"}
    return {"type": "throw", "dice": [rng.randint(1, 6) for _ in range(turn["dice_left"])]}


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100), nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def start_server(db: Path, advice: bool) -> tuple[subprocess.Popen[str], int]:
    """Start ``scorekeeper serve --port 0``; the process and its port."""
    extra = [] if advice else ["--no-advice"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "scorekeeper", "serve", "--port", "0", "--db", str(db), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    found = re.search(r":(\d+)/", proc.stdout.readline())
    if not found:
        proc.kill()
        raise SystemExit("the server did not start")
    return proc, int(found.group(1))


def new_game(port: int) -> tuple[str, str]:
    """Create a standard 3-player game; (id, token)."""
    status, body = Client(port).call(
        "POST", "/api/games", {"players": ["Ann", "Bob", "Cy"], "rules": {"preset": "standard"}}
    )
    assert status == 201, body
    return body["id"], body["control_token"]


def watch(port: int, gid: str, arrivals: dict[int, float], stop: threading.Event) -> None:
    """Read the game's stream, noting when each version's event arrives."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", f"/api/games/{gid}/stream")
    resp = conn.getresponse()
    while not stop.is_set():
        line = resp.readline()
        if not line:
            return
        if line.startswith(b"id: "):
            arrivals.setdefault(int(line[4:].strip().rstrip(b"p")), time.perf_counter())


def run_clients(
    play: Callable[[int], None], clients: int, seconds: float, stop: threading.Event
) -> float:
    """Run ``play(i)`` in ``clients`` threads for ``seconds``, then stop them; the elapsed s."""
    threads = [threading.Thread(target=play, args=(i,)) for i in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    return time.perf_counter() - start


def own_games(
    port: int, clients: int, seconds: float, pace: float = 0.0, report: bool = True
) -> None:
    """Each client on its own game, plus a stream on client 0's game.

    With ``pace`` > 0 each client waits that long between actions (a busy table), else it
    sends the next action as soon as the last is answered (saturation).
    """
    games = [new_game(port) for _ in range(clients)]
    latencies: list[float] = []
    sent: dict[int, float] = {}
    arrivals: dict[int, float] = {}
    lock = threading.Lock()
    stop = threading.Event()
    errors: list[str] = []

    def play(i: int) -> None:
        gid, token = games[i]
        c, rng = Client(port), random.Random(i)
        status, body = c.call("GET", f"/api/games/{gid}")
        version, state = body["version"], body["state"]
        mine: list[float] = []
        while not stop.is_set():
            action = {"version": version, **next_action(state, rng)}
            t0 = time.perf_counter()
            status, body = c.call("POST", f"/api/games/{gid}/actions", action, token)
            mine.append(time.perf_counter() - t0)
            if status != 200:
                errors.append(f"{status} {body}")
                return
            version, state = body["version"], body["state"]
            if i == 0:
                sent[version] = t0
            if pace:
                stop.wait(rng.uniform(0.5, 1.5) * pace)
        with lock:
            latencies.extend(mine)

    watcher = threading.Thread(target=watch, args=(port, games[0][0], arrivals, stop), daemon=True)
    watcher.start()
    time.sleep(0.3)
    elapsed = run_clients(play, clients, seconds, stop)
    if errors:
        raise SystemExit(f"unexpected answers: {errors[:3]}")
    delays = [(arrivals[v] - sent[v]) * 1000 for v in sent if v in arrivals]
    if not report:
        return
    print(
        json.dumps(
            {
                "bench": "api_own_games" + (f"_paced_{pace * 1000:.0f}ms" if pace else ""),
                "clients": clients,
                "actions": len(latencies),
                "actions_per_s": round(len(latencies) / elapsed, 1),
                "p50_ms": round(percentile(latencies, 50) * 1000, 2),
                "p90_ms": round(percentile(latencies, 90) * 1000, 2),
                "p99_ms": round(percentile(latencies, 99) * 1000, 2),
                "stream_events": len(delays),
                "stream_delay_p50_ms": round(statistics.median(delays), 2) if delays else None,
                "stream_delay_p99_ms": round(percentile(delays, 99), 2) if delays else None,
            }
        ),
        flush=True,
    )


def one_game(port: int, clients: int, seconds: float) -> None:
    """Every client races on the same game; each version is won by exactly one."""
    gid, token = new_game(port)
    won: list[float] = []
    stale = [0]
    lock = threading.Lock()
    stop = threading.Event()

    def play(i: int) -> None:
        c, rng = Client(port), random.Random(100 + i)
        _, body = c.call("GET", f"/api/games/{gid}")
        version, state = body["version"], body["state"]
        while not stop.is_set():
            action = {"version": version, **next_action(state, rng)}
            t0 = time.perf_counter()
            status, body = c.call("POST", f"/api/games/{gid}/actions", action, token)
            dt = time.perf_counter() - t0
            with lock:
                if status == 200:
                    won.append(dt)
                else:
                    stale[0] += 1
            if status not in (200, 409):
                raise SystemExit(f"unexpected answer {status} {body}")
            version, state = body["version"], body["state"]

    elapsed = run_clients(play, clients, seconds, stop)
    _, body = Client(port).call("GET", f"/api/games/{gid}")
    assert body["version"] == len(won), (body["version"], len(won))
    print(
        json.dumps(
            {
                "bench": "api_one_game_race",
                "clients": clients,
                "versions": len(won),
                "stale_409": stale[0],
                "actions_per_s": round(len(won) / elapsed, 1),
                "p50_ms": round(percentile(won, 50) * 1000, 2),
                "p99_ms": round(percentile(won, 99) * 1000, 2),
            }
        ),
        flush=True,
    )


def main() -> None:
    """Run both measurements against a fresh server and database."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--no-advice", action="store_true", help="serve without the advisor")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        proc, port = start_server(Path(tmp) / "bench.sqlite3", not args.no_advice)
        try:
            own_games(port, args.clients, 1.0, pace=0.1, report=False)  # warm-up
            own_games(port, args.clients, args.seconds, pace=0.1)
            own_games(port, args.clients, args.seconds)
            one_game(port, args.clients, args.seconds)
        finally:
            proc.terminate()
            proc.wait(timeout=10)


if __name__ == "__main__":
    main()
