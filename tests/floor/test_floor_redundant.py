"""Redundant collectors (issue 22): two ``tablehost floor`` processes, each with its own
persistent session, on one Mosquitto and one PostgreSQL. Every message reaches both; the store
keeps it once (``ON CONFLICT DO NOTHING``), and continuity is computed from the store, so gaps
and repairs are reported once, whichever collector stores what. Killed (SIGKILL) one, the
other, or both, at any moment, the store still ends with every message exactly once."""

from __future__ import annotations

import contextlib
import io
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from bench.feed.broker import Broker, floor_command, have_mosquitto
from bench.floor.tables import (
    FloorDb,
    floor_keys,
    floor_seq,
    journal_export,
    journal_rounds,
    provision,
    start_table,
    table_profile,
)
from firmware_host.cli import main
from firmware_host.feed.broker import BrokerSettings
from firmware_host.feed.signing import Keyring, Signer
from firmware_host.floor.collector import Collector
from tests.support.feed_records import payloads
from tests.support.floor_run import wait_for, wait_for_the_floor
from tests.support.paths import REPO

pytestmark = pytest.mark.skipif(not have_mosquitto(), reason="needs the Debian package mosquitto (make deps)")

ROUNDS = 24


@contextlib.contextmanager
def two_collectors(db: FloorDb, url: str) -> Iterator[list[Collector]]:
    """Collectors ``floor-a`` and ``floor-b`` on threads, each with its own store and session."""
    keyring = Keyring(floor_keys(db.directory))
    stores = [db.open(), db.open()]
    collectors = [
        Collector(store, BrokerSettings(url), keyring, client_id=f"floor-{name}") for store, name in zip(stores, "ab")
    ]
    threads = [threading.Thread(target=c.run, daemon=True) for c in collectors]
    for thread in threads:
        thread.start()
    try:
        for collector in collectors:
            assert collector.subscribed.wait(10), "a collector did not subscribe"
        yield collectors
    finally:
        for collector, thread in zip(collectors, threads):
            collector.stop()
            thread.join(10)
        for store in stores:
            store.close()


def publish(port: int, table: str, messages: list[bytes]) -> None:
    sender = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    sender.connect("127.0.0.1", port)
    sender.loop_start()
    try:
        for message in messages:
            sender.publish(f"tablehost/{table}/events", message, qos=1).wait_for_publish(5)
    finally:
        sender.loop_stop()
        sender.disconnect()


def test_two_collectors_store_each_message_once_and_report_a_gap_and_its_repair_once(
    tmp_path: Path, postgres_db: FloorDb
) -> None:
    signer = Signer.from_file(provision(tmp_path, "T1"))
    sent = payloads("T1", signer)
    with Broker(tmp_path / "broker") as broker, two_collectors(postgres_db, broker.url) as collectors:
        publish(broker.port, "T1", [sent[0], sent[1], sent[4], sent[5]])
        wait_for(lambda: sum(c.counts["stored"] + c.counts["duplicate"] for c in collectors) == 8, what="both")
        store = collectors[0].store
        assert store.gaps("T1") == [(3, 4)] and store.status("T1").last_seq == 2
        publish(broker.port, "T1", [sent[3], sent[2]])
        wait_for(lambda: sum(c.counts["stored"] + c.counts["duplicate"] for c in collectors) == 12, what="both")
        status = store.status("T1")
        assert (status.gaps, status.last_seq, status.max_seq, status.breaks, status.duplicates) == ([], 6, 6, 0, 6)
        assert [p["kind"] for p in store.problems("T1")] == ["repair", "repair"]  # once each, not per collector
        assert sum(c.counts["stored"] for c in collectors) == 6  # each message stored by one of them
        assert sum(c.stats.gaps for c in collectors) == 1  # the gap 3..4 opened once


def collector_command(db: FloorDb, url: str, name: str) -> list[str]:
    return floor_command(url, db.args(), "--client-id", f"floor-{name}", "-v", keys=floor_keys(db.directory))


