"""Helpers for the journal tests: build a journal, and tamper with it the way someone with
file access would (raw SQLite, bypassing the :class:`~firmware_host.host.journal.Journal` API)."""

from __future__ import annotations

import hashlib
import pathlib
import sqlite3
from typing import Any

from drivers.events import DeviceEvent, event
from firmware_host.host.journal import Journal
from firmware_host.host.journal_codec import encode
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import DealerCommand, WagerPlaced

KEY = bytes(range(32))
OTHER_KEY = bytes(range(1, 33))


@event
class JournalTestReading(DeviceEvent):
    """Test-only event with nested and optional fields, to prove ``steps()`` rebuilds them exactly."""

    values: tuple[int, ...]
    label: str | None = None
    extra: dict | None = None


def sample_steps() -> list[tuple[float, DeviceEvent, list[Decision]]]:
    """A few steps resembling a Baccarat round, with a round_result at the end."""
    return [
        (1000.25, WagerPlaced("dealer", 3, "banker", 2500), []),
        (1001.5, DealerCommand("buttons", "no_more_bets"), [Decision("prompt", {"action": "deal", "to": "player"}, 7)]),
        (
            1002.0,
            JournalTestReading("shoe", (9, 2), "ünïcode", {"k": [1, 2]}),
            [Decision("announce", {"text": "Player 1"}, 7), Decision("lamp", {"colour": "amber"}, 7)],
        ),
        (
            1003.75,
            JournalTestReading("shoe", (), None),
            [
                Decision("round_result", {"round": 7, "winner": "banker", "cards": ["9S", "2H", "KD", "5C"]}, 7),
                Decision("shoe_result", {"shoe": 1, "rounds": 7}, None),
            ],
        ),
    ]


def build(path: pathlib.Path, *, key: bytes | None = None) -> list[tuple[float, DeviceEvent, list[Decision]]]:
    """Create a journal at ``path`` holding a meta record and :func:`sample_steps`; return the steps."""
    steps = sample_steps()
    with Journal.open(path, hmac_key=key) as journal:
        journal.append_meta("table", {"table": "T1", "game": "baccarat"}, at=999.0)
        for at, ev, decisions in steps:
            journal.append_step(at, ev, decisions)
    return steps


def execute(path: pathlib.Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Run raw SQL on the journal file and commit."""
    conn = sqlite3.connect(path)
    try:
        result = conn.execute(sql, args).fetchall()
        conn.commit()
        return result
    finally:
        conn.close()


def rows(path: pathlib.Path) -> list[tuple[Any, ...]]:
    """Every stored row in seq order."""
    return execute(path, "SELECT seq, kind, type, at, round, data, prev_hash, hash, mac FROM records ORDER BY seq")


def rechain(path: pathlib.Path, from_seq: int) -> None:
    """Recompute every hash from ``from_seq`` on, as an attacker without the key can (MACs stay as they were)."""
    all_rows = rows(path)
    prev = all_rows[from_seq - 2][7] if from_seq > 1 else "0" * 64
    for seq, kind, type_, at, round_, data, _prev, _hash, _mac in all_rows[from_seq - 1 :]:
        new_hash = hashlib.sha256(encode(seq, kind, type_, at, round_, data, prev)).hexdigest()
        execute(path, "UPDATE records SET prev_hash = ?, hash = ? WHERE seq = ?", prev, new_hash, seq)
        prev = new_hash
