"""HTTP with one deadline for the whole exchange: connect, send, status line, headers and body.

A socket timeout bounds each read, so a server that answers one byte a second never trips it:
a case with a 10 s timeout ran for 45 s. Here every socket operation of the connection gets
what is left of the same deadline, and none starts once it has passed (TimeoutError).
"""

from __future__ import annotations

import http.client
import socket
import time
from typing import Any


class _DeadlineSocket(socket.socket):
    """A socket whose every send and receive has only what is left of `deadline` (monotonic)."""

    __slots__ = ("deadline",)
    deadline: float

    def _arm(self) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("timed out")
        self.settimeout(left)

    def recv(self, *args: Any) -> bytes:
        self._arm()
        return super().recv(*args)

    def recv_into(self, *args: Any) -> int:
        self._arm()
        return super().recv_into(*args)

    def send(self, *args: Any) -> int:
        self._arm()
        return super().send(*args)

    def sendall(self, *args: Any) -> None:
        self._arm()  # one timeout for the whole of sendall (Python >= 3.5)
        super().sendall(*args)


class DeadlineConnection(http.client.HTTPConnection):
    """An HTTP connection to `host:port` that must be done by `deadline` (time.monotonic()).

    Every operation past the deadline raises TimeoutError, whatever the server trickles."""

    def __init__(self, host: str, port: int, deadline: float) -> None:
        super().__init__(host, port, timeout=max(deadline - time.monotonic(), 0.001))
        self.deadline = deadline

    def connect(self) -> None:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = _DeadlineSocket(family, socket.SOCK_STREAM)
        sock.deadline = self.deadline
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock._arm()
            sock.connect((self.host, self.port))
        except BaseException:
            sock.close()
            raise
        self.sock = sock
