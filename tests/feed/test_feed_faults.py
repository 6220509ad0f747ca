"""Fault tests: whatever breaks between a table and the floor, the floor ends up holding exactly
the table's journal — each test ends with ``floor export`` equal to ``journal export`` (0 lost,
0 duplicated), no gap, no break, and ``journal verify --floor`` matching."""

from __future__ import annotations

import contextlib
import io
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from bench.feed.broker import Broker
from bench.floor.tables import (
    FloorDb,
    as_floor_db,
    floor_keys,
    floor_seq,
    journal_rounds,
    provision_floor,
    start_table,
    table_profile,
)
from bench.floor.tcp_proxy import TcpProxy
from firmware_host.cli import main
from firmware_host.feed import schema
from firmware_host.floor.store import FloorStore
from firmware_host.host import segments
from tests.support.floor_run import collecting, wait_for, wait_for_the_floor
from tests.support.paths import REPO

ROUNDS = 24


def assert_complete(
    db: Path | FloorDb,
    journal: Path,
    table: subprocess.Popen[str] | None = None,
    profile: Path | None = None,
    url: str = "",
) -> None:
    """The floor holds the table's journal exactly: same rounds, every seq once, chain intact,
    anchors match (``profile``, ``url``: see :func:`~tests.support.floor_run.wait_for_the_floor`)."""
    if table is not None:
        out, err = table.communicate(timeout=120)
        assert table.returncode == 0, err[-3000:]
    assert journal_rounds(journal) == ROUNDS
    wait_for_the_floor(db, journal, profile, url, ROUNDS)
    db = as_floor_db(db)
    store = db.open(read_only=True)
    try:
        status = store.status("SIM-BAC-1")
        assert (status.gaps, status.breaks, status.refused) == ([], 0, 0)
        seqs = [m["seq"] for m in store.messages("SIM-BAC-1")]
        assert seqs == list(range(1, len(seqs) + 1))  # each seq stored exactly once
    finally:
        store.close()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert (
            main(
                ["journal", "verify", str(journal), "--floor", db.spec]
                + (["--floor-password-file", str(db.password_file)] if db.password_file else [])
            )
            == 0
        ), out.getvalue()


