"""Traffic capture: every byte between the host and its devices, with monotonic timestamps.

A capture is a JSON-lines file (``docs/protocols/capture-format.md``): a header line, then
one record per line, in the order they happened:

- ``device``: a device taking part (its kind, dialect, transport, model, port);
- ``bytes``: one chunk of raw bytes, ``rx`` (device -> host, as the host read it) or ``tx``
  (host -> device, as the host wrote it);
- ``control``: one USB control transfer (request, value, index and the data stage);
- ``link``: the port opened, closed, failed or was missing (a USB device: a transfer failed);
- ``event``: one input event as the service's queue received it (a driver's, a GPIO
  button's, the console's), so that a replay can put the dealer's actions back between
  the device's bytes.

Every record carries ``t``: seconds since the capture started, from :func:`time.monotonic`.

Recording hooks, none of which changes a driver:

- :meth:`CaptureTap.transport_factory` wraps a serial transport factory (the ``transport_factory``
  option of :class:`~drivers.device.Device`);
- :meth:`CaptureTap.usb_backend` wraps a pyusb backend (the ``backend`` option of
  :class:`~drivers.shuffler.ShufflerDriver`);
- :meth:`CaptureWriter.tap_events` wraps an ``emit`` (the service's :meth:`~firmware_host.host.service.Service.emit`).

Wire spying is separate: :func:`spy_url` turns a serial URL into one whose every byte is
hexdumped with timestamps to a log file (pyserial's spy format), for reading by a person.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

from drivers.device import TransportFactory
from drivers.errors import DeviceNotFound, DriverError
from drivers.events import DeviceEvent, EventError, from_record, to_record
from drivers.transport import SerialTransport

__all__ = [
    "FORMAT", "VERSION", "RX", "TX", "CaptureError", "DeviceInfo", "Chunk", "Control", "Link", "EventRecord",
    "Capture", "CaptureWriter", "CaptureTap", "CaptureBackend", "read_capture", "spy_url", "SPY_SCHEME",
    "BULK_WRITE", "BULK_READ", "CONTROL_TRANSFER",
]  # fmt: skip

#: The header's ``format``: what the file is.
FORMAT = "tablehost-capture"
#: The header's ``version``: bumped on any change a reader of version 1 would misread.
VERSION = 1
#: Direction of a chunk, from the host's side: received from the device.
RX = "rx"
#: Direction of a chunk, from the host's side: sent to the device.
TX = "tx"
#: Link states of a ``link`` record.
LINK_STATES = ("open", "closed", "lost", "missing")
#: URL scheme of the spying serial handler (:mod:`drivers.urlhandler.protocol_spylog`).
SPY_SCHEME = "spylog"
#: Separates the inner URL from the log path in a ``spylog://`` URL.
SPY_FILE_MARK = "#file="
#: Digits of ``t`` kept in the file: microseconds.
_T_DIGITS = 6


class CaptureError(DriverError):
    """A capture file that cannot be read, or a record that does not fit the format."""


@dataclasses.dataclass(frozen=True)
class DeviceInfo:
    """A device taking part in a capture (what a replay needs to speak its dialect).

    :param kind: ``shoe``, ``shaker`` or ``shuffler``.
    :param dialect: ``framed``, ``ascii`` or ``usb-framed``.
    :param transport: ``serial`` or ``usb``.
    :param model: the device model's name (``TS-8``).
    :param port: where it was plugged in (a serial URL, ``usb:vvvv:pppp``).
    """

    kind: str = ""
    dialect: str = ""
    transport: str = ""
    model: str = ""
    port: str = ""


@dataclasses.dataclass(frozen=True)
class Chunk:
    """Raw bytes in one direction (:data:`RX` or :data:`TX`)."""

    t: float
    device: str
    direction: str
    data: bytes


@dataclasses.dataclass(frozen=True)
class Control:
    """One USB control transfer: ``tx`` carries the host's data, ``rx`` the device's answer."""

    t: float
    device: str
    direction: str
    request: int
    value: int
    index: int
    data: bytes


@dataclasses.dataclass(frozen=True)
class Link:
    """The port of a device changed: one of :data:`LINK_STATES`, with why."""

    t: float
    device: str
    state: str
    text: str = ""


@dataclasses.dataclass(frozen=True)
class EventRecord:
    """An input event as the service received it (type name and JSON fields, as the journal has them)."""

    t: float
    device: str
    type: str
    data: dict[str, Any]

    def event(self) -> DeviceEvent:
        """The event itself."""
        return from_record(self.type, self.data)


Record = Chunk | Control | Link | EventRecord


@dataclasses.dataclass(frozen=True)
class Capture:
    """A capture read back (:func:`read_capture`).

    :param started: the wall-clock time the capture started (ISO 8601, UTC), for people.
    :param devices: every device declared in it, by name.
    :param records: every record but the device declarations, in file order.
    """

    path: Path
    started: str
    devices: dict[str, DeviceInfo]
    records: tuple[Record, ...]

    def chunks(self, device: str, direction: str = RX) -> list[Chunk]:
        """The device's chunks in one direction."""
        return [r for r in self.records if isinstance(r, Chunk) and r.device == device and r.direction == direction]

    def data(self, device: str, direction: str = RX) -> bytes:
        """All bytes of the device in one direction, joined."""
        return b"".join(chunk.data for chunk in self.chunks(device, direction))

    def events(self, device: str | None = None) -> list[DeviceEvent]:
        """The recorded input events (of one device, or all)."""
        return [r.event() for r in self.records if isinstance(r, EventRecord) and device in (None, r.device)]


