"""The device side of a wire: one sim thread, an endpoint, the dialect, and wire faults.

:class:`SimLink` runs a thread that ``select``\\ s on the endpoint and a wake-up pipe, so
it sleeps until the host sends something, the device has something to say, or a timer
(heartbeat, retransmission, end of an outage) is due. Application messages are handed to
:meth:`SimLink.send` from any thread (the simulated dealer's). Two dialect families:

- :class:`FramedSimLink`: the link layer of ``docs/protocols/shoe.md`` § 1 for any framed
  dialect, given its :class:`~drivers.codecs.framer.Framer`: answers IDENTIFY, sends heartbeats, numbers
  reliable frames, retransmits on NAK or ack timeout, acks and de-duplicates host commands.
- :class:`TextSimLink`: a talk-only dialect with no acknowledgements (the ASCII shoe).
"""

from __future__ import annotations

import abc
import logging
import random
import select
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar

from drivers.codecs import BadFrame, drain
from drivers.codecs.framed import Ack, Frame, Heartbeat, Identify, Identity, Nak
from drivers.codecs.framer import Framer
from drivers.errors import CodecError
from sim.devices.endpoint import Endpoint
from sim.devices.faults import LinkFaults
from sim.devices.worker import Worker
from sim.errors import SimError

__all__ = ["SimLink", "FramedSimLink", "TextSimLink", "SimDevice"]

_log = logging.getLogger("tablehost.sim")
#: After ``retries`` unanswered transmissions a device keeps trying, this many times slower:
#: it never drops a card, and does not flood a host that is not listening.
_SLOW_RETRY_FACTOR = 8
#: When an endpoint cannot come back yet (its port is busy), try again after this long.
_RESUME_RETRY_SECONDS = 0.1


class SimLink(abc.ABC):
    """Base of a simulated device's wire side.

    :param name: names the sim in log lines and its thread.
    :param endpoint: where the host connects.
    :param faults: wire faults to inject into application frames.
    :param seed: seeds the fault dice (together with ``name``).
    """

    def __init__(self, name: str, endpoint: Endpoint, faults: LinkFaults, seed: int) -> None:
        self.name, self.endpoint, self.faults = name, endpoint, faults
        self._rng = random.Random(f"{seed}-{name}-link")
        self._outbox: deque[Any] = deque()
        self._lock = threading.Lock()
        self._worker = Worker()
        self._outage_until: float | None = None
        self._outage_requested: float | None = None
        self._connections = endpoint.connections

    @property
    def url(self) -> str:
        """What the host opens."""
        return self.endpoint.url

    @property
    def in_outage(self) -> bool:
        """Whether the device is currently away (see :attr:`LinkFaults.disconnect`)."""
        return self._outage_until is not None or self._outage_requested is not None

    def start(self) -> None:
        """Start the sim thread."""
        self._worker.start(self._run, f"sim-{self.name}")

    def stop(self) -> None:
        """Stop the thread and close the endpoint."""
        self._worker.stop()
        self.endpoint.close()
        self._worker.close()

    def send(self, message: Any) -> None:
        """Queue an application message for the host (thread-safe)."""
        with self._lock:
            self._outbox.append(message)
        self._worker.wake()

    def roll_disconnect(self) -> bool:
        """Roll the ``disconnect`` fault; on a hit, begin an outage. Thread-safe."""
        with self._lock:
            hit = self._rng.random() < self.faults.disconnect
        if hit:
            self.begin_outage(self.faults.disconnect_seconds)
        return hit

    def begin_outage(self, seconds: float) -> None:
        """Go away for ``seconds`` (thread-safe; carried out by the sim thread)."""
        with self._lock:
            self._outage_requested = seconds
        self._worker.wake()

    # -- for subclasses ---------------------------------------------------------------------

    @abc.abstractmethod
    def _on_bytes(self, data: bytes) -> None:
        """Bytes from the host."""

    @abc.abstractmethod
    def _pump(self) -> None:
        """Send what can be sent from :attr:`_outbox` now."""

    def _on_new_connection(self) -> None:
        """A host connected (sockets only)."""

    def _on_outage_end(self) -> None:
        """The outage is over."""

    def _next_deadline(self) -> float | None:
        return None

    def _on_tick(self, now: float) -> None:
        pass

    def _write_raw(self, data: bytes) -> bool:
        """Send link-control bytes, without faults."""
        return False if self.in_outage else self.endpoint.write(data)

    def _write_faulty(self, data: bytes) -> bool:
        """Send an application frame through the fault dice; ``False`` if nobody is connected."""
        if self.in_outage:
            return False
        with self._lock:
            drop = self._rng.random() < self.faults.drop_frame
            corrupt = self._rng.random() < self.faults.corrupt_byte
            duplicate = self._rng.random() < self.faults.duplicate_frame
            at = self._rng.randrange(len(data))
            flip = self._rng.randrange(1, 256)
        if drop:
            _log.info("sim %s: fault: dropped %s", self.name, data.hex(" "))
            return True
        if corrupt:
            damaged = bytearray(data)
            damaged[at] ^= flip
            _log.info("sim %s: fault: byte %d corrupted", self.name, at)
            data = bytes(damaged)
        sent = self.endpoint.write(data)
        if duplicate and sent:
            _log.info("sim %s: fault: frame duplicated", self.name)
            self.endpoint.write(data)
        return sent

    # -- the thread -------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._worker.stopping:
            deadlines = [d for d in (self._next_deadline(), self._outage_until) if d is not None]
            timeout = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
            readable, _, _ = select.select([self._worker.fd, *self.endpoint.fds()], [], [], timeout)
            for fd in readable:
                if fd == self._worker.fd:
                    self._worker.drain()
                    continue
                data = self.endpoint.read(fd)
                if self.endpoint.connections != self._connections:
                    self._connections = self.endpoint.connections
                    self._on_new_connection()
                if data and not self.in_outage:
                    self._on_bytes(data)
            self._update_outage()
            if not self.in_outage:
                self._pump()
                self._on_tick(time.monotonic())

    def _update_outage(self) -> None:
        with self._lock:
            requested, self._outage_requested = self._outage_requested, None
        now = time.monotonic()
        if requested is not None:
            _log.info("sim %s: fault: away for %.2fs", self.name, requested)
            self.endpoint.suspend()
            self._outage_until = now + requested
        elif self._outage_until is not None and now >= self._outage_until:
            try:
                self.endpoint.resume()
            except SimError as exc:  # e.g. the port is taken for a moment: try again shortly
                _log.warning("sim %s: %s; retrying", self.name, exc)
                self._outage_until = now + _RESUME_RETRY_SECONDS
                return
            self._outage_until = None
            _log.info("sim %s: back", self.name)
            self._on_outage_end()


