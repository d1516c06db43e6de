"""The production server's limits on a real socket (issue 31, item 12): slow and endless
requests are dropped, one address cannot take every connection, a live stream's slot is free
as soon as its client leaves, and a full server answers 503 with words."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask

from scorekeeper.web.api_stream import open_streams
from scorekeeper.web.server import ServerLimits, make_server

LIMITS = ServerLimits(threads=8, header_s=0.6, body_s=1.0, idle_s=2, per_client=6)


class Running:
    """A server of a test app in a thread of this process."""

    def __init__(self, app: Flask, limits: ServerLimits) -> None:
        self.app = app
        self.server = make_server(app, "127.0.0.1", 0, limits)
        self.port = int(self.server.socket.getsockname()[1])
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """One JSON request on a new connection: (status, parsed body)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        data = None if body is None else json.dumps(body)
        conn.request(method, path, data, {"Content-Type": "application/json"})
        resp = conn.getresponse()
        raw = resp.read()
        conn.close()
        return resp.status, json.loads(raw) if raw.startswith(b"{") else raw

    def raw(self, source: str = "127.0.0.1") -> socket.socket:
        """A plain socket connected to the server from ``source``."""
        sock = socket.create_connection(
            ("127.0.0.1", self.port), timeout=5, source_address=(source, 0)
        )
        return sock


@pytest.fixture
def running(make_app: Callable[..., Flask]) -> Iterator[Running]:
    app = make_app(
        TESTING=False,
        ADVICE=False,
        MAX_STREAMS=3,
        MAX_STREAMS_PER_CLIENT=2,
        STREAM_KEEPALIVE_S=30,
    )
    srv = Running(app, LIMITS)
    yield srv
    srv.server.task_dispatcher.shutdown(timeout=1)
    srv.server.close()


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes ``sock`` within ``seconds`` (reading what it sends)."""
    sock.settimeout(seconds)
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            if not sock.recv(4096):
                return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    return False


def test_a_header_sent_a_line_every_few_tenths_is_dropped(running: Running) -> None:
    sock = running.raw()
    sock.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n")
    started = time.monotonic()
    closed = False
    while time.monotonic() - started < 4:
        try:
            sock.sendall(b"X-Slow: 1\r\n")
        except OSError:
            closed = True
            break
        if _closed_within(sock, 0.3):
            closed = True
            break
    assert closed, "a drip-fed header kept its connection"
    assert time.monotonic() - started < 3.5
    assert running.request("GET", "/api/games")[0] == 200


def test_an_endless_chunk_size_line_is_a_400(running: Running) -> None:
    sock = running.raw()
    sock.sendall(
        b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    answer = b""
    for _ in range(200):
        try:
            sock.sendall(b"f" * 4096)
        except OSError:
            break
        sock.settimeout(0.01)
        try:
            answer += sock.recv(4096)
        except TimeoutError:
            continue
        if answer:
            break
    sock.settimeout(2)
    while b"chunk-size line" not in answer and (more := sock.recv(4096)):
        answer += more
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
    assert b"chunk-size line" in answer


def test_one_address_cannot_take_every_connection(running: Running) -> None:
    held = [running.raw("127.0.0.2") for _ in range(LIMITS.per_client)]
    extra = running.raw("127.0.0.2")
    extra.settimeout(5)
    answer = _answer(extra, b"connections")
    assert answer.startswith(b"HTTP/1.1 503") and b"too many connections" in answer
    assert running.request("GET", "/api/games")[0] == 200  # another address is served
    for sock in held:
        sock.close()


def _open_stream(running: Running, game_id: str, source: str) -> socket.socket:
    sock = running.raw(source)
    sock.sendall(f"GET /api/games/{game_id}/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    sock.settimeout(5)
    head = sock.recv(4096)
    assert head.startswith(b"HTTP/1.1 200"), head[:300]
    return sock


def _answer(sock: socket.socket, words: bytes) -> bytes:
    """What the server sends on ``sock`` until ``words`` arrive or it closes."""
    sock.settimeout(5)
    got = b""
    while words not in got and (more := sock.recv(4096)):
        got += more
    return got


def _wait_for(check: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return check()


def test_streams_are_bounded_and_a_closed_one_frees_its_slot_at_once(running: Running) -> None:
    status, game = running.request("POST", "/api/games", {"players": ["Ann", "Bob"]})
    assert status == 201
    url = f"/api/games/{game['id']}/stream"
    with running.app.app_context():
        a = _open_stream(running, game["id"], "127.0.0.3")
        b = _open_stream(running, game["id"], "127.0.0.3")
        mine = running.raw("127.0.0.3")
        mine.sendall(f"GET {url} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        answer = _answer(mine, b"live views")
        assert answer.startswith(b"HTTP/1.1 503") and b"already has 2 live views" in answer
        c = _open_stream(running, game["id"], "127.0.0.4")
        assert _wait_for(lambda: open_streams() == 3, 2)
        full = running.raw("127.0.0.5")
        full.sendall(f"GET {url} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        answer = _answer(full, b"live views")
        assert answer.startswith(b"HTTP/1.1 503") and b"all 3 live views" in answer
        assert b"Retry-After" in answer
        a.close()
        started = time.monotonic()
        assert _wait_for(lambda: open_streams() == 2, 2), open_streams()
        assert time.monotonic() - started < 1.0
        d = _open_stream(running, game["id"], "127.0.0.5")
        for sock in (b, c, d, mine, full):
            sock.close()
        assert _wait_for(lambda: open_streams() == 0, 2)


def test_a_connection_that_sends_nothing_is_dropped(running: Running) -> None:
    sock = running.raw()
    started = time.monotonic()
    assert _closed_within(sock, 3)
    assert LIMITS.header_s <= time.monotonic() - started < 2.5


def test_near_the_connection_limit_idle_connections_make_way(
    make_app: Callable[..., Flask],
) -> None:
    limits = ServerLimits(threads=4, header_s=30, connection_limit=20, per_client=100)
    srv = Running(make_app(TESTING=False, ADVICE=False), limits)
    try:
        held = [srv.raw("127.0.0.8") for _ in range(25)]  # past the limit, saying nothing
        started = time.monotonic()
        assert srv.request("GET", "/api/games")[0] == 200
        assert time.monotonic() - started < 3
        for sock in held:
            sock.close()
    finally:
        srv.server.task_dispatcher.shutdown(timeout=1)
        srv.server.close()


def test_a_body_sent_a_byte_at_a_time_is_dropped(running: Running) -> None:
    sock = running.raw()
    sock.sendall(
        b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 1000\r\n\r\n"
    )
    started = time.monotonic()
    closed = False
    while time.monotonic() - started < 5:
        try:
            sock.sendall(b" ")
        except OSError:
            closed = True
            break
        if _closed_within(sock, 0.2):
            closed = True
            break
    assert closed, "a drip-fed body kept its connection"
    assert LIMITS.body_s <= time.monotonic() - started < 4