def _hex(data: bytes) -> str:
    return data.hex()


class CaptureWriter:
    """Writes a capture, one flushed line per record (so a crash leaves a readable file).

    Thread-safe: reader threads, driver threads and the service all write to it.

    :param target: a path (created or truncated) or an open text stream.
    :param clock: the monotonic clock (tests may pass another).
    """

    def __init__(self, target: str | Path | TextIO, *, clock: Callable[[], float] = time.monotonic) -> None:
        # The writer owns the file it opens until close() (or its context's exit).
        self._stream: TextIO = open(target, "w", encoding="utf-8") if isinstance(target, (str, Path)) else target  # noqa: SIM115
        self._owns = isinstance(target, (str, Path))
        self._clock = clock
        self._origin = clock()
        self._lock = threading.Lock()
        self._closed = False
        self.devices: dict[str, DeviceInfo] = {}
        self.counts: dict[tuple[str, str], int] = {}
        started = datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")
        self._line({"format": FORMAT, "version": VERSION, "started": started, "clock": "monotonic"})

    def _line(self, record: dict[str, Any]) -> None:
        with self._lock:
            if self._closed:
                return
            self._stream.write(json.dumps(record, separators=(",", ":")) + "\n")
            self._stream.flush()

    def _stamp(self, name: str, **fields: Any) -> dict[str, Any]:
        return {"t": round(self._clock() - self._origin, _T_DIGITS), "dev": name, **fields}

    def _count(self, device: str, what: str, amount: int = 1) -> None:
        with self._lock:
            self.counts[(device, what)] = self.counts.get((device, what), 0) + amount

    def device(self, name: str, info: DeviceInfo) -> None:
        """Declare a device (once per name; a second declaration is ignored)."""
        if name in self.devices:
            return
        self.devices[name] = info
        self._line(self._stamp(name, device=dataclasses.asdict(info)))

    def chunk(self, device: str, direction: str, data: bytes) -> None:
        """Record raw bytes (:data:`RX` or :data:`TX`)."""
        self._count(device, direction, len(data))
        self._line(self._stamp(device, dir=direction, hex=_hex(data)))

    def control(self, device: str, direction: str, request: int, value: int, index: int, data: bytes) -> None:
        """Record a USB control transfer."""
        self._count(device, "control")
        control = {"request": request, "value": value, "index": index}
        self._line(self._stamp(device, dir=direction, ctrl=control, hex=_hex(data)))

    def link(self, device: str, state: str, text: str = "") -> None:
        """Record a change of the port (one of :data:`LINK_STATES`)."""
        self._line(self._stamp(device, link=state, text=text))

    def event(self, ev: DeviceEvent) -> None:
        """Record an input event."""
        name, data = to_record(ev)
        self._count(ev.device, "events")
        self._line(self._stamp(ev.device, event=name, data=data))

    def tap_events(self, emit: Callable[[DeviceEvent], None]) -> Callable[[DeviceEvent], None]:
        """An ``emit`` that records each event, then passes it on."""

        def tapped(ev: DeviceEvent) -> None:
            self.event(ev)
            emit(ev)

        return tapped

    def tap(self, device: str, info: DeviceInfo | None = None) -> CaptureTap:
        """A tap for one device's traffic (declared now when ``info`` is given)."""
        if info is not None:
            self.device(device, info)
        return CaptureTap(self, device)

    def close(self) -> None:
        """Stop writing; close the file if this writer opened it (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._owns:
                self._stream.close()

    def __enter__(self) -> CaptureWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _TappedTransport:
    """A transport whose writes, opening and closing are recorded (reads are, by the factory)."""

    def __init__(self, inner: Any, tap: CaptureTap, url: str) -> None:
        self._inner, self._tap, self.url = inner, tap, url

    def open(self) -> None:
        try:
            self._inner.open()
        except DeviceNotFound as exc:
            self._tap.link("missing", str(exc))
            raise
        self._tap.link("open", self.url)

    def write(self, data: bytes) -> None:
        self._tap.chunk(TX, data)
        self._inner.write(data)

    def close(self) -> None:
        self._inner.close()
        self._tap.link("closed", self.url)


class CaptureTap:
    """Records one device's traffic into a :class:`CaptureWriter` (see :meth:`CaptureWriter.tap`)."""

    def __init__(self, writer: CaptureWriter, device: str) -> None:
        self.writer, self.device = writer, device

    def chunk(self, direction: str, data: bytes) -> None:
        """Record raw bytes of this device."""
        self.writer.chunk(self.device, direction, data)

    def link(self, state: str, text: str = "") -> None:
        """Record a change of this device's port."""
        self.writer.link(self.device, state, text)

    def transport_factory(self, inner: TransportFactory = SerialTransport) -> TransportFactory:
        """A transport factory for :class:`~drivers.device.Device` that records every byte
        the transports built by ``inner`` read and write, and every open, close and failure."""

        def build(name: str, url: str, on_bytes: Callable[[bytes], None], on_lost: Callable[[str], None],
                  **options: Any) -> Any:  # fmt: skip
            def received(data: bytes) -> None:
                self.chunk(RX, data)
                on_bytes(data)

            def lost(reason: str) -> None:
                self.link("lost", reason)
                on_lost(reason)

            return _TappedTransport(inner(name, url, received, lost, **options), self, url)

        return build

    def usb_backend(self, backend: Any) -> CaptureBackend:
        """A pyusb backend that records the bulk and control transfers made through ``backend``."""
        return CaptureBackend(backend, self)


