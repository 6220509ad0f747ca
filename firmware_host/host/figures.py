"""Theo, drop, win and hold from a journal: the real edge of every wager and the real pace.

What ``journal export --rounds``/``--shoes`` add to the decisions they print and what
``journal report`` sums (docs/protection.md, "Theo, drop, win and hold"):

- each settlement entry gains ``theo``: its amount x -EV of its kind, in cents (a float).
  At Baccarat the EV is the round's own, from its ``odds`` decision (the last one before no
  more bets, from the cards exposed so far); a round without one (a journal written before
  0.3.0) has ``theo`` null. At Pai Gow it is the amount x the house edge per wager (default
  the regulation's house way, 2.5820160%); a wager against a player bank has theo 0 (the
  house is not its counterparty);
- each Baccarat round gains ``odds`` (that decision's data, or null);
- a group of rounds (a shoe, a gaming day, a seat) has ``drop`` (cents wagered), ``win`` (the
  house's net, commission included), ``theo`` (sum of its entries, exact until printed),
  ``hold`` (win / drop), ``rounds_per_hour`` (rounds x 3600 / the seconds from each round's
  first decision to its ``round_result``, on the monotonic clock within a boot, by the wall
  stamps of a journal without it), and the counts of
  ``advantage_windows``, ``advantage_play_alerts`` and all alerts (``alert_count``).

A void round is in no figure but the round count: its wagers were returned unplayed.
Everything is read in one pass over the journal's records, across its segments. A record that
cannot be read as its type says (a ``round_result`` whose data is a list, a settlement line
without its amount...) is a :class:`Malformed` item, named and counted by the caller, never a
traceback; the rounds around it are read as usual.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
from collections.abc import Iterable, Iterator, Mapping
from fractions import Fraction
from typing import Any, NamedTuple

from firmware_host.errors import JournalError, RulesError
from firmware_host.host import checkpoint, segments
from firmware_host.host.journal_codec import MONO_KEY, ROUND_RESULT, SHOE_RESULT, Record
from firmware_host.rules.baccarat.exposure import parse_ev
from firmware_host.rules.clock import NS, seconds_ns
from firmware_host.rules.edges import PAIGOW_HOUSE_WAY_EDGE
from firmware_host.rules.gaming_day import GamingDay
from firmware_host.tables.decisions import ADVANTAGE_PLAY, ADVANTAGE_WINDOW
from firmware_host.text import escaped

__all__ = [
    "GROUPINGS",
    "Malformed",
    "DEFAULT_DAY_STARTS",
    "Figures",
    "MALFORMED",
    "RoundFigures",
    "line_win",
    "round_figures",
    "export_rounds",
    "export_shoes",
    "feed_records",
    "report",
    "read_rounds",
    "rounds_of",
    "shoes_of",
]

#: How ``journal report`` groups rounds.
GROUPINGS = ("shoe", "day", "seat")
#: The gaming day's start, local time, unless ``--day-starts`` says otherwise.
DEFAULT_DAY_STARTS = datetime.time(6, 0)
#: The decision type of a Baccarat round's odds (:mod:`firmware_host.tables.baccarat.protection`).
ODDS = "odds"


@dataclasses.dataclass
class RoundFigures:
    """One round's (or one seat's part of a round's) figures, before they are summed."""

    drop: int = 0
    win: int = 0
    theo: Fraction | None = Fraction(0)
    seconds: float = 0.0
    advantage_windows: int = 0
    advantage_play_alerts: int = 0
    alerts: int = 0


