"""Time on two clocks: when an event was received, and how long ago another was (pure).

A Raspberry Pi has no real-time clock: it boots with a stale wall clock that NTP then steps,
by hours or months, forward or back. So every event the service receives carries two stamps
(:class:`Instant`): the wall clock *as read* (never clamped; what people and reports see) and
the monotonic clock that counts through suspend (``CLOCK_BOOTTIME``), with the identity of the
boot it counts in, and whether the kernel said the wall clock was synchronised.

A compliance limit (the dice's 24 hours, § 535.5(c); the decks' 4 hours, § 541.3(c); deck life;
the idle shoe, § 541.5(h)) measures its span with :func:`span`:

- **within a boot** on the monotonic clock, so a step of the wall clock neither fires nor hides a limit;
- **across a reboot** (the boot changed) by the wall clock only when it was synchronised at both
  ends; otherwise the span *cannot be known*, and :func:`reached` takes the limit as reached:
  the table errs on the side of the regulation, and says why (:attr:`Span.reason`);
- **from a stamp without the monotonic clock** (a journal an earlier version wrote, or a service
  run without one) by the wall stamps, as those versions did, so their decisions replay identically.

Every span is a whole number of nanoseconds: a float of seconds from the journal is converted
exactly (:func:`seconds_ns`), and limits are given in nanoseconds (:func:`seconds_ns`, :func:`hours_ns`).
"""

from __future__ import annotations

import dataclasses
from typing import Literal

__all__ = [
    "NS",
    "Instant",
    "Span",
    "Basis",
    "span",
    "reached",
    "left_ns",
    "seconds_ns",
    "hours_ns",
    "offset_ns",
    "as_instant",
]

#: Nanoseconds in a second.
NS = 1_000_000_000

#: How a span was measured: on the monotonic clock of one boot; on a wall clock synchronised at
#: both ends (across a reboot); on the wall stamps of a record without the monotonic clock (an
#: earlier version's); or not at all (``unknown``: the limit is taken as reached).
Basis = Literal["monotonic", "wall-synchronised", "wall-recorded", "unknown"]


@dataclasses.dataclass(frozen=True)
class Instant:
    """When the service received an event, on both clocks.

    :param wall: the wall clock as read, seconds since the epoch (the journal's ``at``).
    :param mono_ns: the monotonic clock counting through suspend (``CLOCK_BOOTTIME``), in
        nanoseconds since the boot (None: not stamped, an earlier version's record).
    :param boot: the boot's identity (``/proc/sys/kernel/random/boot_id``; None: not known).
    :param synced: whether the kernel said the wall clock was synchronised (None: not known).
    """

    wall: float
    mono_ns: int | None = None
    boot: str | None = None
    synced: bool | None = None


@dataclasses.dataclass(frozen=True)
class Span:
    """The time between two instants.

    :param ns: nanoseconds (None: it cannot be known).
    :param basis: how it was measured (:data:`Basis`).
    :param reason: why it cannot be known (None when it can), for the journal and the dealer.
    """

    ns: int | None
    basis: Basis
    reason: str | None = None


def _rounded(numerator: int, denominator: int) -> int:
    """``numerator / denominator`` (denominator positive) rounded to the nearest integer, ties to even:
    what ``round(Fraction(...))`` gives, without building one (a replay does this at every step)."""
    quotient, remainder = divmod(numerator, denominator)
    if 2 * remainder > denominator or (2 * remainder == denominator and quotient % 2):
        quotient += 1
    return quotient


def seconds_ns(seconds: float) -> int:
    """``seconds`` (a limit, or a float read from a clock or a journal) as whole nanoseconds, exactly rounded."""
    numerator, denominator = float(seconds).as_integer_ratio()
    return _rounded(numerator * NS, denominator)


def hours_ns(hours: float) -> int:
    """A limit of ``hours`` in whole nanoseconds, exactly rounded."""
    numerator, denominator = float(hours).as_integer_ratio()
    return _rounded(numerator * 3600 * NS, denominator)


def offset_ns(instant: Instant) -> int | None:
    """Wall minus monotonic, in nanoseconds: what a step of the wall clock changes (None without
    the monotonic stamp)."""
    return None if instant.mono_ns is None else seconds_ns(instant.wall) - instant.mono_ns


def as_instant(at: Instant | float) -> Instant:
    """``at`` as an :class:`Instant`: a bare number is a wall stamp without the monotonic clock."""
    return at if isinstance(at, Instant) else Instant(float(at))


def span(start: Instant, end: Instant) -> Span:
    """The time from ``start`` to ``end`` (module docstring: which clock, and when it is unknown)."""
    if start.mono_ns is None:
        elapsed = _wall_between(start, end)
        if elapsed < 0:
            return Span(None, "unknown", "the wall clock is earlier than when the clock started, which was "
                        "stamped without the monotonic clock")  # fmt: skip
        return Span(elapsed, "wall-recorded")
    if end.mono_ns is not None and start.boot is not None and start.boot == end.boot:
        elapsed = end.mono_ns - start.mono_ns
        if elapsed < 0:
            return Span(None, "unknown", "the monotonic clock went back within one boot")
        return Span(elapsed, "monotonic")
    if start.synced and end.synced:
        elapsed = _wall_between(start, end)
        if elapsed >= 0:
            return Span(elapsed, "wall-synchronised")
        return Span(None, "unknown", "the table restarted and its synchronised wall clock is earlier than before")
    unsynced = [name for name, at in (("then", start), ("now", end)) if not at.synced]
    return Span(
        None,
        "unknown",
        "the table restarted since (another boot) and its wall clock was not synchronised "
        + " and ".join(unsynced)
        + ": the time between cannot be known",
    )


def _wall_between(start: Instant, end: Instant) -> int:
    """Nanoseconds from ``start`` to ``end`` on their wall stamps, the exact difference rounded once."""
    (a, b), (c, d) = float(end.wall).as_integer_ratio(), float(start.wall).as_integer_ratio()
    return _rounded((a * d - c * b) * NS, b * d)


def reached(measured: Span, limit_ns: int) -> bool:
    """Whether a limit of ``limit_ns`` is reached: at exactly the limit, or when the span cannot be known."""
    return measured.ns is None or measured.ns >= limit_ns


def left_ns(measured: Span, limit_ns: int) -> int:
    """Nanoseconds left until the limit (negative: overdue; 0 when the span cannot be known)."""
    return 0 if measured.ns is None else limit_ns - measured.ns