class FramedSimLink(SimLink):
    """A device speaking a framed dialect.

    :param framer: the dialect's framer (its frame layout and the family's message table).
    :param identity: what IDENTITY answers: anything with ``model``, ``serial`` and
        ``firmware`` (the codec's :class:`~drivers.codecs.framed.Identity` or the driver's
        :class:`~drivers.device.Identity`).
    :param on_command: receives each new reliable host command (in the sim thread).
    :param heartbeat: default heartbeat interval in seconds (IDENTIFY may ask for another).
    :param ack_timeout: retransmit an unacknowledged frame after this long.
    :param retries: retransmissions at ``ack_timeout`` intervals; after them the device
        keeps retransmitting, 8 times slower (a frame is never dropped).
    """

    def __init__(
        self,
        name: str,
        endpoint: Endpoint,
        faults: LinkFaults,
        seed: int,
        *,
        framer: Framer,
        identity: Any,
        on_command: Callable[[Any], None] = lambda message: None,
        heartbeat: float = 1.0,
        ack_timeout: float = 0.25,
        retries: int = 5,
    ) -> None:
        super().__init__(name, endpoint, faults, seed)
        self.framer, self._on_command = framer, on_command
        self.identity = Identity(identity.model, identity.serial, identity.firmware)
        self._heartbeat, self._ack_timeout, self._retries = heartbeat, ack_timeout, retries
        self._buffer = bytearray()
        self._identified = False
        self._tx_seq = 0
        self._rx_last = 0
        self._outstanding: tuple[int, bytes] | None = None
        self._tries = 0
        self._ack_deadline: float | None = None
        self._next_heartbeat: float | None = None

    @property
    def pending(self) -> int:
        """Application messages not yet acknowledged by the host."""
        with self._lock:
            return len(self._outbox) + (1 if self._outstanding else 0)

    def _on_new_connection(self) -> None:
        self._identified = False
        self._buffer.clear()

    def _on_outage_end(self) -> None:
        self._identified = False
        self._buffer.clear()

    def _on_bytes(self, data: bytes) -> None:
        self._buffer += data
        for item in drain(self.framer.decode, self._buffer):
            if isinstance(item, BadFrame):
                nak = self.framer.nak(item, self._rx_last)
                if nak is not None:
                    self._write_raw(nak)
            else:
                self._on_frame(item)

    def _on_frame(self, frame: Frame) -> None:
        try:
            message = self.framer.message(frame)
        except CodecError as exc:
            _log.warning("sim %s: %s", self.name, exc)
            if frame.seq:
                self._write_raw(self.framer.ack(frame.seq))
            return
        if isinstance(message, Identify):
            if message.heartbeat_ms:
                self._heartbeat = message.heartbeat_ms / 1000
            self._identified = True
            self._write_raw(self.framer.encode(self.identity, self._tx_seq))
            self._next_heartbeat = time.monotonic() + self._heartbeat
            if self._outstanding:
                self._tries = 0
                self._transmit()
        elif isinstance(message, Ack):
            if self._outstanding and frame.seq == self._outstanding[0]:
                with self._lock:
                    self._outstanding = None
                self._ack_deadline = None
        elif isinstance(message, Nak):
            if self._outstanding:
                self._transmit()
        elif self.framer.is_reliable(frame.type):
            self._write_raw(self.framer.ack(frame.seq))
            if frame.seq != self._rx_last:
                self._rx_last = frame.seq
                self._on_command(message)

    def _transmit(self) -> None:
        assert self._outstanding is not None
        self._tries += 1
        self._write_faulty(self._outstanding[1])
        patience = 1 if self._tries <= self._retries else _SLOW_RETRY_FACTOR
        self._ack_deadline = time.monotonic() + self._ack_timeout * patience

    def _pump(self) -> None:
        if not self._identified or self._outstanding:
            return
        with self._lock:  # one step, so that ``pending`` never misses the message in between
            if not self._outbox:
                return
            self._tx_seq = self.framer.next_seq(self._tx_seq)
            self._outstanding = (self._tx_seq, self.framer.encode(self._outbox.popleft(), self._tx_seq))
        self._tries = 0
        self._transmit()

    def _next_deadline(self) -> float | None:
        if not self._identified:
            return None
        deadlines = [d for d in (self._next_heartbeat, self._ack_deadline if self._outstanding else None) if d]
        return min(deadlines) if deadlines else None

    def _on_tick(self, now: float) -> None:
        if not self._identified:
            return
        if self._next_heartbeat is not None and now >= self._next_heartbeat:
            self._write_raw(self.framer.encode(Heartbeat()))
            self._next_heartbeat = now + self._heartbeat
        if self._outstanding and self._ack_deadline is not None and now >= self._ack_deadline:
            self._transmit()
        self._pump()


