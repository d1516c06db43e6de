"""The production server: waitress with the limits a game night on a Raspberry Pi needs.

Waitress stays (pure Python, no build step, already the app's server): its asyncore loop reads
every request whole before a worker thread sees it, so a slow client never holds a thread while
it sends. What it lacks is added here, by subclassing its server, channel and parser:

- a request's header must arrive within ``header_s`` seconds and its body within ``body_s``,
  and a new connection must send its first byte within ``header_s`` (waitress's
  ``channel_timeout`` only closes connections idle between requests, so a client sending one
  header line every few seconds was never dropped);
- a chunk-size line longer than :data:`MAX_CHUNK_LINE` bytes is a 400 (waitress kept growing
  and re-scanning it, a busy network thread for everyone);
- at most ``per_client`` connections from one address (a 503 with words beyond it), so one
  device cannot use up ``connection_limit``;
- a response the client stopped reading for ``channel_timeout`` seconds is closed, freeing its
  thread (a live stream to a phone that went to sleep);
- near ``connection_limit``, the oldest connections not being answered are closed, so
  waitress never stops accepting new ones.
"""

from __future__ import annotations

import contextlib
import resource
import time
from dataclasses import dataclass
from typing import Any, cast

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.receiver import ChunkedReceiver
from waitress.server import MultiSocketServer, TcpWSGIServer
from waitress.task import ThreadedTaskDispatcher
from waitress.utilities import BadRequest

MAX_CHUNK_LINE = 1024
"""The longest chunk-size line of a chunked body, in bytes."""
SHED_AT, SHED_TO = 0.8, 0.7
"""Past this share of ``connection_limit`` open, connections not being answered are closed,
oldest first, down to the second share."""


@dataclass(frozen=True)
class ServerLimits:
    """How long a request may take to arrive, how big it may be, and how many connections."""

    threads: int = 48
    header_s: float = 10.0
    body_s: float = 60.0
    idle_s: int = 30
    connection_limit: int = 500
    per_client: int = 64
    max_header_bytes: int = 16 * 1024
    max_body_bytes: int = 17 * 1024 * 1024
    outbuf_high_bytes: int = 1024 * 1024

    def adjustments(self, host: str, port: int) -> dict[str, Any]:
        """Waitress's own settings for these limits."""
        return {
            "host": host,
            "port": port,
            "threads": self.threads,
            "ident": "scorekeeper",
            "channel_timeout": self.idle_s,
            "cleanup_interval": 1,
            "connection_limit": self.connection_limit,
            "max_request_header_size": self.max_header_bytes,
            "max_request_body_size": self.max_body_bytes,
            "outbuf_high_watermark": self.outbuf_high_bytes,
            # read on while a request runs, so a live stream notices a client that left
            "channel_request_lookahead": 2,
            # poll(), not select(): select() fails outright past file descriptor 1024, and
            # each live stream holds a socket and a database connection (3 descriptors)
            "asyncore_use_poll": True,
        }


def _channels(server: TcpWSGIServer) -> list[HTTPChannel]:
    """The server's open connections (waitress's stubs mistype ``active_channels``)."""
    found: dict[int, HTTPChannel] = getattr(server, "active_channels", {})
    return list(found.values())


class LimitedParser(HTTPRequestParser):
    """Waitress's request parser that knows when the request began and bounds chunk lines."""

    def __init__(self, adj: Adjustments) -> None:
        """A parser for one request, started now."""
        super().__init__(adj)
        self.started = time.monotonic()

    def received(self, data: bytes) -> int:
        """Parse ``data``; a chunk-size line over :data:`MAX_CHUNK_LINE` bytes ends it as 400."""
        consumed = int(super().received(data))
        body = self.body_rcv
        if (
            not self.completed
            and isinstance(body, ChunkedReceiver)
            and len(body.control_line) > MAX_CHUNK_LINE
        ):
            self.error = BadRequest(f"a chunk-size line is longer than {MAX_CHUNK_LINE} bytes")
            self.completed = True
        return consumed


