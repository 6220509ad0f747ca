"""The dashboard's passes (:class:`~firmware_host.floor.dashboard.floor.Floor`) with the collector of
its own process: what the collector stores is handed over and shown without being read back from
the store; what only the store holds (another collector's writes, a table's status) is refreshed
from it; one batch per pass, never one per message. A real SQLite store and the collector's own
``process`` (admission and ingest), called without a broker; the passes are run by the test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware_host.feed import schema
from firmware_host.feed.broker import BrokerSettings
from firmware_host.floor.collector import Collector
from firmware_host.floor.dashboard import floor as floor_module
from firmware_host.floor.dashboard.floor import MAX_HANDED, Floor
from firmware_host.floor.model import FloorError
from firmware_host.floor.store import FloorStore
from tests.floor.dashboard.support import messages_of, store_messages

TABLES = [f"BAC-{n:02d}" for n in range(1, 6)]


class Rig:
    """A store, a collector writing it (no broker) and a dashboard's floor reading it."""

    def __init__(self, db: Path) -> None:
        self.store = FloorStore(db)
        self.collector = Collector(self.store, BrokerSettings("mqtt://127.0.0.1:1"), None)  # unsigned
        self.floor = Floor(lambda: FloorStore(db, read_only=True))
        self.collector.readers.append(self.floor.stored)
        self.floor.open()

    def publish(self, messages: list[dict[str, Any]]) -> None:
        self.collector.process([(f"tablehost/{m['table']}/events", schema.encode(m)) for m in messages])

    def status(self, table: str, state: str, seq: int) -> None:
        status = {"table": table, "state": state, "version": "0.3.0", "game": "baccarat", "seq": seq}
        self.collector.process([(f"tablehost/{table}/status", schema.encode(status))])

    def tile(self, table: str) -> dict[str, Any]:
        return self.floor._tiles["surveillance"][table]

    def close(self) -> None:
        self.floor.stop()
        self.store.close()


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    made = Rig(tmp_path / "floor.sqlite")
    yield made
    made.close()


@pytest.fixture(scope="module")
def feeds(journal: Path) -> dict[str, list[dict[str, Any]]]:
    return {table: messages_of(journal, table) for table in TABLES}


