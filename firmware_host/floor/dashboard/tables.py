"""One table as its stored feed messages show it: its tile on the floor map and its drill-down.

:class:`TableWatch` folds a table's messages in seq order (each once) and keeps only what the
dashboard shows, bounded: the last :data:`RECENT_ROUNDS` rounds, :data:`KEPT_ALERTS` alerts,
the current shoe's outcomes (the roads), :data:`KEPT_ROLLS` Pai Gow rolls, and the figures of
the shoe in play and of the gaming day; a keyed table's device names, outcomes, settlement lines
and irregularities to :data:`LIMITS` too, the rest counted (``dropped``). What it shows depends
on who looks (:mod:`firmware_host.tables.protection_policy`): the game-protection alerts, and
the theo computed from a round's EV, are the surveillance room's.
"""

from __future__ import annotations

import collections
import re
import time
from collections.abc import Iterable, Mapping
from typing import Any

from firmware_host.errors import RulesError
from firmware_host.floor.dashboard.figures import Figures, lines_of, played, shown
from firmware_host.floor.model import DEFAULT_SKEW_BOUND_S, TableStatus
from firmware_host.host.figures import RoundFigures
from firmware_host.rules.baccarat.roads import outcome_from_json, roads
from firmware_host.tables.protection_policy import (
    SURVEILLANCE,
    is_protection_alert,
    round_record,
    sees_protection,
)
from firmware_host.tables.round_record import BACCARAT

__all__ = ["TableWatch", "SURVEILLANCE", "PIT", "ROLES", "SEVERITIES", "LIMITS"]

#: The dashboard's roles, lowest first: the surveillance room sees what the pit sees and the
#: game-protection data (:mod:`firmware_host.tables.protection_policy`).
PIT = "pit"
ROLES = (PIT, SURVEILLANCE)
#: Alert severities, most urgent first (``tables.base.Table.alert``).
SEVERITIES = ("fault", "attention", "warning")
#: What a table keeps for its drill-down.
RECENT_ROUNDS, KEPT_ALERTS, KEPT_ROLLS, KEPT_ODDS = 50, 100, 30, 8
#: What ``dropped`` counts the protection alerts beyond their bound as (shown to surveillance only).
PROTECTION_DROPPED = "protection alerts"
#: Device names a table keeps (a table has a handful: a shoe, a shuffler, a shaker, a sensor);
#: outcomes of the shoe in play (an 8-deck shoe deals about 80 rounds); settlement lines and
#: irregularities kept of one round. Whatever a keyed table sends beyond them is counted, not
#: kept (issue 29, N5): a tile and a drill-down cost the same whatever a table sends.
MAX_DEVICES, MAX_OUTCOMES, MAX_LINES, MAX_IRREGULARITIES = 16, 200, 64, 16
#: The bounds by name (docs/security.md).
LIMITS = {
    "rounds": RECENT_ROUNDS,
    "alerts": KEPT_ALERTS,
    PROTECTION_DROPPED: KEPT_ALERTS,
    "rolls": KEPT_ROLLS,
    "odds": KEPT_ODDS,
    "devices": MAX_DEVICES,
    "outcomes": MAX_OUTCOMES,
    "settlement lines": MAX_LINES,
    "irregularities": MAX_IRREGULARITIES,
}
#: Alerts without a round stay open this long after they are raised (the table's clock), seconds.
OPEN_S = 900.0
#: A round whose result names no gaming day (a table before issue 28) is dated by the table's time,
#: the gaming day starting at this local hour: a round before it counts for the day before.
GAMING_DAY_HOUR = 6
#: A gaming day as a round's result names it: ``YYYY-MM-DD``.
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")
#: A regulation section cited in an alert's text: ``(§ 541.14(d))``.
_SECTION = re.compile(r"§\s*([0-9]{3}\.[0-9]+(?:\([0-9a-z]{1,4}\))*)")


def gaming_day(at: float | None) -> str | None:
    """The gaming day of a table time (``YYYY-MM-DD``, starting at :data:`GAMING_DAY_HOUR` local time)."""
    if at is None:
        return None
    return time.strftime("%Y-%m-%d", time.localtime(at - GAMING_DAY_HOUR * 3600))


