"""The control socket between the service and its web face (issue 30 item 2): typed, bounded,
peers checked by ``SO_PEERCRED``, refusals counted, a flood held to the rate."""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import socket
import struct
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_host.errors import TablehostError
from firmware_host.web.control import (
    MAX_ITEMS,
    MAX_MESSAGE,
    ControlClient,
    ControlError,
    ControlRefused,
    ControlServer,
    Op,
    Peer,
    parse_request,
)

LENGTH = struct.Struct(">I")


def _echo(fields: dict[str, Any], peer: Peer) -> dict[str, Any]:
    return {"ok": True, "fields": fields, "uid": peer.uid, "pid": peer.pid}


def _fails(fields: dict[str, Any], peer: Peer) -> dict[str, Any]:
    raise RuntimeError("a handler's bug")


def _refuses(fields: dict[str, Any], peer: Peer) -> dict[str, Any]:
    raise ControlRefused("command: not now")


OPS = {
    "command": Op({"command": str, "args": (dict, type(None)), "count": int}, _echo),
    "empty": Op({}, _echo),
    "fails": Op({}, _fails),
    "refuses": Op({}, _refuses),
}


@pytest.fixture
def socket_dir() -> Iterator[Path]:
    """A short directory any user may enter (a Unix socket's path is at most 107 bytes)."""
    with tempfile.TemporaryDirectory(prefix="ctl", dir="/tmp") as name:
        os.chmod(name, 0o755)
        yield Path(name)


def _server(path: Path, **options: Any) -> ControlServer:
    server = ControlServer(path, allowed_uids=options.pop("allowed_uids", frozenset({os.getuid()})), ops=OPS, **options)
    server.start()
    return server


@pytest.fixture
def served(socket_dir: Path) -> Iterator[tuple[ControlServer, Path]]:
    server = _server(socket_dir / "control.sock")
    try:
        yield server, socket_dir / "control.sock"
    finally:
        server.stop()


