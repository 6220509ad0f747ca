"""A batch is stored set-based (one read, outcomes in Python, one insert): it must give exactly
what storing its messages one per batch gives, on both stores (SQLite, and a real PostgreSQL).

Arbitrary batches over a few tables' chains: any order, repeats (duplicates), a second,
different message for a seq (a conflict), a broken ``prev_hash``, gaps and their repairs, and
status messages, after an arbitrary earlier history. Refusals are left out: a refusal is
counted under its table only once the table has a row, and a batch makes its tables' rows
before its refusals (as it always has), which one message per batch cannot match.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.floor.tables import FloorDb
from firmware_host.feed import schema
from firmware_host.floor import store_sql
from firmware_host.floor.admission import Admission, Admitted, Refusal
from firmware_host.floor.store_sql import SqlStore
from tests.support.floor_db import STORES

#: Messages per table's chain, and tables per example.
LENGTH, TABLES = 8, 3
#: What is sent for a seq: the genuine message, another message for it, or one whose prev_hash is wrong.
VARIANTS = ("genuine", "other", "broken")
#: Each example's tables are its own (the databases are the test's, shared by its examples).
EXAMPLES = itertools.count()

#: One item sent: (table index, seq, variant), or (table index, "status", state).
item = st.one_of(
    st.tuples(st.integers(0, TABLES - 1), st.integers(1, LENGTH), st.sampled_from(VARIANTS)),
    st.tuples(st.integers(0, TABLES - 1), st.just("status"), st.sampled_from(("online", "offline"))),
)


def messages(table: str) -> dict[tuple[int, str], dict[str, Any]]:
    """Every message that may be sent for ``table``, by (seq, variant)."""
    made: dict[tuple[int, str], dict[str, Any]] = {}
    prev = schema.GENESIS_HASH
    for seq in range(1, LENGTH + 1):
        body = {
            "table": table,
            "seq": seq,
            "journal_seq": seq,
            "journal_hash": f"{seq:064x}",
            "at": 10.5,
            "round": None,
            "type": "lamp",
            "data": {"n": seq},
            "prev_hash": prev,
        }
        made[seq, "genuine"] = schema.seal(body)
        made[seq, "other"] = schema.seal({**body, "data": {"n": seq, "other": True}})
        made[seq, "broken"] = schema.seal({**body, "prev_hash": "1" * 64})
        prev = made[seq, "genuine"]["hash"]
    return made


def admitted(tables: list[str], chains: list[dict[Any, Any]], sent: list[tuple[int, Any, str]]) -> list[Admitted]:
    admission, items = Admission("tablehost", None), []
    for index, seq, variant in sent:
        table = tables[index]
        if seq == "status":
            topic = f"tablehost/{table}/status"
            payload = schema.encode(
                {"table": table, "state": variant, "version": "0.1.0", "game": "baccarat", "seq": 0}
            )
        else:
            topic, payload = f"tablehost/{table}/events", schema.encode(chains[index][seq, variant])
        got = admission.admit(topic, payload)
        assert not isinstance(got, Refusal), got
        items.append(got)
    return items


def state(store: SqlStore, tables: list[str]) -> dict[str, Any]:
    """What the store holds of ``tables``, without the times of receipt."""
    held: dict[str, Any] = {}
    for table in tables:
        if table not in store.tables():
            continue
        status = store.status(table)
        held[table] = {
            "messages": list(store.read(table)),
            "problems": [{k: v for k, v in p.items() if k != "at"} for p in store.problems(table)],
            "gaps": status.gaps,
            "counts": (status.last_seq, status.max_seq, status.breaks, status.duplicates),
            "status": (status.online, status.version, status.game),
        }
    return held


@pytest.fixture(params=STORES)
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[SqlStore, SqlStore]]:
    """Two empty stores of one engine: one takes whole batches, the other a message per batch."""
    if request.param == "sqlite":
        specs = [FloorDb(str(tmp_path / f"{name}.sqlite"), tmp_path) for name in ("together", "alone")]
    else:
        import psycopg

        db: FloorDb = request.getfixturevalue("postgres_db")
        assert db.password_file is not None
        with psycopg.connect(db.spec, password=db.password_file.read_text().strip(), autocommit=True) as admin:
            admin.execute("CREATE SCHEMA alone")  # the second store: the same database, its own schema
        specs = [db, FloorDb(f"{db.spec}?options=-c%20search_path%3Dalone", tmp_path, db.password_file)]
    together, alone = (spec.open() for spec in specs)
    yield together, alone
    together.close()
    alone.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(earlier=st.lists(item, max_size=8), batch=st.lists(item, min_size=1, max_size=24))
def test_a_batch_is_stored_as_its_messages_one_by_one(
    stores: tuple[SqlStore, SqlStore], earlier: list[tuple[int, Any, str]], batch: list[tuple[int, Any, str]]
) -> None:
    together, alone = stores
    example = next(EXAMPLES)
    tables = [f"E{example}-T{i}" for i in range(TABLES)]
    chains = [messages(table) for table in tables]
    for store in stores:  # the same history in both
        for one in admitted(tables, chains, earlier):
            store.ingest([one])
    items = admitted(tables, chains, batch)
    got = together.ingest(items)
    expected = [outcome for one in items for outcome in alone.ingest([one])]
    assert got == expected
    assert state(together, tables) == state(alone, tables)
    assert all(table in together.tables() for table in {tables[i] for i, _, _ in batch})


def test_a_batch_sees_its_own_earlier_messages(tmp_path: Path) -> None:
    """The cases the property must cover, written out: in one batch, message 3 before 2 repairs
    nothing and opens a gap; 2 then fills it and links both ways; 2 again is a duplicate; a
    different 2 is a conflict; a 5 with a wrong prev_hash breaks at 5 only when 4 is there."""
    store = FloorDb(str(tmp_path / "floor.sqlite"), tmp_path).open()
    try:
        chain = messages("T1")
        sent = [(0, 1, "genuine"), (0, 3, "genuine"), (0, 2, "genuine"), (0, 2, "genuine"), (0, 2, "other")]
        sent += [(0, 5, "broken"), (0, 4, "genuine")]
        kinds = [(o.kind, o.seq, o.gap) for o in store.ingest(admitted(["T1"], [chain], sent))]
        assert kinds == [
            ("stored", 1, None),
            ("stored", 3, (2, 2)),
            ("stored", 2, None),
            ("duplicate", 2, None),
            ("conflict", 2, None),
            ("stored", 5, (4, 4)),
            ("stored", 4, None),
        ]
        problems = [(p["seq"], p["kind"], p["detail"]) for p in store.problems("T1")]
        assert problems == [
            (2, "repair", "fills a gap below seq 3"),
            (2, "break", "a second, different message for this seq (the first is kept)"),
            (5, "break", "prev_hash is not the hash of message 4"),
            (4, "repair", "fills a gap below seq 5"),
        ]
        status = store.status("T1")
        assert (status.max_seq, status.gaps, status.duplicates, status.breaks) == (5, [], 1, 2)
    finally:
        store.close()


@pytest.fixture
def store(floor_db: FloorDb) -> Iterator[SqlStore]:
    made = floor_db.open()
    yield made
    made.close()


def test_a_message_stored_meanwhile_by_another_writer_is_a_duplicate_or_a_conflict(
    store: SqlStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer the engine does not hold off stores message 2 between the batch's read and its
    insert (here: the read does not see it). The insert does not take it, and the batch is
    written again a message at a time: 2 is a duplicate, and a different 2 a conflict."""
    chain = messages("T1")
    store.ingest(admitted(["T1"], [chain], [(0, 2, "genuine")]))
    monkeypatch.setattr(store, "_chains", lambda db, events: {})  # read before the other writer's commit
    outcomes = store.ingest(admitted(["T1"], [chain], [(0, 1, "genuine"), (0, 2, "genuine"), (0, 3, "genuine")]))
    assert [(o.kind, o.seq) for o in outcomes] == [("stored", 1), ("duplicate", 2), ("stored", 3)]
    (alone,) = store.ingest(admitted(["T1"], [chain], [(0, 2, "other")]))
    assert (alone.kind, alone.seq) == ("conflict", 2)
    monkeypatch.undo()
    status = store.status("T1")
    assert (status.max_seq, status.gaps, status.duplicates, status.breaks) == (3, [], 1, 1)
    assert [m["hash"] for m in store.messages("T1")] == [chain[s, "genuine"]["hash"] for s in (1, 2, 3)]