def _text(value: Any, limit: int = 200) -> str | None:
    return value[:limit] if isinstance(value, str) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _objects(value: Any) -> list[dict[str, Any]]:
    """The objects of a list a table sent (a round's irregularities): anything else is none."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _result_text(data: Mapping[str, Any]) -> str:
    """A round's result in a few words (``Banker 7-5``, ``dice 3 4 (7)``, ``void``)."""
    if data.get("status") == "void":
        return "void"
    if data.get("game") == "paigow" or "dice" in data:
        dice = data.get("dice")
        shown = " ".join(str(d) for d in dice) if isinstance(dice, list) else "-"
        return f"dice {shown} ({data.get('total')})"
    winner = _text(data.get("winner"), 16) or "?"
    player, banker = _int(data.get("player_total")), _int(data.get("banker_total"))
    totals = (
        f" {banker}-{player}"
        if winner == "banker" and None not in (player, banker)
        else f" {player}-{banker}"
        if None not in (player, banker)
        else ""
    )
    return winner.capitalize() + totals


def _by_role() -> dict[str, Figures]:
    return {role: Figures() for role in ROLES}


def _shown_round(entry: Mapping[str, Any], role: str, game: str | None) -> dict[str, Any]:
    """A recent round as ``role`` sees it: its theo is the role's (:func:`_by_role`), its lines as
    :func:`~firmware_host.tables.protection_policy.round_record` shows them."""
    shown = {k: v for k, v in entry.items() if k != "theo_by_role"}
    shown["theo"] = entry["theo_by_role"][role]
    shown["settlement"] = round_record({"game": game, "settlement": entry["settlement"]}, role)["settlement"]
    return shown


