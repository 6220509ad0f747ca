"""A TCP proxy between a table and the broker that can cut the network two ways (the feed tests, the floor soak).

- :meth:`TcpProxy.drop` closes every connection (a cable pulled with the link noticed), and
  refuses new ones until :meth:`TcpProxy.restore`;
- :meth:`TcpProxy.swallow` keeps every connection open but forwards nothing, either way (a
  black hole: a switch dropping packets), until :meth:`TcpProxy.restore`.
"""

from __future__ import annotations

import selectors
import socket
import threading

from bench.feed.broker import free_port

__all__ = ["TcpProxy"]


class TcpProxy:
    """Listen on a free loopback port and forward to ``127.0.0.1:target_port``."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self._listener = socket.create_server(("127.0.0.1", self.port))
        self._listener.setblocking(False)
        self._pairs: dict[socket.socket, socket.socket] = {}
        self._mode = "forward"  # forward | drop | swallow
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def url(self, scheme: str = "mqtt") -> str:
        """The proxy's URL."""
        return f"{scheme}://127.0.0.1:{self.port}"

    def __enter__(self) -> TcpProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)
        self._close_all()
        self._listener.close()

    def drop(self) -> None:
        """Close every connection; refuse new ones."""
        with self._lock:
            self._mode = "drop"
        self._close_all()

    def swallow(self) -> None:
        """Forward nothing from now on, keeping the connections open."""
        with self._lock:
            self._mode = "swallow"

    def restore(self) -> None:
        """Forward again (swallowed connections stay dead: their bytes are lost)."""
        with self._lock:
            if self._mode == "swallow":
                self._close_all()
            self._mode = "forward"

    def _close_all(self) -> None:
        with self._lock:
            pairs, self._pairs = self._pairs, {}
        for sock in pairs:
            sock.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                socks = [self._listener, *self._pairs]
                mode = self._mode
            try:
                ready = selectors.DefaultSelector()
                for sock in socks:
                    ready.register(sock, selectors.EVENT_READ)
                events = ready.select(0.05)
                ready.close()
            except (OSError, ValueError):
                continue  # a socket closed under us by drop()
            for key, _ in events:
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                if sock is self._listener:
                    self._accept(mode)
                else:
                    self._forward(sock, deliver=mode == "forward")

    def _accept(self, mode: str) -> None:
        try:
            client, _ = self._listener.accept()
        except OSError:
            return
        if mode == "drop":
            client.close()
            return
        try:
            upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=2)
        except OSError:
            client.close()
            return
        with self._lock:
            self._pairs[client], self._pairs[upstream] = upstream, client

    def _forward(self, sock: socket.socket, deliver: bool) -> None:
        """Pass what ``sock`` received to its other end (or drop it: ``deliver`` false)."""
        with self._lock:
            other = self._pairs.get(sock)
        if other is None:
            return
        try:
            data = sock.recv(65536)
            if data:
                if deliver:
                    other.sendall(data)
                return
        except OSError:
            pass
        with self._lock:
            self._pairs.pop(sock, None)
            self._pairs.pop(other, None)
        sock.close()
        other.close()