def _raw(path: Path, body: bytes, *, length: int | None = None) -> dict[str, Any] | None:
    """Send ``body`` framed (with ``length`` in place of its own, if given); the reply, or None
    when the service ended the connection."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(5)
        conn.connect(str(path))
        conn.sendall(LENGTH.pack(len(body) if length is None else length) + body)
        try:
            header = conn.recv(4)
        except ConnectionResetError:  # closed with our bytes unread
            return None
        if len(header) < 4:
            return None
        (size,) = LENGTH.unpack(header)
        data = b""
        while len(data) < size:
            data += conn.recv(size - len(data))
        reply: dict[str, Any] = json.loads(data)
        return reply


def test_a_request_reaches_its_handler_with_the_peers_credentials(served: tuple[ControlServer, Path]) -> None:
    server, path = served
    client = ControlClient(path)
    reply = client.request("command", command="reveal", args=None, count=3)
    assert reply["ok"] is True
    assert reply["fields"] == {"command": "reveal", "args": None, "count": 3}
    assert (reply["uid"], reply["pid"]) == (os.getuid(), os.getpid())
    assert client.request("empty") == {"ok": True, "fields": {}, "uid": os.getuid(), "pid": os.getpid()}
    assert server.counts["answered"] == 2
    client.close()


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"\xff\xfe", "not JSON"),
        (b"[1, 2]", "not JSON"),
        (b'{"op": "empty", "x": NaN}', "not JSON"),
        (b'{"op": "empty", "op": "fails"}', "not JSON"),
        (b'{"op": "nothing"}', "no such op"),
        (b'{"op": "command", "command": "x", "args": null}', "fields"),  # count missing
        (b'{"op": "command", "command": "x", "args": null, "count": 1, "more": 1}', "fields"),
        (b'{"op": "command", "command": "x", "args": null, "count": true}', "fields"),  # a bool is no int
        (b'{"op": "command", "command": 7, "args": null, "count": 1}', "fields"),
        (b'{"op": "command", "command": "\\ud800", "args": null, "count": 1}', "past the bounds"),
        (b'{"op": "command", "command": "a\\u202eb", "args": null, "count": 1}', "past the bounds"),
        (b'{"op": "command", "command": "x", "args": {"a": {"b": {"c": {}}}}, "count": 1}', "past the bounds"),
        (b'{"op": "refuses"}', "refused"),
    ],
)
def test_the_socket_is_a_face_every_bad_request_is_refused_and_counted(
    served: tuple[ControlServer, Path], body: bytes, reason: str
) -> None:
    server, path = served
    reply = _raw(path, body)
    assert reply is not None and reply["ok"] is False
    assert server.counts["answered"] == 0
    refused = {key: count for key, count in server.counts.items() if key != "answered"}
    assert refused == {reason: 1}  # counted under a fixed word, never the peer's text
    assert ControlClient(path).request("empty")["ok"] is True  # and it serves on


def test_a_handlers_failure_is_answered_counted_and_the_server_serves_on(served: tuple[ControlServer, Path]) -> None:
    server, path = served
    client = ControlClient(path)
    assert client.request("fails") == {"ok": False, "error": "the service could not take it"}
    assert server.counts["handler failed"] == 1
    assert client.request("empty")["ok"] is True
    client.close()


def test_a_request_longer_than_the_bound_ends_its_connection_unread(served: tuple[ControlServer, Path]) -> None:
    server, path = served
    assert _raw(path, b"{}", length=MAX_MESSAGE + 1) is None
    assert _raw(path, b"x" * 10, length=2**32 - 1) is None
    assert server.counts["too long"] == 2
    assert ControlClient(path).request("empty")["ok"] is True


def test_a_frame_begun_and_not_finished_loses_its_connection_and_no_one_else_waits(socket_dir: Path) -> None:
    server = _server(socket_dir / "c.sock", frame_s=0.2)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as slow:
            slow.connect(str(socket_dir / "c.sock"))
            slow.sendall(b"\x00\x00")  # half a length, then nothing
            assert ControlClient(socket_dir / "c.sock").request("empty")["ok"] is True
            slow.settimeout(5)
            assert slow.recv(4) == b""  # dropped after frame_s
        assert server.counts["connection"] == 1
    finally:
        server.stop()


def test_connections_past_the_bound_wait_unaccepted_until_a_slot_frees(socket_dir: Path) -> None:
    path = socket_dir / "c.sock"
    server = _server(path, max_connections=2)
    clients = [ControlClient(path) for _ in range(2)]
    extra: list[socket.socket] = []
    try:
        for client in clients:
            assert client.request("empty")["ok"] is True  # each holds its connection open
        with pytest.raises(ControlError):
            ControlClient(path, timeout=0.5).request("empty")  # waits in the backlog, unanswered
        for _ in range(20):  # a peer reconnecting in a loop: the kernel holds or refuses it
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            conn.setblocking(False)
            try:
                conn.connect(str(path))
            except OSError:
                pass
            extra.append(conn)
        time.sleep(0.3)
        assert server.accepted == 2  # the service accepted none of them: no work per attempt
        for conn in extra:
            conn.close()
        clients[0].close()
        deadline = time.monotonic() + 10
        while True:  # the closed connection's slot comes back
            try:
                assert ControlClient(path).request("empty")["ok"] is True
                break
            except ControlError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
    finally:
        for client in clients:
            client.close()
        server.stop()


def test_a_peer_of_another_uid_is_refused_by_its_credentials(socket_dir: Path) -> None:
    path = socket_dir / "c.sock"
    server = _server(path, allowed_uids=frozenset({os.getuid() + 1}))
    try:
        with pytest.raises(ControlError):
            ControlClient(path, timeout=1).request("empty")
        assert server.counts["peer"] >= 1
        assert server.counts["answered"] == 0
    finally:
        server.stop()


def test_another_users_process_cannot_speak_to_the_service(socket_dir: Path) -> None:
    """The web face's uid is allowed; any other user's process is refused by SO_PEERCRED, even
    when the socket file's mode would let it connect."""
    if os.getuid() != 0:
        pytest.skip("needs root, to run a process as another user")
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user nobody here")
    path = socket_dir / "c.sock"
    server = _server(path, allowed_uids=frozenset({os.getuid()}))
    os.chmod(path, 0o666)  # the file lets anyone connect: the credentials still do not
    try:
        pid = os.fork()
        if pid == 0:  # the child becomes nobody and asks (no exec: nobody cannot read root's Python)
            status = 1
            try:
                os.setgroups([])
                os.setgid(nobody.pw_gid)
                os.setuid(nobody.pw_uid)
                ControlClient(path, timeout=2).request("empty")
                status = 4
            except ControlError:
                status = 3
            finally:
                os._exit(status)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 3
        assert server.counts["peer"] >= 1 and server.counts["answered"] == 0
    finally:
        server.stop()


