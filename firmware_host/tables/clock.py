"""The table's two clocks: each event's :class:`~firmware_host.rules.clock.Instant`, the boot and
synchronisation it counts in, and steps of the wall clock (docs/rules-interpretations/clock.md).

:class:`TableClock` is a collaborator every controller owns (``TableController.clock``). Time
reaches it only as the events' stamps and the journaled
:class:`~firmware_host.tables.events.ClockStatus`, so a replay rebuilds it exactly:

- :meth:`TableClock.instant` is the event's time on both clocks, which the compliance limits
  measure their spans with (:func:`~firmware_host.rules.clock.span`);
- :meth:`TableClock.on_status` follows the boot and the kernel's synchronisation, and decides a
  ``clock`` decision for the record and the floor (and an alert while it is not synchronised);
- :meth:`TableClock.check_step` compares each event's wall-minus-monotonic offset with the
  previous event's: a change beyond the tolerance (and beyond what the kernel may slew in the
  time between, :data:`MAX_SLEW_PPM`) is a ``clock-step`` alert with its size. A step changes
  no span on the monotonic clock, so it never fires nor hides a compliance limit;
- :meth:`TableClock.corrected` is the time a round is dated by: within a boot, the boot's latest
  synchronised offset applied to the monotonic clock; :meth:`TableClock.dated` gives each round's
  result its gaming day (and marks one dealt unsynchronised).

Its state changes only at events that are journaled: a clock tick that decides nothing is not
journaled (``host/service.py``), so a tick moves the reference only when it finds a step
(which it then decides, and the tick is journaled).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from firmware_host.rules.clock import NS, Instant, offset_ns
from firmware_host.rules.gaming_day import GamingDay
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import ClockStatus, ClockTick

if TYPE_CHECKING:
    from drivers.events import DeviceEvent
    from firmware_host.tables.services import TableServices

__all__ = ["MAX_SLEW_PPM", "DEFAULT_STEP_TOLERANCE_NS", "TableClock", "UNSYNCHRONISED"]

#: The fastest the kernel slews the wall clock (adjtimex's limit, 500 ppm): a change of the offset
#: within this rate of the time between two events is a slew, anything beyond it a step.
MAX_SLEW_PPM = 500
#: A change of the offset beyond this (plus the slew allowance) is a clock step.
DEFAULT_STEP_TOLERANCE_NS = 2 * NS
#: The alert while the table deals with a wall clock that is not synchronised.
UNSYNCHRONISED = "clock-unsynchronised"


class TableClock:
    """The clocks of ``table`` (module docstring).

    :param table: the controller whose decisions it adds to.
    :param step_tolerance_ns: a change of the wall-minus-monotonic offset beyond this is a step
        (the profile's ``[clock] step_tolerance_s``).
    :param gaming_day: the profile's ``[gaming_day]``, which each round's result is dated by.
    """

    #: Not the table's state: the table it works for, and the profile's tolerance and gaming day.
    NOT_STATE = ("table", "step_tolerance_ns", "gaming_day")

    def __init__(
        self,
        table: TableServices,
        step_tolerance_ns: int = DEFAULT_STEP_TOLERANCE_NS,
        gaming_day: GamingDay = GamingDay(),
    ) -> None:
        self.table = table
        self.step_tolerance_ns = step_tolerance_ns
        self.gaming_day = gaming_day
        #: The boot the monotonic stamps count in, and whether the wall clock is synchronised,
        #: as last journaled (None: never, a journal without the two clocks).
        self.boot: str | None = None
        self.synced: bool | None = None
        #: The instant the next event's offset is compared with (None: none yet in this boot).
        self.reference: Instant | None = None
        #: The boot's latest offset (wall - monotonic, ns) while the wall clock was synchronised.
        self.synced_offset_ns: int | None = None
        #: The latest event's instant.
        self.now = Instant(0.0)

    def instant(self, at: float, mono_ns: int | None) -> Instant:
        """The instant of an event received at ``at`` (wall, as read) and ``mono_ns``."""
        if mono_ns is None:
            return Instant(at)
        return Instant(at, mono_ns, self.boot, self.synced)

    def on_status(self, event: ClockStatus) -> None:
        """A journaled :class:`ClockStatus`: the boot and the synchronisation from now on."""
        restarted = self.boot is not None and event.boot != self.boot
        if event.boot != self.boot:
            self.reference, self.synced_offset_ns = None, None
        was = self.synced
        self.boot, self.synced = event.boot, event.synced
        self.table.decide("clock", {"boot": event.boot, "synced": event.synced, "restarted": restarted})
        if not event.synced and was is not False:
            self.table.alert(
                UNSYNCHRONISED,
                "the wall clock is not synchronised (NTP): rounds are marked so, and times and gaming days "
                "may be wrong until it is; the compliance limits run on the monotonic clock",
                "attention",
            )
        elif event.synced and was is False:
            self.table.alert("clock-synchronised", "the wall clock is synchronised again", "attention")

    def advance(self, event: DeviceEvent, at: Instant) -> None:
        """The table's time is ``at``: check it for a step, and follow the synchronised offset."""
        self.now = at
        stepped = self.check_step(at)
        if isinstance(event, ClockTick) and not stepped:
            return  # a tick that decides nothing is not journaled: the state may not change
        self.reference = at
        offset = offset_ns(at)
        if at.synced and offset is not None:
            self.synced_offset_ns = offset

    def check_step(self, at: Instant) -> bool:
        """Decide a ``clock-step`` alert if the offset moved beyond the tolerance since the reference."""
        ref = self.reference
        now_offset, ref_offset = offset_ns(at), None if ref is None else offset_ns(ref)
        if ref is None or ref.mono_ns is None or at.mono_ns is None or now_offset is None or ref_offset is None:
            return False
        if ref.boot != at.boot:
            return False
        step = now_offset - ref_offset
        allowed = self.step_tolerance_ns + (at.mono_ns - ref.mono_ns) * MAX_SLEW_PPM // 1_000_000
        if abs(step) <= allowed:
            return False
        self.table.decide(
            "alert",
            {
                "code": "clock-step",
                "severity": "attention",
                "step_ns": step,
                "text": f"the wall clock stepped {'forward' if step > 0 else 'back'} by {_duration(abs(step))}; "
                "the compliance limits run on the monotonic clock and are not changed by it",
            },
            self.table.decision_round(),
        )
        return True

    def corrected(self, at: Instant | None = None) -> float:
        """``at`` (default: now) as the round is dated: the boot's latest synchronised offset applied to
        the monotonic clock, or the wall clock as read when there is none (seconds since the epoch)."""
        at = self.now if at is None else at
        if at.mono_ns is None or self.synced_offset_ns is None or at.boot != self.boot:
            return at.wall
        return (at.mono_ns + self.synced_offset_ns) / NS

    @property
    def unsynchronised(self) -> bool:
        """The table knows its wall clock is not synchronised (rounds are marked so)."""
        return self.synced is False

    def dated(self, decision: Decision) -> Decision:
        """A ``round_result`` with its gaming day (by :meth:`corrected` time, the profile's
        ``[gaming_day]``), marked ``"clock": "unsynchronised"`` if it was dealt so; any other
        decision as it is."""
        if decision.type != "round_result":
            return decision
        data = {**decision.data, "gaming_day": self.gaming_day.of(self.corrected()).isoformat()}
        if self.unsynchronised:
            data["clock"] = "unsynchronised"
        return Decision(decision.type, data, decision.round)


def _duration(ns: int) -> str:
    """``ns`` for people: ``3 d 0 h 0 min 0.0 s``, leading zero units left out."""
    seconds = ns / NS
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{int(v)} {u}" for v, u in ((days, "d"), (hours, "h"), (minutes, "min")) if v]
    return " ".join([*parts, f"{secs:.1f} s"]) if secs or not parts else " ".join(parts)
