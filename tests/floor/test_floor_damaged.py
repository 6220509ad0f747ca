"""``floor status`` and ``floor export`` on a damaged floor database (issue 20): never a traceback;
each record they cannot read is named, the rest is shown, and the exit status is 1."""

from __future__ import annotations

import contextlib
import io
import sqlite3
from pathlib import Path

import pytest

from firmware_host.cli import main
from firmware_host.floor.store import FloorStore
from tests.support.feed_records import admit, payloads


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "floor.sqlite"
    store = FloorStore(path)
    store.ingest(admit(payloads()))
    store.ingest(
        admit([b'{"table": "T1", "state": "online", "version": "0.2.0", "game": "baccarat", "seq": 6}'], leaf="status")
    )
    store.ingest(admit(payloads("T2"), table="T2"))
    store.close()
    return path


def damage(db: Path, sql: str) -> None:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute(sql)
        conn.commit()


@pytest.mark.parametrize(
    "sql, named",
    [
        (
            "UPDATE messages SET at = 'yesterday' WHERE table_id = 'T1' AND seq = 6",
            "message 6: cannot read it: at is 'yesterday'",
        ),
        (
            "UPDATE messages SET round = 'three' WHERE table_id = 'T1' AND seq = 6",
            "message 6: cannot read it: round is 'three'",
        ),
        (
            "UPDATE messages SET data = 'not json' WHERE table_id = 'T1' AND seq = 6",
            "message 6: cannot read it: data: not a JSON",
        ),
        (
            "UPDATE messages SET data = '[1]' WHERE table_id = 'T1' AND seq = 6",
            "message 6: cannot read it: data is not a JSON object",
        ),
        ("UPDATE messages SET data = x'ff00' WHERE table_id = 'T1' AND seq = 6", "message 6: cannot read it: data"),
        (
            "UPDATE messages SET journal_seq = 'ten' WHERE table_id = 'T1' AND seq = 6",
            "message 6: cannot read it: journal_seq",
        ),
    ],
)
def test_status_and_export_name_a_record_they_cannot_read(db: Path, sql: str, named: str) -> None:
    damage(db, sql)
    status, out, err = cli("floor", "status", "--db", str(db))
    assert status == 1 and f"T1: UNREADABLE table 'T1' {named}" in out
    assert "T2: no status, last seq 6 (of 6)" in out  # every other table still listed
    status, out, err = cli("floor", "export", "--db", str(db), "--table", "T1", "--messages")
    assert status == 1 and named in err and "Traceback" not in err
    assert len(out.splitlines()) == 5  # the five it can read
    status, out, err = cli("floor", "export", "--db", str(db), "--table", "T1", "--rounds")
    assert status == 1 and named in err and out == ""  # the only round_result is the damaged one


def test_a_status_column_that_is_not_json_is_named(db: Path) -> None:
    damage(db, "UPDATE tables SET status = '{not json' WHERE table_id = 'T1'")
    status, out, _ = cli("floor", "status", "--db", str(db))
    assert (
        status == 1 and "T1: no status, last seq 6" in out and "T1: UNREADABLE table 'T1' status: cannot read it" in out
    )
    status, out, _ = cli("floor", "status", "--db", str(db), "--json")
    assert status == 1 and '"unreadable": ["table \'T1\' status: cannot read it' in out


def test_a_seq_that_is_not_an_integer_is_named_and_the_gaps_still_computed(db: Path) -> None:
    damage(db, "UPDATE messages SET seq = 'six' WHERE table_id = 'T1' AND seq = 6")
    damage(db, "DELETE FROM messages WHERE table_id = 'T1' AND seq = 3")
    status, out, _ = cli("floor", "status", "--db", str(db))
    assert status == 1 and "last seq 2 (of 5)" in out and "gaps 3..3" in out
    assert "UNREADABLE table 'T1' message 'six': cannot read it: seq is 'six', not an integer" in out


def test_journal_verify_floor_reads_past_an_unreadable_record(tmp_path: Path) -> None:
    from tests.support.floor_audit import play, publish, verify

    journal, db = tmp_path / "journal.sqlite", tmp_path / "floor.sqlite"
    play(journal)
    publish(journal, db)
    damage(db, "UPDATE messages SET at = 'x' WHERE seq = 3")
    status, out = verify(journal, db)
    assert status == 0 and "matches the floor" in out


def test_a_database_of_the_first_format_is_read(tmp_path: Path) -> None:
    """Made before refusals were kept apart and messages signed: read as it is, read-only."""
    db = tmp_path / "old.sqlite"
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.executescript("""
            CREATE TABLE messages (table_id TEXT NOT NULL, seq INTEGER NOT NULL, journal_seq INTEGER NOT NULL,
                journal_hash TEXT NOT NULL, at REAL, round INTEGER, type TEXT NOT NULL, data TEXT NOT NULL,
                prev_hash TEXT NOT NULL, hash TEXT NOT NULL, received_at REAL NOT NULL,
                PRIMARY KEY (table_id, seq)) WITHOUT ROWID;
            CREATE TABLE tables (table_id TEXT PRIMARY KEY, status TEXT, last_seen REAL,
                duplicates INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE problems (id INTEGER PRIMARY KEY, table_id TEXT, seq INTEGER, kind TEXT NOT NULL,
                detail TEXT NOT NULL, topic TEXT, at REAL NOT NULL);
            INSERT INTO tables VALUES ('T1', NULL, 1.0, 0);
            INSERT INTO messages VALUES ('T1', 1, 1, '0', 1.0, NULL, 'journal_opened', '{}', '0', '1', 2.0);
        """)
    status, out, _ = cli("floor", "status", "--db", str(db))
    assert status == 0 and "T1: no status, last seq 1 (of 1)" in out and "refused 0" in out
    status, out, _ = cli("floor", "export", "--db", str(db), "--table", "T1", "--messages")
    assert status == 0 and '"type": "journal_opened"' in out and "key_id" not in out