class LimitedChannel(HTTPChannel):
    """A connection: refused with 503 when its address already holds too many."""

    parser_class = LimitedParser

    def __init__(self, server: LimitedServer, sock: Any, addr: Any, adj: Any, map: Any = None):
        """Register the connection; answer 503 and close it if its address has too many."""
        super().__init__(server, sock, addr, adj, map)
        host = addr[0] if isinstance(addr, tuple) else addr
        same = sum(
            1 for ch in _channels(server) if isinstance(ch.addr, tuple) and ch.addr[0] == host
        )
        if same > server.limits.per_client:
            words = (
                f"too many connections from {host} (at most {server.limits.per_client});"
                " close some pages and retry\n"
            ).encode()
            head = (
                "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
                f"Retry-After: 5\r\nConnection: close\r\nContent-Length: {len(words)}\r\n\r\n"
            ).encode()
            self.write_soon(head + words)
            self.close_when_flushed = True


class LimitedServer(TcpWSGIServer):
    """Waitress's TCP server with :class:`ServerLimits` (see the module's docstring)."""

    channel_class = LimitedChannel

    def __init__(self, *args: Any, limits: ServerLimits, **kwargs: Any) -> None:
        """A server like ``TcpWSGIServer(...)``, enforcing ``limits``."""
        self.limits = limits
        super().__init__(*args, **kwargs)

    def maintenance(self, now: float) -> None:
        """Close idle connections (waitress), and those whose request is too slow to arrive
        or whose response the client stopped reading."""
        super().maintenance(cast(int, now))  # the stubs say int; waitress passes time.time()
        mono = time.monotonic()
        stalled = now - self.adj.channel_timeout
        header_s = self.limits.header_s
        for channel in _channels(self):
            request = channel.request
            silent = channel.last_activity == channel.creation_time  # not one byte either way
            if silent and not channel.requests and now - channel.creation_time > header_s:
                channel.will_close = True
            if isinstance(request, LimitedParser) and not request.completed:
                allowed = self.limits.body_s if request.headers_finished else self.limits.header_s
                if mono - request.started > allowed:
                    channel.will_close = True
            if channel.requests and channel.total_outbufs_len and channel.last_activity < stalled:
                channel.will_close = True
        self._shed()

    def readable(self) -> bool:
        """Shed connections as soon as too many are open (not only each second), then
        let waitress decide whether to accept more."""
        if len(_channels(self)) > self.adj.connection_limit * SHED_AT:
            self._shed()
        return bool(super().readable())

    def _shed(self) -> None:
        """Near the connection limit, close the oldest connections that are not being
        answered (idle, silent, or still sending their request), so that waitress never
        stops accepting and a tablet can always connect."""
        channels = _channels(self)
        high = int(self.adj.connection_limit * SHED_AT)
        if len(channels) <= high:
            return
        waiting = sorted(
            (ch for ch in channels if not ch.requests and not ch.will_close),
            key=lambda ch: ch.last_activity,
        )
        for channel in waiting[: len(channels) - int(self.adj.connection_limit * SHED_TO)]:
            channel.will_close = True


def raise_file_limit(wanted: int = 8192) -> int:
    """Raise this process's soft limit on open files towards ``wanted`` (as far as the hard
    limit allows; a Raspberry Pi's default of 1024 is below what 240 live streams hold);
    the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return int(resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def make_server(app: Any, host: str, port: int, limits: ServerLimits) -> Any:
    """A waitress server of ``app`` on ``host``:``port`` with ``limits`` (call ``run()``).

    :raises OSError: when it cannot listen there.
    """
    raise_file_limit()
    adj = Adjustments(**limits.adjustments(host, port))
    dispatcher = ThreadedTaskDispatcher()
    dispatcher.set_thread_count(adj.threads)
    socket_map: dict[int, Any] = {}
    servers = [
        LimitedServer(app, socket_map, dispatcher=dispatcher, adj=adj, sockinfo=info, limits=limits)
        for info in adj.listen
    ]
    if len(servers) == 1:
        return servers[0]
    listen = [(str(s.effective_host), int(s.effective_port)) for s in servers]  # type: ignore[attr-defined]
    return MultiSocketServer(socket_map, adj, listen, dispatcher, servers[0].log_info)
