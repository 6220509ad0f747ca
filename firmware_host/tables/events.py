"""Table-level input events: the clock, the dealer's console and buttons, wagers, and what the
service journals about itself (the software version, the allow-list and the rules in force, the
floor feed's trouble).
Registered in the same registry as the devices' events (:func:`drivers.events.event`), by class name."""

from __future__ import annotations

from typing import Any

from drivers.events import DeviceEvent, event


@event
class ClockTick(DeviceEvent):
    """The service's periodic tick: lets time-based rules (compliance clocks) advance."""


@event
class AllowListLoaded(DeviceEvent):
    """The firmware allow-list of each device at the table, as the table profile gave it at start.

    :param approved: by device name: ``{"models": [...], "firmware": [...], "serials": [...]}``.
    """

    approved: dict[str, Any]


@event
class RulesInForce(DeviceEvent):
    """The Rules Submission options the table plays under, resolved from its profile (journaled
    at start when they differ from the last journaled, so the journal says under which options
    each hand was played; :meth:`TableController.rules_in_force
    <firmware_host.tables.base.TableController.rules_in_force>`).

    :param rules: the game's options, JSON-plain.
    """

    rules: dict[str, Any]


@event
class FloorFeedStatus(DeviceEvent):
    """The floor feed as the table saw it, journaled when it changes: in trouble (``trouble``
    says why: no broker, refused, no acknowledgement) or healthy again (``trouble`` None). The
    journal then says when the casino's systems were behind, and why (docs/feed.md).
    """

    trouble: str | None = None


@event
class ClockStatus(DeviceEvent):
    """The Pi's clock as the service found it, journaled at start when it differs from the last
    journaled and whenever it changes (docs/rules-interpretations/clock.md).

    :param boot: the boot the monotonic stamps of the following steps count in
        (``/proc/sys/kernel/random/boot_id``).
    :param synced: whether the kernel says the wall clock is synchronised (``adjtimex``: the
        ``STA_UNSYNC`` bit clear and no ``TIME_ERROR``).
    """

    boot: str
    synced: bool


@event
class SoftwareStarted(DeviceEvent):
    """tablehost ``version`` took the journal over (journaled when it differs from the version
    in force): the steps before it were decided by an earlier version (see :meth:`Service.recover
    <firmware_host.host.service.Service.recover>`)."""

    version: str


@event
class DealerCommand(DeviceEvent):
    """A dealer input: a GPIO button or the dealer console.

    :param command: e.g. ``"no_more_bets"``, ``"reveal"``, ``"card_disclosed"``,
        ``"void_round"``, ``"acknowledge"``, ``"new_dice"``, ``"open_table"``.
    :param args: command arguments as a JSON object, e.g. ``{"seat": 3}``.
    """

    command: str
    args: dict[str, Any] | None = None


@event
class WagerPlaced(DeviceEvent):
    """A wager entered at the dealer console (seat, kind and amount in integer cents)."""

    seat: int
    kind: str
    amount: int


@event
class RoundsLost(DeviceEvent):
    """A salvage (``tablehost journal salvage``) kept a journal whose last rounds are not in it as
    steps: restored as records, or lost. ``highest`` is the highest round number the salvage knew
    was issued (in the kept part, the records it restored, the floor's copy); the table numbers its
    next round after it, so no round number names two rounds (docs/recovery.md, "Salvage").

    :param highest: that round number.
    """

    highest: int
