"""The floor's store: idempotent by (table, seq), continuity (gaps, repairs, breaks), refusals:
the same on both stores (SQLite and a real PostgreSQL, the ``floor_db`` fixture)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.floor.tables import FloorDb
from firmware_host.feed import schema
from firmware_host.feed.schema import FeedState
from firmware_host.floor.store import FloorError, FloorStore, SqlStore
from tests.support.feed_records import Rec, admit, payloads


def ingest(store: SqlStore, *items: bytes, table: str = "T1", leaf: str = "events") -> list[str]:
    """Through an unsigned collector's checks (signatures: tests/floor/test_floor_signed.py)."""
    return [o.kind for o in store.ingest(admit(list(items), table, leaf))]


@pytest.fixture
def store(floor_db: FloorDb) -> Iterator[SqlStore]:
    made = floor_db.open()
    yield made
    made.close()


def test_a_message_stored_twice_is_kept_once_and_counted_as_a_duplicate(store: SqlStore) -> None:
    sent = payloads()
    assert ingest(store, *sent, sent[2], sent[0]) == ["stored"] * len(sent) + ["duplicate", "duplicate"]
    status = store.status("T1")
    assert (status.last_seq, status.max_seq, status.gaps, status.duplicates, status.breaks) == (6, 6, [], 2, 0)
    assert [m["seq"] for m in store.messages("T1")] == [1, 2, 3, 4, 5, 6]
    assert list(store.export("T1", "round_result")) == [{"round": 1, "winner": "banker"}]


def test_gaps_are_reported_and_a_late_message_repairs_them(store: SqlStore) -> None:
    sent = payloads()
    ingest(store, sent[0], sent[1], sent[4], sent[5])
    assert store.gaps("T1") == [(3, 4)] and store.status("T1").last_seq == 2
    ingest(store, sent[3], sent[2])
    assert store.gaps("T1") == [] and store.status("T1").last_seq == 6
    assert [p["kind"] for p in store.problems("T1")] == ["repair", "repair"]
    assert store.status("T1").breaks == 0  # the late messages link both ways


def test_a_forged_message_with_a_wrong_hash_is_refused_and_logged(store: SqlStore) -> None:
    forged = schema.check_message(payloads()[5])
    forged["data"] = {"round": 1, "winner": "player"}
    ingest(store, payloads()[0])
    assert ingest(store, schema.encode(forged)) == ["refused"]
    assert store.refusals("T1")[0]["reason"] == "message 6: its content does not match its hash"
    assert (store.status("T1").max_seq, store.status("T1").refused) == (1, 1)


def test_unsigned_a_forged_message_with_its_hash_recomputed_breaks_the_chain(store: SqlStore) -> None:
    """Without signatures (``--unsigned``) the chain alone shows the forgery: signed, it is refused."""
    sent = payloads()
    ingest(store, *sent[:5])
    forged = schema.check_message(sent[5])
    forged = schema.seal({**forged, "data": {"round": 1, "winner": "player"}, "prev_hash": "1" * 64})
    assert ingest(store, schema.encode(forged)) == ["stored"]
    assert store.status("T1").breaks == 1
    assert store.problems("T1")[-1]["detail"] == "prev_hash is not the hash of message 5"
    # ... and the genuine message 6 arriving after it conflicts: the first is kept, and it is a break too
    assert ingest(store, sent[5]) == ["conflict"]
    assert store.status("T1").breaks == 2


def test_a_message_of_another_table_on_this_tables_topic_is_refused(store: SqlStore) -> None:
    ingest(store, payloads()[0])
    assert ingest(store, payloads("T2")[0], table="T1") == ["refused"]
    assert store.refusals()[0]["reason"] == "message of table 'T2' on the topic of table 'T1'"
    assert (store.status("T1").max_seq, store.status("T1").refused) == (1, 1)


def test_the_retained_status_says_online_with_the_version(store: SqlStore) -> None:
    status = b'{"table": "T1", "state": "online", "version": "0.1.0", "game": "baccarat", "seq": 0}'
    assert ingest(store, status, leaf="status") == ["status"]
    assert ingest(store, status.replace(b'"T1"', b'"T9"'), leaf="status") == ["refused"]
    got: Any = store.status("T1")
    assert (got.online, got.version, got.game) == (True, "0.1.0", "baccarat")


