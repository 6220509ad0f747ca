"""Fault injection settings for simulated devices: frozen, validated, seeded elsewhere.

Every probability is a float in [0, 1]. Link faults (:class:`LinkFaults`) apply to the
*application* frames a sim sends (cards, dice readings, and their retransmissions), not
to heartbeats, identities or acks, so that a fault is always something the host must
recover from and a test can count on the link coming back. A device's sim extends them
with its own (:class:`ShoeFaults`). The table profile's ``faults = { ... }`` table and
the CLI's ``--faults name=value,...`` both go through :func:`faults_from`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, TypeVar

from sim.errors import SimError

__all__ = ["LinkFaults", "ShoeFaults", "faults_from"]


@dataclasses.dataclass(frozen=True)
class LinkFaults:
    """Faults on the wire.

    :param corrupt_byte: probability that a frame goes out with one byte changed.
    :param drop_frame: probability that a frame is not sent at all.
    :param duplicate_frame: probability that a frame is sent twice in a row.
    :param disconnect: probability, per device action (a card drawn, a shake), that the
        device goes away for ``disconnect_seconds``: a socket sim closes the connection and
        stops listening; a pseudo-terminal sim (whose path cannot be recreated) falls
        silent, ignoring what it receives, then answers again.
    :param disconnect_seconds: how long an outage lasts.
    """

    corrupt_byte: float = 0.0
    drop_frame: float = 0.0
    duplicate_frame: float = 0.0
    disconnect: float = 0.0
    disconnect_seconds: float = 2.0

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise SimError(f"fault {field.name}: {value!r} is not a number")
            if field.name.endswith("_seconds"):
                if value < 0:
                    raise SimError(f"fault {field.name}: {value} is negative")
            elif not 0.0 <= value <= 1.0:
                raise SimError(f"fault {field.name}: probability {value} is not between 0 and 1")


@dataclasses.dataclass(frozen=True)
class ShoeFaults(LinkFaults):
    """A simulated shoe's faults: the link's, plus what can go wrong with a card.

    :param unreadable_card: probability that a drawn card is reported unreadable.
    :param face_up_card: probability that a drawn card is found face up (§ 541.14(d)).
    :param empty_early: probability, per draw, that the shoe reports itself empty although
        cards remain (so a round runs out of cards, § 541.14(e)); it stays empty until reloaded.
    """

    unreadable_card: float = 0.0
    face_up_card: float = 0.0
    empty_early: float = 0.0


F = TypeVar("F", bound=LinkFaults)


def faults_from(cls: type[F], spec: Mapping[str, Any] | str | None) -> F:
    """Build ``cls`` from a mapping (profile) or ``"name=value,name=value"`` text (CLI).

    :raises SimError: naming an unknown fault or a bad value.
    """
    if spec is None:
        return cls()
    if isinstance(spec, str):
        pairs: dict[str, Any] = {}
        for part in filter(None, (p.strip() for p in spec.split(","))):
            key, equals, value = part.partition("=")
            if not equals:
                raise SimError(f"fault {part!r}: expected name=value")
            try:
                pairs[key.strip()] = float(value)
            except ValueError:
                raise SimError(f"fault {key.strip()}: {value!r} is not a number") from None
        spec = pairs
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(spec) - known)
    if unknown:
        raise SimError(f"unknown fault {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    return cls(**spec)