@dataclasses.dataclass
class Figures(RoundFigures):
    """Drop, win, theo and the pace of a group of rounds (cents; theo exact)."""

    rounds: int = 0

    def add(self, other: RoundFigures) -> None:
        """Count one round (or a seat's part of it) in."""
        self.rounds += 1
        self.drop += other.drop
        self.win += other.win
        self.theo = None if self.theo is None or other.theo is None else self.theo + other.theo
        self.seconds += other.seconds
        self.advantage_windows += other.advantage_windows
        self.advantage_play_alerts += other.advantage_play_alerts
        self.alerts += other.alerts

    def to_json(self) -> dict[str, Any]:
        """The JSON figures: ``theo`` in cents (a float, null when a round had no odds), ``hold``
        a fraction of the drop (null without a drop), ``rounds_per_hour`` (null without time)."""
        return {
            "rounds": self.rounds,
            "drop": self.drop,
            "win": self.win,
            "theo": None if self.theo is None else float(self.theo),
            "hold": self.win / self.drop if self.drop else None,
            "rounds_per_hour": self.rounds * 3600 / self.seconds if self.seconds > 0 else None,
            "advantage_windows": self.advantage_windows,
            "advantage_play_alerts": self.advantage_play_alerts,
            "alert_count": self.alerts,
        }


class Malformed(NamedTuple):
    """A record the figures cannot read, named: ``record N (type): why`` (escaped, bounded)."""

    named: str


#: The decision types the figures read.
_READ = frozenset({ODDS, "alert", SHOE_RESULT, ROUND_RESULT})
#: What a malformed record's data raises when it is read as its type says (an odds' EV that is
#: not one: a RulesError).
MALFORMED = (TypeError, ValueError, KeyError, AttributeError, ArithmeticError, RulesError)


@dataclasses.dataclass
class PlayedRound:
    """A ``round_result`` as exported (``data``, with ``odds`` and each entry's ``theo``), when
    it was decided, the round's own figures and each seat's part of them."""

    data: dict[str, Any]
    at: float
    figures: RoundFigures
    seats: dict[str, RoundFigures]
    #: When it was decided on the monotonic clock, and in which boot (None: not stamped).
    mono_ns: int | None = None
    boot: str | None = None

    def dated(self, offsets: dict[str, int]) -> float:
        """When it was decided, as rounds are dated: the boot's latest synchronised offset
        (``offsets``, from :class:`ClockTrack`) applied to the monotonic clock, else the wall clock."""
        offset = None if self.boot is None else offsets.get(self.boot)
        return self.at if offset is None or self.mono_ns is None else (self.mono_ns + offset) / NS


class ClockTrack:
    """The journal's two clocks as its records go by: each step's monotonic stamp, the boot it
    counts in (journaled ``ClockStatus`` inputs) and each boot's latest synchronised offset."""

    def __init__(self) -> None:
        self.boot: str | None = None
        self.synced = False
        self.mono_ns: int | None = None
        #: Each boot's latest offset (wall - monotonic, ns) of a step while synchronised.
        self.offsets: dict[str, int] = {}

    def see(self, record: Record) -> None:
        """Follow an input record (any other record is ignored)."""
        if record.kind != "input":
            return
        if record.type == "ClockStatus":
            self.boot, self.synced = str(record.data.get("boot")), bool(record.data.get("synced"))
        mono = record.data.get(MONO_KEY)
        self.mono_ns = mono if isinstance(mono, int) and not isinstance(mono, bool) else None
        if self.synced and self.boot is not None and self.mono_ns is not None and record.at is not None:
            self.offsets[self.boot] = seconds_ns(record.at) - self.mono_ns

    def now(self) -> tuple[str | None, int | None]:
        """The boot and monotonic stamp of the step being read (None, None: not stamped)."""
        return (self.boot, self.mono_ns) if self.mono_ns is not None else (None, None)


def round_figures(
    data: dict[str, Any], odds: Mapping[str, Any] | None, paigow_edge: Fraction = PAIGOW_HOUSE_WAY_EDGE
) -> tuple[RoundFigures, dict[str, RoundFigures]]:
    """One ``round_result``'s figures and each seat's (a Baccarat seat, a Pai Gow betting position),
    each settlement entry given its ``theo`` (``data``'s entries are changed): the one definition
    of drop, win and theo that ``journal report``, ``journal export`` and the floor dashboard read.

    :param odds: the round's ``odds`` decision data (Baccarat; None: none, its theo is null).
    :raises: one of :data:`MALFORMED` when ``data`` is not what a ``round_result`` is.
    """
    if data.get("game") == "paigow":
        return _paigow_round(data, paigow_edge)
    return _baccarat_round(data, odds)


