"""Replay of a captured USB shuffler: a pyusb backend whose transfers come from a capture.

:class:`ReplayedShuffler` is a :class:`usb.backend.IBackend` on the simulated bus
:class:`~sim.devices.usb_bus.SimulatedUsbDevice`, as :class:`~sim.devices.shuffler.SimulatedShuffler`
is (enumeration, descriptors, configuration, claiming, kernel driver, unplugging), but its
firmware is the capture (:mod:`drivers.capture`, ``docs/protocols/capture-format.md``):

- a bulk IN transfer hands the host the next captured IN transfer (``rx`` bytes record),
  once the replay's timeline (:class:`sim.devices.replay.Replay`) has reached it: in order, one
  captured transfer per read, with the captured gaps at ``speed=1.0``;
- a bulk OUT transfer (the host's command) is checked against the captured OUT transfer of
  the same number; one that differs, or one more than the capture holds, is a mismatch;
- a vendor control transfer is answered with the captured one of the same place in its
  *session* (a session runs from one handshake, GET_IDENTITY, to the next); a control
  transfer the capture has not there is a mismatch, answered with the latest captured
  answer to that request (stalled if there is none). Standard requests (string
  descriptors) are answered from the captured identity;
- where the capture shows that a transfer failed (a ``lost`` record: the cable was pulled),
  the device leaves the bus there: when the host makes that OUT transfer (which then fails),
  or once the host has read the IN transfers before; where the capture shows a new handshake
  without one (the host declared the device lost), after the previous session's last
  transfer. It comes back at once, at a new address, if the capture has a later handshake,
  so the host reconnects as it did.

The timeline holds back what the device did after the host's transfers until the host has
made them (a shuffle's reports wait for its START_SHUFFLE): :meth:`ReplayedShuffler.ready`.
Mismatches go to the ``report`` callback (the replay logs and lists them).
"""

from __future__ import annotations

import array
import dataclasses
import errno
from collections.abc import Callable
from typing import Any, TypeVar

from drivers.capture import BULK_WRITE, RX, TX, Capture, Chunk, Control, DeviceInfo, EventRecord, Link
from drivers.codecs import BadFrame, drain, framed
from drivers.codecs import shuffler as codec
from drivers.errors import CodecError, DriverError
from drivers.shuffler import shuffler_event
from sim.devices.usb_bus import EP_IN, EP_OUT, LIBUSB_ERROR_PIPE, LIBUSB_ERROR_TIMEOUT, SimulatedUsbDevice, usb_error
from sim.errors import SimError

__all__ = ["ReplayedShuffler", "UsbStep", "IN", "OUT", "CONTROL", "LEAVE", "describe"]

#: Step kinds: hand the host a captured IN transfer; the host's captured OUT transfer;
#: the host's captured control transfer; the device leaves the bus (and may come back).
IN, OUT, CONTROL, LEAVE = "in", "out", "control", "leave"
#: bmRequestType bits 5-6: the request's type; vendor requests are what the capture replays.
_TYPE_MASK, _TYPE_VENDOR = 0x60, 0x40
#: bmRequestType bit 7: the data stage goes device -> host (USB 2.0 § 9.3.1).
_DEVICE_TO_HOST = 0x80
#: The shuffler's vendor requests (``docs/protocols/shuffler.md`` § 3), which the capture replays.
_VENDOR_REQUESTS = frozenset(
    {codec.GET_IDENTITY, codec.GET_FIRMWARE, codec.RESET, codec.GET_STATUS, codec.SET_HEARTBEAT}
)
#: How many of the device's next events are searched for the first one an IN transfer made.
_EVENT_LOOKAHEAD = 64
#: The string descriptors' identity when the capture has no GET_IDENTITY or GET_FIRMWARE answer.
_NO_IDENTITY, _NO_FIRMWARE = codec.DeviceIdentity(codec.PROTOCOL_VERSION, "unknown", "unknown"), "0.0"
#: The manufacturer's string descriptor, which a capture does not hold: the simulated shuffler's.
_MANUFACTURER = "tablehost"

