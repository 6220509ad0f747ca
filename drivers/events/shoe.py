"""Events from a card-reading dealing shoe (§ 541.7), whatever its wire dialect.

Cards are written as everywhere in tablehost: rank ``A 2-9 T J Q K`` (ten is ``T``),
suit ``C D H S``. Faults come as :class:`~drivers.events.lifecycle.DeviceFault`, identity and
loss as :class:`~drivers.events.lifecycle.DeviceIdentified` and
:class:`~drivers.events.lifecycle.DeviceLost`.
"""

from __future__ import annotations

from drivers.events import DeviceEvent, event


@event
class CardRead(DeviceEvent):
    """The dealer drew a card and the shoe read it.

    :param burn: drawn while the shoe was in burn mode (§ 541.5(g)).
    """

    rank: str
    suit: str
    burn: bool = False


@event
class CutCard(DeviceEvent):
    """The cover (cut) card came out (§ 541.5(e)): finish this hand, play one more (§ 541.10(e))."""


@event
class CardUnreadable(DeviceEvent):
    """A card was drawn but the shoe could not read it; the dealer must say what it was."""

    burn: bool = False


@event
class CardFaceUp(DeviceEvent):
    """A card came out of the shoe face up (§ 541.14(d)); rank and suit when the shoe read them."""

    rank: str | None = None
    suit: str | None = None


@event
class ShoeEmpty(DeviceEvent):
    """The shoe has no cards left (§ 541.14(e) if a round is under way)."""


@event
class ShoeWarning(DeviceEvent):
    """A warning code from the shoe (``<W0x01>`` in the ASCII dialect); play goes on."""

    code: int


@event
class IdentityUnverified(DeviceEvent):
    """The identity just reported was taken from the profile, not read from the device.

    Follows :class:`~drivers.events.lifecycle.DeviceIdentified` for a dialect with no identity
    message (the market shoe's ASCII dialect).
    """

    why: str