def line_win(line: Mapping[str, Any]) -> int:
    """What the house kept of one settled Baccarat wager, cents: a lost wager's amount, less what
    was paid on a won one on top of its returned stake, plus commission (§ 541.13)."""
    outcome = line["outcome"]
    kept = int(line["amount"]) if outcome == "lose" else 0
    return int(line.get("commission", 0)) + kept - (int(line.get("payout", 0)) if outcome == "win" else 0)


def _baccarat_round(
    data: dict[str, Any], odds: Mapping[str, Any] | None
) -> tuple[RoundFigures, dict[str, RoundFigures]]:
    """Theo of each settlement line (added to it), the round's figures and each seat's."""
    evs = {kind: parse_ev(text) for kind, text in odds["ev"].items()} if odds is not None else None
    total, seats = RoundFigures(), dict[Any, RoundFigures]()
    for line in data.get("settlement", []):
        amount, kind = int(line["amount"]), str(line["kind"])
        theo = None if evs is None or kind not in evs else amount * -evs[kind]
        line["theo"] = None if theo is None else float(theo)
        if data.get("status") != "completed":
            continue
        win = line_win(line)
        for figures in (total, seats.setdefault(str(line["seat"]), RoundFigures())):
            figures.drop += amount
            figures.win += win
            figures.theo = None if figures.theo is None or theo is None else figures.theo + theo
    return total, seats


def _paigow_round(data: dict[str, Any], edge: Fraction) -> tuple[RoundFigures, dict[str, RoundFigures]]:
    """Theo of each wager result (added to it), the round's figures and each position's."""
    settlement = data.get("settlement")
    total, seats = RoundFigures(), dict[Any, RoundFigures]()
    if not isinstance(settlement, dict):
        return total, seats
    player_bank = settlement.get("bank_position") is not None
    for result in settlement.get("results", []):
        amount = int(result["amount"])
        theo = Fraction(0) if player_bank else amount * edge
        result["theo"] = float(theo)
        if data.get("status") == "completed":
            seat = seats.setdefault(str(result["position"]), RoundFigures())
            seat.drop, seat.win, seat.theo = seat.drop + amount, seat.win - int(result["net"]), theo
            total.drop += amount
            total.theo = (total.theo or Fraction(0)) + theo
    if data.get("status") == "completed":
        nets = settlement.get("nets")
        if nets is None:  # no nets given: each wager's net is the house's, negated
            total.win = sum(seat.win for seat in seats.values())
        else:  # the house's and the vigorish (with a player banking, the wagers' nets are the bank's)
            total.win = int(nets.get("house", 0)) + int(nets.get("vigorish", 0))
    return total, seats


def read_rounds(
    records: Iterable[Record], paigow_edge: Fraction = PAIGOW_HOUSE_WAY_EDGE, clocks: ClockTrack | None = None
) -> Iterator[PlayedRound | dict[str, Any] | Malformed]:
    """Every finished round (a :class:`PlayedRound`) and every ``shoe_result`` (its data), in order;
    a record that cannot be read as its type says is a :class:`Malformed` in its place.

    :param clocks: follows the journal's two clocks (a new one if None); a round's pace is measured
        on the monotonic clock within a boot, on the wall stamps otherwise (as before the two clocks).
    """
    clocks = ClockTrack() if clocks is None else clocks
    state = _Reading()
    for record in records:
        clocks.see(record)
        if record.kind != "decision":
            continue
        try:
            made = state.read(record, paigow_edge, clocks)
        except MALFORMED as exc:
            why = escaped(f"{type(exc).__name__}: {exc}")[:200]
            yield Malformed(f"record {record.seq} ({escaped(str(record.type))[:64]}): {why}")
            continue
        if made is not None:
            yield made