def test_a_flooding_peer_is_held_to_the_rate(socket_dir: Path) -> None:
    path = socket_dir / "c.sock"
    calls = []

    def counted(fields: dict[str, Any], peer: Peer) -> dict[str, Any]:
        calls.append(time.monotonic())
        return {"ok": True}

    server = ControlServer(
        path, allowed_uids=frozenset({os.getuid()}), ops={"empty": Op({}, counted)}, rate_per_s=100, burst=10
    )
    server.start()
    try:
        stop = time.monotonic() + 1.0
        floods = [ControlClient(path) for _ in range(3)]

        def flood(client: ControlClient) -> None:
            while time.monotonic() < stop:
                client.request("empty")

        threads = [threading.Thread(target=flood, args=(client,)) for client in floods]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started
        assert len(calls) <= 10 + 100 * elapsed + 1  # the bucket and the rate, never more
        assert server.counts.get("rate", 0) >= 1
        for client in floods:
            client.close()
    finally:
        server.stop()


class HeldClock:
    """The buckets' clock held at 0, and every wait a connection is given, recorded unslept: over
    a held clock no token is earned, so the k-th token past the bucket is owed k / rate seconds."""

    def __init__(self) -> None:
        self.waits: list[float] = []
        self._lock = threading.Lock()

    def __call__(self) -> float:
        return 0.0

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.waits.append(seconds)