def start_collector(db: FloorDb, url: str, name: str) -> subprocess.Popen[str]:
    """``tablehost floor`` in a child process, returned once it is connected."""
    child = subprocess.Popen(
        collector_command(db, url, name), cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    wait_for(
        lambda: "floor: connected" in (child.stderr.readline() or "") or child.poll() is not None,
        30,  # type: ignore[union-attr]
        f"collector {name} connected",
    )
    assert child.poll() is None, f"collector {name} exited {child.returncode}"
    threading.Thread(target=child.stderr.read, daemon=True).start()  # type: ignore[union-attr]  # never blocks it
    return child


@pytest.mark.slow
def test_two_collectors_killed_in_turn_and_together_lose_and_duplicate_nothing(
    tmp_path: Path, postgres_db: FloorDb
) -> None:
    profile = table_profile(tmp_path, feed='broker = "mqtt://127.0.0.1:1"\nkeepalive_s = 2')
    journal = tmp_path / "journal.sqlite"
    with Broker(tmp_path / "broker") as broker:
        running = {name: start_collector(postgres_db, broker.url, name) for name in "ab"}
        try:
            table = start_table(profile, journal, ROUNDS, broker.url)
            for victims in ("a", "b", "ab", "ba"):
                seen = floor_seq(postgres_db)
                wait_for(lambda: floor_seq(postgres_db) > seen + 5 or table.poll() is not None, 60, "the feed")
                for name in victims:
                    running[name].send_signal(signal.SIGKILL)
                    running[name].wait()
                for name in victims:  # the broker queued for the dead one's session meanwhile
                    running[name] = start_collector(postgres_db, broker.url, name)
            out, err = table.communicate(timeout=120)
            assert table.returncode == 0, err[-3000:]
            assert journal_rounds(journal) == ROUNDS
            wait_for_the_floor(postgres_db, journal, profile, broker.url, ROUNDS)
        finally:
            for child in running.values():
                child.send_signal(signal.SIGTERM)
            for child in running.values():
                child.wait(20)
    assert all(child.returncode == 0 for child in running.values())
    store = postgres_db.open(read_only=True)
    try:
        status = store.status("SIM-BAC-1")
        assert (status.gaps, status.breaks, status.refused) == ([], 0, 0)
        seqs = [m["seq"] for m in store.messages("SIM-BAC-1")]
        assert seqs == list(range(1, len(seqs) + 1)) and status.max_seq == len(seqs)  # every seq exactly once
        assert status.duplicates >= len(seqs) // 2  # both sessions received the feed: the store kept it once
    finally:
        store.close()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert (
            main(
                [
                    "journal",
                    "verify",
                    str(journal),
                    "--floor",
                    postgres_db.spec,
                    "--floor-password-file",
                    str(postgres_db.password_file),
                ]
            )
            == 0
        ), out.getvalue()
    assert journal_export(journal)


def test_a_collector_rides_out_a_postgresql_restart(
    tmp_path: Path, postgres_db: FloorDb, postgres_server: object
) -> None:
    """The store cannot be written while the server restarts: the batch stays unacknowledged and
    is written once the server is back, nothing lost, nothing twice."""
    signer = Signer.from_file(provision(tmp_path, "T1"))
    sent = payloads("T1", signer)
    with Broker(tmp_path / "broker") as broker, two_collectors(postgres_db, broker.url) as collectors:
        publish(broker.port, "T1", sent[:2])
        wait_for(lambda: collectors[0].store.status("T1").max_seq == 2, what="the first messages")
        postgres_server.restart()  # type: ignore[attr-defined]
        publish(broker.port, "T1", sent[2:])
        wait_for(lambda: all(c.stats.last_seq.get("T1") == 6 for c in collectors), 60, "both collectors caught up")
        status = collectors[1].store.status("T1")
        assert (status.max_seq, status.gaps, status.breaks) == (6, [], 0)
        assert [m["seq"] for m in collectors[1].store.messages("T1")] == [1, 2, 3, 4, 5, 6]
        assert all(c.stats.write_failures >= 1 for c in collectors)  # each met the restart, and retried


def test_a_broken_link_is_found_when_two_collectors_store_its_ends_at_once(postgres_db: FloorDb) -> None:
    """Message 5's ``prev_hash`` does not match message 4. Collector A stores 5 and, before it
    commits, collector B stores 4: B waits for A's commit (the store holds each table's writers
    in turn), then sees 5, and the break is found. Without that, each would check its link
    against a database without the other's row, and the break would be missed. Unsigned stores:
    the chain alone."""
    import time

    from firmware_host.feed import schema
    from tests.support.feed_records import admit

    first, second = postgres_db.open(), postgres_db.open()
    try:
        sent = payloads("T1")
        bad = schema.encode(schema.seal({**schema.check_message(sent[4]), "prev_hash": "1" * 64}))
        first.ingest(admit(sent[:3]))
        with first._db() as db:
            first._begin(db, ["T1"])
            assert first._one(db, admit([bad])[0], time.time()).kind == "stored"  # type: ignore[arg-type]
            other = threading.Thread(target=second.ingest, args=(admit([sent[3]]),))
            other.start()
            other.join(1.0)
            assert other.is_alive()  # B waits for A
            db.execute("COMMIT")
        other.join(10)
        status = second.status("T1")
        assert (status.max_seq, status.gaps, status.breaks) == (5, [], 1)
        assert [p["detail"] for p in second.problems("T1") if p["kind"] == "break"] == [
            "prev_hash is not the hash of message 4"
        ]
    finally:
        first.close()
        second.close()