class TextSimLink(SimLink):
    """A talk-only dialect: each message is encoded and sent once; what the host sends is ignored.

    :param encode: message -> wire bytes.
    """

    def __init__(
        self, name: str, endpoint: Endpoint, faults: LinkFaults, seed: int, *, encode: Callable[[Any], bytes]
    ) -> None:
        super().__init__(name, endpoint, faults, seed)
        self._encode = encode

    @property
    def pending(self) -> int:
        """Messages not yet written."""
        with self._lock:
            return len(self._outbox)

    def _on_bytes(self, data: bytes) -> None:
        _log.debug("sim %s: ignored %d byte(s) from the host", self.name, len(data))

    def _pump(self) -> None:
        while True:
            with self._lock:
                if not self._outbox:
                    return
                message = self._outbox[0]  # stays counted in ``pending`` until written
            if not self._write_faulty(self._encode(message)):
                return  # nobody connected: keep it for the next host
            with self._lock:
                self._outbox.popleft()


D = TypeVar("D", bound="SimDevice")


class SimDevice:
    """Base of a simulated device (shoe, shaker): its life is its link's.

    A subclass sets :attr:`link` in its constructor and adds what the dealer does.
    """

    link: FramedSimLink | TextSimLink

    @property
    def url(self) -> str:
        """What the host opens: ``/dev/pts/N`` or ``socket://127.0.0.1:PORT``."""
        return self.link.url

    @property
    def pending(self) -> int:
        """Messages the host has not yet received (framed: acknowledged)."""
        return self.link.pending

    def start(self: D) -> D:
        """Start serving the endpoint."""
        self.link.start()
        return self

    def stop(self) -> None:
        """Stop and release the endpoint."""
        self.link.stop()

    def __enter__(self: D) -> D:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