_T = TypeVar("_T")


@dataclasses.dataclass(frozen=True)
class UsbStep:
    """One thing of the device's on the replay's timeline.

    :param kind: :data:`IN`, :data:`OUT`, :data:`CONTROL` or :data:`LEAVE`.
    :param data: IN: the captured transfer; OUT: the one the host should make.
    :param index: OUT: its number among the capture's OUT transfers; CONTROL: its number in its session.
    :param session: CONTROL: its session.
    :param t: when the capture had it (for the mismatch report).
    :param returns: LEAVE: the device comes back at once (the capture has a later handshake).
    """

    kind: str
    data: bytes = b""
    index: int = 0
    session: int = 0
    t: float = 0.0
    returns: bool = False


def describe(data: bytes) -> str:
    """What a bulk transfer says, for a person: its messages and its bytes."""
    buffer, said = bytearray(data), []
    for item in drain(framed.decode, buffer):
        try:
            said.append("bad frame" if isinstance(item, BadFrame) else repr(codec.TABLE.message(item)))
        except CodecError as exc:
            said.append(str(exc))
    if buffer:
        said.append(f"{len(buffer)} byte(s) of an unfinished frame")
    return f"{', '.join(said) or 'nothing'} [{data.hex()}]"


def _control_name(direction: str, request: int, value: int) -> str:
    names = {codec.GET_IDENTITY: "GET_IDENTITY", codec.GET_FIRMWARE: "GET_FIRMWARE", codec.RESET: "RESET",
             codec.GET_STATUS: "GET_STATUS", codec.SET_HEARTBEAT: "SET_HEARTBEAT"}  # fmt: skip
    return f"{names.get(request, f'request 0x{request:02X}')} ({direction}, value {value})"


def _ids(name: str, info: DeviceInfo) -> tuple[int, int]:
    """The vendor and product ids of a capture's ``usb:vvvv:pppp`` port."""
    scheme, _, ids = info.port.partition(":")
    vendor, _, product = ids.partition(":")
    try:
        if scheme == "usb":
            return int(vendor, 16), int(product, 16)
    except ValueError:
        pass
    raise SimError(f"replay {name}: port {info.port!r} is not usb:vvvv:pppp (the capture must name the ids)")


def _first_answer(controls: list[Control], request: int, unpack: Callable[[bytes], _T], default: _T) -> _T:
    """The first captured answer to ``request`` that parses, else ``default``."""
    for control in controls:
        if control.request == request and control.direction == RX:
            try:
                return unpack(control.data)
            except CodecError:
                continue
    return default