#: bmRequestType bit 7: the data stage goes device -> host (USB 2.0 § 9.3.1).
_DEVICE_TO_HOST = 0x80
#: How the text of a USB device's ``lost`` record names the transfer that failed (``<name>: <error>``).
BULK_WRITE, BULK_READ, CONTROL_TRANSFER = "bulk write", "bulk read", "control transfer"


class CaptureBackend:
    """A pyusb backend wrapper: every call goes to the wrapped backend; bulk transfers are
    recorded as ``bytes`` records and control transfers as ``control`` records (a bulk OUT
    transfer before it is made), and a transfer that fails other than by a timeout as a
    ``lost`` link record naming it (a replay makes the device leave the bus there)."""

    def __init__(self, inner: Any, tap: CaptureTap) -> None:
        self._inner, self._tap = inner, tap

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def _transfer(self, name: str, call: Callable[[], Any]) -> int:
        import usb.core  # pyusb, only where a USB device is captured (a serial table never loads it)

        try:
            return int(call())
        except usb.core.USBTimeoutError:
            raise
        except usb.core.USBError as exc:
            self._tap.link("lost", f"{name}: {exc}")
            raise

    def bulk_write(self, dev_handle: Any, ep: int, intf: int, data: Any, timeout: int) -> int:
        self._tap.chunk(TX, bytes(data))
        return self._transfer(BULK_WRITE, lambda: self._inner.bulk_write(dev_handle, ep, intf, data, timeout))

    def bulk_read(self, dev_handle: Any, ep: int, intf: int, buff: Any, timeout: int) -> int:
        count = self._transfer(BULK_READ, lambda: self._inner.bulk_read(dev_handle, ep, intf, buff, timeout))
        if count:
            self._tap.chunk(RX, bytes(buff[:count]))
        return count

    def ctrl_transfer(self, dev_handle: Any, bmRequestType: int, bRequest: int, wValue: int, wIndex: int,
                      data: Any, timeout: int) -> int:  # fmt: skip
        count = self._transfer(
            CONTROL_TRANSFER,
            lambda: self._inner.ctrl_transfer(dev_handle, bmRequestType, bRequest, wValue, wIndex, data, timeout),
        )
        incoming = bool(bmRequestType & _DEVICE_TO_HOST)
        stage = bytes(data[:count]) if incoming else bytes(data or b"")
        self._tap.writer.control(self._tap.device, RX if incoming else TX, bRequest, wValue, wIndex, stage)
        return count