def test_what_the_collector_stores_is_shown_without_reading_it_back(rig: Rig, feeds: dict[str, Any]) -> None:
    rig.publish([m for t in TABLES for m in feeds[t][:5]])
    rig.floor.poll()  # the first pass: every table from the store
    assert {t: rig.tile(t)["seq"] for t in TABLES} == dict.fromkeys(TABLES, 5)
    store = rig.floor._store
    assert store is not None

    def no_reading_back(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the pass read back what the collector handed over")

    store.read = no_reading_back  # type: ignore[method-assign]
    batches, handed = rig.floor.batches, rig.floor.handed
    rest = [m for t in TABLES for m in feeds[t][5:]]
    for start in range(0, len(rest), 7):  # many writes between two passes
        rig.publish(rest[start : start + 7])
    changed = rig.floor.poll()
    assert changed == TABLES
    assert {t: rig.tile(t)["seq"] for t in TABLES} == {t: feeds[t][-1]["seq"] for t in TABLES}
    assert rig.tile("BAC-01")["round"] == max(m["round"] for m in feeds["BAC-01"] if m.get("round") is not None)
    assert rig.floor.batches == batches + 1  # one batch for all the writes since the last pass
    assert rig.floor.handed - handed == len(rest)


def test_what_only_the_store_holds_is_refreshed_from_it(rig: Rig, feeds: dict[str, Any], tmp_path: Path) -> None:
    rig.publish([m for t in TABLES for m in feeds[t][:5]])
    rig.floor.poll()
    store_messages(tmp_path / "floor.sqlite", feeds["BAC-03"][5:], status=None)  # another collector's write
    rig.floor.poll()
    assert rig.tile("BAC-03")["seq"] == feeds["BAC-03"][-1]["seq"]
    assert rig.tile("BAC-02")["seq"] == 5


def test_a_status_or_a_gap_is_refreshed_first(rig: Rig, feeds: dict[str, Any], monkeypatch: Any) -> None:
    rig.publish([m for t in TABLES for m in feeds[t][:5]])
    rig.status("BAC-04", "online", 5)
    rig.floor.poll()
    assert rig.tile("BAC-04")["online"] is True
    monkeypatch.setattr(floor_module, "BUDGET", 0.0)  # no time for refreshes in turn: only the stale first
    rig.floor.poll()  # the round of refreshes in turn starts; the budget allows one table
    rig.status("BAC-04", "offline", 5)
    rig.publish([feeds["BAC-05"][6]])  # seq 7: seq 6 missing, a gap
    refreshed = rig.floor.refreshed
    rig.floor.poll()  # at least one table a pass, whatever the budget: the stale first
    assert rig.tile("BAC-04")["online"] is False
    rig.floor.poll()
    assert rig.tile("BAC-05")["gaps"] == 1 and rig.tile("BAC-05")["seq"] == 7
    assert rig.floor.refreshed - refreshed == 2


def test_too_much_handed_over_between_two_passes_is_read_from_the_store(
    rig: Rig, feeds: dict[str, Any], monkeypatch: Any
) -> None:
    monkeypatch.setattr(floor_module, "MAX_HANDED", 3)
    assert MAX_HANDED > 3
    rig.publish(feeds["BAC-01"][:2])
    rig.floor.poll()
    rig.publish(feeds["BAC-01"][2:])  # more than 3 at once
    assert rig.floor._handed["BAC-01"] is None  # dropped: memory stays bounded if passes stall
    rig.floor.poll()
    assert rig.tile("BAC-01")["seq"] == feeds["BAC-01"][-1]["seq"]


def test_a_table_new_to_the_floor_is_read_whole_from_the_store(rig: Rig, feeds: dict[str, Any]) -> None:
    rig.publish(feeds["BAC-01"][:3])
    rig.floor.poll()
    rig.publish(feeds["BAC-02"])  # handed over and new: its watch starts from the store, all of it
    rig.floor.poll()
    assert rig.tile("BAC-02")["seq"] == feeds["BAC-02"][-1]["seq"]
    assert len(rig.floor.watches["BAC-02"].rounds) == sum(m["type"] == "round_result" for m in feeds["BAC-02"])


def test_nothing_is_kept_for_a_table_the_floor_has_not_read(rig: Rig, feeds: dict[str, Any]) -> None:
    rig.floor.poll()  # an empty floor
    rig.status("FAKE-1", "online", 0)  # a refusal or a status naming a table the floor does not hold
    rig.publish(feeds["BAC-01"][:3])
    assert not rig.floor._handed and not rig.floor._stale  # the next pass reads BAC-01 whole from the store
    rig.floor.poll()
    assert rig.tile("BAC-01")["seq"] == 3


def test_a_store_that_fails_a_pass_loses_nothing_handed_over(rig: Rig, feeds: dict[str, Any]) -> None:
    rig.publish(feeds["BAC-01"][:3])
    rig.floor.poll()
    store = rig.floor._store
    assert store is not None
    rig.publish(feeds["BAC-01"][3:6])

    def busy() -> list[str]:
        raise FloorError("database is locked")

    store.tables = busy  # type: ignore[method-assign]
    batches = rig.floor.batches
    with pytest.raises(FloorError):
        rig.floor.poll()  # the dashboard's thread logs it; the next pass tries again
    assert rig.tile("BAC-01")["seq"] == 6 and rig.floor.batches == batches + 1


def test_a_second_different_message_for_a_seq_in_the_same_batch_is_not_shown(rig: Rig, feeds: dict[str, Any]) -> None:
    """The store keeps the first of two messages with one seq (a break); the tile and the table's
    page must show that one, never the second, even when both came in one batch."""
    rig.publish(feeds["BAC-01"][:3])
    rig.floor.poll()
    genuine = feeds["BAC-01"][3]
    body = {name: value for name, value in genuine.items() if name != "hash"}
    forged = schema.seal({**body, "data": {**genuine["data"], "forged": True}})  # well formed, chained
    outcomes = rig.collector.process([("tablehost/BAC-01/events", schema.encode(m)) for m in (genuine, forged)])
    assert [o.kind for o in outcomes] == ["stored", "conflict"]
    handed = rig.floor._handed["BAC-01"]
    assert handed is not None and [m["data"] for m in handed] == [genuine["data"]]