class _Plan:
    """Where each of a device's transfers goes on the replay's timeline (``steps``, by the
    capture position they are played before), its control transfers by session, and the
    OUT transfers during which it leaves the bus.

    An IN transfer is played just before the first event the original driver made of it,
    not where the driver read it: the dealer's actions recorded in between are emitted
    first, so the new host sees the device's events after them, as the old one did. The
    device's steps keep their order."""

    def __init__(self, name: str, records: list[tuple[int, Chunk | Control | Link | EventRecord]]) -> None:
        self.name = name
        self.steps: dict[int, list[UsbStep]] = {}
        self.sessions: list[list[Control]] = [[]]
        self.failed_outs: dict[int, bool] = {}
        self._events = [(position, r.event()) for position, r in records if isinstance(r, EventRecord)]
        self._next_event = 0  # the first of ``_events`` an IN transfer may have made
        self._at = 0  # the position the device's last step is played before
        self._frames = bytearray()  # the IN bytes not yet forming a whole frame
        self._outs, self._left = 0, False
        self._previous: tuple[int, float] | None = None  # position and time of the device's last transfer
        self._leaves: list[tuple[int | None, int, int]] = []  # (failed OUT, or None and where the LEAVE step is)
        self._loss: tuple[int | None, int, float] | None = None  # the session's failure: (failed OUT, position, t)
        self._returning = 0  # the leaves before a later handshake: the device comes back from them
        for position, record in records:
            if isinstance(record, Link) and record.state == "lost":
                self._lost(position, record)
            elif isinstance(record, Chunk):
                self._chunk(position, record)
            elif isinstance(record, Control) and record.request in _VENDOR_REQUESTS:
                self._control(position, record)
        self._settle()
        for number, (failed_out, at, index) in enumerate(self._leaves):
            if failed_out is not None:
                self.failed_outs[failed_out] = number < self._returning
            else:
                self.steps[at][index] = dataclasses.replace(self.steps[at][index], returns=number < self._returning)

    def _place(self, step: UsbStep, position: int) -> tuple[int, int]:
        self._at = max(self._at, position)
        placed = self.steps.setdefault(self._at, [])
        placed.append(step)
        return self._at, len(placed) - 1

    def _lost(self, position: int, record: Link) -> None:
        # The device left at the first failure of a session; during the host's last OUT
        # transfer if that failed (it is recorded before it is made): the host's driver
        # learns it from that failure first, even when its read failed a moment before.
        failed_out = self._outs - 1 if record.text.startswith(f"{BULK_WRITE}:") else None
        if not self._left:
            self._left, self._loss = True, (failed_out, position, record.t)
            self._frames.clear()  # the host's driver drops a frame cut short with the session
        elif self._loss is not None and self._loss[0] is None:  # the same failure, met by the write too
            self._loss = (failed_out, *self._loss[1:])

    def _settle(self) -> None:
        """Place the session's failure, now that no other failure can join it."""
        if self._loss is not None:
            failed_out, position, t = self._loss
            self._loss = None
            self._leaves.append((failed_out, 0, 0) if failed_out is not None else
                                (None, *self._place(UsbStep(LEAVE, t=t), position)))  # fmt: skip

    def _chunk(self, position: int, record: Chunk) -> None:
        self._settle()
        if record.direction == TX:
            self._place(UsbStep(OUT, record.data, self._outs, t=record.t), position)
            self._outs += 1
        else:
            self._place(UsbStep(IN, record.data, t=record.t), self._first_event_of(position, record.data))
        self._previous = (position, record.t)

    def _first_event_of(self, position: int, data: bytes) -> int:
        """The position of the first event the driver made of an IN transfer (else the transfer's)."""
        self._frames += data
        made = []
        for item in drain(framed.decode, self._frames):
            try:
                made.append(
                    None if isinstance(item, BadFrame) else shuffler_event(self.name, codec.TABLE.message(item))
                )
            except DriverError:  # a frame the driver reports as a protocol error
                continue
        expected = next((event for event in made if event is not None), None)
        if expected is None:  # heartbeats only, or frames the driver rejects
            return position
        window = self._events[self._next_event : self._next_event + _EVENT_LOOKAHEAD]
        for offset, (at, event) in enumerate(window):
            if at > position and event == expected:
                self._next_event += offset + 1
                return at
        return position

    def _control(self, position: int, record: Control) -> None:
        self._settle()
        if record.request == codec.GET_IDENTITY and record.direction == RX and self.sessions[-1]:
            self.sessions.append([])
            self._frames.clear()
            if not self._left and self._previous is not None:  # the host dropped the device after its last transfer
                self._leaves.append((None, *self._place(UsbStep(LEAVE, t=self._previous[1]), self._previous[0] + 1)))
            self._left, self._returning = False, len(self._leaves)
        session = self.sessions[-1]
        self._place(UsbStep(CONTROL, index=len(session), session=len(self.sessions) - 1, t=record.t), position)
        session.append(record)
        self._previous = (position, record.t)


