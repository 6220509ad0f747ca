"""Replay a capture: the devices of a field capture, back for fresh drivers.

:class:`Replay` opens one pseudo-terminal per serial device of a capture
(:mod:`drivers.capture`), and builds a pyusb backend per USB device (the shuffler,
:class:`sim.devices.replay_usb.ReplayedShuffler`), and plays what each device sent, in the order
and (with ``speed=1.0``) with the gaps it had, or as fast as the host takes it
(``speed=None``). Serial drivers open :meth:`Replay.url` as they would the real port; the
shuffler's driver gets :meth:`Replay.backend` as its pyusb backend. Each device's stream waits
for its host: a replay starts when the host opens the port (and, in a framed dialect,
asks who the device is), so nothing is lost to a port not yet open. A serial device's
dialect is found by name in :mod:`drivers.dialects`: a framed one (with acks) is spoken
through its framer's frame layout, a talk-only one verbatim.

**Framed dialects** (``docs/protocols/shoe.md`` § 1). The host on the replay is a new one: its
handshakes, commands and acks do not happen at the moments the captured ones did. So the
replay is the device's link layer for what the host does, and verbatim for what the device
did on its own:

- the captured device -> host bytes are written verbatim (application frames, corrupt
  frames, garbage, duplicates, retransmissions, heartbeats), except the frames that were
  answers to the old host (IDENTITY, ACK, NAK), which are dropped;
- an IDENTIFY from the host is answered with the captured identity, whose SEQ is the last
  reliable SEQ the replay has written (so the host's duplicate detection stays in step);
- a reliable command from the host is acked at once; a damaged one is nakked;
- while the replay waits (for the host, for the dealer), it sends heartbeats at the
  interval the host asked for, so the host does not declare the device lost.

**Talk-only dialects** (ASCII): the device only talks; the bytes are written verbatim and the host's are read and ignored.

**USB** (``usb-framed``, the shuffler): the captured IN transfers are handed to the host's
bulk reads one by one; the host's OUT transfers (its commands) and vendor control transfers
(its handshakes) are checked against the capture, and what the device did after one waits
until the host has made it; where the capture shows the cable pulled, or a new handshake,
the device leaves the bus and comes back (see :mod:`sim.devices.replay_usb`).

**Between devices**: a device's bytes wait for the events the other replayed devices'
drivers delivered before them in the capture (the shuffler's BATCH_LOADED after the shoe's
last card), as the dealer's actions do (below).

**Mismatches**: where the new host does not do what the captured one did (an OUT transfer
that differs or is one too many, a transfer it never makes, a dealer's action that waited in
vain for the driver events before it), the replay logs a warning and lists it in
:attr:`Replay.mismatches`, and goes on.

**The dealer's actions** (console commands, buttons, wagers: ``event`` records of devices
that are not in the capture's byte stream) are put back in their place with
:meth:`Replay.inputs`: each is emitted once the replayed drivers have delivered as many
events as the original drivers had before it, so a fast replay cannot deal a card before
the "no more bets" that preceded it.
"""

from __future__ import annotations

import dataclasses
import errno
import functools
import logging
import os
import select
import threading
import time
import tty
from collections import Counter
from collections.abc import Callable, Iterable

from drivers import dialects
from drivers.capture import RX, Capture, Chunk, EventRecord
from drivers.codecs import BadFrame
from drivers.codecs.framed import Frame, Heartbeat, Identify, Identity, MessageTable
from drivers.codecs.framer import Framer
from drivers.errors import CodecError
from drivers.events import DeviceEvent
from sim.devices.replay_usb import ReplayedShuffler, UsbStep
from sim.devices.worker import Worker
from sim.errors import SimError

__all__ = ["Replay", "Mismatch", "USB_DIALECT"]

_log = logging.getLogger("tablehost.sim.replay")

