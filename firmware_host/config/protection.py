"""The ``[protection]`` table of a table profile: game protection's thresholds (docs/protection.md).

::

    [protection]
    advantage_threshold = 0        # EV per unit wagered above which an advantage window opens
    paigow_edge_percent = 2.582016 # Pai Gow: the house edge per wager that theo uses
    alpha = "1/20"                 # advantage-play detection: the false-alarm budget per table-day
    big_wager = 10000              # cents: a wager this big is "big" (the size check, wonging)
    late_share = 0.5               # a first wager in a shoe after this share dealt is "late" (wonging)
    day_starts = "06:00"           # the table-day starts then, UTC (the budget is per table-day)

Numbers are read as the decimals written, exactly (``0.005`` is 5/1000, not the nearest
binary float), so the decisions they feed are exact.
"""

from __future__ import annotations

import dataclasses
import datetime
import math
from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from firmware_host.errors import ProfileError, RulesError
from firmware_host.rules.edges import PAIGOW_HOUSE_WAY_EDGE
from firmware_host.rules.gaming_day import GamingDay

if TYPE_CHECKING:
    from firmware_host.config.profiles import Section
    from firmware_host.rules.baccarat.advantage_play import DetectionPolicy

__all__ = ["DETECTION_KEYS", "PAIGOW_HOUSE_WAY_EDGE", "ProtectionConfig", "detection_policy", "protection_config"]

#: The keys of advantage-play detection (:func:`detection_policy`).
DETECTION_KEYS = ("alpha", "big_wager", "late_share", "day_starts")


@dataclasses.dataclass(frozen=True)
class ProtectionConfig:
    """What ``[protection]`` says.

    :param advantage_threshold: an offered Baccarat wager whose EV per unit wagered is above
        this opens an advantage window (default 0: any positive EV).
    :param paigow_edge: the house edge per unit wagered theo uses at a Pai Gow table.
    :param detection: how advantage play is looked for (docs/protection.md, "Detection"); None:
        the defaults (a profile that names no detection key imports no Baccarat rule).
    """

    advantage_threshold: Fraction = Fraction(0)
    paigow_edge: Fraction = PAIGOW_HOUSE_WAY_EDGE
    detection: DetectionPolicy | None = None


def _exact(section: Section, name: str, default: Fraction, low: Fraction, high: Fraction) -> Fraction:
    """A number of ``section`` as the exact decimal written, within ``[low, high)``."""
    value = section.number(name, None)
    if value is None:
        return default
    if not math.isfinite(value):
        raise section.error(name, f"{section.data[name]!r} is not a finite number")
    exact = Fraction(str(section.data[name]))
    if not low <= exact < high:
        raise section.error(
            name, f"{section.data[name]!r} is outside {float(low):g} (included) to {float(high):g} (excluded)"
        )
    return exact


def protection_config(section: Section) -> ProtectionConfig:
    """Read ``[protection]``; :class:`~firmware_host.errors.ProfileError` naming the key and why."""
    config = ProtectionConfig(
        advantage_threshold=_exact(section, "advantage_threshold", Fraction(0), Fraction(-1), Fraction(1)),
        paigow_edge=_exact(section, "paigow_edge_percent", PAIGOW_HOUSE_WAY_EDGE * 100, Fraction(-100), Fraction(100))
        / 100,
        detection=_detection(section),
    )
    section.reject_unknown()
    return config


def _detection(section: Section) -> DetectionPolicy | None:
    """The detection keys of ``[protection]`` (:data:`DETECTION_KEYS`), None if none is given
    (every key but the two above is one, or unknown: ``reject_unknown`` names it)."""
    if not set(section.data) - {"advantage_threshold", "paigow_edge_percent"}:
        return None
    given: dict[str, Any] = {}
    for key in DETECTION_KEYS:
        value = section._get(key, (int, float, str), 'a number or "n/d"', None)
        if value is not None:
            given[key] = value
    return detection_policy(given, str(section.path), section.prefix or "protection")


def detection_policy(mapping: Mapping[str, Any], source: str, where: str = "protection") -> DetectionPolicy:
    """The advantage-play detection policy from a profile's table (``alpha`` and ``late_share`` as a
    number or ``"n/d"`` text, ``big_wager`` in cents, ``day_starts`` as ``"HH:MM"`` UTC, the older
    spelling of the profile's ``[gaming_day]``); keys not in :data:`DETECTION_KEYS` are left to the
    caller. Imports the Baccarat rules only when called: a profile naming no detection key does not.

    :raises ProfileError: naming ``<where>.<key>`` and why.
    """
    from firmware_host.rules.baccarat.advantage_play import DetectionPolicy

    values: dict[str, Any] = {}
    for key in ("alpha", "late_share"):
        if key in mapping:
            values[key] = _fraction(mapping[key], source, f"{where}.{key}")
    if "big_wager" in mapping:
        values["big_wager"] = mapping["big_wager"]
    if "day_starts" in mapping:
        starts = _seconds_of_day(mapping["day_starts"], source, f"{where}.day_starts")
        values["gaming_day"] = GamingDay(datetime.time(starts // 3600, starts % 3600 // 60), "UTC")
    try:
        return DetectionPolicy(**values)
    except RulesError as exc:
        key = str(exc).split(" ", 1)[0]
        raise ProfileError(source, f"{where}.{key}", str(exc)) from None


def _fraction(value: Any, source: str, key: str) -> Fraction:
    """A profile's exact number: an integer, a decimal written in the file, or ``"n/d"``."""
    try:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ValueError
        return Fraction(str(value)) if isinstance(value, float) else Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise ProfileError(source, key, f'{value!r} is not a number (0.05 or "1/20")') from None


def _seconds_of_day(value: Any, source: str, key: str) -> int:
    """``"HH:MM"`` as seconds after midnight."""
    text = value if isinstance(value, str) else ""
    hours, _, minutes = text.partition(":")
    if not (hours.isdigit() and minutes.isdigit() and len(minutes) == 2 and int(hours) < 24 and int(minutes) < 60):
        raise ProfileError(source, key, f"{value!r} is not a time of day (HH:MM, UTC)")
    return int(hours) * 3600 + int(minutes) * 60
