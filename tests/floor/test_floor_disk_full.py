"""A collector whose store's disk is full (issue 27, item 5): it logs the real error ("database or
disk is full", not SQLite's "cannot rollback - no transaction is active" after SQLite rolled the
transaction back itself), acknowledges nothing of the batch, stores nothing of it, and stores it
all once the disk has room again."""

from __future__ import annotations

import logging
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from firmware_host.feed.broker import BrokerSettings
from firmware_host.floor.collector import Collector
from firmware_host.floor.store import FloorError, SqliteStore
from tests.support.feed_records import admit, payloads

#: Tables whose messages make one batch: more than a page of the database takes.
TABLES = 40


class _Client:
    """What the collector asks of its MQTT client when it flushes: the acknowledgements."""

    def __init__(self) -> None:
        self.acked: list[int] = []

    def ack(self, mid: int, qos: int) -> None:
        self.acked.append(mid)


def _messages() -> list[mqtt.MQTTMessage]:
    made = []
    for t in range(TABLES):
        for payload in payloads(f"T{t}"):
            message = mqtt.MQTTMessage(len(made) + 1, f"tablehost/T{t}/events".encode())
            message.payload, message.qos = payload, 1
            made.append(message)
    return made


@pytest.fixture
def full(tmp_path: Path) -> SqliteStore:
    """A store on a disk that holds no more than its pages now (SQLite's ``max_page_count``)."""
    store = SqliteStore(tmp_path / "floor.sqlite")
    store.ingest(admit(payloads("T0")[:1], table="T0"))
    (pages,) = store._conn.execute("PRAGMA page_count").fetchone()
    store._conn.execute(f"PRAGMA max_page_count = {pages}")
    return store


def test_a_full_disk_is_the_error_raised_and_nothing_is_stored(full: SqliteStore) -> None:
    with pytest.raises(FloorError, match="database or disk is full") as raised:
        full.ingest(admit([p for t in range(TABLES) for p in payloads(f"T{t}")[1:]], table="T0"))
    assert "rollback" not in str(raised.value)
    assert full.tables() == ["T0"] and full.status("T0").last_seq == 1


def test_the_collector_logs_the_full_disk_and_acknowledges_nothing(
    full: SqliteStore, caplog: pytest.LogCaptureFixture
) -> None:
    collector = Collector(full, BrokerSettings("mqtt://127.0.0.1:1"), None)
    client = _Client()
    sent = _messages()
    collector._batch = list(sent)
    with caplog.at_level(logging.WARNING, "tablehost.floor"):
        assert collector._flush(client) is False  # type: ignore[arg-type]
    assert client.acked == [] and len(collector._batch) == len(sent)  # kept, for the broker to hold
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "database or disk is full" in errors[0]
    assert not any("rollback" in r.getMessage() for r in caplog.records)
    assert collector.stats.counts["stored"] == 0 and full.tables() == ["T0"]

    full._conn.execute("PRAGMA max_page_count = 1073741823")  # room again: the next flush stores it all
    assert collector._flush(client) is True
    assert sorted(client.acked) == [m.mid for m in sent]
    assert all(full.status(f"T{t}").last_seq == len(payloads()) for t in range(TABLES))
