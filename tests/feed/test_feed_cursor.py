"""The feed's read API on the journal and its durable cursor beside the journal's records."""

from __future__ import annotations

import threading
from pathlib import Path

from drivers.events.shoe import CardRead
from firmware_host.feed.cursor import FeedCursor
from firmware_host.feed.schema import FeedState
from firmware_host.host.journal import Journal
from firmware_host.host.journal_verify import verify
from firmware_host.tables.decisions import Decision


def test_records_after_pages_through_the_journal_in_seq_order(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        for n in range(5):
            journal.append_step(float(n), CardRead(device="shoe", rank="9", suit="S"), [Decision("x", {"n": n})])
        assert [r.seq for r in journal.records_after(0, 4)] == [1, 2, 3, 4]
        assert [r.seq for r in journal.records_after(4, 100)] == list(range(5, 12))
        assert journal.records_after(11, 10) == []
        assert journal.records_after(2, 1)[0].hash == next(journal.records(3)).hash


def test_records_after_never_sees_a_step_half_written(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        seen: list[int] = []
        stop = threading.Event()

        def read() -> None:
            while not stop.is_set():
                seen.append(len(journal.records_after(1, 10_000)))

        reader = threading.Thread(target=read)
        reader.start()
        for n in range(200):  # each step is an input and two decisions: three records at once
            journal.append_step(
                float(n), CardRead(device="shoe", rank="9", suit="S"), [Decision("x", {}), Decision("y", {})]
            )
        stop.set()
        reader.join()
    assert seen and all(count % 3 == 0 for count in seen)


def test_the_cursor_is_durable_never_moves_back_and_leaves_the_chain_alone(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as journal:
        journal.append_meta("table", {"table_id": "T1"})
        cursor = FeedCursor(path, "T1")
        assert cursor.load() == FeedState()
        cursor.save(FeedState(5, 12, "a" * 64))
        cursor.save(FeedState(3, 7, "b" * 64))  # a late, older acknowledgement
        cursor.close()
    assert FeedCursor(path, "T1").load() == FeedState(5, 12, "a" * 64)
    assert FeedCursor(path, "T2").load() == FeedState()  # one cursor per table
    assert verify(path).ok
    with Journal.open(path) as journal:  # the journal opens and appends as before
        journal.append_meta("again", {})
    assert verify(path).ok
