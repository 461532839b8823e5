"""The wall-clock deadline of one HTTP attempt of ``agents.llm.chat.ChatClient``: when its time is up, the
sockets of the attempt's connections are shut down, which wakes a read blocked on them whatever the server
sends meanwhile (a server that sends one byte a second is cut off at the deadline)."""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Any

__all__ = ["Deadline"]


class Deadline:
    """Shuts down the sockets of one attempt when its time is up (they are learnt from httpcore's trace)."""

    def __init__(self, seconds: float) -> None:
        self.expired = False
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's ``trace`` extension: keep the socket of each connection made for the attempt."""
        if event not in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            return
        sock = info["return_value"].get_extra_info("socket")
        if sock is None:
            return
        with self._lock:
            self._sockets.append(sock)
            expired = self.expired
        if expired:
            _shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)

    def cancel(self) -> None:
        """Stop the timer (the attempt ended in time)."""
        self._timer.cancel()


def _shut(sock: socket.socket) -> None:
    """Wake any read blocked on ``sock`` (``shutdown``, unlike ``close``, does) and end the connection."""
    with contextlib.suppress(OSError):  # closed already
        sock.shutdown(socket.SHUT_RDWR)
