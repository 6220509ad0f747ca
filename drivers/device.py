"""The driver base: a device's life on one port, and the link layer of our framed protocol.

:class:`Device` owns one port (a :class:`~drivers.transport.SerialTransport`) and one
driver thread. The life of a device::

    connecting --open ok--> handshake --identity--> running
        ^   |                   |                      |
        |   +--port missing-----+--no identity---------+--port failed / watchdog
        +------- wait (back-off doubling from reconnect_initial up to reconnect_max) ---+

Bytes from the transport's reader thread, commands from other threads, and the stop
request all arrive on one internal queue; the driver thread blocks on it with a timeout
set by the nearest deadline (watchdog, retransmission, handshake), so an idle device
costs no CPU. Everything the driver learns leaves as typed events through ``emit`` (the
service passes its queue's ``put``). Drivers hold no game state.

:class:`FramedDevice` adds the link layer of ``docs/protocols/shoe.md`` § 1 (identify
handshake, sequence numbers, ack/nak, retransmission with a retry limit, duplicates
dropped, heartbeats) for any framed dialect of any device family, given its
:class:`~drivers.codecs.framer.Framer` (frame layout and message table); a family's driver
only turns its messages into events.
"""

from __future__ import annotations

import abc
import dataclasses
import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from drivers.codecs import BadFrame, drain
from drivers.codecs.framed import Ack, Frame, Heartbeat, Identify, Nak
from drivers.codecs.framed import Identity as IdentityMessage
from drivers.codecs.framer import Framer
from drivers.errors import CodecError, DeviceNotFound, DriverError
from drivers.events import DeviceEvent
from drivers.events.lifecycle import DeviceFault, DeviceIdentified, DeviceLost, ProtocolError
from drivers.timing import Timing
from drivers.transport import SerialTransport

__all__ = ["Timing", "Identity", "Device", "FramedDevice", "Transport", "TransportFactory", "Refusal"]

_log = logging.getLogger("tablehost.drivers")


class Transport(Protocol):
    """What a driver needs of its port: a :class:`~drivers.transport.SerialTransport`, or the
    shuffler's :class:`~drivers.usb.UsbTransport`."""

    def open(self) -> None: ...

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


#: Builds a transport: ``(name, url, on_bytes, on_lost, baudrate=...) -> transport``.
TransportFactory = Callable[..., Transport]
#: ``(model, serial, firmware) -> why it is refused, or None``: the profile's allow-list.
Refusal = Callable[[str, str, str], "str | None"]


@dataclasses.dataclass(frozen=True)
class Identity:
    """Who the device says it is.

    :param verified: ``False`` when the identity was taken from the profile because the
        dialect has no identity message.
    """

    model: str
    serial: str
    firmware: str
    verified: bool = True


class _SessionEnd(Exception):
    """Raised inside the driver thread to end the current session (port closed, retried later)."""

    def __init__(self, reason: str, code: str) -> None:
        super().__init__(reason)
        self.reason, self.code = reason, code


class _Prefixed(logging.LoggerAdapter):  # type: ignore[type-arg]
    """Prefix every log message with the device's name."""

    def process(self, msg: Any, kwargs: Any) -> tuple[Any, Any]:
        return f"{self.extra['device']}: {msg}", kwargs  # type: ignore[index]