@dataclasses.dataclass
class _Reading:
    """What :func:`read_rounds` keeps between records: each round's first time and odds, the alerts."""

    first_at: dict[int, tuple[float, str | None, int | None]] = dataclasses.field(default_factory=dict)
    odds: dict[int, dict[str, Any]] = dataclasses.field(default_factory=dict)
    counts: RoundFigures = dataclasses.field(default_factory=RoundFigures)  # alerts since the last round

    def read(self, record: Record, paigow_edge: Fraction, clocks: ClockTrack) -> PlayedRound | dict[str, Any] | None:
        """One decision record: a finished round, a shoe's result, or None (it only counts).

        :raises: one of :data:`MALFORMED` when its data is not what its type says.
        """
        first_at, odds, counts = self.first_at, self.odds, self.counts
        if record.type in _READ and not isinstance(record.data, dict):
            raise TypeError(f"data is a {type(record.data).__name__}, not an object")
        if record.round is not None and record.at is not None:
            first_at.setdefault(record.round, (record.at, *clocks.now()))
        if record.type == ODDS and record.round is not None:
            odds[record.round] = record.data
        elif record.type == "alert":
            counts.alerts += 1
            counts.advantage_windows += record.data.get("code") == ADVANTAGE_WINDOW
            counts.advantage_play_alerts += record.data.get("code") == ADVANTAGE_PLAY
        elif record.type == SHOE_RESULT:
            return dict(record.data)
        elif record.type == ROUND_RESULT:
            data = dict(record.data)
            number = int(data.get("round", record.round or 0))
            if data.get("game") != "paigow":
                data["odds"] = odds.pop(number, None)
            figures, seats = round_figures(data, data.get("odds"), paigow_edge)
            at = record.at or 0.0
            boot, mono = clocks.now()
            figures.seconds = _seconds(first_at.pop(number, (at, boot, mono)), (at, boot, mono))
            for seat in seats.values():
                seat.seconds = figures.seconds
            figures.alerts, figures.advantage_windows = counts.alerts, counts.advantage_windows
            figures.advantage_play_alerts = counts.advantage_play_alerts
            self.counts = RoundFigures()
            return PlayedRound(data, at, figures, seats, mono, boot)
        return None


def _seconds(start: tuple[float, str | None, int | None], end: tuple[float, str | None, int | None]) -> float:
    """A round's length: on the monotonic clock within a boot, else by its wall stamps (never negative)."""
    if start[2] is not None and end[2] is not None and start[1] == end[1]:
        return (end[2] - start[2]) / NS
    return max(0.0, end[0] - start[0])


def _records(path: str | os.PathLike[str]) -> Iterator[Record]:
    """The journal's records across its segments.

    :raises JournalError: no such journal, a segment missing or unreadable.
    """
    if not segments.segments_of(path):
        raise JournalError(f"journal {path}: no such file")
    return segments.records(path)


def _readable(
    items: Iterable[PlayedRound | dict[str, Any] | Malformed], malformed: list[Malformed] | None
) -> Iterator[PlayedRound | dict[str, Any]]:
    """``items`` without the :class:`Malformed` ones, which go to ``malformed`` (when given)."""
    for item in items:
        if not isinstance(item, Malformed):
            yield item
        elif malformed is not None:
            malformed.append(item)


def rounds_of(
    records: Iterable[Record],
    paigow_edge: Fraction = PAIGOW_HOUSE_WAY_EDGE,
    malformed: list[Malformed] | None = None,
) -> Iterator[dict[str, Any]]:
    """Every ``round_result`` of ``records`` with ``odds`` and each entry's ``theo`` (the records that
    cannot be read are appended to ``malformed``)."""
    for item in _readable(read_rounds(records, paigow_edge), malformed):
        if isinstance(item, PlayedRound):
            yield item.data


