"""The simulated shuffler's side of its USB protocol (``docs/protocols/shuffler.md``).

:class:`ShufflerProtocol` is the part of the shuffler's firmware that speaks to the host,
on the bus of :class:`sim.devices.usb_bus.SimulatedUsbDevice`: the vendor requests of a
handshake (GET_IDENTITY, GET_FIRMWARE, GET_STATUS, RESET, SET_HEARTBEAT), the framed
messages on bulk IN with their sequence numbers, a heartbeat when the device has been
quiet for the interval the host set, and the host's commands on bulk OUT (a frame that
is not a command is answered with FAULT internal). What a command does is the batches'
business (:class:`sim.devices.shuffler.SimulatedShuffler`).
"""

from __future__ import annotations

import time
from typing import Any

from drivers.codecs import BadFrame, drain, framed
from drivers.codecs import shuffler as codec
from drivers.codecs.framed import Heartbeat
from drivers.errors import CodecError
from sim.devices.usb_bus import SimulatedUsbDevice

__all__ = ["ShufflerProtocol"]


class ShufflerProtocol(SimulatedUsbDevice):
    """The shuffler's protocol, on a simulated USB bus; a subclass carries out its commands.

    :param model, serial, firmware, manufacturer: the identity the device reports.
    :param vendor_id, product_id: the ids it enumerates with.
    :param kernel_driver_active: a kernel driver holds the interface until detached.

    A subclass implements :meth:`_start_shuffle`, :meth:`_release` and :meth:`_status`.
    """

    def __init__(self, *, model: str, serial: str, firmware: str, manufacturer: str, vendor_id: int,
                 product_id: int, kernel_driver_active: bool) -> None:  # fmt: skip
        super().__init__(
            identity=codec.DeviceIdentity(codec.PROTOCOL_VERSION, model, serial),
            firmware=firmware,
            manufacturer=manufacturer,
            vendor_id=vendor_id,
            product_id=product_id,
            kernel_driver_active=kernel_driver_active,
        )
        self._out = bytearray()  # host bytes not yet forming a whole frame
        self._seq = 0
        self._releases = 0  # RELEASE_BATCH commands received from the host
        self._release_unread = 0  # bytes of _in up to the latest release's report when it was queued
        self._heartbeat_s = 0.0
        self._last_sent = time.monotonic()
        #: While the shuffler resumes from the journal: what it sent and the journal has not shown yet.
        self._outbox: list[Any] | None = None

    @property
    def releases(self) -> int:
        """RELEASE_BATCH commands the device has carried out or refused since it was made."""
        with self._cond:
            return self._releases

    @property
    def release_unread(self) -> int:
        """Bytes up to the report of the latest release command that the host has not read yet."""
        with self._cond:
            return min(self._release_unread, len(self._in))  # what a pulled cable or a reset cleared is gone

    # -- for the subclass ------------------------------------------------------------------

    def _start_shuffle(self, command: codec.StartShuffle) -> None:
        """Carry out START_SHUFFLE (or refuse it with a FAULT)."""
        raise NotImplementedError

    def _release(self, command: codec.ReleaseBatch) -> None:
        """Carry out RELEASE_BATCH (or refuse it with a FAULT)."""
        raise NotImplementedError

    def _status(self) -> codec.DeviceStatus:
        """What GET_STATUS answers."""
        raise NotImplementedError

    def _send(self, message: object) -> None:
        """Queue a frame on the IN endpoint (lost if the cable is out, as on a real bus)."""
        if not self._plugged:
            return
        if self._outbox is not None:  # resuming: to be matched with what the journal shows
            self._outbox.append(message)
            return
        self._seq = framed.next_seq(self._seq)
        self._in += codec.TABLE.encode(message, self._seq)
        self._last_sent = time.monotonic()
        self._cond.notify_all()

    # -- the bus's hooks -------------------------------------------------------------------

    def _received(self, data: bytes) -> None:
        self._out += data
        for frame in list(drain(framed.decode, self._out)):
            self._command(frame)

    def _command(self, frame: framed.Frame | BadFrame) -> None:
        if isinstance(frame, BadFrame):
            self._send(codec.Fault(codec.FAULT_INTERNAL, None, f"bad frame from host: {frame.reason}"[:255]))
            return
        try:
            message = codec.TABLE.message(frame)
        except CodecError as exc:
            self._send(codec.Fault(codec.FAULT_INTERNAL, None, f"bad command: {exc}"[:255]))
            return
        if isinstance(message, codec.StartShuffle):
            self._start_shuffle(message)
        elif isinstance(message, codec.ReleaseBatch):
            self._releases += 1
            self._release(message)
            self._release_unread = len(self._in)
        else:
            self._send(codec.Fault(codec.FAULT_INTERNAL, None, f"not a command: {type(message).__name__}"))

    def _before_read(self, now: float) -> float:
        heartbeat_due = self._last_sent + self._heartbeat_s if self._heartbeat_s else float("inf")
        if not self._in and heartbeat_due <= now:
            self._send(Heartbeat())
        return heartbeat_due

    def _on_read(self, count: int) -> None:
        self._release_unread = max(0, self._release_unread - count)

    def _vendor_in(self, request: int) -> bytes | None:
        if request == codec.GET_IDENTITY:
            return codec.pack_identity(self.identity)
        if request == codec.GET_FIRMWARE:
            return codec.pack_firmware(self.firmware)
        if request == codec.GET_STATUS:
            return codec.pack_status(self._status())
        return None

    def _vendor_out(self, request: int, value: int) -> None:
        if request == codec.RESET:
            self._reset()
        elif request == codec.SET_HEARTBEAT:
            self._heartbeat_s = value / 1000
            self._cond.notify_all()
        else:
            super()._vendor_out(request, value)

    def _reset(self) -> None:
        super()._reset()
        self._out, self._seq = bytearray(), 0

    def _on_replug(self) -> None:
        self._seq = 0