class Device(abc.ABC):
    """Base of every serial device driver: the port, the driver thread, the life cycle.

    :param name: the device's name in the table profile (``"shoe"``); starts every event,
        log line and error message.
    :param url: the port, anything :func:`serial.serial_for_url` opens.
    :param emit: receives every event (e.g. ``queue.Queue().put``); called from the driver thread.
    :param timing: timeouts, retries and back-off.
    :param baudrate: line speed.
    :param refusal: the profile's allow-list check; a refused identity is reported as a
        :class:`DeviceFault` and the port is closed and retried later.
    :param transport_factory: builds the transport (tests may substitute one).
    """

    #: Whether a running device that sends nothing for :attr:`Timing.watchdog` is lost.
    WATCHDOG = True

    def __init__(
        self,
        name: str,
        url: str,
        emit: Callable[[DeviceEvent], None],
        *,
        timing: Timing = Timing(),
        baudrate: int = 115200,
        refusal: Refusal | None = None,
        transport_factory: TransportFactory = SerialTransport,
    ) -> None:
        self.name, self.url, self.timing, self.baudrate = name, url, timing, baudrate
        self.log = _Prefixed(_log, {"device": name})
        self._emit_event, self._refusal, self._transport_factory = emit, refusal, transport_factory
        self._inbox: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._transport: Transport | None = None
        self._generation = 0
        self._buffer = bytearray()
        self._state = "stopped"
        self._identity: Identity | None = None
        self._watchdog_deadline = 0.0
        self._reported_problem: str | None = None

    # -- public API ---------------------------------------------------------------------

    @property
    def state(self) -> str:
        """``"stopped"``, ``"connecting"``, ``"handshake"`` or ``"running"``."""
        return self._state

    @property
    def identity(self) -> Identity | None:
        """The identity of the current session, once the handshake is done."""
        return self._identity

    def start(self) -> None:
        """Start the driver thread; it connects, and reconnects, until :meth:`stop`."""
        if self._thread is not None:
            raise DriverError(f"{self.name}: driver already started")
        self._stopping.clear()
        self._thread = threading.Thread(target=self._run, name=f"{self.name}-driver", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Close the port and end the driver thread; waits up to ``timeout`` seconds."""
        self._stopping.set()
        self._inbox.put(("stop",))
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                self.log.error("driver thread did not stop within %.1fs", timeout)
        self._thread = None

    # -- what subclasses implement --------------------------------------------------------

    @abc.abstractmethod
    def _decode(self, buffer: bytearray) -> tuple[int, Any]:
        """The dialect's codec ``decode``."""

    @abc.abstractmethod
    def _on_connected(self) -> None:
        """The port is open: begin the handshake (which ends in :meth:`_identified`)."""

    @abc.abstractmethod
    def _on_item(self, item: Any) -> None:
        """One decoded frame or message (never a :class:`BadFrame`)."""

    def _on_bad_frame(self, bad: BadFrame) -> None:
        """Bytes the codec skipped: reported as a :class:`ProtocolError` event."""
        # The reason may quote the bytes, and a garbled card frame can hold a card not yet exposed:
        # the log names only how many bytes and why (the journal keeps the reason, § 541.9(c)(2)).
        self.log.warning("skipped %d byte(s): %s", len(bad.raw), bad.kind)
        self._emit(ProtocolError(self.name, bad.reason))

    def _next_deadline(self) -> float | None:
        """The subclass's nearest timer (monotonic seconds), or ``None``."""
        return None

    def _on_tick(self, now: float) -> None:
        """Called after every wake-up so the subclass can act on its timers."""

    # -- what subclasses call -------------------------------------------------------------

    def _emit(self, ev: DeviceEvent) -> None:
        self._emit_event(ev)

    def _write(self, data: bytes) -> None:
        """Send bytes on the current session's port."""
        if self._transport is None:
            raise _SessionEnd(f"port {self.url} is not open", "port_failed")
        try:
            self._transport.write(data)
        except DriverError as exc:
            raise _SessionEnd(str(exc), "port_failed") from exc

    def _call(self, function: Callable[[], None]) -> None:
        """Run ``function`` in the driver thread (thread-safe; used by command methods)."""
        self._inbox.put(("call", function))

    def _lose(self, reason: str, code: str = "link") -> None:
        """End the session: the port is closed and reopened after the back-off."""
        raise _SessionEnd(reason, code)

    def _identified(self, identity: Identity) -> None:
        """The handshake is done: check the allow-list, report the identity, start running."""
        refused = self._refusal(identity.model, identity.serial, identity.firmware) if self._refusal else None
        if refused:
            self._lose(f"identity refused: {refused}", "unapproved")
        first = self._state != "running"
        self._identity, self._state, self._reported_problem = identity, "running", None
        self._refresh_watchdog()
        self.log.info(
            "identified: model %s, serial %s, firmware %s%s",
            identity.model,
            identity.serial,
            identity.firmware,
            "" if identity.verified else " (from the profile, unverified)",
        )
        if first:
            self._emit(DeviceIdentified(self.name, identity.model, identity.serial, identity.firmware))

    def _refresh_watchdog(self) -> None:
        self._watchdog_deadline = time.monotonic() + self.timing.watchdog

    # -- the driver thread ----------------------------------------------------------------

    def _run(self) -> None:
        delay = self.timing.reconnect_initial
        while not self._stopping.is_set():
            ended = self._session()
            if ended is None:
                break
            self._identity = None
            if self._state == "running":
                self._emit(DeviceLost(self.name, ended.reason))
                delay = self.timing.reconnect_initial
            elif self._reported_problem != ended.code:
                self._reported_problem = ended.code
                self._emit(DeviceFault(self.name, ended.code, f"{self.name}: {ended.reason}; retrying"))
            self._state = "connecting"
            self.log.warning("%s; retrying %s in %.2fs", ended.reason, self.url, delay)
            if self._stopping.wait(delay):
                break
            delay = min(delay * 2, self.timing.reconnect_max)
        self._state = "stopped"

    def _session(self) -> _SessionEnd | None:
        """Open the port and serve it until it fails (the reason) or the driver stops (None)."""
        self._generation += 1
        generation = self._generation
        self._state = "connecting"
        transport = self._transport_factory(
            self.name, self.url,
            lambda data: self._inbox.put(("data", generation, data)),
            lambda reason: self._inbox.put(("lost", generation, reason)),
            baudrate=self.baudrate,
        )  # fmt: skip
        try:
            transport.open()
        except DeviceNotFound as exc:
            return _SessionEnd(str(exc).removeprefix(f"{self.name}: "), "port_missing")
        self.log.info("opened %s", self.url)
        self._transport, self._state = transport, "handshake"
        self._buffer.clear()
        try:
            self._on_connected()
            self._serve(generation)
            return None
        except _SessionEnd as ended:
            return ended
        finally:
            self._transport = None
            transport.close()

    def _serve(self, generation: int) -> None:
        while True:
            deadlines = [d for d in (self._next_deadline(),) if d is not None]
            if self._state == "running" and self.WATCHDOG:
                deadlines.append(self._watchdog_deadline)
            timeout = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
            try:
                item = self._inbox.get(timeout=timeout)
            except queue.Empty:
                item = ("tick",)
            kind = item[0]
            if kind == "stop":
                return None
            if kind == "call":
                item[1]()
            elif kind == "data" and item[1] == generation:
                self._feed(item[2])
            elif kind == "lost" and item[1] == generation:
                self._lose(item[2], "port_failed")
            now = time.monotonic()
            if self._state == "running" and self.WATCHDOG and now >= self._watchdog_deadline:
                self._lose(f"no frame for {self.timing.watchdog:.2f}s (heartbeat lost)", "heartbeat")
            self._on_tick(now)

    def _feed(self, data: bytes) -> None:
        self._buffer += data
        for item in drain(self._decode, self._buffer):
            if isinstance(item, BadFrame):
                self._on_bad_frame(item)
            else:
                if self._state == "running":
                    self._refresh_watchdog()
                self._on_item(item)


class FramedDevice(Device):
    """A device speaking a framed dialect: the link layer of ``docs/protocols/shoe.md`` § 1.

    :param framer: the dialect's framer (its frame layout and the family's message table).

    Other parameters as :class:`Device`. Subclasses implement :meth:`_on_message`.
    """

    def __init__(
        self, name: str, url: str, emit: Callable[[DeviceEvent], None], framer: Framer, **options: Any
    ) -> None:
        super().__init__(name, url, emit, **options)
        self.framer = framer
        self._rx_last: int | None = None  # last reliable SEQ accepted from the device
        self._tx_seq = 0  # last reliable SEQ we assigned
        self._outbox: deque[Any] = deque()  # reliable commands not yet sent
        self._outstanding: tuple[int, bytes] | None = None  # (SEQ, wire bytes) awaiting ack
        self._outstanding_tries = 0
        self._ack_deadline: float | None = None
        self._identify_deadline: float | None = None
        self._identify_tries = 0

    def send(self, message: Any) -> None:
        """Queue a reliable command for the device (thread-safe); sent in order, each acked."""
        self.framer.encode(message)  # fail here, in the caller's thread, if it cannot be encoded
        self._call(lambda: self._queue(message))

    @abc.abstractmethod
    def _on_message(self, message: Any) -> None:
        """One new message of the family (not link layer, not a duplicate)."""

    def _decode(self, buffer: bytearray) -> tuple[int, Any]:
        return self.framer.decode(buffer)

    def _send_message(self, message: Any, seq: int = 0) -> None:
        self._write(self.framer.encode(message, seq))

    def _on_connected(self) -> None:
        self._identify_tries = 0
        self._send_identify()

    def _send_identify(self) -> None:
        self._identify_tries += 1
        self._send_message(Identify(round(self.timing.heartbeat * 1000)))
        self._identify_deadline = time.monotonic() + self.timing.handshake

    def _next_deadline(self) -> float | None:
        if self.state == "handshake":
            return self._identify_deadline
        return self._ack_deadline if self._outstanding else None

    def _on_tick(self, now: float) -> None:
        if self.state == "handshake" and self._identify_deadline is not None and now >= self._identify_deadline:
            if self._identify_tries > self.timing.retries:
                self._lose(f"no identity after {self._identify_tries} IDENTIFY requests", "no_handshake")
            self._send_identify()
        elif self.state == "running" and self._outstanding and self._ack_deadline and now >= self._ack_deadline:
            if self._outstanding_tries > self.timing.retries:
                self._lose(f"no ack for SEQ {self._outstanding[0]} after {self._outstanding_tries} tries", "no_ack")
            self._retransmit()

    def _queue(self, message: Any) -> None:
        self._outbox.append(message)
        self._pump()

    def _pump(self) -> None:
        """Send the next queued command if the line is free (stop and wait)."""
        if self.state != "running" or self._outstanding or not self._outbox:
            return
        self._tx_seq = self.framer.next_seq(self._tx_seq)
        self._outstanding = (self._tx_seq, self.framer.encode(self._outbox.popleft(), self._tx_seq))
        self._outstanding_tries = 0
        self._retransmit()

    def _retransmit(self) -> None:
        assert self._outstanding is not None
        self._outstanding_tries += 1
        self._write(self._outstanding[1])
        self._ack_deadline = time.monotonic() + self.timing.ack

    def _on_bad_frame(self, bad: BadFrame) -> None:
        super()._on_bad_frame(bad)
        nak = self.framer.nak(bad, self._rx_last or 0)
        if nak is not None and self.state == "running":
            self._write(nak)

    def _on_item(self, frame: Frame) -> None:
        try:
            message = self.framer.message(frame)
        except CodecError as exc:
            self.log.warning("%s", exc)
            self._emit(ProtocolError(self.name, str(exc)))
            if frame.seq and self.state == "running":
                self._write(self.framer.ack(frame.seq))  # resending it would not help
            return
        if isinstance(message, IdentityMessage):
            self._on_identity(frame.seq, message)
        elif self.state != "running":
            self.log.debug("ignored %s before the handshake (the device resends it after)", type(message).__name__)
        elif isinstance(message, Ack):
            if self._outstanding and frame.seq == self._outstanding[0]:
                self._outstanding, self._ack_deadline = None, None
                self._pump()
        elif isinstance(message, Nak):
            if self._outstanding:
                self._retransmit()
        elif isinstance(message, Heartbeat):
            pass
        elif self.framer.is_reliable(frame.type):
            self._write(self.framer.ack(frame.seq))
            if frame.seq == self._rx_last:
                self.log.info("dropped duplicate %s (SEQ %d)", type(message).__name__, frame.seq)
                return
            self._rx_last = frame.seq
            self._on_message(message)
        else:
            self._on_message(message)

    def _on_identity(self, last_seq: int, message: IdentityMessage) -> None:
        """IDENTITY's SEQ is the device's last assigned SEQ (``docs/protocols/shoe.md`` § 1.4)."""
        if self._rx_last != last_seq:
            self._rx_last = 0 if last_seq == 0 else (last_seq - 2) % 255 + 1  # the SEQ before it
        self._identify_deadline = None
        self._identified(Identity(message.model, message.serial, message.firmware))
        if self._outstanding:
            self._outstanding_tries = 0
            self._retransmit()
        self._pump()