def test_an_unknown_table_or_database_is_a_clear_error(store: SqlStore, tmp_path: Path) -> None:
    with pytest.raises(FloorError, match="no table 'T7'"):
        store.status("T7")
    with pytest.raises(FloorError, match="no such file"):
        FloorStore(tmp_path / "missing.sqlite", read_only=True)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    stored=st.sets(st.integers(1, 24), max_size=24),
    settled=st.sets(st.integers(1, 24), max_size=6),
    broken=st.sets(st.integers(2, 24), max_size=3),
    conflicted=st.sets(st.integers(1, 24), max_size=2),
    hint=st.integers(1, 24),
)
def test_the_floors_acknowledgement_is_the_longest_chain_stored_or_settled(
    store: SqlStore, stored: set[int], settled: set[int], broken: set[int], conflicted: set[int], hint: int
) -> None:
    """Issue 27: what the floor acknowledges is read from the store, the same on both engines,
    from any seq of the proven chain as the starting point (a collector's last answer). It is one
    chain: a message whose prev_hash is not the hash before it (a break, or another journal's
    message), or a seq held twice by two hashes (a message and a settled one: a conflict), ends it."""
    table, settled = f"H{uuid.uuid4().hex[:12]}", (settled - stored) | (conflicted & stored)

    def hash_at(seq: int) -> str:
        return f"m{seq}" if seq in stored else f"s{seq}" if seq in settled else "none"

    def prev(seq: int) -> str:
        return "broken" if seq in broken else hash_at(seq - 1) if seq > 1 else schema.GENESIS_HASH

    with store._db() as db:
        store._begin(db, [table])
        for seq in stored:
            db.execute(
                "INSERT INTO messages (table_id, seq, journal_seq, journal_hash, at, round, type, data, prev_hash, "
                "hash, received_at) VALUES ($1, $2, 1, 'x', 0, 0, 't', '{}', $3, $4, 0)",
                (table, seq, prev(seq), f"m{seq}"),
            )
        for seq in settled:
            db.execute(
                "INSERT INTO settled (table_id, seq, hash, reason, at) VALUES ($1, $2, $3, 'r', 0)",
                (table, seq, f"s{seq}"),
            )
        db.execute("COMMIT")

    def chains_on(seq: int) -> bool:  # every hash held at seq has the next chained to it
        hashes = {f"m{seq}"} & {f"m{s}" for s in stored} | {f"s{seq}"} & {f"s{s}" for s in settled}
        return seq + 1 in settled or (seq + 1 in stored and hashes == {prev(seq + 1)})

    end = 1 if 1 in stored | settled else 0
    while end and chains_on(end):
        end += 1
    expected = (end, hash_at(end)) if end else (0, schema.GENESIS_HASH)
    got = store.contiguous(table)
    assert got[0] == expected[0] and got[1] in ({f"m{end}", f"s{end}"} if end in stored & settled else {expected[1]})
    if hint <= end:
        assert store.contiguous(table, hint)[0] == end
    with store._db() as db:  # where a collector starts after a restart: what it remembered, ...
        db.execute("INSERT INTO tables (table_id, last_seen) VALUES ($1, 0)", (table,))
    store.remember_ack(table, min(hint, end))
    assert store.contiguous(table)[0] == end
    store.remember_ack(table, 10**6)  # ... or a hint no longer held (a hand-edited database): from seq 1
    assert store.contiguous(table)[0] == end


def journal_messages(count: int, at: float) -> list[bytes]:
    """``count`` feed messages of T1 made from one journal (``at``: its clock, so two journals'
    chains differ from seq 1)."""
    records = [
        Rec(n, "decision", "round_result", {"round": n, "winner": "banker"}, round=n, at=at + n)
        for n in range(1, count + 1)
    ]
    return [schema.encode(m) for m, _ in schema.derive("T1", records, FeedState())]


def test_a_second_journal_stored_over_the_first_is_not_acknowledged_as_held(store: SqlStore) -> None:
    """Review (HIGH): journal A's seqs 1..100 stored, then journal B's 1..150 of the same table:
    B's 1..100 conflict (the floor keeps A's), its 101..150 are stored but chain to B's 100, which
    the floor does not hold. The acknowledgement stays at A's 100, so the table resends B's."""
    first, second = journal_messages(100, 1000.0), journal_messages(150, 2000.0)
    assert ingest(store, *first) == ["stored"] * 100
    kinds = ingest(store, *second)
    assert kinds.count("conflict") == 100 and kinds.count("stored") == 50
    seq, hash = store.contiguous("T1")
    assert (seq, hash) == (100, json.loads(first[99])["hash"])
    assert store.contiguous("T1", 100) == (seq, hash)  # from a collector's last answer, too