# -- reading -----------------------------------------------------------------------------


def _record(line: dict[str, Any]) -> Record | tuple[str, DeviceInfo]:
    t, device = float(line["t"]), str(line["dev"])
    if "device" in line:
        return device, DeviceInfo(**{k: str(v) for k, v in line["device"].items()})
    if "link" in line:
        if line["link"] not in LINK_STATES:
            raise ValueError(f"link state {line['link']!r} is not one of {', '.join(LINK_STATES)}")
        return Link(t, device, line["link"], str(line.get("text", "")))
    if "event" in line:
        record = EventRecord(t, device, str(line["event"]), dict(line["data"]))
        record.event()  # a record that does not rebuild is an error now, not during a replay
        return record
    direction = line["dir"]
    if direction not in (RX, TX):
        raise ValueError(f"direction {direction!r} is not {RX} or {TX}")
    data = bytes.fromhex(line["hex"])
    if "ctrl" in line:
        ctrl = line["ctrl"]
        return Control(t, device, direction, int(ctrl["request"]), int(ctrl["value"]), int(ctrl["index"]), data)
    return Chunk(t, device, direction, data)


def _lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        with path.open(encoding="utf-8") as handle:
            for number, text in enumerate(handle, start=1):
                if text.strip():
                    try:
                        yield number, json.loads(text)
                    except json.JSONDecodeError as exc:
                        raise CaptureError(f"{path}:{number}: not a JSON line: {exc}") from None
    except OSError as exc:
        raise CaptureError(f"{path}: cannot be read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise CaptureError(f"{path}: not a tablehost capture: not UTF-8 text (byte {exc.start})") from None


def read_capture(path: str | Path) -> Capture:
    """Read a capture file.

    :raises CaptureError: naming the file and line of the first problem.
    """
    path = Path(path)
    lines = _lines(path)
    first = next(lines, None)
    if first is None or first[1].get("format") != FORMAT:
        raise CaptureError(f"{path}: not a tablehost capture (the first line must be its {FORMAT} header)")
    header = first[1]
    if header.get("version") != VERSION:
        raise CaptureError(f"{path}: capture format version {header.get('version')!r}; this host reads {VERSION}")
    devices: dict[str, DeviceInfo] = {}
    records: list[Record] = []
    for number, line in lines:
        try:
            item = _record(line)
        except (KeyError, TypeError, ValueError, EventError) as exc:
            raise CaptureError(f"{path}:{number}: bad record: {exc!r}") from None
        if isinstance(item, tuple):
            devices[item[0]] = item[1]
        else:
            records.append(item)
    return Capture(path, str(header.get("started", "")), devices, tuple(records))


# -- wire spying -------------------------------------------------------------------------


def spy_url(url: str, log_path: str | Path) -> str:
    """A serial URL that opens ``url`` and hexdumps every byte read and written, with
    timestamps, to ``log_path`` (appended to, so a reconnect keeps the history).

    Works for every URL the transport opens: device paths (``/dev/serial/by-id/...``,
    ``/dev/pts/N``), ``socket://host:port``, ``loop://``. The log has pyserial's ``spy://``
    hexdump format (``SECONDS RX|TX OFFSET HEX ASCII``) with a ``# open`` line per opening.
    """
    return f"{SPY_SCHEME}://{url}{SPY_FILE_MARK}{urllib.parse.quote(str(log_path))}"


def parse_spy_url(url: str) -> tuple[str, str]:
    """``(inner URL, log path)`` of a URL made by :func:`spy_url`.

    :raises ValueError: for a URL not made by :func:`spy_url`.
    """
    prefix = f"{SPY_SCHEME}://"
    inner, mark, log = url.rpartition(SPY_FILE_MARK)
    if not url.lower().startswith(prefix) or not mark or not log:
        raise ValueError(f"expected {prefix}URL{SPY_FILE_MARK}LOG, got {url!r}")
    return inner[len(prefix) :], urllib.parse.unquote(log)
