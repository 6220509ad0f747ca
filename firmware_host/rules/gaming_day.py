"""The gaming day: defined once, in the table profile's ``[gaming_day]`` (pure).

Journal rotation, ``journal report --by day``, theo and hold by day, game protection's
advantage-play table-day and the floor dashboard all date a moment by :meth:`GamingDay.of`
(docs/rules-interpretations/clock.md). A moment is given in seconds since the epoch: the
caller passes the corrected time (:meth:`~firmware_host.tables.clock.TableClock.corrected`),
so that rounds dealt before NTP's first step land on the right day.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import zoneinfo

from firmware_host.errors import RulesError

__all__ = ["GamingDay", "DEFAULT_STARTS", "DEFAULT_ZONE", "zone"]

#: When a gaming day starts unless the profile says.
DEFAULT_STARTS = datetime.time(6, 0)
#: The time zone it starts in unless the profile says: UTC, the same on every machine.
DEFAULT_ZONE = "UTC"


@functools.cache
def zone(name: str) -> zoneinfo.ZoneInfo:
    """The IANA time zone ``name`` (``Europe/London``, ``UTC``).

    :raises RulesError: there is no such zone in this machine's time-zone database.
    """
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
        raise RulesError(f"time zone {name!r}: no such IANA time zone ({exc})") from None


@dataclasses.dataclass(frozen=True)
class GamingDay:
    """A gaming day that starts at ``starts`` (a time of day) in ``time_zone`` (an IANA name).

    :raises RulesError: an unknown time zone, or a start with seconds or a zone of its own.
    """

    starts: datetime.time = DEFAULT_STARTS
    time_zone: str = DEFAULT_ZONE

    def __post_init__(self) -> None:
        if not isinstance(self.starts, datetime.time) or self.starts.tzinfo is not None or self.starts.microsecond:
            raise RulesError(f"gaming day start {self.starts!r}: a time of day without a zone (HH:MM)")
        zone(self.time_zone)

    def of(self, at: float) -> datetime.date:
        """The gaming day moment ``at`` (seconds since the epoch) falls in: the local date in the
        zone, less one day before the day's start."""
        local = datetime.datetime.fromtimestamp(at, zone(self.time_zone))
        shifted = local - datetime.timedelta(hours=self.starts.hour, minutes=self.starts.minute,
                                             seconds=self.starts.second)  # fmt: skip
        return shifted.date()

    def number(self, at: float) -> int:
        """:meth:`of` as a whole number (the proleptic Gregorian ordinal): a day's key."""
        return self.of(at).toordinal()
