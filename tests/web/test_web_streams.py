"""Live streams behind the real uvicorn: a stream whose reader is gone is not written to."""

from __future__ import annotations

import asyncio
import logging
import socket
import struct
import threading
import time
from collections.abc import AsyncIterator

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from firmware_host.web.server import WebServer
from firmware_host.web.streams import SlotStream, StreamSlots

READERS = 20
#: Updates due at once to each stream (asyncio warns from a lost connection's 5th write on).
BATCH = 50


def test_streams_whose_readers_reset_are_not_written_to_and_nothing_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The 1,000 unread streams (bench/bench_webface.py): readers that drop their connections
    (a reset) just as a batch of updates is due. A stream stops writing at its connection's loss
    and ends, its events closed; before, each stream wrote the rest of its batch to the lost connection and asyncio
    logged ``socket.send() raised exception.`` for each write from the 5th on (hundreds of lines a
    second from hostile input)."""
    caplog.set_level(logging.WARNING, logger="asyncio")
    due = asyncio.Event()
    loops: list[asyncio.AbstractEventLoop] = []
    slots = StreamSlots(total=READERS, per_address=READERS)

    closed: list[int] = []

    async def events() -> AsyncIterator[bytes]:
        try:
            yield b": hello\n\n"
            await due.wait()
            for number in range(BATCH):  # as the display's streams send a batch of updates
                yield f"id: {number}\ndata: {{}}\n\n".encode()
        finally:
            closed.append(1)  # the display's: the hub's unsubscribe

    async def stream(request: Request) -> Response:
        loops[:] = [asyncio.get_running_loop()]
        slots.take("reader")
        return SlotStream(events(), lambda: slots.give_back("reader"))

    server = WebServer(Starlette(routes=[Route("/stream", stream)]), "127.0.0.1", 0)
    server.start()
    readers = []
    try:
        for _ in range(READERS):
            reader = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            reader.sendall(b"GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            head = b""
            while b": hello" not in head:
                head += reader.recv(4096)
            readers.append(reader)
        assert slots.open() == READERS
        held, release = threading.Event(), threading.Event()

        def hold_then_wake() -> None:  # the loop held while the readers reset, then the streams woken first
            held.set()
            release.wait(10)
            due.set()

        loops[0].call_soon_threadsafe(hold_then_wake)
        assert held.wait(10)
        for reader in readers:
            reader.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close = reset
            reader.close()
        release.set()
        deadline = time.monotonic() + 10  # a bound on the wait for the streams to end, not a timed assertion
        while (slots.open() or len(closed) < READERS) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert slots.open() == 0  # every stream ended and gave its slot back
        assert len(closed) == READERS  # and its events were closed, not left to the collector
    finally:
        server.stop()
    lost_writes = [r for r in caplog.records if r.name == "asyncio" and "socket.send()" in r.getMessage()]
    assert lost_writes == []
