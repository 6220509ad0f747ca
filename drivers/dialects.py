"""The shoe's wire dialects, found by name: the one list that config, drivers, sim and replay read.

A dialect is either *framed* (it has acks: a :class:`~drivers.codecs.framer.Framer`, which the
ack/retry layer of :class:`drivers.device.FramedDevice`, :class:`sim.devices.link.FramedSimLink`
and the replay speak) or *talk-only* (the device only talks: a codec's ``decode`` and
``encode``, written and read verbatim). A profile's ``dialect`` key, ``tablehost sim shoe
--dialect`` and a capture's device record name one; an unknown name is refused where it enters
(one line, exit 2) and raises :class:`UnknownDialect` anywhere past that. A second vendor's
dialect with acks is a frame-layout module and one :func:`register` call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from drivers.codecs import shoe_ascii, shoe_framed
from drivers.codecs.framer import Framer
from drivers.errors import DriverError

__all__ = ["ShoeDialect", "UnknownDialect", "register", "shoe_dialect", "names", "FRAMED", "ASCII"]


class UnknownDialect(DriverError, ValueError):
    """A dialect name no entry of the registry has (also a builtin :class:`ValueError`)."""


@dataclasses.dataclass(frozen=True)
class ShoeDialect:
    """One wire dialect of the card-reading shoe.

    :param name: what profiles, the CLI and captures call it.
    :param framer: a dialect with acks: its framer (``None``: talk-only).
    :param decode: a talk-only dialect's codec ``decode`` (bytes -> message).
    :param encode: a talk-only dialect's codec ``encode`` (message -> bytes; keyword
        ``suit_first`` if :attr:`card_text`).
    :param baudrate: the line speed the dialect implies, or ``None`` (the profile's).
    :param card_text: whether a card travels as text, so its order (rank or suit first) is a
        choice the device makes.
    """

    name: str
    framer: Framer | None = None
    decode: Callable[[bytes | bytearray], tuple[int, Any]] | None = None
    encode: Callable[..., bytes] | None = None
    baudrate: int | None = None
    card_text: bool = False


_REGISTRY: dict[str, ShoeDialect] = {}


def register(dialect: ShoeDialect) -> ShoeDialect:
    """Add ``dialect`` to the registry (and return it).

    :raises DriverError: for a name already taken, or an entry that is neither framed nor
        talk-only with both ``decode`` and ``encode``.
    """
    if dialect.name in _REGISTRY:
        raise DriverError(f"shoe dialect {dialect.name!r} is registered already")
    if dialect.framer is None and (dialect.decode is None or dialect.encode is None):
        raise DriverError(f"shoe dialect {dialect.name!r}: a talk-only dialect needs decode and encode")
    _REGISTRY[dialect.name] = dialect
    return dialect


def unregister(name: str) -> None:
    """Remove the dialect ``name`` (a dialect registered for a while, as a test does)."""
    _REGISTRY.pop(name, None)


def shoe_dialect(name: str, device: str = "") -> ShoeDialect:
    """The registered dialect called ``name``.

    :param device: starts the error message (the device's name), if given.
    :raises UnknownDialect: naming ``name`` and the known ones.
    """
    found = _REGISTRY.get(name)
    if found is None:
        prefix = f"{device}: " if device else ""
        raise UnknownDialect(f"{prefix}unknown shoe dialect {name!r} (known: {', '.join(_REGISTRY)})")
    return found


def names() -> tuple[str, ...]:
    """The registered dialects' names, in registration order."""
    return tuple(_REGISTRY)


#: Our framed protocol (``docs/protocols/shoe.md`` § 1): identity handshake, ack/nak, heartbeats.
FRAMED = register(ShoeDialect("framed", framer=shoe_framed.FRAMER))
#: The market shoe's ASCII dialect (``docs/protocols/shoe.md`` § 2): it only talks.
ASCII = register(
    ShoeDialect("ascii", decode=shoe_ascii.decode, encode=shoe_ascii.encode, baudrate=shoe_ascii.BAUDRATE,
                card_text=True)
)  # fmt: skip
