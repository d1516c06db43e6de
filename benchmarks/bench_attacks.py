"""Benchmark the attacks of issue 31 on a real ``scorekeeper serve`` (waitress) on loopback:
while each runs, a probe reads a game every 0.1 s on a new connection (a tablet joining) and
the server's memory is sampled.

The attackers run in a process of their own. Phases, ``--phase-seconds`` each: a quiet
baseline; slow connections (300 that never send a byte and 300 that send one header line
every 2 s, from 20 addresses); endless chunk-size lines (4 connections sending hex digits
without end, reconnecting as soon as dropped); image bombs of every format OpenCV decodes
(``tests/helpers/bombs.py``) posted to ``/api/camera/photo`` by 4 clients; live streams
opened and closed by 8 clients, then 200 opened at once (are the slots free?).

Prints one JSON line per phase: the probe's p50/p99/max in ms and its failures, the server's
largest RSS in MB, and what the attack met (answers by status, connections dropped), then a
summary line with the server's peak RSS (``VmHWM``).
Run: ``.venv/bin/python benchmarks/bench_attacks.py`` (``--phase-seconds S``, ``--no-advice``).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import http.client
import json
import multiprocessing
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_load import Client, percentile, start_server

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from helpers.bombs import image_bombs


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    """The process's resident memory (or ``VmHWM``, its peak) in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


class Probe:
    """Reads the game every 0.1 s on a new connection and samples the server's RSS."""

    def __init__(self, port: int, game_id: str, pid: int) -> None:
        self.port, self.game_id, self.pid = port, game_id, pid
        self.latency: list[float] = []
        self.failures = 0
        self.rss: list[float] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            began = time.monotonic()
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                conn.request("GET", f"/api/games/{self.game_id}")
                resp = conn.getresponse()
                resp.read()
                conn.close()
                if resp.status != 200:
                    self.failures += 1
                else:
                    self.latency.append(time.monotonic() - began)
            except (OSError, http.client.HTTPException):
                self.failures += 1
            self.rss.append(rss_mb(self.pid))
            time.sleep(max(0.0, 0.1 - (time.monotonic() - began)))

    def phase(self) -> dict[str, Any]:
        """The figures since the last call, and start afresh."""
        lat, self.latency = self.latency, []
        rss, self.rss = self.rss, []
        failures, self.failures = self.failures, 0
        return {
            "probe_ms": {
                "p50": round(percentile(lat, 50) * 1000, 1),
                "p99": round(percentile(lat, 99) * 1000, 1),
                "max": round(max(lat, default=0) * 1000, 1),
            },
            "probes": len(lat),
            "probe_failures": failures,
            "rss_mb_max": round(max(rss, default=0), 1),
        }


def connect(port: int, source: str) -> socket.socket | None:
    """A socket to the server from ``source``, or None when refused."""
    try:
        return socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
    except OSError:
        return None


def slow_connections(
    port: int, gid: str, until: float, met: collections.Counter[str], k: int
) -> None:
    """300 silent connections and 300 that drip one header line every 2 s."""
    silent, dripping = [], []
    for i in range(600):
        sock = connect(port, f"127.0.3.{1 + i % 20}")
        if sock is None:
            met["refused"] += 1
            continue
        (silent if i % 2 else dripping).append(sock)
        if not i % 2:
            sock.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n")
    while time.monotonic() < until:
        for sock in list(dripping):
            try:
                sock.sendall(b"X-Slow: 1\r\n")
            except OSError:
                met["dripping_dropped"] += 1
                dripping.remove(sock)
        time.sleep(2)
    for sock in silent:
        sock.settimeout(0.01)
        try:
            closed = sock.recv(1) == b""
        except TimeoutError:
            closed = False
        except OSError:
            closed = True
        met["silent_dropped" if closed else "silent_still_open"] += 1
        sock.close()
    met["dripping_still_open"] += len(dripping)
    for sock in dripping:
        sock.close()