#: The dialect of a USB device a replay plays as a pyusb backend (the shuffler).
USB_DIALECT = "usb-framed"
#: Link-layer frame types the device sends only in answer to the host (dropped from the
#: captured stream: the replay answers the new host itself).
_ANSWERS = {0x01: "IDENTITY", 0x03: "ACK", 0x04: "NAK"}
#: Device -> host frame types of a device family's messages (``docs/protocols/shoe.md`` § 1.2).
_FAMILY_TYPES = range(0x10, 0x80)
#: Heartbeat interval until the host's IDENTIFY asks for one, seconds.
_DEFAULT_HEARTBEAT_S = 1.0
#: A pseudo-terminal with no host is looked at this often for one arriving, seconds.
_CONNECT_POLL_S = 0.05
#: Wait this long after the host opened the port before writing: pyserial flushes the input
#: of a port it has just opened, which would swallow the first bytes.
_CONNECT_SETTLE_S = 0.1
#: Events that say how the link went rather than what the device said; their number
#: depends on timing, so the dealer's actions are not ordered against them.
_LINK_EVENTS = frozenset({"DeviceIdentified", "DeviceLost", "ProtocolError", "IdentityUnverified"})
#: Link events a driver emits once per connection: the dealer's actions that followed the
#: first one wait for it too.
_CONNECTION_EVENTS = frozenset({"DeviceIdentified", "IdentityUnverified"})
#: DeviceFault codes a driver raises about the link itself (see :mod:`drivers.device`).
_LINK_FAULT_CODES = frozenset(
    {"port_missing", "port_failed", "no_handshake", "no_ack", "heartbeat", "unapproved", "link"}
)
#: A timed step played later than this after it was due was held (by the host, a barrier),
#: not merely woken late: the gaps after it count from when it was played, seconds.
_JITTER_S = 0.02
#: How long a dealer's action waits for the driver events that preceded it, seconds.
DEFAULT_BARRIER_TIMEOUT_S = 5.0


def _counted(ev: DeviceEvent) -> bool:
    """Whether an event counts for ordering the dealer's actions (it says what the device said)."""
    name = type(ev).__name__
    return name not in _LINK_EVENTS and not (name == "DeviceFault" and getattr(ev, "code", "") in _LINK_FAULT_CODES)


def _tally(tally: Counter[str], ev: DeviceEvent) -> None:
    """Count an event of a replayed device towards ordering the dealer's actions: what the
    device said, by device, and whether each connection event came (once is enough:
    reconnections depend on timing)."""
    if _counted(ev):
        tally[ev.device] += 1
    elif type(ev).__name__ in _CONNECTION_EVENTS:
        tally[f"{ev.device} {type(ev).__name__}"] = 1


def _others(counted: Counter[str], device: str) -> tuple[tuple[str, int], ...]:
    """What a step of ``device`` waits for: the events the other devices' drivers delivered before it."""
    return tuple((key, count) for key, count in counted.items() if key.split(" ")[0] != device)