def _until(done: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 10  # a bound on a wait for the server's threads, not a timed assertion
    while not done():
        assert time.monotonic() < deadline
        time.sleep(0.01)


#: A flood down each refusal path: (what each connection sends, requests a connection sends before
#: it is ended or closes; 0: it only connects and closes).
REFUSAL_PATHS = {
    "an op's own bucket": (b'{"op": "limited"}', None),
    "no such op": (b'{"op": "nothing"}', None),
    "not JSON": (b"\xff{", None),
    "too long": (b"{}", MAX_MESSAGE + 1),
    "connections": (b"", 0),
}


@pytest.mark.parametrize("path_name", sorted(REFUSAL_PATHS))
def test_a_flood_down_any_refusal_path_is_held_to_the_servers_rate(socket_dir: Path, path_name: str) -> None:
    """Every request begun and every connection accepted costs a token of the server's bucket,
    whatever becomes of it; three connections at once wait in turn (the k-th token past the
    bucket is owed k / rate): a flood costs the service at most the rate times one refusal."""
    body, length = REFUSAL_PATHS[path_name]
    held, rate, burst, each, flooders = HeldClock(), 100.0, 4, 10, 3
    path = socket_dir / "c.sock"
    ops = {**OPS, "limited": Op({}, _echo, rate_per_s=0.001, burst=1)}
    server = ControlServer(
        path, allowed_uids=frozenset({os.getuid()}), ops=ops, rate_per_s=rate, burst=burst, clock=held, sleep=held.sleep
    )
    server.start()
    replies: list[bool] = []

    def flood() -> None:
        if length is None:  # one connection, requests refused one after another
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.connect(str(path))
                for _ in range(each):
                    conn.sendall(LENGTH.pack(len(body)) + body)
                    (size,) = LENGTH.unpack(conn.recv(4))
                    replies.append(json.loads(conn.recv(size))["ok"])
            return
        for _ in range(each):  # a connection a request (ended by the service), or none
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.connect(str(path))
                if length:
                    conn.sendall(LENGTH.pack(length) + body)
                    with contextlib.suppress(ConnectionResetError):  # closed with our bytes unread
                        assert conn.recv(4) == b""

    try:
        threads = [threading.Thread(target=flood) for _ in range(flooders)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        connections = flooders if length is None else flooders * each
        requests = 0 if length == 0 else flooders * each
        _until(lambda: server.accepted == connections and sum(server.counts.values()) == requests)
    finally:
        server.stop()
    tokens = connections + requests
    assert sorted(held.waits) == pytest.approx([k / rate for k in range(1, tokens - burst + 1)])
    refused = {key: count for key, count in server.counts.items() if key != "answered"}
    assert sum(refused.values()) + server.counts["answered"] == requests
    assert server.counts["answered"] == replies.count(True) == (1 if path_name == "an op's own bucket" else 0)


def test_an_ops_own_rate_is_tighter_than_the_servers(socket_dir: Path) -> None:
    path = socket_dir / "c.sock"
    ops = {"command": Op({}, lambda fields, peer: {"ok": True}, rate_per_s=0.001, burst=2)}
    server = ControlServer(path, allowed_uids=frozenset({os.getuid()}), ops=ops)
    server.start()
    try:
        client = ControlClient(path)
        replies = [client.request("command") for _ in range(4)]
        assert [reply["ok"] for reply in replies] == [True, True, False, False]
        assert server.counts["rate"] == 2
        client.close()
    finally:
        server.stop()


def test_a_stale_socket_is_replaced_and_any_other_file_is_left_alone(socket_dir: Path) -> None:
    stale = socket_dir / "stale.sock"
    left = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    left.bind(str(stale))
    left.close()  # a socket file nobody listens on: a service that died
    server = _server(stale)
    try:
        assert ControlClient(stale).request("empty")["ok"] is True
        assert oct(os.stat(stale).st_mode & 0o777) == oct(0o660)
    finally:
        server.stop()
    assert not stale.exists()  # removed on stop
    kept = socket_dir / "kept"
    kept.write_text("somebody's file")
    with pytest.raises(ControlError, match="not a socket"):
        _server(kept)
    assert kept.read_text() == "somebody's file"


def test_a_path_too_long_for_a_unix_socket_is_an_error_naming_it() -> None:
    path = Path("/tmp/" + "x" * 120)
    with pytest.raises(ControlError, match="longer than 107 bytes"):
        ControlServer(path, allowed_uids=frozenset(), ops=OPS)
    assert issubclass(ControlError, TablehostError) and issubclass(ControlRefused, TablehostError)


def test_an_unreachable_service_is_one_control_error(socket_dir: Path) -> None:
    with pytest.raises(ControlError, match="control socket"):
        ControlClient(socket_dir / "absent.sock", timeout=0.5).request("empty")


def test_stop_ends_the_open_connections(socket_dir: Path) -> None:
    path = socket_dir / "c.sock"
    server = _server(path)
    client = ControlClient(path)
    assert client.request("empty")["ok"] is True
    server.stop()
    with pytest.raises(ControlError):
        client.request("empty")


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=MAX_ITEMS + 2) | st.dictionaries(st.text(max_size=8), children, max_size=6)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_parse_request_refuses_any_bytes_as_a_refusal_never_a_crash(raw: bytes) -> None:
    try:
        op, fields = parse_request(raw, OPS)
    except ControlRefused:
        return
    assert op in OPS and set(fields) == set(OPS[op].fields)


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["op", "command", "args", "count", "x"]), JSON, max_size=5),
    st.sampled_from(sorted(OPS)),
)
def test_parse_request_passes_only_what_an_op_declares(value: dict[str, Any], op: str) -> None:
    if "op" not in value:
        value = {**value, "op": op}
    try:
        name, fields = parse_request(json.dumps(value).encode(), OPS)
    except ControlRefused:
        return
    declared = OPS[name].fields
    assert set(fields) == set(declared)
    for field, kind in declared.items():
        kinds = kind if isinstance(kind, tuple) else (kind,)
        assert isinstance(fields[field], kinds) and not (isinstance(fields[field], bool) and bool not in kinds)
