"""The automatic card shuffler's driver: USB, vendor requests, bulk messages, events.

:class:`ShufflerDriver` is a :class:`~drivers.device.Device` on a
:class:`~drivers.usb.UsbTransport`, so the shuffler has the same life as every other device
(connect, handshake, run; lost, back-off doubling from ``reconnect_initial`` to
``reconnect_max``, found, handshake again) and the same thread model: one driver thread,
fed by the transport's reader thread, blocking on a queue with a timeout (no busy polling).

The handshake (``docs/protocols/shuffler.md`` § 3) uses vendor control requests:
GET_IDENTITY (model, serial), GET_FIRMWARE, SET_HEARTBEAT (the device then sends a
HEARTBEAT frame whenever it has been quiet for the profile's heartbeat interval, so a
stalled device is noticed), and GET_STATUS, which the driver reports as one
:class:`~drivers.events.shuffler.BatchStatus` per batch (and a
:class:`~drivers.events.shuffler.ShufflerFault` for a jam or an open door), so the
controller learns what happened while it was not listening, e.g. a shuffle that finished
while the cable was out. Then every bulk message becomes an event of
:mod:`drivers.events.shuffler`.

Commands (:meth:`ShufflerDriver.start_shuffle`, :meth:`ShufflerDriver.release_batch`,
:meth:`ShufflerDriver.reset`) may be called from any thread; they run in the driver
thread, in order. A command given while the shuffler is disconnected is sent after the
next handshake; one whose transfer fails because the cable was pulled is lost with the
session (the status after the next handshake shows whether it took effect).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import usb.backend

from drivers.codecs import framed
from drivers.codecs import shuffler as codec
from drivers.codecs.framed import Frame, Heartbeat
from drivers.device import Device, Identity, Refusal, Timing
from drivers.errors import CodecError, DriverError, HandshakeError
from drivers.events import DeviceEvent
from drivers.events.lifecycle import ProtocolError
from drivers.events.shuffler import (
    BatchLoaded,
    BatchReleased,
    BatchStatus,
    ShuffleCompleted,
    ShuffleProgress,
    ShufflerFault,
    ShufflerFaultCleared,
    ShuffleStarted,
)  # fmt: skip
from drivers.usb import UsbTransport, default_backend

__all__ = ["ShufflerDriver", "shuffler_event", "read_identity", "DEFAULT_VENDOR_ID", "DEFAULT_PRODUCT_ID"]

#: pid.codes' vendor id, under which the tablehost shuffler enumerates (device profile SH-16).
DEFAULT_VENDOR_ID = 0x1209
#: The tablehost shuffler's product id (device profile SH-16).
DEFAULT_PRODUCT_ID = 0x7AB1


def shuffler_event(device: str, message: Any) -> DeviceEvent | None:
    """The event for one bulk message (``None`` for a heartbeat, which only proves life)."""
    match message:
        case codec.BatchLoaded(batch=batch, decks=decks, back_colour=colour):
            return BatchLoaded(device, batch, decks, colour)
        case codec.ShuffleStarted(batch=batch):
            return ShuffleStarted(device, batch)
        case codec.ShuffleProgress(batch=batch, percent=percent):
            return ShuffleProgress(device, batch, percent)
        case codec.ShuffleComplete(batch=batch, cards=cards, digest=digest):
            return ShuffleCompleted(device, batch, cards, digest.hex())
        case codec.BatchReleased(batch=batch, cards=cards):
            return BatchReleased(device, batch, cards)
        case codec.Fault(code=code, batch=batch, text=text):
            return ShufflerFault(device, codec.fault_name(code), text, batch)
        case codec.FaultCleared(code=code):
            return ShufflerFaultCleared(device, codec.fault_name(code))
        case Heartbeat():
            return None
    raise DriverError(f"{device}: {type(message).__name__} is not a message a shuffler sends")


def _status_events(device: str, status: codec.DeviceStatus) -> list[DeviceEvent]:
    """What GET_STATUS tells the controller: each batch, and a latched jam or open door."""
    events: list[DeviceEvent] = [
        BatchStatus(device, b.batch, b.state, b.decks, b.back_colour, b.cards, b.percent,
                    "" if b.digest == codec.NO_DIGEST else b.digest.hex())
        for b in status.batches
    ]  # fmt: skip
    if status.fault == codec.FAULT_JAM:
        events.append(ShufflerFault(device, "jam", "jammed (found at handshake)"))
    if status.door_open:
        events.append(ShufflerFault(device, "door_open", "door open (found at handshake)"))
    return events


def read_identity(transport: UsbTransport, timeout_s: float) -> Identity:
    """Ask an open shuffler who it is (GET_IDENTITY, GET_FIRMWARE).

    :raises HandshakeError: (a :class:`CodecError` is wrapped) for an answer that does not
        parse or a protocol version this host does not speak.
    :raises DriverError: for a failed transfer.
    """
    try:
        identity = codec.unpack_identity(
            transport.control_in(codec.GET_IDENTITY, length=codec.CONTROL_IN_LENGTH, timeout_s=timeout_s)
        )
        firmware = codec.unpack_firmware(
            transport.control_in(codec.GET_FIRMWARE, length=codec.CONTROL_IN_LENGTH, timeout_s=timeout_s)
        )
    except CodecError as exc:
        raise HandshakeError(f"{transport.name}: unusable identity: {exc}") from exc
    if identity.protocol != codec.PROTOCOL_VERSION:
        raise HandshakeError(
            f"{transport.name}: speaks shuffler protocol version {identity.protocol}, "
            f"this host speaks version {codec.PROTOCOL_VERSION}"
        )
    return Identity(identity.model, identity.serial, firmware)


class ShufflerDriver(Device):
    """The shuffler on USB.

    :param name: the device's name in the table profile (``"shuffler"``).
    :param emit: receives every event; called from the driver thread.
    :param vendor_id: ``idVendor`` from the device profile.
    :param product_id: ``idProduct`` from the device profile.
    :param backend: pyusb backend; ``None``: libusb-1.0 (resolved now, so a machine
        without libusb fails here with :class:`~drivers.usb.UsbUnavailable`, not later in
        the driver thread); a :class:`sim.devices.shuffler.SimulatedShuffler` in CI.
    :param timing: timeouts and back-off (the profile's ``[timeouts]``); ``handshake``
        bounds each control transfer, ``heartbeat`` is the interval asked of the device.
    :param refusal: the profile's allow-list check (see :class:`~drivers.device.Device`).
    """

    def __init__(
        self,
        name: str,
        emit: Callable[[DeviceEvent], None],
        *,
        vendor_id: int = DEFAULT_VENDOR_ID,
        product_id: int = DEFAULT_PRODUCT_ID,
        backend: usb.backend.IBackend | None = None,
        timing: Timing = Timing(),
        refusal: Refusal | None = None,
    ) -> None:
        self.vendor_id, self.product_id = vendor_id, product_id
        self.backend = backend if backend is not None else default_backend()
        super().__init__(
            name, f"usb:{vendor_id:04x}:{product_id:04x}", emit,
            timing=timing, refusal=refusal, transport_factory=self._open_usb,
        )  # fmt: skip
        self._usb: UsbTransport | None = None
        self._rx_seq: int | None = None  # SEQ of the last frame from the device this session

    # -- commands (thread-safe) ------------------------------------------------------------

    def start_shuffle(self, batch: str, expected_cards: int) -> None:
        """Ask the shuffler to shuffle ``batch``, which should hold ``expected_cards`` cards.

        :raises CodecError: at once, in the caller's thread, for a batch other than A or B.
        """
        self._command(codec.StartShuffle(batch, expected_cards))

    def release_batch(self, batch: str) -> None:
        """Ask the shuffler to lift the shuffled ``batch`` out for the dealer."""
        self._command(codec.ReleaseBatch(batch))

    def reset(self) -> None:
        """Send the RESET vendor request: abandon any shuffle, flush the device's queue."""
        self._call(lambda: self._control_out(codec.RESET))

    # -- Device ------------------------------------------------------------------------------

    def _open_usb(self, name: str, url: str, on_bytes: Callable[[bytes], None],
                   on_lost: Callable[[str], None], **_serial_options: Any) -> UsbTransport:  # fmt: skip
        self._usb = UsbTransport(
            name, self.vendor_id, self.product_id, self.backend,
            on_bytes=on_bytes, on_lost=on_lost, timeout_s=self.timing.handshake,
        )  # fmt: skip
        return self._usb

    def _command(self, message: Any) -> None:
        wire = codec.TABLE.encode(message)  # CodecError here, in the caller's thread
        self._call(lambda: self._write(wire))

    def _control_out(self, request: int, value: int = 0) -> None:
        assert self._usb is not None
        try:
            self._usb.control_out(request, value)
        except DriverError as exc:
            self._lose(str(exc).removeprefix(f"{self.name}: "), "port_failed")

    def _decode(self, buffer: bytearray) -> tuple[int, Any]:
        return framed.decode(buffer)

    def _on_connected(self) -> None:
        assert self._usb is not None
        self._rx_seq = None
        try:
            identity = read_identity(self._usb, self.timing.handshake)
            self._usb.control_out(codec.SET_HEARTBEAT, round(self.timing.heartbeat * 1000))
            status = codec.unpack_status(
                self._usb.control_in(codec.GET_STATUS, length=codec.CONTROL_IN_LENGTH, timeout_s=self.timing.handshake)
            )
        except DriverError as exc:  # a failed transfer, or an answer that does not parse
            self._lose(f"handshake: {str(exc).removeprefix(f'{self.name}: ')}", "no_handshake")
        self._identified(identity)
        for ev in _status_events(self.name, status):
            self._emit(ev)

    def _on_item(self, frame: Frame) -> None:
        if self._rx_seq is not None and frame.seq != framed.next_seq(self._rx_seq):
            missed = (frame.seq - self._rx_seq - 1) % (framed.SEQ_MODULUS - 1)
            self._emit(ProtocolError(self.name, f"{missed} frame(s) lost (SEQ {self._rx_seq} then {frame.seq})"))
        self._rx_seq = frame.seq
        try:
            message = codec.TABLE.message(frame)
            ev = shuffler_event(self.name, message)
        except DriverError as exc:  # CodecError, or a host-to-device message coming back
            self.log.warning("%s", exc)
            self._emit(ProtocolError(self.name, str(exc).removeprefix(f"{self.name}: ")))
            return
        if ev is not None:
            self._emit(ev)
