"""Which fields are game-protection data, and who may see them: the one policy every face applies.

Game protection (docs/protection.md) is the surveillance room's: advantage-play findings are
investigated before anyone on the floor is told, and a round's exact odds are a signal to bet
for whoever reads them while the shoe is in play. Every face (the floor dashboard's routes,
streams and records, the table's display, ``/metrics``, the exports) asks this module, never
decides on its own. The protection data are:

- the ``odds`` decisions (:data:`~firmware_host.tables.decisions.PROTECTION_DECISIONS`): a
  round's EV of each wager, and a round record's ``odds`` field;
- what is computed from a round's EV: a Baccarat settlement line's ``theo`` (``amount × −EV``
  gives the EV back) and the theo of any figures summed from such lines;
- the alerts whose code is in :data:`~firmware_host.tables.decisions.PROTECTION_ALERTS`
  (``advantage-window``, ``advantage-play``: with their e-values and thresholds), and their
  counts (a count that grows as betting opens is the alert itself);
- the view log: who looked at what is audited by surveillance, not by those it audits.

Only :data:`SURVEILLANCE` sees them; every other role (the floor's pit, the table's dealer and
supervisor, the player board, a scraper that is not surveillance's) sees the rest.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from firmware_host.tables.decisions import PROTECTION_ALERTS, Decision, for_surveillance_only

__all__ = [
    "SURVEILLANCE",
    "sees_protection",
    "is_protection_alert",
    "is_protection_message",
    "protection_field",
    "round_record",
    "PROTECTION_COUNTS",
]

#: The one role that sees protection data.
SURVEILLANCE = "surveillance"
#: Counts of protection alerts, by the names figures give them (``journal report``, a shoe's figures).
PROTECTION_COUNTS = frozenset({"advantage_windows", "advantage_play_alerts"})
#: A round record's fields that are protection data as a whole.
_ROUND_FIELDS = frozenset({"odds"})


def sees_protection(role: str | None) -> bool:
    """Whether ``role`` may see protection data (only :data:`SURVEILLANCE`)."""
    return role == SURVEILLANCE


def is_protection_alert(code: Any) -> bool:
    """Whether an alert of ``code`` is protection data."""
    return code in PROTECTION_ALERTS


def is_protection_message(kind: str, data: Mapping[str, Any]) -> bool:
    """Whether a decision or feed message of type ``kind`` with ``data`` is protection data (the
    table's own rule, :func:`~firmware_host.tables.decisions.for_surveillance_only`, which keeps
    them off the table's display and player board)."""
    return for_surveillance_only(Decision(kind, dict(data)))


def protection_field(name: str) -> bool:
    """Whether a record's or figures' field ``name`` is protection data (``odds``, the counts)."""
    return name in _ROUND_FIELDS or name in PROTECTION_COUNTS


def round_record(record: Mapping[str, Any], role: str | None) -> dict[str, Any]:
    """A finished round's record (``floor export --rounds``, ``journal export --rounds``) as ``role``
    may see it: whole for surveillance; for anyone else without its ``odds``, its protection
    counts, and a Baccarat line's ``theo`` (computed from the round's EV: null, as for a round
    that had no odds). A Pai Gow line's theo is the house way's fixed edge, not protection data."""
    if sees_protection(role):
        return dict(record)
    shown = {key: value for key, value in record.items() if not protection_field(key)}
    if record.get("game") != "paigow" and isinstance(record.get("settlement"), list):
        lines = copy.deepcopy(record["settlement"])
        for line in lines:
            if isinstance(line, dict) and "theo" in line:
                line["theo"] = None
        shown["settlement"] = lines
    return shown
