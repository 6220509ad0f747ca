"""The control socket: the one way the web face speaks to the service (issue 30).

The service owns the device loop, the journal and the keys; the web face, which faces the
network, runs in a process of its own and reaches the service only through this Unix stream
socket. The socket is a face like any other (docs/security.md): the service assumes the peer
is hostile.

- **Framing.** A message is a 4-byte big-endian length and that many bytes of one UTF-8 JSON
  object. A request is at most ``max_message`` bytes (:data:`MAX_MESSAGE`, 4 KiB); a longer
  length ends the connection unread. A frame begun must be finished within ``frame_s``.
- **Typed.** A request is ``{"op": NAME, FIELD: VALUE, ...}`` naming a registered :class:`Op`
  and carrying exactly its fields with their types (a bool is not an int); every text in it,
  keys included, passes the text policy (:func:`firmware_host.text.problem`); it nests at most
  :data:`MAX_DEPTH` deep with at most :data:`MAX_ITEMS` entries a level; no NaN, no repeated key.
- **Peers.** Only processes whose uid is allowed (``SO_PEERCRED``, which the kernel fills in)
  are served; the socket file is ``0660``, owned by the service and the web face's group.
- **Bounded.** At most ``max_connections`` connections at once (more wait in the kernel's
  backlog, unaccepted). Everything a peer makes the server do is paid from one bucket of
  ``rate_per_s`` tokens a second (``burst`` held): each connection accepted and each request
  begun takes a token, whatever becomes of the request (answered, or refused: its op's own
  tighter bucket, an op not offered, not JSON, past the bounds, too long). A connection that
  finds no token waits until its token is earned, and a request that waited is refused ``rate
  limited``; tokens not yet earned are owed in turn, so connections waiting together get the
  rate, not the rate each. **The bound:** past the first ``burst`` (and one token owed per
  connection and by the accept), the server does at most ``rate_per_s`` accepts or requests a
  second in all, each at most one accept (credentials, a thread) or one request (a length, at
  most ``max_message`` bytes, one parse, one reply); and it refuses at most ``1 /``
  :data:`REFUSAL_PAUSE_S` peers a second by their credentials. At 200 a second and about 130 µs
  of CPU each (``bench/bench_webface.py``'s socket flood), a flood costs the service about 3% of
  a core, whatever the peers send and however many connections they open.
- **Counted.** Every refusal is counted by reason (:attr:`ControlServer.counts`) and logged at a
  rate limit (:class:`~firmware_host.web.logs.RateLimit`).

Handlers run on the server's connection threads, never on the service loop's thread; a handler
refuses a request by raising :class:`ControlRefused`, and any other exception is answered, logged
and counted without ending the server. :class:`ControlClient` is the web face's side.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
import socket
import stat
import struct
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from firmware_host.errors import TablehostError
from firmware_host.text import problem
from firmware_host.web.logs import RateLimit

__all__ = [
    "ControlServer",
    "ControlClient",
    "ControlError",
    "ControlRefused",
    "Op",
    "Peer",
    "parse_request",
    "MAX_MESSAGE",
    "MAX_REPLY",
]

log = logging.getLogger("tablehost.control")

#: Longest request, bytes (the JSON after the length).
MAX_MESSAGE = 4096
#: Longest reply the client reads, bytes (the metrics' exposition fits many times over).
MAX_REPLY = 1 << 20
#: Deepest nesting of a request (the object itself is depth 1), and most entries a level.
MAX_DEPTH = 4
MAX_ITEMS = 64
#: Longest text anywhere in a request, keys included.
MAX_TEXT = 1024
#: Seconds the server pauses after refusing a peer's credentials.
REFUSAL_PAUSE_S = 0.01
#: The longest path a Unix socket can be bound to (``sun_path`` less its terminating NUL).
MAX_PATH = 107

_LENGTH = struct.Struct(">I")
_CREDENTIALS = struct.Struct("3i")  # struct ucred: pid, uid, gid

FieldType = type | tuple[type, ...]


class ControlError(TablehostError):
    """The control socket cannot be served or reached."""


class ControlRefused(TablehostError):
    """A request the service refuses: its text says why (answered to the peer), ``reason`` is the
    kind it is counted under (one of a few fixed words, so a peer cannot grow the counts)."""

    def __init__(self, why: str, reason: str = "refused") -> None:
        super().__init__(why)
        self.reason = reason


@dataclasses.dataclass(frozen=True)
class Peer:
    """Who is at the other end, as the kernel says (``SO_PEERCRED``)."""

    pid: int
    uid: int
    gid: int


@dataclasses.dataclass(frozen=True)
class Op:
    """One operation the service offers: its fields (name -> type) and its handler.

    :param rate_per_s: this op's own rate in requests a second (None: only the server's).
    :param burst: its bucket's size.
    """

    fields: Mapping[str, FieldType]
    handler: Callable[[dict[str, Any], Peer], dict[str, Any]]
    rate_per_s: float | None = None
    burst: int = 10


def parse_request(raw: bytes, ops: Mapping[str, Op]) -> tuple[str, dict[str, Any]]:
    """The op and the fields of one request's bytes.

    :raises ControlRefused: not UTF-8 JSON, not an object, past the bounds or the text policy,
        an op not offered, a field missing, unknown or of the wrong type.
    """
    try:
        value = json.loads(raw.decode("utf-8"), object_pairs_hook=_unique, parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ControlRefused("not JSON", "not JSON") from exc
    if not isinstance(value, dict):
        raise ControlRefused("not a JSON object", "not JSON")
    why = _unbounded(value, MAX_DEPTH)
    if why is not None:
        raise ControlRefused(why, "past the bounds")
    name = value.pop("op", None)
    op = ops.get(name) if isinstance(name, str) else None
    if op is None:
        raise ControlRefused("no such op", "no such op")
    if set(value) != set(op.fields):
        raise ControlRefused(f"{name}: takes {', '.join(sorted(op.fields)) or 'no field'}", "fields")
    for field, kind in op.fields.items():
        if not _is(value[field], kind):
            raise ControlRefused(f"{name}: {field} has the wrong type", "fields")
    return name, value


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise ValueError("a repeated key")
    return found


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _is(value: Any, kind: FieldType) -> bool:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool):
        return bool in kinds
    return isinstance(value, kinds)


def _unbounded(value: Any, depth: int) -> str | None:
    """Why a parsed value is past the bounds or the text policy, or None."""
    if isinstance(value, str):
        return problem(value, MAX_TEXT)
    if isinstance(value, float):
        return None if math.isfinite(value) else "a number out of range"
    if isinstance(value, (dict, list)):
        if depth == 0:
            return f"nests deeper than {MAX_DEPTH}"
        if len(value) > MAX_ITEMS:
            return f"more than {MAX_ITEMS} entries"
        items = [*value, *value.values()] if isinstance(value, dict) else value
        return next((why for why in (_unbounded(item, depth - 1) for item in items) if why), None)
    return None  # an int (JSON's are exact), a bool, None


class _Bucket:
    """A token bucket: ``rate`` tokens a second, at most ``size`` held."""

    def __init__(self, rate: float, size: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.size, self.clock = rate, float(size), clock
        self._tokens, self._at = float(size), clock()
        self._lock = threading.Lock()

    def take(self) -> float:
        """0 when a token was taken; else the seconds until the next one (none taken)."""
        with self._lock:
            self._fill()
            if self._tokens >= 1:
                self._tokens -= 1
                return 0.0
            return (1 - self._tokens) / self.rate

    def reserve(self) -> float:
        """Take a token, held or not: the seconds until it is earned (0: it was held). Tokens not
        yet earned are owed (the bucket goes below 0), so callers waiting at once wait in turn:
        together they get no more than the rate, however many they are."""
        with self._lock:
            self._fill()
            self._tokens -= 1
            return 0.0 if self._tokens >= 0 else -self._tokens / self.rate

    def _fill(self) -> None:
        now = self.clock()
        self._tokens = min(self.size, self._tokens + (now - self._at) * self.rate)
        self._at = now


class ControlServer:
    """The service's side of the control socket.

    :param path: where to bind (a stale socket there is replaced; any other file is an error).
    :param allowed_uids: the peers served (``SO_PEERCRED``); the service's own uid is not implied.
    :param ops: the operations offered, by name.
    :param group: the gid the socket file is given (the web face's group), or None.
    :param frame_s: seconds a frame begun may take to arrive, and a reply to be taken.
    :param clock, sleep: the buckets' clock and how a connection is held (tests hold the clock).
    """

    def __init__(
        self,
        path: Path,
        *,
        allowed_uids: frozenset[int],
        ops: Mapping[str, Op],
        max_message: int = MAX_MESSAGE,
        rate_per_s: float = 200.0,
        burst: int = 50,
        max_connections: int = 4,
        group: int | None = None,
        frame_s: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if len(os.fsencode(path)) > MAX_PATH:
            raise ControlError(f"control socket {path}: longer than {MAX_PATH} bytes, which a Unix socket cannot be")
        self.path, self.allowed_uids, self.ops = Path(path), allowed_uids, dict(ops)
        self.max_message, self.max_connections, self.group, self.frame_s = max_message, max_connections, group, frame_s
        #: Requests answered by a handler, and refusals by reason.
        self.counts: dict[str, int] = {"answered": 0}
        self._bucket = _Bucket(rate_per_s, burst, clock)
        self._op_buckets = {name: _Bucket(op.rate_per_s, op.burst, clock) for name, op in ops.items() if op.rate_per_s}
        self._sleep = sleep
        self._limit = RateLimit()
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self._slots = threading.Semaphore(max_connections)
        #: Connections accepted and served since start.
        self.accepted = 0
        self._listener: socket.socket | None = None
        self._thread: threading.Thread | None = None

    # -- life ------------------------------------------------------------------------------
    def start(self) -> None:
        """Bind (``0660``), listen, and accept in a thread of its own."""
        self._clear_stale()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(os.fspath(self.path))
            os.chmod(self.path, 0o660)
            if self.group is not None:
                os.chown(self.path, -1, self.group)
            listener.listen(8)
        except OSError as exc:
            listener.close()
            raise ControlError(f"control socket {self.path}: {exc.strerror or exc}") from exc
        self._listener = listener
        self._thread = threading.Thread(target=self._accept, name="control-accept", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop accepting, end every connection, remove the socket file."""
        listener, self._listener = self._listener, None
        if listener is not None:
            try:
                listener.shutdown(socket.SHUT_RDWR)  # wakes the accept
            except OSError:
                pass
            listener.close()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            _shut(conn)
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        try:
            if stat.S_ISSOCK(os.lstat(self.path).st_mode):
                os.unlink(self.path)
        except FileNotFoundError:
            pass

    def _clear_stale(self) -> None:
        try:
            mode = os.lstat(self.path).st_mode
        except FileNotFoundError:
            return
        if not stat.S_ISSOCK(mode):
            raise ControlError(f"control socket {self.path}: a file that is not a socket is there; not replacing it")
        os.unlink(self.path)  # a socket left by a service that died (the journal's lock keeps one service a journal)

    # -- connections -----------------------------------------------------------------------
    def _accept(self) -> None:
        """Accept only while a connection slot is free: past :attr:`max_connections` a peer waits
        in the kernel's backlog (and then is refused by the kernel), costing the service nothing."""
        while self._listener is not None:
            if not self._slots.acquire(timeout=0.2):
                continue
            conn = self._next()
            if conn is None:
                self._slots.release()
                continue
            peer = _peer_of(conn)
            if peer.uid not in self.allowed_uids:
                self._slots.release()
                self._note("peer", f"peer uid {peer.uid} not allowed")
                _shut(conn)
                time.sleep(REFUSAL_PAUSE_S)  # a refused peer that reconnects at once is held to a rate
                continue
            wait = self._bucket.reserve()  # a connection costs a token: a peer reconnecting is held to the rate
            if wait:
                self._sleep(wait)
            with self._lock:
                self._connections.add(conn)
                self.accepted += 1
            threading.Thread(target=self._serve, args=(conn, peer), name="control-conn", daemon=True).start()

    def _next(self) -> socket.socket | None:
        """The next connection, or None (stopping, or an accept that failed)."""
        listener = self._listener
        if listener is None:
            return None
        try:
            return listener.accept()[0]
        except OSError:
            if self._listener is not None:
                time.sleep(0.05)  # EMFILE and the like: the next accept may succeed
            return None

    def _serve(self, conn: socket.socket, peer: Peer) -> None:
        try:
            while self._listener is not None:
                conn.settimeout(None)  # a connection may wait for its next request as long as it likes
                first = conn.recv(_LENGTH.size)
                if not first:
                    return  # the peer closed between requests
                over = self._pace()  # before anything is made of the request, even its length
                raw = self._read(conn, first)
                if over:
                    self._note("rate", f"pid {peer.pid} past {self._bucket.rate:g} requests a second")
                _send(conn, {"ok": False, "error": "rate limited"} if over else self._answer(raw, peer), self.frame_s)
        except ControlRefused:
            pass  # counted where it was refused
        except OSError as exc:  # a frame not finished in time, a peer gone mid-frame
            self._note("connection", f"connection of pid {peer.pid} ended: {exc}")
        finally:
            with self._lock:
                self._connections.discard(conn)
            _shut(conn)
            self._slots.release()

    def _pace(self) -> bool:
        """Take the server's token for a request begun, waiting for it if none is held (True: the
        request is then refused, ``rate``): every request a connection sends, whatever becomes of
        it, costs one, so all connections together are held to the rate."""
        wait = self._bucket.reserve()
        if wait:
            self._sleep(wait)
        return bool(wait)

    def _read(self, conn: socket.socket, first: bytes) -> bytes:
        """The rest of the request whose length begins with ``first``."""
        conn.settimeout(self.frame_s)  # a frame begun must be finished
        header = first + _recv_exact(conn, _LENGTH.size - len(first))
        (length,) = _LENGTH.unpack(header)
        if length > self.max_message:
            self._note("too long", f"a request of {length} bytes (at most {self.max_message})")
            raise ControlRefused("a request too long: connection ended", "too long")
        return _recv_exact(conn, length)

    def _answer(self, raw: bytes, peer: Peer) -> dict[str, Any]:
        try:
            name, fields = parse_request(raw, self.ops)
            own = self._op_buckets.get(name)
            if own is not None and own.take():
                raise ControlRefused(f"{name}: rate limited", "rate")
            reply = self.ops[name].handler(fields, peer)
        except ControlRefused as exc:
            self._note(exc.reason, f"refused from pid {peer.pid}: {exc}")
            return {"ok": False, "error": str(exc)}
        except Exception:
            self._note("handler failed", f"a request from pid {peer.pid} failed", traceback=True)
            return {"ok": False, "error": "the service could not take it"}
        with self._lock:
            self.counts["answered"] += 1
        return reply

    def _note(self, reason: str, line: str, *, traceback: bool = False) -> None:
        with self._lock:
            self.counts[reason] = self.counts.get(reason, 0) + 1
        held = self._limit.allow(reason)
        if held is not None:
            more = f" (and {held} more in the last {self._limit.interval:.0f} s)" if held else ""
            log.warning("control socket: %s%s", line, more, exc_info=traceback)


class ControlClient:
    """The web face's side: one connection, reopened after any failure; thread-safe.

    :param path: the service's socket.
    :param timeout: seconds to connect, send and wait for a reply.
    """

    def __init__(self, path: Path, timeout: float = 2.0, max_reply: int = MAX_REPLY) -> None:
        self.path, self.timeout, self.max_reply = Path(path), timeout, max_reply
        self._conn: socket.socket | None = None
        self._lock = threading.Lock()

    def request(self, op: str, **fields: Any) -> dict[str, Any]:
        """The service's reply to ``op`` with ``fields``.

        :raises ControlError: the service cannot be reached, or its reply is not a JSON object
            (once retried on a fresh connection).
        """
        body = json.dumps({"op": op, **fields}, separators=(",", ":")).encode()
        with self._lock:
            for attempt in (1, 2):
                try:
                    return self._exchange(body)
                except (OSError, ValueError) as exc:
                    self._close()
                    if attempt == 2:
                        raise ControlError(f"control socket {self.path}: {exc}") from exc
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Close the connection (the next request opens another)."""
        with self._lock:
            self._close()

    def _exchange(self, body: bytes) -> dict[str, Any]:
        if self._conn is None:
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            conn.settimeout(self.timeout)
            try:
                conn.connect(os.fspath(self.path))
            except OSError:
                conn.close()
                raise
            self._conn = conn
        self._conn.sendall(_LENGTH.pack(len(body)) + body)
        header = _recv_exact(self._conn, _LENGTH.size)
        (length,) = _LENGTH.unpack(header)
        if length > self.max_reply:
            raise ValueError(f"a reply of {length} bytes")
        reply = json.loads(_recv_exact(self._conn, length))
        if not isinstance(reply, dict):
            raise ValueError("a reply that is not a JSON object")
        return reply

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _recv_exact(conn: socket.socket, count: int) -> bytes:
    chunks, left = [], count
    while left:
        chunk = conn.recv(min(left, 65536))
        if not chunk:
            raise ConnectionError("the peer closed mid-frame")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _send(conn: socket.socket, reply: dict[str, Any], timeout: float) -> None:
    try:
        body = json.dumps(reply, separators=(",", ":")).encode()
    except (TypeError, ValueError):
        log.exception("control socket: a handler's reply is not JSON")
        body = b'{"ok":false,"error":"the service could not answer"}'
    if len(body) > MAX_REPLY:
        body = b'{"ok":false,"error":"the answer is too long"}'
    conn.settimeout(timeout)  # a peer that does not take its reply loses its connection
    conn.sendall(_LENGTH.pack(len(body)) + body)


def _peer_of(conn: socket.socket) -> Peer:
    pid, uid, gid = _CREDENTIALS.unpack(conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _CREDENTIALS.size))
    return Peer(pid, uid, gid)


def _shut(conn: socket.socket) -> None:
    try:
        conn.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    conn.close()