@pytest.fixture
def paths(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(profile, journal, floor db)."""
    return (
        table_profile(tmp_path, feed='broker = "mqtt://127.0.0.1:1"\nkeepalive_s = 2'),
        tmp_path / "journal.sqlite",
        tmp_path / "floor.sqlite",
    )


@pytest.fixture
def on_each_store(paths: tuple[Path, Path, Path], floor_db: FloorDb) -> tuple[Path, Path, FloorDb]:
    """(profile, journal, floor db): the tests that prove the store run on SQLite and PostgreSQL."""
    return paths[0], paths[1], floor_db


@pytest.mark.parametrize("persistence", [True, False], ids=["persistence on", "persistence off"])
def test_the_broker_stopped_and_restarted(tmp_path: Path, paths: tuple[Path, Path, Path], persistence: bool) -> None:
    profile, journal, db = paths
    with Broker(tmp_path / "broker", persistence=persistence) as broker, collecting(db, broker.url):
        table = start_table(profile, journal, ROUNDS, broker.url)
        wait_for(lambda: floor_seq(db) > 10, what="the feed under way")
        broker.stop()
        reached = journal_rounds(journal)
        wait_for(lambda: journal_rounds(journal) >= reached + 3, what="play going on without the broker")
        broker.start()
        assert_complete(db, journal, table, profile, broker.url)


@pytest.mark.parametrize("persistence", [True, False], ids=["persistence on", "persistence off"])
def test_the_broker_sigkilled_with_the_collectors_queue_in_it_loses_nothing(
    tmp_path: Path, paths: tuple[Path, Path, Path], persistence: bool
) -> None:
    """Issue 27: the broker took messages for the absent collector (PUBACK) and was SIGKILLed
    before saving them (persistence off: everything it held is gone). The table's cursor follows
    the floor's acknowledgement, not the PUBACK, so it resends them after the restart."""
    profile, journal, db = paths
    with Broker(tmp_path / "broker", persistence=persistence) as broker:
        with collecting(db, broker.url):  # the collector's persistent session, then it leaves
            table = start_table(profile, journal, ROUNDS, broker.url)
            wait_for(lambda: floor_seq(db) > 10, what="the feed under way")
        stored = floor_seq(db)
        reached = journal_rounds(journal)
        wait_for(lambda: journal_rounds(journal) >= reached + 3, what="messages queued for the absent collector")
        broker.kill()
        assert floor_seq(db) == stored  # what the broker took since is only in the broker and the journal
        broker.start()
        with collecting(db, broker.url):
            assert_complete(db, journal, table, profile, broker.url)


def test_the_broker_stopped_while_the_journal_rotates(tmp_path: Path) -> None:
    """The feed's cursor falls behind rotations while the broker is away; it then resends from
    the archived segments: the floor ends with every record of every segment, once."""
    profile = table_profile(
        tmp_path,
        feed='broker = "mqtt://127.0.0.1:1"\nkeepalive_s = 2',
        journal="rotate_mb = 0.05\ncheckpoint_every_steps = 20",
    )
    journal, db = tmp_path / "journal.sqlite", tmp_path / "floor.sqlite"
    with Broker(tmp_path / "broker") as broker, collecting(db, broker.url):
        table = start_table(profile, journal, ROUNDS, broker.url)
        wait_for(lambda: floor_seq(db) > 10, what="the feed under way")
        broker.stop()
        behind = floor_seq(db)
        wait_for(lambda: len(segments.segments_of(journal)) >= 3, 60, "two rotations without the broker")
        assert segments.segments_of(journal)[1].path.name == "journal.000002.sqlite"
        broker.start()
        assert_complete(db, journal, table, profile, broker.url)
        assert floor_seq(db) > behind


@pytest.mark.parametrize("cut", ["drop", "swallow"])
def test_the_network_cut(tmp_path: Path, paths: tuple[Path, Path, Path], broker: Broker, cut: str) -> None:
    profile, journal, db = paths
    with TcpProxy(broker.port) as proxy, collecting(db, broker.url):
        table = start_table(profile, journal, ROUNDS, proxy.url())
        wait_for(lambda: floor_seq(db) > 10, what="the feed under way")
        getattr(proxy, cut)()
        reached = journal_rounds(journal)
        wait_for(lambda: journal_rounds(journal) >= reached + 3, what="play going on behind the cut")
        proxy.restore()
        assert_complete(db, journal, table, profile, proxy.url())


def test_the_table_killed_mid_publish_and_restarted(paths: tuple[Path, Path, Path], broker: Broker) -> None:
    profile, journal, db = paths
    with collecting(db, broker.url):
        for _ in range(3):
            seen = floor_seq(db)
            table = start_table(profile, journal, ROUNDS, broker.url)
            wait_for(lambda: floor_seq(db) > seen + 5 or table.poll() is not None, what="the feed under way")
            table.send_signal(signal.SIGKILL)
            table.wait()
        assert_complete(db, journal, start_table(profile, journal, ROUNDS, broker.url), profile, broker.url)


def test_the_collector_killed_and_restarted(on_each_store: tuple[Path, Path, FloorDb], broker: Broker) -> None:
    profile, journal, db = on_each_store
    command = [
        sys.executable,
        "-m",
        "firmware_host",
        "floor",
        "--broker",
        broker.url,
        *db.args(),
        "--keys",
        str(floor_keys(db.directory)),
        "--floor-key",
        str(provision_floor(db.directory)),
        "-v",
    ]
    log = db.directory / "collector.log"
    with collecting(db, broker.url):  # makes the collector's persistent session, then leaves
        pass
    sink = log.open("a")  # the children's stderr (each has its own copy of the descriptor)
    collector = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=sink)
    try:
        table = start_table(profile, journal, ROUNDS, broker.url)
        for _ in range(2):
            seen = floor_seq(db)
            wait_for(lambda: floor_seq(db) > seen + 5, what="messages stored")
            collector.send_signal(signal.SIGKILL)
            collector.wait()
            collector = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=sink)
        assert_complete(db, journal, table, profile, broker.url)
    finally:  # a SIGTERM before the last one has set its handlers would kill it, not stop it
        wait_for(lambda: log.read_text().count("floor: connected") == 3, 30, "the last collector connected")
        collector.send_signal(signal.SIGTERM)
        collector.wait(10)
        sink.close()
    assert collector.returncode == 0


