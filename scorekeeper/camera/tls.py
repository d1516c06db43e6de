"""HTTPS for ``scorekeeper serve --https``: a self-signed certificate and a small TLS front.

Browsers let a page use the tablet's camera only on https (or localhost). Waitress speaks plain
HTTP, so ``--https`` runs waitress on a loopback port and puts :class:`TLSFront` before it: a
thread per connection that decrypts and forwards bytes both ways. The certificate is made on
first start with the ``openssl`` command and kept in the
data directory, so the browser's one-time exception stays valid across restarts.
"""

from __future__ import annotations

import contextlib
import ipaddress
import select
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path

from scorekeeper.errors import CameraError

CERT_NAME = "scorekeeper-cert.pem"
MAX_CONNECTIONS = 512
"""Connections the TLS front forwards at once (a thread each); more are closed at once."""
KEY_NAME = "scorekeeper-key.pem"


def _san_entries(hosts: Sequence[str]) -> list[str]:
    out = ["DNS:localhost", "IP:127.0.0.1"]
    for h in hosts:
        if not h or h in ("0.0.0.0", "localhost", "127.0.0.1", "::"):
            continue
        try:
            ipaddress.ip_address(h)
        except ValueError:
            out.append(f"DNS:{h}")
        else:
            out.append(f"IP:{h}")
    return list(dict.fromkeys(out))


def ensure_certificate(folder: Path, hosts: Sequence[str] = ()) -> tuple[Path, Path]:
    """``(cert, key)`` in ``folder``, made (self-signed, 825 days) if not there yet.

    :raises CameraError: the ``openssl`` command is missing or fails.
    """
    folder.mkdir(parents=True, exist_ok=True)
    cert, key = folder / CERT_NAME, folder / KEY_NAME
    if cert.is_file() and key.is_file():
        return cert, key
    _make_with_openssl(cert, key, _san_entries(hosts))
    key.chmod(0o600)
    return cert, key


def _make_with_openssl(cert: Path, key: Path, sans: list[str]) -> None:
    exe = shutil.which("openssl")
    if exe is None:
        raise CameraError(
            "--https needs the openssl command to make its certificate"
            " (apt-get install openssl, or brew install openssl)"
        )
    cmd = [
        exe, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "825",
        "-subj", "/CN=scorekeeper", "-keyout", str(key), "-out", str(cert),
        "-addext", "subjectAltName=" + ",".join(sans),
    ]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=60)
    if done.returncode != 0:
        raise CameraError(f"openssl could not make the certificate: {done.stderr.strip()}")


class TLSFront:
    """Accepts TLS connections on ``host:port`` and forwards them to a plain-HTTP backend."""

    def __init__(self, host: str, port: int, cert: Path, key: Path, backend_port: int) -> None:
        """Listen on ``host:port`` (0: any free port); forward to ``127.0.0.1:backend_port``."""
        self.context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.context.load_cert_chain(str(cert), str(key))
        self.backend = ("127.0.0.1", backend_port)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, port))
        self.sock.listen(128)
        self.port = int(self.sock.getsockname()[1])
        self._stop = threading.Event()
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._thread = threading.Thread(target=self._accept_loop, name="tls-front", daemon=True)

    def start(self) -> TLSFront:
        """Start accepting (returns self)."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop accepting new connections."""
        self._stop.set()
        with contextlib.suppress(OSError):
            self.sock.close()

    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            if not self._slots.acquire(blocking=False):  # full: a thread each is the cost
                conn.close()
                continue
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, raw: socket.socket) -> None:
        try:
            self._forward(raw)
        finally:
            self._slots.release()

    def _forward(self, raw: socket.socket) -> None:
        raw.settimeout(15)  # the TLS handshake
        try:
            client = self.context.wrap_socket(raw, server_side=True)
        except (OSError, ssl.SSLError):
            raw.close()
            return
        try:
            backend = socket.create_connection(self.backend, timeout=15)
        except OSError:
            client.close()
            return
        client.settimeout(None)
        backend.settimeout(None)
        try:
            _pump(client, backend)
        finally:
            for s in (client, backend):
                with contextlib.suppress(OSError):
                    s.close()


def _pump(client: ssl.SSLSocket, backend: socket.socket, idle: float = 300.0) -> None:
    """Copy bytes both ways until either side closes or nothing moves for ``idle`` seconds."""
    poller = select.poll()  # not select(): it fails past file descriptor 1024
    poller.register(client, select.POLLIN)
    poller.register(backend, select.POLLIN)
    while True:
        ready: list[socket.socket]
        if client.pending():
            ready = [client]
        else:
            events = poller.poll(idle * 1000)
            if not events:
                return
            fds = {fd for fd, _ in events}
            ready = [s for s in (client, backend) if s.fileno() in fds]
        try:
            if client in ready:
                data = client.recv(65536)
                if not data:
                    return
                backend.sendall(data)
            if backend in ready:
                data = backend.recv(65536)
                if not data:
                    return
                client.sendall(data)
        except (OSError, ssl.SSLError):
            return
