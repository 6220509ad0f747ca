"""A table's journal checked against the floor's anchors (``tablehost journal verify PATH --floor DB``).

Every feed message carries ``journal_hash``, the chain hash of the journal record it comes
from, and a chain hash commits to every record before it. So the floor holds an external
anchor of every table's journal, which shows what no chain can show by itself:

- **cut short** — the floor anchors a record the journal no longer has (its last records deleted);
- **rewritten** — a record's hash differs from the floor's anchor although the chain verifies
  (the chain was rebuilt after an edit): the first record that differs is named, by comparing
  the floor's copy of each published record, or bounded by the anchors around it;
- **swapped** — record 1 (published as ``journal_opened``) differs: another journal altogether.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import Any

from firmware_host.feed import schema

__all__ = ["AuditReport", "audit", "CUT_SHORT", "REWRITTEN", "SWAPPED"]

CUT_SHORT, REWRITTEN, SWAPPED = "cut short", "rewritten", "swapped"


@dataclasses.dataclass(frozen=True)
class AuditReport:
    """The result of :func:`audit`.

    :param ok: every anchor the floor holds matches the journal.
    :param anchors: anchors checked; ``matched_seq``: the last journal record matched by one.
    :param journal_last_seq: the journal's last record; ``floor_last_seq``: the last the floor anchors.
    :param problem: :data:`CUT_SHORT`, :data:`REWRITTEN` or :data:`SWAPPED` (None when ok).
    :param first_seq, last_seq: the first record that differs is in ``first_seq..last_seq``
        (equal when the floor's copy names it exactly).
    """

    ok: bool
    anchors: int
    matched_seq: int
    journal_last_seq: int
    floor_last_seq: int
    problem: str | None = None
    first_seq: int | None = None
    last_seq: int | None = None
    detail: str = ""


def audit(messages: Iterable[dict[str, Any]], records: Iterable[schema.JournalRecord]) -> AuditReport:
    """Check the journal ``records`` (in seq order) against the floor's ``messages`` of that table (in seq order)."""
    journal = _Lookahead(iter(records))
    checked, matched, floor_last = 0, 0, 0
    copies: dict[int, dict[str, Any]] = {}  # the floor's copies since the last matching anchor
    for message in messages:
        seq, anchor = message["journal_seq"], message["journal_hash"]
        floor_last = max(floor_last, seq)
        checked += 1
        copies[seq] = message
        record = journal.upto(seq)
        if record is None or record.seq != seq:
            last = journal.last_seq
            return AuditReport(
                False,
                checked,
                matched,
                last,
                _floor_end(messages, floor_last),
                CUT_SHORT,
                last + 1,
                last + 1,
                f"the journal ends at record {last}; the floor anchors record {seq} (feed seq "
                f"{message['seq']}): records {last + 1}.. were cut off",
            )
        if record.hash == anchor:
            matched, copies = seq, {}
            journal.forget(seq)
            continue
        if matched == 0:
            return AuditReport(
                False,
                checked,
                0,
                journal.drain(),
                _floor_end(messages, floor_last),
                SWAPPED,
                1,
                seq,
                f"record {seq} differs from the floor's anchor and no earlier one matches: "
                "not the journal this table published",
            )
        changed = _first_changed(journal.seen_between(matched, seq), copies)
        if changed is not None:
            first, last, detail = changed, changed, f"record {changed} differs from the floor's copy of it"
        else:
            first, last = matched + 1, seq
            detail = f"one of records {first}..{seq} was changed (the floor anchors {matched} and {seq})"
        return AuditReport(
            False,
            checked,
            matched,
            journal.drain(),
            _floor_end(messages, floor_last),
            REWRITTEN,
            first,
            last,
            f"{detail}, and the chain rebuilt over it",
        )
    return AuditReport(True, checked, matched, journal.drain(), floor_last)


def _floor_end(messages: Iterable[dict[str, Any]], seen: int) -> int:
    """The last journal seq the floor anchors (the rest of ``messages`` consumed)."""
    return max([seen, *(int(m["journal_seq"]) for m in messages)])


def _first_changed(records: list[schema.JournalRecord], copies: dict[int, dict[str, Any]]) -> int | None:
    """The first record whose content differs from the floor's copy of it (None: no copy differs)."""
    for record in records:
        copy = copies.get(record.seq)
        if copy is None:
            continue
        made = schema.publishable(record)
        if made != (copy["type"], copy["data"]) or record.at != copy["at"] or record.round != copy["round"]:
            return record.seq
    return None


class _Lookahead:
    """The journal's records, read forward once, remembering those since the last anchor."""

    def __init__(self, records: Iterator[schema.JournalRecord]) -> None:
        self._records = records
        self._recent: list[schema.JournalRecord] = []
        self.last_seq = 0

    def upto(self, seq: int) -> schema.JournalRecord | None:
        """Read on to record ``seq``; return it (None: the journal ends first)."""
        while self.last_seq < seq:
            record = next(self._records, None)
            if record is None:
                return None
            self.last_seq = record.seq
            self._recent.append(record)
        return next((r for r in reversed(self._recent) if r.seq == seq), None)

    def forget(self, seq: int) -> None:
        """Drop the records up to ``seq`` (an anchor matched them all)."""
        self._recent = [r for r in self._recent if r.seq > seq]

    def seen_between(self, after: int, upto: int) -> list[schema.JournalRecord]:
        """The records read with ``after < seq <= upto``."""
        return [r for r in self._recent if after < r.seq <= upto]

    def drain(self) -> int:
        """Read to the end; the last seq."""
        for record in self._records:
            self.last_seq = record.seq
        return self.last_seq