def test_a_message_with_nul_in_its_data_is_stored_and_read_back_as_sent(store: SqlStore) -> None:
    """The insert's rows travel as one JSON document on PostgreSQL: escapes survive it."""
    chain = messages("T1")
    body = {k: v for k, v in chain[1, "genuine"].items() if k != "hash"}
    chain[1, "odd"] = schema.seal({**body, "data": {"x": "\x00", "y": '\\u0000 \u00e9 "\n'}})
    assert [o.kind for o in store.ingest(admitted(["T1"], [chain], [(0, 1, "odd")]))] == ["stored"]
    assert list(store.read("T1")) == [chain[1, "odd"]]


def test_a_value_the_database_cannot_hold_is_refused_alone_and_the_batch_goes_on(
    store: SqlStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Message 2 carries a journal_seq beyond a 64-bit integer (as if Admission had let it by):
    the set-based insert fails, the batch is written again a message at a time, and only 2 is
    refused."""
    chain = messages("T1")
    row = store_sql.message_row

    def out_of_range(item: Admitted, now: float) -> tuple[Any, ...]:
        made = row(item, now)
        return (*made[:2], 2**63, *made[3:]) if item.message["seq"] == 2 else made

    monkeypatch.setattr(store_sql, "message_row", out_of_range)
    outcomes = store.ingest(admitted(["T1"], [chain], [(0, 1, "genuine"), (0, 2, "genuine"), (0, 3, "genuine")]))
    assert [(o.kind, o.seq) for o in outcomes] == [("stored", 1), ("refused", 2), ("stored", 3)]
    assert outcomes[1].detail.startswith("cannot store it: ")
    status = store.status("T1")
    assert (status.max_seq, status.gaps, status.refused) == (3, [(2, 2)], 1)
