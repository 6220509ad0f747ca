"""Live streams (SSE) capped in all and per address.

A stream holds a connection, a file descriptor and a queue for as long as its reader stays: a
face takes a slot (:meth:`StreamSlots.take`) before it starts one and gives it back when it
ends. The Pi's own screen (:attr:`StreamSlots.reserved`) is held to the per-address cap but
never refused for the total, so streams from the network cannot crowd out the dealer's.
"""

from __future__ import annotations

import asyncio
import collections
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.responses import StreamingResponse

from firmware_host.web.parse import BadRequest

__all__ = ["StreamSlots", "SlotStream"]


class StreamSlots:
    """Slots for live streams.

    :param total: streams at once from all addresses but the reserved.
    :param per_address: streams at once from one address.
    """

    def __init__(
        self, total: int = 64, per_address: int = 8, reserved: frozenset[str] = frozenset({"127.0.0.1", "::1"})
    ) -> None:
        self.total, self.per_address, self.reserved = total, per_address, reserved
        self._open: collections.Counter[str] = collections.Counter()
        self._others = 0
        self._lock = threading.Lock()

    def take(self, client: str) -> None:
        """Take a slot for ``client``.

        :raises BadRequest: 429 when ``client`` has its share open, 503 when every slot is taken.
        """
        with self._lock:
            if self._open[client] >= self.per_address:
                raise BadRequest(f"{self.per_address} live streams are open from this address already", 429)
            if client not in self.reserved:
                if self._others >= self.total:
                    raise BadRequest(f"{self.total} live streams are open already", 503)
                self._others += 1
            self._open[client] += 1

    def give_back(self, client: str) -> None:
        """End one of ``client``'s streams."""
        with self._lock:
            self._open[client] -= 1
            if self._open[client] <= 0:
                del self._open[client]
            if client not in self.reserved:
                self._others -= 1

    def open(self) -> int:
        """Streams open now."""
        with self._lock:
            return sum(self._open.values())


class SlotStream(StreamingResponse):
    """An SSE response that gives its slot back and closes its events however it ends (closed,
    dropped, cancelled), and writes nothing once its connection is lost.

    :param events: the stream's text (or its bytes), event by event.
    :param give_back: called once it has ended (:meth:`StreamSlots.give_back` of its client).
    """

    def __init__(self, events: AsyncIterator[str] | AsyncIterator[bytes], give_back: Callable[[], None]) -> None:
        super().__init__(
            events, media_type="text/event-stream", headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        )
        self.give_back = give_back

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def send_then_yield(message: Any) -> None:
            await send(message)
            # A write that found the connection lost (its reader reset it) has the loss delivered at
            # the loop's next turn: take that turn before the next write, so the server sees the
            # stream disconnected (and ends it) instead of writing the rest of a batch of updates to
            # a lost connection, which asyncio logs once a write from the 5th on.
            await asyncio.sleep(0)

        try:
            await super().__call__(scope, receive, send_then_yield)
        finally:
            self.give_back()
            # Ended between two of its events (cancelled in a send), the events' generator would be
            # left suspended, its own ending (the hub's unsubscribe) put off until it is collected.
            aclose = getattr(self.body_iterator, "aclose", None)
            if aclose is not None:
                await aclose()
