"""A small journal and its floor's copy, for ``journal verify --floor`` (the audit and damage tests)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from drivers.events.shoe import CardRead
from firmware_host.cli import main
from firmware_host.feed import schema
from firmware_host.feed.schema import FeedState
from firmware_host.floor.store import FloorStore
from firmware_host.host.journal import Journal
from firmware_host.host.segments import records as read_records
from firmware_host.tables.decisions import Decision
from tests.support.feed_records import admit

__all__ = ["ROUNDS", "play", "publish", "verify"]

ROUNDS = 6


def play(path: Path, rounds: int = ROUNDS, start: float = 100.0) -> None:
    """A journal of ``rounds`` rounds: per round a card input (not published) and a round_result."""
    with Journal.open(path) as journal:
        journal.append_meta("table", {"table_id": "T1", "game": "baccarat"}, at=start)
        for n in range(1, rounds + 1):
            journal.append_step(
                start + n, CardRead(device="shoe", rank="9", suit="S"), [Decision("prompt", {"action": "deal"}, n)]
            )
            journal.append_step(
                start + n + 0.5,
                CardRead(device="shoe", rank="K", suit="D"),
                [Decision("round_result", {"round": n, "winner": "banker"}, n)],
            )


def publish(journal: Path, db: Path) -> None:
    """What the collector would hold after the feed of ``journal``."""
    store = FloorStore(db)
    sent = [schema.encode(m) for m, _ in schema.derive("T1", read_records(journal), FeedState())]
    store.ingest(admit(sent))
    store.close()


def verify(journal: Path, db: Path) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["journal", "verify", str(journal), "--floor", str(db)])
    return status, out.getvalue()