def test_a_forged_and_a_replayed_message_are_detected(
    on_each_store: tuple[Path, Path, FloorDb], broker: Broker
) -> None:
    profile, journal, db = on_each_store
    with collecting(db, broker.url) as floor:
        table = start_table(profile, journal, ROUNDS, broker.url)

        def first_result() -> dict[str, Any] | None:
            store = db.open(read_only=True)
            try:
                return next((m for m in store.messages("SIM-BAC-1") if m["type"] == "round_result"), None)
            finally:
                store.close()

        wait_for(lambda: floor_seq(db) > 10 and first_result() is not None, what="a round's result stored")
        old = first_result()
        assert old is not None
        forged = schema.encode({**old, "seq": 10_000, "data": {**old["data"], "winner": "tie"}})  # hash not redone
        attacker = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        attacker.connect("127.0.0.1", broker.port)
        attacker.loop_start()
        try:
            attacker.publish("tablehost/SIM-BAC-1/events", forged, qos=1).wait_for_publish(5)
            attacker.publish("tablehost/SIM-BAC-1/events", schema.encode(old), qos=1).wait_for_publish(5)
        finally:
            attacker.loop_stop()
            attacker.disconnect()
        wait_for(lambda: floor.collector.counts["refused"] == 1, what="the forgery refused")
        wait_for(lambda: floor.collector.counts["duplicate"] >= 1, what="the replay recognised")
        out, err = table.communicate(timeout=120)
        wait_for_the_floor(db, journal, profile, broker.url, ROUNDS)
    store = db.open(read_only=True)
    try:
        assert [p["reason"] for p in store.refusals("SIM-BAC-1")] == [
            "message 10000: its content does not match its hash"
        ]
        assert store.problems("SIM-BAC-1") == []
        assert store.status("SIM-BAC-1").duplicates >= 1 and store.status("SIM-BAC-1").gaps == []
    finally:
        store.close()


def test_forgeries_with_correct_hashes_never_displace_the_tables_messages(
    paths: tuple[Path, Path, Path], broker: Broker
) -> None:
    """Issue 20: a forgery chained to the last stored message, with its hash correctly computed,
    and a forged seq of 10**9, arrive while the table plays. Neither is signed by the table: both
    are refused, the table's own messages are stored, and ``journal verify --floor`` matches."""
    profile, journal, db = paths
    with collecting(db, broker.url) as floor:
        table = start_table(profile, journal, ROUNDS, broker.url)
        wait_for(lambda: floor_seq(db) > 10, what="the feed under way")
        store = FloorStore(db, read_only=True)
        last = list(store.messages("SIM-BAC-1"))[-1]
        store.close()
        body = {k: v for k, v in last.items() if k not in ("hash", "key_id", "sig")}
        chained = schema.seal({**body, "seq": last["seq"] + 1, "prev_hash": last["hash"], "data": {"forged": True}})
        far = schema.seal({**body, "seq": 10**9, "journal_seq": 10**9})
        attacker = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        attacker.connect("127.0.0.1", broker.port)
        attacker.loop_start()
        try:
            for forged in (chained, {**far, "key_id": last["key_id"], "sig": last["sig"]}):
                attacker.publish("tablehost/SIM-BAC-1/events", schema.encode(forged), qos=1).wait_for_publish(5)
        finally:
            attacker.loop_stop()
            attacker.disconnect()
        wait_for(lambda: floor.collector.counts["refused"] == 2, what="both forgeries refused")
        out, err = table.communicate(timeout=120)
        assert table.returncode == 0, err[-3000:]
        wait_for_the_floor(db, journal, profile, broker.url, ROUNDS)
    store = FloorStore(db, read_only=True)
    try:
        status = store.status("SIM-BAC-1")
        assert (status.gaps, status.breaks, status.refused, status.max_seq) == ([], 0, 2, status.last_seq)
        assert [r["reason"].split(":")[0] for r in store.refusals("SIM-BAC-1")] == [
            "not signed by the table",
            "unsigned",
        ]
    finally:
        store.close()
    out_verify = io.StringIO()
    with contextlib.redirect_stdout(out_verify):
        assert main(["journal", "verify", str(journal), "--floor", str(db)]) == 0, out_verify.getvalue()
    assert "CUT SHORT" not in out_verify.getvalue() and "REWRITTEN" not in out_verify.getvalue()