class _Port:
    """One replayed device: the device side of a pseudo-terminal and what to write to it."""

    def __init__(self, name: str, framer: Framer | None, identity: Identity | None, first_seq: int) -> None:
        self.name, self.framer = name, framer  # framer None: a talk-only dialect
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.url = os.ttyname(slave)
        os.close(slave)  # nobody holds the slave: the master then tells when a host opens it
        os.set_blocking(self.master, False)
        self.connected_at: float | None = None
        self.identified = False
        self.identity = identity
        self.last_seq = first_seq  # last reliable SEQ written to the host
        self.heartbeat = _DEFAULT_HEARTBEAT_S
        self.last_write = 0.0
        self.rx_last = 0  # last reliable SEQ accepted from the host
        self._out = bytearray()  # written to the tty as it takes it
        self._from_host = bytearray()

    # -- the host side -------------------------------------------------------------------

    def poll_connection(self, now: float) -> None:
        """Notice a host opening or closing the port."""
        poller = select.poll()
        poller.register(self.master, select.POLLIN)
        hung_up = any(events & select.POLLHUP for _, events in poller.poll(0))
        if hung_up and self.connected_at is not None:
            _log.info("replay %s: host closed %s", self.name, self.url)
            self.connected_at, self.identified = None, False
            self._out.clear()
            self._from_host.clear()
        elif not hung_up and self.connected_at is None:
            _log.info("replay %s: host opened %s", self.name, self.url)
            self.connected_at = now

    def ready(self, now: float) -> bool:
        """Whether the device's captured bytes may be written now: the host identified a framed
        device, or has had the port of a talk-only one open long enough to have flushed it."""
        if self.framer is not None:
            return self.identified
        return self.connected_at is not None and now >= self.connected_at + _CONNECT_SETTLE_S

    def read_host(self) -> None:
        """Take what the host sent and answer it (framed dialect)."""
        try:
            data = os.read(self.master, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            if exc.errno == errno.EIO:  # the host closed the port
                return
            raise
        if self.framer is None:
            return
        self._from_host += data
        while self._from_host:
            consumed, item = self.framer.decode(self._from_host)
            if consumed == 0:
                return
            del self._from_host[:consumed]
            if isinstance(item, BadFrame):
                nak = self.framer.nak(item, self.rx_last)
                if nak is not None:
                    self.send(nak)
            elif item is not None:
                self._on_host_frame(item)

    def _on_host_frame(self, frame: Frame) -> None:
        assert self.framer is not None
        if frame.type == 0x80:  # IDENTIFY
            try:
                identify = self.framer.message(frame)
            except CodecError as exc:
                _log.warning("replay %s: %s", self.name, exc)
                return
            assert isinstance(identify, Identify)
            if identify.heartbeat_ms:
                self.heartbeat = identify.heartbeat_ms / 1000
            if self.identity is None:
                raise SimError(f"replay {self.name}: the capture holds no IDENTITY to answer the host with")
            self.send(self.framer.encode(self.identity, self.last_seq))
            self.identified = True
        elif frame.type >= 0x81 and frame.seq:  # a reliable command of the family: ack it
            self.send(self.framer.ack(frame.seq))
            self.rx_last = frame.seq
        # ACK, NAK and HEARTBEAT from the host: the captured stream already holds what the
        # device did about them.

    # -- the device side -----------------------------------------------------------------

    def send(self, data: bytes) -> None:
        """Queue bytes for the host and write what the tty takes now."""
        self._out += data
        self.last_write = time.monotonic()
        self.flush()

    def flush(self) -> None:
        """Write queued bytes as far as the tty's buffer allows."""
        while self._out:
            try:
                written = os.write(self.master, self._out)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno == errno.EIO:
                    return
                raise
            del self._out[:written]

    @property
    def backlog(self) -> bool:
        """Whether bytes wait for the tty."""
        return bool(self._out)

    def beat(self, now: float) -> float | None:
        """Send a heartbeat if the line has been quiet for the host's interval (framed,
        identified); when the next one is due, else ``None``."""
        if not self.identified or self.framer is None:
            return None
        if now >= self.last_write + self.heartbeat:
            self.send(self.framer.encode(Heartbeat()))
        return self.last_write + self.heartbeat

    def close(self) -> None:
        try:
            os.close(self.master)
        except OSError:
            pass


class _FramedFilter:
    """Splits the captured device -> host stream into what is written verbatim and what is
    dropped (answers to the old host), keeping the SEQ of the last reliable frame kept."""

    def __init__(self, framer: Framer) -> None:
        self._framer, self._buffer = framer, bytearray()

    def feed(self, data: bytes) -> tuple[bytes, int | None]:
        """``(bytes to write, last reliable SEQ among them or None)`` for one captured chunk."""
        self._buffer += data
        kept, seq = bytearray(), None
        while self._buffer:
            consumed, item = self._framer.decode(self._buffer)
            if consumed == 0:
                break  # an incomplete frame: it goes out with the chunk that completes it
            raw = bytes(self._buffer[:consumed])
            del self._buffer[:consumed]
            if isinstance(item, Frame) and item.type in _ANSWERS:
                continue
            kept += raw
            if isinstance(item, Frame) and item.type in _FAMILY_TYPES and item.seq:
                seq = item.seq
        return bytes(kept), seq


def _link_framer(device: str, dialect: str) -> Framer | None:
    """The link layer of ``device``'s registered ``dialect`` (its frame layout, our link
    messages only: a replay speaks to the host for any family), or ``None`` for a talk-only one.

    :raises SimError: for a dialect no entry of :mod:`drivers.dialects` has.
    """
    try:
        entry = dialects.shoe_dialect(dialect)
    except dialects.UnknownDialect:
        known = ", ".join((*dialects.names(), USB_DIALECT))
        raise SimError(f"replay: {device} speaks {dialect!r}; a replay speaks {known}") from None
    return None if entry.framer is None else Framer(entry.framer.layout, MessageTable(f"replay {device}", ()))


def _captured_identity(capture: Capture, device: str, framer: Framer) -> tuple[Identity | None, int]:
    """The first IDENTITY the device sent in the capture, and its SEQ (the device's last SEQ then)."""
    buffer = bytearray(capture.data(device, RX))
    while buffer:
        consumed, item = framer.decode(buffer)
        if consumed == 0:
            break
        del buffer[:consumed]
        if isinstance(item, Frame) and item.type == 0x01:
            try:
                identity = framer.message(item)
            except CodecError:
                continue
            return identity, item.seq
    return None, 0


@dataclasses.dataclass(frozen=True)
class _Step:
    """One thing the replay does, in capture order: write bytes, emit a dealer's action, or
    a USB device's step."""

    t: float
    device: str
    data: bytes = b""
    event: DeviceEvent | None = None
    #: Counted driver events that preceded it in the capture, per device (for a device's
    #: step: of the other devices).
    after: tuple[tuple[str, int], ...] = ()
    usb: UsbStep | None = None


@dataclasses.dataclass(frozen=True)
class Mismatch:
    """Where the replayed host did not do what the captured one did.

    :param device: the device (or the source of a dealer's action) concerned.
    :param text: what differed.
    """

    device: str
    text: str

    def __str__(self) -> str:
        return f"{self.device}: {self.text}"


class Replay:
    """Replays the serial devices of a capture on pseudo-terminals.

    :param capture: the capture (:func:`drivers.capture.read_capture`).
    :param speed: ``1.0`` keeps the captured gaps (``2.0`` halves them); ``None``: as fast
        as the host takes the bytes.
    :param devices: the devices to replay (default: every declared serial device whose
        dialect is registered in :mod:`drivers.dialects`, and every USB device).
    :param identity: what IDENTITY answers for a framed device whose capture holds none
        (a capture started after the handshake).
    :param barrier_timeout: longest wait of a dealer's action for the events that preceded
        it, and of a USB device for the host's transfer before its next one; after it the
        replay goes on (and reports a :class:`Mismatch`).
    :raises SimError: naming a device the capture does not hold or cannot be replayed.
    """

    def __init__(
        self,
        capture: Capture,
        *,
        speed: float | None = 1.0,
        devices: Iterable[str] | None = None,
        identity: Identity | None = None,
        barrier_timeout: float = DEFAULT_BARRIER_TIMEOUT_S,
    ) -> None:
        if speed is not None and speed <= 0:
            raise SimError(f"replay speed {speed} must be positive (or None: as fast as possible)")
        self.capture, self.speed, self.barrier_timeout = capture, speed, barrier_timeout
        names = (
            list(devices)
            if devices is not None
            else [name for name, info in capture.devices.items() if info.dialect in (*dialects.names(), USB_DIALECT)]
        )
        self._worker = Worker()
        self._lock = threading.Lock()
        #: Every mismatch between the replayed host and the capture, in order.
        self.mismatches: list[Mismatch] = []
        self._ports: dict[str, _Port] = {}
        self._filters: dict[str, _FramedFilter] = {}
        self._usb: dict[str, ReplayedShuffler] = {}
        for name in names:
            info = capture.devices.get(name)
            if info is None:
                raise SimError(
                    f"replay: {capture.path} holds no device {name!r} (it has: {', '.join(capture.devices)})"
                )
            if info.dialect == USB_DIALECT:
                self._usb[name] = ReplayedShuffler(name, capture, report=functools.partial(self._mismatch, name),
                                                   wake=self._worker.wake)  # fmt: skip
                continue
            framer = _link_framer(name, info.dialect)
            captured, first_seq = _captured_identity(capture, name, framer) if framer else (None, 0)
            self._ports[name] = _Port(name, framer, captured or identity, first_seq)
            if framer is not None:
                self._filters[name] = _FramedFilter(framer)
        self._replayed = frozenset(self._ports) | frozenset(self._usb)
        self._steps = self._plan()
        self._emit: Callable[[DeviceEvent], None] | None = None
        self._delivered: Counter[str] = Counter()
        self._barrier_since: float | None = None
        self.finished = threading.Event()

    @property
    def devices(self) -> list[str]:
        """The replayed devices."""
        return [*self._ports, *self._usb]

    def url(self, device: str) -> str:
        """The port the host opens for the serial ``device`` (``/dev/pts/N``)."""
        return self._ports[device].url

    def backend(self, device: str) -> ReplayedShuffler:
        """The pyusb backend on which the host finds the USB ``device``."""
        return self._usb[device]

    def _mismatch(self, device: str, text: str) -> None:
        _log.warning("replay %s: %s", device, text)
        with self._lock:
            self.mismatches.append(Mismatch(device, text))

    def inputs(self, emit: Callable[[DeviceEvent], None]) -> Callable[[DeviceEvent], None]:
        """Replay the dealer's actions into ``emit``; returns the ``emit`` to give the replayed
        devices' drivers (it passes their events on to ``emit`` and counts them)."""
        self._emit = emit

        def counting(ev: DeviceEvent) -> None:
            emit(ev)  # first: an action waiting for this event must queue behind it
            if ev.device in self._replayed:
                with self._lock:
                    _tally(self._delivered, ev)
                self._worker.wake()

        return counting

    def _plan(self) -> list[_Step]:
        steps: list[_Step] = []
        counted: Counter[str] = Counter()
        records = self.capture.records
        for position in range(len(records) + 1):
            for name, device in self._usb.items():  # its steps are placed by position (see sim.devices.replay_usb)
                steps += [
                    _Step(usb.t, name, after=_others(counted, name), usb=usb) for usb in device.steps.get(position, ())
                ]
            record = records[position] if position < len(records) else None
            if isinstance(record, Chunk) and record.direction == RX and record.device in self._ports:
                steps.append(_Step(record.t, record.device, data=record.data, after=_others(counted, record.device)))
            elif isinstance(record, EventRecord) and record.device in self._replayed:
                _tally(counted, record.event())
            elif isinstance(record, EventRecord) and record.device not in self.capture.devices:
                steps.append(_Step(record.t, record.device, event=record.event(), after=tuple(counted.items())))
        return steps

    # -- life ------------------------------------------------------------------------------

    def start(self) -> Replay:
        """Start the replay thread (the devices then wait for their hosts)."""
        self._worker.start(self._run, "sim-replay")
        return self

    def stop(self) -> None:
        """Stop and close the pseudo-terminals."""
        self._worker.stop()
        for port in self._ports.values():
            port.close()
        if self.mismatches:
            _log.warning(
                "replay: %d mismatch(es) between the host and the capture; the first: %s",
                len(self.mismatches),
                self.mismatches[0],
            )
        self._worker.close()

    def __enter__(self) -> Replay:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the thread ------------------------------------------------------------------------

    def _run(self) -> None:
        index, last_t, last_done = 0, None, time.monotonic()
        waited_for_events = -1  # the step whose wait for the events before it is over
        while not self._worker.stopping:
            now = time.monotonic()
            for port in self._ports.values():
                port.poll_connection(now)
            deadlines: list[float] = []
            while index < len(self._steps):
                step = self._steps[index]
                due = last_done if last_t is None or self.speed is None else last_done + (step.t - last_t) / self.speed
                if now < due:
                    deadlines.append(due)
                    break
                if waited_for_events != index:
                    with self._lock:
                        met = all(self._delivered[device] >= count for device, count in step.after)
                    if self._held(met, now, deadlines):
                        break
                    if not met:
                        what = (
                            type(step.event).__name__
                            if step.event is not None
                            else f"the step of capture t={step.t:.3f}s"
                        )
                        self._mismatch(
                            step.device,
                            f"{what} played after waiting {self.barrier_timeout:.1f}s for the "
                            f"driver events before it (want {dict(step.after)}, have {dict(self._delivered)})",
                        )
                    waited_for_events = index
                if step.event is not None:
                    if self._emit is not None:
                        self._emit(step.event)
                elif step.usb is not None:
                    device = self._usb[step.device]
                    met = device.ready(step.usb)
                    if not met and not device.waits_for_host(step.usb):
                        break  # the host reads the previous transfer, or opens the device: it wakes the replay
                    if self._held(met, now, deadlines):
                        break
                    if not met:
                        self._mismatch(step.device, device.missed(step.usb))
                    device.play(step.usb)
                else:
                    port = self._ports[step.device]
                    if not port.ready(now) or port.backlog:
                        settled = None if port.connected_at is None else port.connected_at + _CONNECT_SETTLE_S
                        if settled is not None and now < settled:
                            deadlines.append(settled)
                        break
                    self._write(step)
                # Timed: the next gap counts from when this step was due, unless something held it
                # (the host, a barrier): then from now. Wake-up jitter does not add up step by step.
                index, last_t, last_done = index + 1, step.t, due if now - due < _JITTER_S else now
            if index == len(self._steps) and not self.finished.is_set():
                _log.info("replay: all %d steps played", len(self._steps))
                self.finished.set()
            self._beat(now, deadlines)
            self._wait(deadlines)

    def _held(self, met: bool, now: float, deadlines: list[float]) -> bool:
        """Whether a step that waits (for driver events, for the host's transfer) holds the
        replay: its condition is not ``met`` and it has waited less than ``barrier_timeout``."""
        if met:
            self._barrier_since = None
            return False
        if self._barrier_since is None:
            self._barrier_since = now
        if now < self._barrier_since + self.barrier_timeout:
            deadlines.append(self._barrier_since + self.barrier_timeout)
            return True
        self._barrier_since = None
        return False

    def _write(self, step: _Step) -> None:
        port = self._ports[step.device]
        if port.framer is None:
            port.send(step.data)
            return
        data, seq = self._filters[step.device].feed(step.data)
        if seq is not None:
            port.last_seq = seq
        if data:
            port.send(data)

    def _beat(self, now: float, deadlines: list[float]) -> None:
        for port in self._ports.values():
            due = port.beat(now)
            if due is not None:
                deadlines.append(due)

    def _wait(self, deadlines: list[float]) -> None:
        poller = select.poll()
        poller.register(self._worker.fd, select.POLLIN)
        watching: dict[int, _Port] = {}
        waiting_for_host = False
        for port in self._ports.values():
            if port.connected_at is None:
                waiting_for_host = True  # a hung-up master cannot be polled without spinning
                continue
            watching[port.master] = port
            poller.register(port.master, select.POLLIN | (select.POLLOUT if port.backlog else 0))
        if waiting_for_host:
            deadlines.append(time.monotonic() + _CONNECT_POLL_S)
        timeout = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
        for fd, events in poller.poll(None if timeout is None else timeout * 1000):
            if fd == self._worker.fd:
                self._worker.drain()
            elif fd in watching:
                port = watching[fd]
                if events & select.POLLIN:
                    port.read_host()
                if events & select.POLLOUT:
                    port.flush()