class TableWatch:
    """One table, folded from its messages (:meth:`fold`, in seq order)."""

    def __init__(self, table: str, skew_bound_s: float = DEFAULT_SKEW_BOUND_S) -> None:
        self.table = table
        #: A clock off the floor's by more than this (seconds) flags the tile ``clock_skew`` (issue 28).
        self.skew_bound_s = skew_bound_s
        self.seq = 0  #: the highest seq folded
        self.status: TableStatus | None = None
        self.game: str | None = None
        self.shoe: int | None = None
        self.round: int | None = None
        self.at: float | None = None  #: the table's time of the last message
        self.last: str | None = None
        self.rounds: collections.deque[dict[str, Any]] = collections.deque(maxlen=RECENT_ROUNDS)
        #: The alerts, each to its bound: the ordinary ones, and surveillance's protection alerts
        #: kept apart, so that what the pit sees (and what was dropped of it) never moves with them.
        self.alerts: collections.deque[dict[str, Any]] = collections.deque(maxlen=KEPT_ALERTS)
        self.protection_alerts: collections.deque[dict[str, Any]] = collections.deque(maxlen=KEPT_ALERTS)
        self.rolls: collections.deque[dict[str, Any]] = collections.deque(maxlen=KEPT_ROLLS)
        #: the shoe in play's results (its roads)
        self.outcomes: collections.deque[dict[str, Any]] = collections.deque(maxlen=MAX_OUTCOMES)
        self.odds: collections.OrderedDict[int, Mapping[str, Any]] = collections.OrderedDict()
        #: When each open round's first message came (the table's time), for the pace.
        self.started: collections.OrderedDict[int, float] = collections.OrderedDict()
        self.devices: dict[str, bool] = {}
        #: The figures of the shoe in play and of the gaming day, by role: the pit's without the
        #: theo computed from a round's EV (protection data).
        self.shoe_figures, self.day_figures = _by_role(), _by_role()
        #: What was not kept beyond the bounds, counted by kind (:data:`LIMITS`).
        self.dropped: collections.Counter[str] = collections.Counter()
        self.day: str | None = None
        #: When the floor stored the last message and its lag (seconds), as the collector handed
        #: it over: newer than :attr:`status` between two of its refreshes.
        self.seen: tuple[float, float | None] | None = None

    def fold_all(self, messages: Iterable[Mapping[str, Any]]) -> bool:
        """Fold the messages above :attr:`seq`; whether any was new."""
        new = False
        for message in messages:
            seq = message.get("seq")
            if isinstance(seq, int) and seq > self.seq:
                self.fold(message)
                new = True
        return new

    def fold(self, message: Mapping[str, Any]) -> None:
        """One stored message (as published)."""
        self.seq = max(self.seq, int(message["seq"]))
        found = message.get("data")
        data: Mapping[str, Any] = found if isinstance(found, dict) else {}
        at = message.get("at")
        self.at = at if isinstance(at, (int, float)) else self.at
        kind = message.get("type")
        number = _int(message.get("round"))
        if number is not None and self.at is not None and number not in self.started:
            self.started[number] = self.at  # the round's first message: its pace runs from here
            while len(self.started) > KEPT_ODDS:
                self.started.popitem(last=False)
        if kind == "round_result":
            self._round(message, data)
        elif kind == "alert":
            code = _text(data.get("code"), 64)
            kept, dropped = (
                (self.protection_alerts, PROTECTION_DROPPED) if is_protection_alert(code) else (self.alerts, "alerts")
            )
            if len(kept) == KEPT_ALERTS:  # the oldest gives way
                self.dropped[dropped] += 1
            kept.append(
                {
                    "code": code,
                    "text": _text(data.get("text")),
                    "severity": data.get("severity") if data.get("severity") in SEVERITIES else "attention",
                    "section": self._section(data),
                    "round": _int(message.get("round")),
                    "at": self.at,
                    "seq": message["seq"],
                }
            )
        elif kind == "odds" and _int(data.get("round")) is not None and isinstance(data.get("ev"), dict):
            self.odds[int(data["round"])] = data["ev"]  # the last of a round is the one at no more bets
            self.odds.move_to_end(int(data["round"]))
            while len(self.odds) > KEPT_ODDS:
                self.odds.popitem(last=False)
        elif kind == "device" and isinstance(data.get("device"), str) and isinstance(data.get("online"), bool):
            name = data["device"][:32]
            if name in self.devices or len(self.devices) < MAX_DEVICES:
                self.devices[name] = data["online"]
            else:
                self.dropped["devices"] += 1
        elif kind == "shoe_result":
            self._new_shoe()
        if _int(message.get("round")) is not None and kind != "round_result":
            self.round = int(message["round"])

    @staticmethod
    def _section(data: Mapping[str, Any]) -> str | None:
        section = _text(data.get("section"), 32)
        if section:
            return section
        found = _SECTION.search(_text(data.get("text")) or "")
        return found.group(1) if found else None

    def _round(self, message: Mapping[str, Any], data: Mapping[str, Any]) -> None:
        number = _int(data.get("round"))
        shoe = _int(data.get("shoe"))
        if shoe is not None and shoe != self.shoe:
            self._new_shoe()
        self.game = _text(data.get("game"), 32) or self.game
        self.shoe, self.round, self.last = shoe if shoe is not None else self.shoe, number, _result_text(data)
        named = data.get("gaming_day")  # the table's own, by its profile and corrected time
        day = named if isinstance(named, str) and _DAY.match(named) else gaming_day(self.at)
        if day != self.day:
            self.day, self.day_figures = day, _by_role()
        ev = self.odds.get(number) if number is not None else None
        settlement = data.get("settlement")
        if isinstance(settlement, list) and len(settlement) > MAX_LINES:
            self.dropped["settlement lines"] += len(settlement) - MAX_LINES
            settlement = settlement[:MAX_LINES]
        irregularities = data.get("irregularities") or []
        if isinstance(irregularities, list) and len(irregularities) > MAX_IRREGULARITIES:
            self.dropped["irregularities"] += len(irregularities) - MAX_IRREGULARITIES
            irregularities = irregularities[:MAX_IRREGULARITIES]
        started = self.started.pop(number, None) if number is not None else None
        seconds = max(0.0, self.at - started) if started is not None and self.at is not None else 0.0
        alone = _by_role()
        for role in ROLES:
            shown_ev = ev if sees_protection(role) else None  # a theo from the EV gives the EV back
            round_figures = played(data, settlement, shown_ev, seconds)
            if round_figures is None:
                self.dropped["unreadable rounds"] += role == PIT  # counted once, kept as a round without figures
                round_figures = RoundFigures()
            for figures in (self.shoe_figures, self.day_figures, alone):
                figures[role].add(round_figures)
        self.rounds.append(
            {
                "round": number,
                "shoe": shoe,
                "status": _text(data.get("status"), 32),
                "result": self.last,
                "at": self.at,
                "seq": message["seq"],
                "wagers": len(lines_of(settlement)),
                **{k: v for k, v in shown(alone[PIT]).items() if k not in ("rounds", "rounds_per_hour")},
                "theo_by_role": {role: shown(figures)["theo"] for role, figures in alone.items()},
                "settlement": settlement,
                "irregularities": _objects(irregularities),
            }
        )
        if self.game == "baccarat" and data.get("status") != "void":
            self.dropped["outcomes"] += len(self.outcomes) == MAX_OUTCOMES  # the oldest gives way
            self.outcomes.append({k: data.get(k) for k in BACCARAT.outcome})
        if isinstance(data.get("rolls"), list):
            for roll in data["rolls"][-KEPT_ROLLS:]:
                if isinstance(roll, dict):
                    dice = roll.get("dice")
                    dice = [d for d in dice if _int(d) is not None][:3] if isinstance(dice, list) else []
                    self.rolls.append({"round": number, "dice": dice, "total": sum(dice), "valid": roll.get("valid")})

    # ------------------------------------------------------------------ what is shown

    def open_alerts(self, role: str) -> list[dict[str, Any]]:
        """The alerts still open (of the current and the previous round; without a round, for
        :data:`OPEN_S`), the latest of each code, most urgent first."""
        latest: dict[Any, dict[str, Any]] = {}
        for alert in self._alerts(role):
            if alert["round"] is not None:
                open_ = self.round is None or alert["round"] >= self.round - 1
            else:
                open_ = alert["at"] is None or self.at is None or self.at - alert["at"] <= OPEN_S
            if open_:
                latest[alert["code"]] = alert
        return sorted(latest.values(), key=lambda a: (SEVERITIES.index(a["severity"]), -a["seq"]))

    def tile(self, role: str) -> dict[str, Any]:
        """The table's tile on the map."""
        status = self.status
        alerts = self.open_alerts(role)
        seen: tuple[float | None, float | None] = (status.last_seen, status.lag_s) if status else (None, None)
        if self.seen is not None and (seen[0] is None or self.seen[0] > seen[0]):
            seen = self.seen
        return {
            "table": self.table,
            "game": self.game or (status.game if status else None),
            "online": status.online if status else None,
            "shoe": self.shoe,
            "round": self.round,
            "last": self.last,
            "lag_s": None if seen[1] is None else max(0.0, seen[1]),  # never negative on screen
            "clock_skew": seen[1] is not None and abs(seen[1]) > self.skew_bound_s,
            "last_seen": seen[0],
            "gaps": len(status.gaps) if status else 0,
            "breaks": status.breaks if status else 0,
            "refused": status.refused if status else 0,
            "seq": self.seq,
            "devices_offline": sorted(d for d, online in self.devices.items() if not online),
            "severity": alerts[0]["severity"] if alerts else None,
            "alerts": [{k: a[k] for k in ("code", "severity", "text")} for a in alerts[:3]],
            "alert_count": len(alerts),
        }

    def detail(self, role: str) -> dict[str, Any]:
        """The drill-down: the tile, the roads (Baccarat) or rolls (Pai Gow), the recent rounds,
        the alerts with their sections, and the shoe's and the day's figures."""
        status = self.status
        return {
            "tile": self.tile(role),
            "roads": self._roads(),
            "rolls": list(self.rolls)[::-1] if self.game == "paigow" else None,
            "rounds": [_shown_round(r, role, self.game) for r in reversed(self.rounds)],
            "alerts": sorted(self._alerts(role), key=lambda a: -a["seq"]),
            "open_alerts": self.open_alerts(role),
            "figures": {
                "shoe": shown(self.shoe_figures[role]),
                "day": {**shown(self.day_figures[role]), "day": self.day},
            },
            "continuity": None
            if status is None
            else {
                "last_seq": status.last_seq,
                "max_seq": status.max_seq,
                "gaps": [list(g) for g in status.gaps],
                "breaks": status.breaks,
                "refused": status.refused,
                "duplicates": status.duplicates,
                "unreadable": len(status.unreadable),
            },
            "devices": dict(sorted(self.devices.items())),
            "dropped": {
                k: n for k, n in sorted(self.dropped.items()) if k != PROTECTION_DROPPED or sees_protection(role)
            },
        }

    def _alerts(self, role: str) -> list[dict[str, Any]]:
        """The alerts ``role`` may see, oldest first (protection alerts: surveillance's only)."""
        if not sees_protection(role):
            return list(self.alerts)
        return sorted([*self.alerts, *self.protection_alerts], key=lambda a: a["seq"])

    def _new_shoe(self) -> None:
        self.outcomes.clear()
        self.shoe_figures = _by_role()

    def _roads(self) -> dict[str, Any] | None:
        """The shoe in play's roads, as ``/api/roads`` of the table's display gives them."""
        if self.game != "baccarat":
            return None
        try:
            found = [o for o in (outcome_from_json(d) for d in self.outcomes) if o is not None]
        except RulesError:
            return None
        return roads(found).to_json_dict()