def endless_chunks(
    port: int, gid: str, until: float, met: collections.Counter[str], k: int
) -> None:
    """Send a chunk-size line that never ends; reconnect when the server drops it."""
    head = (
        b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    while time.monotonic() < until:
        sock = connect(port, f"127.0.5.{k + 1}")
        if sock is None:
            met["refused"] += 1
            time.sleep(0.1)
            continue
        try:
            sock.sendall(head)
            while time.monotonic() < until:
                sock.sendall(b"f" * 8192)
        except OSError:
            met["dropped"] += 1
        sock.settimeout(1)
        try:
            if sock.recv(64).startswith(b"HTTP/1.1 400"):
                met["answered_400"] += 1
        except OSError:
            pass
        sock.close()


def bombs(port: int, gid: str, until: float, met: collections.Counter[str], k: int) -> None:
    """Post every image bomb in turn to the photo endpoint."""
    files = list(image_bombs().items())
    client = Client(port)
    n = k
    while time.monotonic() < until:
        _, data = files[n % len(files)]
        n += 1
        conn = client.conn
        try:
            conn.request("POST", "/api/camera/photo", data, {"Content-Type": "image/x"})
            resp = conn.getresponse()
            resp.read()
            met[f"status_{resp.status}"] += 1
        except (OSError, http.client.HTTPException):
            met["failed"] += 1
            client = Client(port)


def streams(port: int, game_id: str, until: float, met: collections.Counter[str], k: int) -> None:
    """Open a live stream, read its first event, close it; again and again."""
    request = f"GET /api/games/{game_id}/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    while time.monotonic() < until:
        sock = connect(port, f"127.0.6.{k + 1}")
        if sock is None:
            met["refused"] += 1
            continue
        try:
            sock.sendall(request)
            got = b""
            while b"event: state" not in got and b" 503 " not in got[:20]:
                more = sock.recv(65536)
                if not more:
                    break
                got += more
            met["opened" if b" 200 " in got[:20] else "refused_503"] += 1
        except OSError:
            met["failed"] += 1
        sock.close()


def open_many(port: int, game_id: str, count: int) -> int:
    """Open ``count`` streams at once from as many addresses; how many were answered 200."""
    request = f"GET /api/games/{game_id}/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    socks = [connect(port, f"127.0.7.{1 + i}") for i in range(count)]
    ok = 0
    for sock in socks:
        if sock is not None:
            sock.sendall(request)
    for sock in socks:
        if sock is None:
            continue
        with contextlib.suppress(OSError):
            ok += sock.recv(64).startswith(b"HTTP/1.1 200")
    for sock in socks:
        if sock is not None:
            sock.close()
    return ok


def _attack(
    attackers: list[tuple[Callable[..., None], int]],
    port: int,
    gid: str,
    until: float,
    out: multiprocessing.Queue[dict[str, int]],
) -> None:
    """In the attack process: run ``count`` threads of each attacker until ``until``."""
    met: collections.Counter[str] = collections.Counter()
    threads = [
        threading.Thread(target=fn, args=(port, gid, until, met, k), daemon=True)
        for fn, count in attackers
        for k in range(count)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(0.0, until - time.monotonic()) + 30)
    out.put(dict(met))


def run_phase(
    probe: Probe,
    seconds: float,
    attackers: list[tuple[Callable[..., None], int]],
    port: int,
    gid: str,
) -> tuple[dict[str, Any], dict[str, int]]:
    """Run the attackers in a process of their own (so they do not slow the probe's
    process) for ``seconds``; the probe's figures meanwhile and what the attack met."""
    probe.phase()
    until = time.monotonic() + seconds
    out: multiprocessing.Queue[dict[str, int]] = multiprocessing.Queue()
    proc = multiprocessing.Process(target=_attack, args=(attackers, port, gid, until, out))
    proc.start()
    met = out.get(timeout=seconds + 60)
    proc.join(10)
    time.sleep(max(0.0, until - time.monotonic()))
    return probe.phase(), met


PHASES: list[tuple[str, list[tuple[Callable[..., None], int]]]] = [
    ("quiet", []),
    ("slow connections", [(slow_connections, 1)]),
    ("endless chunk lines", [(endless_chunks, 4)]),
    ("image bombs", [(bombs, 4)]),
    ("streams opened and closed", [(streams, 8)]),
]


def main() -> None:
    """Run every phase and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--phase-seconds", type=float, default=15.0)
    ap.add_argument("--no-advice", action="store_true")
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-attacks-"))
    extra = ["--cache-dir", str(folder / "cache"), "--camera", "none"]
    extra += ["--no-advice"] if args.no_advice else []
    proc, port = start_server(folder / "games.sqlite3", extra)
    try:
        status, game = Client(port).call("POST", "/api/games", {"players": ["Ann", "Bob"]})
        assert status == 201, game
        gid = game["id"]
        probe = Probe(port, gid, proc.pid)
        for name, attackers in PHASES:
            figures, met = run_phase(probe, args.phase_seconds, attackers, port, gid)
            more: dict[str, Any] = {}
            if attackers and attackers[0][0] is streams:
                time.sleep(1.0)
                more["then_200_opened_at_once"] = open_many(port, gid, 200)
            print(json.dumps({"phase": name, **figures, "attack": met, **more}), flush=True)
        probe.stop.set()
        peak = round(rss_mb(proc.pid, "VmHWM"), 1)
        alive = proc.poll() is None
        print(
            json.dumps({"summary": "server peak RSS (VmHWM)", "peak_rss_mb": peak, "alive": alive})
        )
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
