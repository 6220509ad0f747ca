"""The floor store's epoch in the acknowledgement (docs/feed.md, "The store's epoch"): a store
restored from a backup older than the acknowledgements it gave begins a new epoch, and the table
resends what the restored store lacks; an acknowledgement of another epoch never moves a cursor.
Rule: nothing lost, nothing duplicated, on the floor as in the journal."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.feed import broker as test_broker
from bench.feed.broker import Broker, write_secret
from bench.floor.postgres import bindir
from bench.floor.tables import FloorDb, as_floor_db, provision, provision_floor
from firmware_host.cli import main
from firmware_host.feed.ack import ACK_PREFIX, Ack, check_ack, make_ack
from firmware_host.feed.broker import BrokerSettings
from firmware_host.feed.cursor import FeedCursor
from firmware_host.feed.inflight import InFlight
from firmware_host.feed.publisher import FeedPublisher
from firmware_host.feed.schema import FeedState
from firmware_host.feed.signing import PUBLIC_SUFFIX, Signer, load_public_keys
from firmware_host.floor import ack_watch
from firmware_host.host.journal import Journal
from tests.support.feed_records import play
from tests.support.floor_run import collecting, wait_for

# ---------------------------------------------------------------------------------- pure parts


def test_an_ack_of_an_older_epoch_is_refused_and_one_of_a_newer_is_for_the_journal_to_check() -> None:
    states = [FeedState(seq, seq, f"{seq:064x}") for seq in range(1, 4)]
    inflight = InFlight(states[2], end_to_end=True, epoch=2_000)
    refused = inflight.stored(Ack("T1", 3, states[2].hash, 0.0, epoch=1_000))
    assert isinstance(refused, str) and "older than this table's 2000" in refused
    newer = Ack("T1", 1, states[0].hash, 0.0, epoch=3_000)
    assert inflight.stored(newer) is newer  # behind the cursor, yet of a newer epoch: the publisher checks it
    assert inflight.acked == states[2] and inflight.epoch == 2_000  # nothing moved yet


def test_an_ack_from_before_epochs_reads_as_epoch_0_and_is_refused_by_a_cursor_of_an_epoch(tmp_path: Path) -> None:
    """Backward: a collector before epochs signs no ``epoch``; its acknowledgement still checks
    (epoch 0), moves a cursor of epoch 0 as before, and is refused by a cursor of an epoch."""
    signer = Signer.from_file(provision_floor(tmp_path), "floor key", ACK_PREFIX)
    keys = load_public_keys(provision_floor(tmp_path).with_suffix(PUBLIC_SUFFIX))
    from firmware_host.feed import schema

    old = schema.encode(signer.sign({"table": "T1", "seq": 1, "hash": "a" * 64, "at": 1.0}))
    ack = check_ack(old, "T1", keys)  # type: ignore[arg-type]
    assert ack.epoch == 0
    before = InFlight(FeedState(), end_to_end=True)
    before.sent(1, FeedState(1, 1, "a" * 64), 0.0)
    assert before.stored(ack) is True
    assert isinstance(InFlight(FeedState(), end_to_end=True, epoch=5).stored(ack), str)


def test_a_cursor_written_before_epochs_keeps_its_place_at_epoch_0_and_moves_back_only_to_a_newer_epoch(
    tmp_path: Path,
) -> None:
    path = tmp_path / "journal.sqlite"
    with sqlite3.connect(path) as conn:  # the cursor table as tablehost wrote it before epochs
        conn.execute(
            "CREATE TABLE feed_cursor (table_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, "
            "journal_seq INTEGER NOT NULL, hash TEXT NOT NULL)"
        )
        conn.execute("INSERT INTO feed_cursor VALUES ('T1', 7, 9, ?)", ("7" * 64,))
    conn.close()
    cursor = FeedCursor(path, "T1")
    try:
        assert cursor.load() == FeedState(7, 9, "7" * 64) and cursor.epoch() == 0
        cursor.save(FeedState(3, 3, "3" * 64))
        assert cursor.load().seq == 7  # never back within an epoch
        cursor.adopt(FeedState(3, 3, "3" * 64), 100)
        assert (cursor.load().seq, cursor.epoch()) == (3, 100)  # back, to a newer epoch's
        cursor.adopt(FeedState(9, 9, "9" * 64), 50)
        assert (cursor.load().seq, cursor.epoch()) == (3, 100)  # an older epoch changes nothing
    finally:
        cursor.close()


def test_a_new_epoch_is_newer_than_the_one_it_replaces_and_begun_once(floor_db: FloorDb) -> None:
    store = floor_db.open()
    try:
        first = store.epoch()
        assert first > 0 and len(store.epochs()) == 1
        far = first + 10**12  # an epoch a table holds, begun after the backup this store came from
        second = store.new_epoch(far, "test: restored behind")
        assert second > far and store.epoch() == second
        assert store.new_epoch(far, "a second collector, late") == second  # already newer: none begun
        assert [e["why"] for e in store.epochs()] == ["the store made, or given epochs", "test: restored behind"]
    finally:
        store.close()


def test_floor_epoch_begin_is_the_restore_procedures_own_step(
    floor_db: FloorDb, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tablehost floor epoch --begin WHY`` begins an epoch by hand (a restore the collectors
    cannot see: the broker lost its retained acknowledgements too) and lists every epoch."""
    floor_db.open().close()  # made, at its first epoch
    assert main(["floor", "epoch", *floor_db.args(), "--begin", "restored from the 02:00 backup"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[1].endswith("begun by hand: restored from the 02:00 backup")
    assert int(lines[1].split()[0]) > int(lines[0].split()[0])


# ---------------------------------------------------------------------------------- over Mosquitto


class Backup:
    """A backup of the floor's store, and its restore, as an operator makes them: ``pg_dump`` /
    ``pg_restore`` into a re-made database, or SQLite's online backup copied back in place."""

    def __init__(self, db: FloorDb, where: Path) -> None:
        self.db, self.file = db, where / "floor.backup"

    def _env(self) -> dict[str, str]:
        assert self.db.password_file is not None
        return {**os.environ, "PGPASSWORD": self.db.password_file.read_text().strip()}

    def take(self) -> None:
        if self.db.kind == "sqlite":
            with sqlite3.connect(self.db.spec) as source, sqlite3.connect(self.file) as copy:
                source.backup(copy)
            source.close()
            copy.close()
            return
        binaries = bindir()
        assert binaries is not None
        subprocess.run(
            [str(binaries / "pg_dump"), "-Fc", "-f", str(self.file), self.db.spec], env=self._env(), check=True
        )

    def restore(self) -> None:
        if self.db.kind == "sqlite":
            for suffix in ("-wal", "-shm"):
                Path(self.db.spec + suffix).unlink(missing_ok=True)
            shutil.copyfile(self.file, self.db.spec)
            return
        import psycopg

        base, name = self.db.spec.rsplit("/", 1)
        password = self._env()["PGPASSWORD"]
        admin_dsn = base.replace("@", f":{password}@", 1) + "/postgres"
        with psycopg.connect(admin_dsn, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE {name} WITH (FORCE)")
            admin.execute(f"CREATE DATABASE {name}")
        binaries = bindir()
        assert binaries is not None
        subprocess.run([str(binaries / "pg_restore"), "-d", self.db.spec, str(self.file)], env=self._env(), check=True)


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    with Journal.open(tmp_path / "journal.sqlite") as opened:
        yield opened


def _publisher(journal: Journal, url: str | BrokerSettings, directory: Path) -> FeedPublisher:
    return FeedPublisher(
        journal,
        FeedCursor(journal.path, "T1"),
        BrokerSettings(url) if isinstance(url, str) else url,
        Signer.from_file(provision(directory, "T1")),
        table_id="T1",
        game="baccarat",
        version="9.9",
        floor_keys=load_public_keys(provision_floor(directory).with_suffix(PUBLIC_SUFFIX)),  # type: ignore[arg-type]
        ack_lag_s=2.0,
    )


def _stored(db: FloorDb) -> list[int]:
    store = as_floor_db(db).open(read_only=True)
    try:
        return [int(m["seq"]) for m in store.messages("T1")]
    finally:
        store.close()


def _retained(url_port: int) -> bytes:
    """The floor's acknowledgement the broker keeps for T1, as anyone allowed to read it sees it."""
    got: list[bytes] = []
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    client.on_message = lambda _c, _u, message: got.append(bytes(message.payload))
    client.connect("127.0.0.1", url_port)
    client.subscribe("tablehost/T1/ack", qos=1)
    client.loop_start()
    try:
        wait_for(lambda: got, 10, "the retained acknowledgement")
    finally:
        client.loop_stop()
        client.disconnect()
    return got[-1]


def _publish_retained(port: int, payload: bytes) -> None:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    client.connect("127.0.0.1", port)
    client.loop_start()
    try:
        client.publish("tablehost/T1/ack", payload, qos=1, retain=True).wait_for_publish(5)
    finally:
        client.loop_stop()
        client.disconnect()


def test_a_store_restored_behind_its_acks_begins_an_epoch_and_the_table_resends_what_it_lacks(
    tmp_path: Path, journal: Journal, broker: Broker, floor_db: FloorDb
) -> None:
    """The floor acknowledged 31 messages; its store is restored from a backup holding 11. The
    collector hears its own retained acknowledgement of seq 31, which the store does not hold,
    begins a new epoch and acknowledges seq 11 in it: the table moves its cursor back to 11 and
    resends 12..31. The store then holds 1..31 once each. The old epoch's acknowledgement,
    replayed, is refused by the table and counted; so is one forged for a newer epoch."""
    play(journal, 10)
    backup = Backup(floor_db, tmp_path)
    feed = _publisher(journal, broker.url, tmp_path)
    with collecting(floor_db, broker.url) as first:
        feed.start()
        wait_for(lambda: feed.acked.seq == 11, what="11 messages acknowledged")
        backup.take()
        play(journal, 20, first=11)
        feed.on_decisions([])
        wait_for(lambda: feed.acked.seq == 31, what="31 messages acknowledged")
        old_epoch = first.store.epoch()
    replayed = _retained(broker.port)
    assert check_ack(replayed, "T1", feed.floor_keys).epoch == old_epoch  # type: ignore[arg-type]
    backup.restore()
    assert _stored(floor_db) == list(range(1, 12))  # the restored store lacks 12..31
    with collecting(floor_db, broker.url) as second:
        wait_for(lambda: second.store.epoch() > old_epoch, what="the collector to begin a new epoch")
        wait_for(lambda: _stored(floor_db) == list(range(1, 32)), what="the table to resend 12..31")
        wait_for(lambda: feed.acked.seq == 31, what="31 acknowledged again, in the new epoch")
        new_epoch = second.store.epoch()
        refused = feed.refused_acks
        _publish_retained(broker.port, replayed)  # the old epoch's acknowledgement of 31, replayed
        wait_for(lambda: feed.refused_acks > refused, what="the replayed acknowledgement refused")
        stranger = Signer(Ed25519PrivateKey.generate(), ACK_PREFIX)
        forged = make_ack(stranger, "T1", 31, check_ack(replayed, "T1", feed.floor_keys).hash, 1.0, new_epoch + 1)  # type: ignore[arg-type]
        _publish_retained(broker.port, forged)
        wait_for(lambda: feed.refused_acks > refused + 1, what="the forged acknowledgement refused")
        assert second.store.epoch() == new_epoch  # neither made the collector begin another epoch
    feed.stop()
    cursor = FeedCursor(journal.path, "T1")
    try:
        assert (cursor.load().seq, cursor.epoch()) == (31, new_epoch)
    finally:
        cursor.close()
    store = floor_db.open(read_only=True)
    try:
        status = store.status("T1")
        assert (status.last_seq, status.max_seq, status.gaps, status.breaks) == (31, 31, [], 0)
        assert "does not hold" in store.epochs()[-1]["why"]
    finally:
        store.close()


def test_a_collector_says_nothing_before_it_has_heard_the_retained_acknowledgements(tmp_path: Path) -> None:
    """The retained acknowledgements are the evidence of a restore, and the collector's own replace
    them at the broker: after its subscription it holds its word until its marker comes back
    (after every retained message), so a crash in between cannot erase what it had not checked."""
    from types import SimpleNamespace

    from firmware_host.floor.collector import Collector
    from firmware_host.floor.store import open_store

    published: list[tuple[str, bytes]] = []
    client = SimpleNamespace(
        publish=lambda topic, payload, qos, retain=False: published.append((topic, payload)),
        ack=lambda mid, qos: None,
    )
    store = open_store(str(tmp_path / "floor.sqlite"))
    signer = Signer.from_file(provision_floor(tmp_path), "floor key", ACK_PREFIX)
    collector = Collector(store, BrokerSettings("mqtt://127.0.0.1:1"), None, floor_signer=signer)
    try:
        assert collector.watch is not None
        collector._say(client, ["T1"])  # type: ignore[arg-type]
        assert published == []  # held: nothing heard yet
        granted = SimpleNamespace(is_failure=False)
        collector._on_subscribed(client, [granted] * 3)  # type: ignore[arg-type]
        ((marker, word),) = published
        assert marker == "tablehost/~floor/ack"
        before = store.epoch()
        retained = make_ack(signer, "T1", 5, "a" * 64, 1.0, before)  # what the store said before its restore
        collector._received(client, SimpleNamespace(topic="tablehost/T1/ack", mid=1, qos=1, payload=retained))  # type: ignore[arg-type]
        collector._flush(client)  # type: ignore[arg-type]
        assert published == [(marker, word)]  # still held: the marker has not come back
        collector._received(client, SimpleNamespace(topic=marker, mid=2, qos=1, payload=word))  # type: ignore[arg-type]
        collector._flush(client)  # type: ignore[arg-type]
        (topic, payload) = published[-1]
        said = check_ack(payload, "T1", signer.public_keys())
        assert (
            topic == "tablehost/T1/ack" and said.epoch > before and said.seq == 0
        )  # the first word is the new epoch's
        assert len(published) == 2
    finally:
        store.close()


def test_a_new_epoch_ack_behind_a_segment_moved_away_is_refused_and_the_feed_goes_on(
    tmp_path: Path, journal: Journal, broker: Broker
) -> None:
    """An archived segment is moved away once the floor has it (docs/feed.md); then an
    acknowledgement of a newer epoch names a message in it, behind the cursor (a store restored
    from an old backup). The journal cannot be read back to it: the acknowledgement is refused
    and counted, the feed's thread lives on and the table goes on publishing."""
    db = tmp_path / "floor.sqlite"
    play(journal, 10)
    feed = _publisher(journal, broker.url, tmp_path)
    with collecting(db, broker.url) as floor:
        feed.start()
        wait_for(lambda: feed.acked.seq == 11, what="11 messages acknowledged")
        epoch = floor.store.epoch()
        (fifth,) = [m for m in floor.store.messages("T1") if m["seq"] == 5]
    journal.rotate({"state": "x"}, at=100.0).rename(tmp_path / "moved-away.sqlite")
    signer = Signer.from_file(provision_floor(tmp_path), "floor key", ACK_PREFIX)
    _publish_retained(broker.port, make_ack(signer, "T1", 5, fifth["hash"], 1.0, epoch + 1))
    wait_for(lambda: feed.catch_up.unreadable == 1, what="the acknowledgement behind the segment refused")
    assert feed._thread.is_alive() and feed.refused_acks == 1
    with collecting(db, broker.url):
        play(journal, 5, first=11)
        feed.on_decisions([])
        wait_for(lambda: feed.acked.seq == 16, what="the feed going on: 16 messages acknowledged")
        assert _stored(as_floor_db(db)) == list(range(1, 17))
    assert feed._thread.is_alive()
    feed.stop()


def test_a_broker_that_grants_the_acks_and_never_delivers_them_does_not_stall_the_tables(
    tmp_path: Path, journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ACL before epochs lets the collector write ``tablehost/+/ack`` and not read it: Mosquitto
    grants the subscription and delivers nothing of it, the marker neither. After its deadline the
    collector acknowledges without the read-back check (counted): the table's cursor moves."""
    before_epochs = tmp_path / "acl-before-epochs"
    before_epochs.write_text(
        test_broker.ACL.read_text().replace("topic readwrite tablehost/+/ack", "topic write tablehost/+/ack")
    )
    assert before_epochs.read_text() != test_broker.ACL.read_text()
    monkeypatch.setattr(test_broker, "ACL", before_epochs)
    monkeypatch.setattr(ack_watch, "SETTLE_S", 1.0)
    users = {"tablehost-floor": "floor-pw", "T1": "t1-pw"}
    secrets = {user: write_secret(tmp_path / f"{user}.password", pw) for user, pw in users.items()}
    play(journal, 10)
    with Broker(tmp_path / "broker", users=users) as broker:
        feed = _publisher(journal, BrokerSettings(broker.url, "T1", secrets["T1"]), tmp_path)
        login = {"username": "tablehost-floor", "password_file": secrets["tablehost-floor"]}
        with collecting(tmp_path / "floor.sqlite", broker.url, **login) as floor:
            feed.start()
            wait_for(lambda: feed.acked.seq == 11, what="the floor's acknowledgement of 11 messages")
            assert floor.collector.stats.ack_failures["unsettled"] == 1
            assert floor.collector.watch is not None and floor.collector.watch.failures["refused"] == 0
        feed.stop()
