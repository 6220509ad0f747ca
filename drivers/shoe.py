"""The card-reading dealing shoe's driver, in any of its wire dialects.

:func:`shoe_driver` builds the driver for the dialect (:mod:`drivers.dialects`) a device
model's profile names: a framed one (:class:`FramedShoe`: identity handshake, ack/nak,
heartbeats, through the dialect's framer; ``"framed"`` is our protocol) or a talk-only one
(:class:`AsciiShoe`: ``"ascii"``, the market shoe, which only talks, has no identity message
and no heartbeat). Both emit the events of :mod:`drivers.events.shoe`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drivers.codecs import shoe_ascii, shoe_framed
from drivers.codecs.framer import Framer
from drivers.codecs.shoe_messages import (
    Card,
    FaceUp,
    Fault,
    SetBurnMode,
    ShoeMessage,
    Unreadable,
    Warning,
)  # fmt: skip
from drivers.codecs.shoe_messages import (
    CutCard as CutCardMessage,
)
from drivers.codecs.shoe_messages import (
    ShoeEmpty as ShoeEmptyMessage,
)
from drivers.device import Device, FramedDevice, Identity
from drivers.dialects import shoe_dialect
from drivers.errors import DriverError
from drivers.events import DeviceEvent
from drivers.events.lifecycle import DeviceFault
from drivers.events.shoe import (
    CardFaceUp,
    CardRead,
    CardUnreadable,
    CutCard,
    IdentityUnverified,
    ShoeEmpty,
    ShoeWarning,
)

__all__ = ["shoe_driver", "FramedShoe", "AsciiShoe", "shoe_event"]


def shoe_event(device: str, message: ShoeMessage) -> DeviceEvent:
    """The event for a shoe message, the same for both dialects."""
    match message:
        case Card(rank=rank, suit=suit, burn=burn):
            return CardRead(device, rank, suit, burn)
        case CutCardMessage():
            return CutCard(device)
        case Unreadable(burn=burn):
            return CardUnreadable(device, burn)
        case FaceUp(rank=rank, suit=suit):
            return CardFaceUp(device, rank, suit)
        case ShoeEmptyMessage():
            return ShoeEmpty(device)
        case Fault(code=code, text=text):
            return DeviceFault(device, code, text)
        case Warning(code=code):
            return ShoeWarning(device, code)
    raise DriverError(f"{device}: {type(message).__name__} is not a shoe message")


class FramedShoe(FramedDevice):
    """A shoe speaking a framed dialect.

    :param framer: the dialect's framer (default: our framed protocol's).

    Other options as :class:`~drivers.device.Device`.
    """

    def __init__(
        self, name: str, url: str, emit: Callable[[DeviceEvent], None], framer: Framer | None = None, **options: Any
    ) -> None:
        super().__init__(name, url, emit, framer or shoe_framed.FRAMER, **options)

    def set_burn_mode(self, on: bool) -> None:
        """Tell the shoe to flag the next cards as burn cards (§ 541.5(g)) or not (thread-safe)."""
        self.send(SetBurnMode(on))

    def _on_message(self, message: Any) -> None:
        self._emit(shoe_event(self.name, message))


class AsciiShoe(Device):
    """A talk-only dialect (the market shoe's ASCII one): the device only talks, so the port is all there is.

    :param identity: model, serial and firmware from the profile; reported with
        :class:`~drivers.events.shoe.IdentityUnverified` since nothing on the wire confirms it.
    :param decode: the dialect's codec ``decode`` (default: the ASCII dialect's).

    Other options as :class:`~drivers.device.Device`. Loss is seen only when the port fails
    (no heartbeat in this dialect).
    """

    WATCHDOG = False

    def __init__(
        self,
        name: str,
        url: str,
        emit: Callable[[DeviceEvent], None],
        *,
        identity: Identity,
        decode: Callable[[bytes | bytearray], tuple[int, Any]] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(name, url, emit, **options)
        self._profile_identity = Identity(identity.model, identity.serial, identity.firmware, verified=False)
        self._codec_decode = decode or shoe_ascii.decode

    def _decode(self, buffer: bytearray) -> tuple[int, Any]:
        return self._codec_decode(buffer)

    def _on_connected(self) -> None:
        self._identified(self._profile_identity)
        self._emit(IdentityUnverified(self.name, "the ascii dialect has no identity message: taken from the profile"))

    def _on_item(self, item: Any) -> None:
        self._emit(shoe_event(self.name, item))


def shoe_driver(
    dialect: str,
    name: str,
    url: str,
    emit: Callable[[DeviceEvent], None],
    *,
    identity: Identity | None = None,
    **options: Any,
) -> Device:
    """Build the shoe driver for the registered ``dialect`` (:mod:`drivers.dialects`).

    :param identity: required for a talk-only dialect (the profile's model, serial,
        firmware); ignored by a framed one, which asks the shoe.
    :param options: ``timing``, ``baudrate``, ``refusal``, ``transport_factory`` as
        :class:`~drivers.device.Device`.
    :raises DriverError: for an unknown dialect (:class:`~drivers.dialects.UnknownDialect`)
        or a missing identity.
    """
    entry = shoe_dialect(dialect, device=name)
    if entry.framer is not None:
        return FramedShoe(name, url, emit, entry.framer, **options)
    if identity is None:
        raise DriverError(f"{name}: the {dialect} shoe dialect needs the identity from the profile")
    if entry.baudrate is not None:
        options.setdefault("baudrate", entry.baudrate)
    return AsciiShoe(name, url, emit, identity=identity, decode=entry.decode, **options)