class ReplayedShuffler(SimulatedUsbDevice):
    """The shuffler of a capture on a replayed USB bus: pass it as pyusb's ``backend``.

    Built and driven by :class:`sim.devices.replay.Replay`, which plays :attr:`steps` on its timeline.

    :param name: the device's name in the capture.
    :param capture: the capture.
    :param report: called with the text of each mismatch between the host and the capture.
    :param wake: called when the host made a transfer (the timeline may go on).
    :raises SimError: for a capture whose device has no ``usb:vvvv:pppp`` port.
    """

    def __init__(self, name: str, capture: Capture, *, report: Callable[[str], None],
                 wake: Callable[[], None]) -> None:  # fmt: skip
        vendor_id, product_id = _ids(name, capture.devices[name])
        records = [(position, r) for position, r in enumerate(capture.records)
                   if isinstance(r, (Chunk, Control, Link, EventRecord)) and r.device == name]  # fmt: skip
        vendor = [r for _, r in records if isinstance(r, Control) and r.request in _VENDOR_REQUESTS]
        identity = _first_answer(vendor, codec.GET_IDENTITY, codec.unpack_identity, _NO_IDENTITY)
        firmware = _first_answer(vendor, codec.GET_FIRMWARE, codec.unpack_firmware, _NO_FIRMWARE)
        super().__init__(
            identity=identity, firmware=firmware, manufacturer=_MANUFACTURER, vendor_id=vendor_id, product_id=product_id
        )
        self.name, self._report, self._wake = name, report, wake
        self._outs = [r.data for _, r in records if isinstance(r, Chunk) and r.direction == TX]
        plan = _Plan(name, records)
        #: The steps of the timeline, by the position in ``capture.records`` they are played before.
        self.steps: dict[int, list[UsbStep]] = plan.steps
        #: The captured vendor control transfers, session by session (a session begins with GET_IDENTITY).
        self._sessions = plan.sessions
        #: OUT transfers that failed in the capture (the device left): whether it comes back.
        self._failed_outs = plan.failed_outs
        self._session = 0  # the session the device is in
        self._matched = 0  # the host's control transfers of this session that matched the capture
        self._outs_made = 0  # the host's OUT transfers so far
        self._pending = bytearray()  # the IN transfer handed over, until the host has read it

    # -- the timeline's side (the replay thread) -----------------------------------------

    @staticmethod
    def waits_for_host(step: UsbStep) -> bool:
        """Whether ``step`` is something the host does (the timeline waits for it, up to a limit)."""
        return step.kind in (OUT, CONTROL)

    def ready(self, step: UsbStep) -> bool:
        """Whether ``step`` may be played now: the host made the OUT or control transfer; read
        the previous IN transfer; and, for an IN transfer, has the device open."""
        with self._cond:
            if step.kind == OUT:
                return self._outs_made > step.index
            if step.kind == CONTROL:
                return self._session > step.session or (self._session == step.session and self._matched > step.index)
            if self._pending:
                return False
            return step.kind == LEAVE or (self._plugged and 0 in self._claimed)

    def play(self, step: UsbStep) -> None:
        """Do ``step``: hand the host an IN transfer, or leave the bus (the host's transfers
        were counted as it made them)."""
        with self._cond:
            if step.kind == IN:
                self._pending += step.data
                self._cond.notify_all()
            elif step.kind == LEAVE:
                self._leave(step.returns)

    def _leave(self, returns: bool) -> None:
        """Leave the bus (the host's handle fails with ENODEV); come back at once at a new
        address, in the next session, if ``returns``."""
        self.unplug()
        if returns:
            self.replug()
            self._session, self._matched = self._session + 1, 0

    def missed(self, step: UsbStep) -> str:
        """The mismatch report of a host transfer the timeline waited for in vain."""
        if step.kind == OUT:
            return (
                f"the host did not make OUT transfer #{step.index + 1} (capture t={step.t:.3f}s: {describe(step.data)})"
            )
        control = self._sessions[step.session][step.index]
        return (f"the host did not make control transfer {_control_name(control.direction, control.request, control.value)}"
                f" of handshake #{step.session + 1} (capture t={step.t:.3f}s)")  # fmt: skip

    # -- usb.backend.IBackend: the host's side -------------------------------------------

    def claim_interface(self, dev_handle: Any, intf: int) -> None:
        super().claim_interface(dev_handle, intf)
        self._wake()

    def bulk_write(self, dev_handle: Any, ep: int, intf: int, data: array.array[int], timeout: int) -> int:
        sent = bytes(data)
        with self._cond:
            number, self._outs_made = self._outs_made, self._outs_made + 1  # counted as the capture records it: first
            if number >= len(self._outs):
                self._report(f"unexpected OUT transfer #{number + 1}: the host sent {describe(sent)}; "
                             f"the capture has {len(self._outs)}")  # fmt: skip
            elif sent != self._outs[number]:
                self._report(f"OUT transfer #{number + 1} differs from the capture: the host sent {describe(sent)}, "
                             f"the capture has {describe(self._outs[number])}")  # fmt: skip
            if number in self._failed_outs and self._is_current(dev_handle):  # the cable was pulled here
                self._leave(self._failed_outs[number])
            self._wake()
            self._check_bulk(dev_handle, ep, EP_OUT)
            return len(data)

    def bulk_read(self, dev_handle: Any, ep: int, intf: int, buff: array.array[int], timeout: int) -> int:
        with self._cond:
            if not self._cond.wait_for(lambda: self._pending or not self._is_current(dev_handle), timeout / 1000):
                raise usb_error("Operation timed out", LIBUSB_ERROR_TIMEOUT, errno.ETIMEDOUT)
            self._check_bulk(dev_handle, ep, EP_IN)
            count = min(len(buff) * buff.itemsize, len(self._pending))
            buff[:count] = array.array("B", self._pending[:count])
            del self._pending[:count]
            if not self._pending:
                self._wake()
            return count

    def _is_current(self, dev_handle: Any) -> bool:
        return self._plugged and getattr(dev_handle, "generation", None) == self._generation

    def ctrl_transfer(self, dev_handle: Any, bmRequestType: int, bRequest: int, wValue: int,
                      wIndex: int, data: array.array[int], timeout: int) -> int:  # fmt: skip
        if bmRequestType & _TYPE_MASK != _TYPE_VENDOR:  # a standard request: the captured identity answers
            return super().ctrl_transfer(dev_handle, bmRequestType, bRequest, wValue, wIndex, data, timeout)
        incoming = bool(bmRequestType & _DEVICE_TO_HOST)
        direction = RX if incoming else TX
        with self._cond:
            self._check(dev_handle)
            session = self._sessions[self._session]
            expected = session[self._matched] if self._matched < len(session) else None
            sent = b"" if incoming else bytes(data or b"")
            if (
                expected is not None
                and (expected.direction, expected.request, expected.value, expected.index)
                == (direction, bRequest, wValue, wIndex)
                and (incoming or expected.data == sent)
            ):
                answer: Control | None = expected
                self._matched += 1
                self._wake()
            else:
                what = (
                    "none" if expected is None else _control_name(expected.direction, expected.request, expected.value)
                )
                self._report(f"control transfer {_control_name(direction, bRequest, wValue)} of handshake "
                             f"#{self._session + 1} differs from the capture, which has {what} there")  # fmt: skip
                answer = self._latest_answer(direction, bRequest)
            if not incoming:
                return len(sent)
            if answer is None:
                raise usb_error("Pipe error", LIBUSB_ERROR_PIPE, errno.EPIPE)
            count = min(len(data), len(answer.data))
            data[:count] = array.array("B", answer.data[:count])
            return count

    def _latest_answer(self, direction: str, request: int) -> Control | None:
        """The captured transfer with this request nearest before where the device stands (else the first after)."""
        done = [c for s in self._sessions[: self._session] for c in s]
        done += self._sessions[self._session][: self._matched]
        later = [c for s in self._sessions for c in s]
        return next((c for c in [*reversed(done), *later] if (c.direction, c.request) == (direction, request)), None)
