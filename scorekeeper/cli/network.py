"""This machine's address on the local network, for ``serve`` and its ``--https`` front."""

from __future__ import annotations

import contextlib
import socket


def lan_address() -> str:
    """This machine's address on the local network (no packet is sent), or 127.0.0.1."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("10.255.255.255", 1))
        addr = str(s.getsockname()[0])
        if not addr.startswith("0."):
            return addr
    with contextlib.suppress(OSError):
        return socket.gethostbyname(socket.gethostname())
    return "127.0.0.1"