def shoes_of(records: Iterable[Record], malformed: list[Malformed] | None = None) -> Iterator[dict[str, Any]]:
    """Every ``shoe_result`` of ``records`` with its rounds' figures (the records that cannot be
    read are appended to ``malformed``)."""
    figures = Figures()
    for item in _readable(read_rounds(records), malformed):
        if isinstance(item, PlayedRound):
            figures.add(item.figures)
        else:
            yield {**figures.to_json(), **item}  # the shoe's own "rounds" counts its void rounds too
            figures = Figures()


def export_rounds(
    path: str | os.PathLike[str],
    paigow_edge: Fraction = PAIGOW_HOUSE_WAY_EDGE,
    malformed: list[Malformed] | None = None,
) -> Iterator[dict[str, Any]]:
    """``journal export --rounds``: every ``round_result`` with ``odds`` and each entry's ``theo``."""
    return rounds_of(_records(path), paigow_edge, malformed)


def export_shoes(path: str | os.PathLike[str], malformed: list[Malformed] | None = None) -> Iterator[dict[str, Any]]:
    """``journal export --shoes``: every ``shoe_result`` with its rounds' figures."""
    return shoes_of(_records(path), malformed)


#: Feed message types that are not decisions (:mod:`firmware_host.feed.schema`).
_NOT_DECISIONS = frozenset({"journal_opened", "device_event"})


def feed_records(messages: Iterable[dict[str, Any]]) -> Iterator[Record]:
    """The floor's stored feed messages of one table as the journal records they came from
    (decisions only count here), so ``floor export`` prints what ``journal export`` prints."""
    for message in messages:
        kind = "meta" if message["type"] in _NOT_DECISIONS else "decision"
        yield Record(
            int(message["journal_seq"]),
            kind,
            str(message["type"]),
            message.get("at"),
            message.get("round"),
            dict(message["data"]),
            str(message.get("prev_hash", "")),
            str(message.get("hash", "")),
            None,
        )


def report(
    path: str | os.PathLike[str],
    by: str,
    day: datetime.time | GamingDay = DEFAULT_DAY_STARTS,
    paigow_edge: Fraction = PAIGOW_HOUSE_WAY_EDGE,
    malformed: list[Malformed] | None = None,
) -> list[dict[str, Any]]:
    """``journal report``: the figures of every shoe, gaming day or seat, in the order first played
    (the records that cannot be read are appended to ``malformed``, and are in no figure).

    :param by: one of :data:`GROUPINGS`. A Pai Gow round has no shoe (its group is null); a
        seat is a Baccarat seat or a Pai Gow betting position.
    :param day: the gaming day (the profile's; a time: one starting then, UTC). A round belongs to
        the day its ``round_result`` is decided in, by corrected time (:meth:`PlayedRound.dated`:
        the rounds dealt before NTP's first step of a boot are dated by that boot's offset).
    """
    clocks = ClockTrack()
    rounds = _readable(read_rounds(_records(path), paigow_edge, clocks), malformed)
    played = [item for item in rounds if isinstance(item, PlayedRound)]  # whole: the offsets are the boot's last
    groups: dict[Any, Figures] = {}
    for item in played:
        if by == "seat":
            for seat, figures in item.seats.items():
                groups.setdefault(int(seat) if seat.isdigit() else seat, Figures()).add(figures)
            continue
        dated = item.dated(clocks.offsets)
        key: Any = checkpoint.gaming_day(dated, day).isoformat() if by == "day" else item.data.get("shoe")
        if not isinstance(key, (str, int, type(None))):  # a shoe that is no shoe id: named, not hashed
            key = escaped(repr(key))[:64]
        groups.setdefault(key, Figures()).add(item.figures)
    return [{by: key, **figures.to_json()} for key, figures in groups.items()]
