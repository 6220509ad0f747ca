"""End-to-end acknowledgement (issue 27): the table's cursor follows the floor's signed
acknowledgement of what it stored, never the broker's PUBACK alone, and never an
acknowledgement the floor did not sign for this table and this journal."""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given
from hypothesis import strategies as st

from bench.feed.broker import Broker, write_secret
from bench.floor.tables import as_floor_db, floor_keys, floor_seq, provision, provision_floor
from firmware_host.cli import main
from firmware_host.feed import schema
from firmware_host.feed.ack import ACK_PREFIX, Ack, AckError, check_ack, make_ack
from firmware_host.feed.broker import BrokerSettings
from firmware_host.feed.catch_up import PAGE
from firmware_host.feed.cursor import FeedCursor
from firmware_host.feed.inflight import InFlight
from firmware_host.feed.publisher import FeedPublisher
from firmware_host.feed.schema import FeedState
from firmware_host.feed.signing import PUBLIC_SUFFIX, Signer, keygen, load_public_keys
from firmware_host.host.journal import Journal
from tests.support.feed_records import play
from tests.support.floor_run import collecting, wait_for

FLOOR = "tablehost-floor"


def floor_signer(tmp_path: Path) -> Signer:
    return Signer.from_file(provision_floor(tmp_path), "floor key", ACK_PREFIX)


def public(tmp_path: Path) -> dict[str, object]:
    return load_public_keys(provision_floor(tmp_path).with_suffix(PUBLIC_SUFFIX))  # type: ignore[return-value]


# ---------------------------------------------------------------------------------- the message


def test_an_acknowledgement_checks_only_for_its_table_and_under_the_floors_key(tmp_path: Path) -> None:
    signer, keys = floor_signer(tmp_path), public(tmp_path)
    payload = make_ack(signer, "T1", 12, "a" * 64, 1.5, 0)
    assert check_ack(payload, "T1", keys) == Ack("T1", 12, "a" * 64, 1.5)  # type: ignore[arg-type]
    with pytest.raises(AckError, match="for table 'T1', not 'T2'"):
        check_ack(payload, "T2", keys)  # type: ignore[arg-type]
    stranger = Signer(Ed25519PrivateKey.generate(), ACK_PREFIX)
    with pytest.raises(AckError, match="not signed by the floor"):
        check_ack(make_ack(stranger, "T1", 12, "a" * 64, 1.5, 0), "T1", keys)  # type: ignore[arg-type]
    table = Signer.from_file(provision(tmp_path, "T1"))  # a table's key, or the floor's under the feed's prefix
    with pytest.raises(AckError, match="not signed by the floor"):
        check_ack(make_ack(table, "T1", 12, "a" * 64, 1.5, 0), "T1", keys)  # type: ignore[arg-type]
    tampered = payload.replace(b'"seq":12', b'"seq":13')
    with pytest.raises(AckError, match="does not check"):
        check_ack(tampered, "T1", keys)  # type: ignore[arg-type]
    unsigned = schema.encode({"table": "T1", "seq": 12, "hash": "a" * 64, "at": 1.5})
    with pytest.raises(AckError, match="expected exactly the fields"):
        check_ack(unsigned, "T1", keys)  # type: ignore[arg-type]


@given(st.binary(max_size=1200) | st.builds(lambda s: s.encode(), st.text(max_size=300)))
def test_any_payload_on_the_ack_topic_is_an_ack_or_an_ack_error(payload: bytes) -> None:
    try:
        check_ack(payload, "T1", {})
    except AckError:
        pass


def test_the_cursor_moves_only_over_an_ack_of_a_message_in_flight_with_its_hash() -> None:
    states = [FeedState(seq, seq * 2, f"{seq:064x}") for seq in range(1, 6)]
    inflight = InFlight(FeedState(), end_to_end=True)
    for mid, state in enumerate(states, start=1):
        inflight.sent(mid, state, 0.0)
        inflight.took(mid, 1.0)
    assert inflight.acked.seq == 0 and inflight.taken.seq == 5  # PUBACK moves only the broker's seq
    assert inflight.lagging() == (1, 1.0)
    assert isinstance(inflight.stored(Ack("T1", 3, "f" * 64, 0)), str)  # another journal's message 3
    ahead = Ack("T1", 9, "f" * 64, 0)
    assert inflight.stored(ahead) is ahead  # beyond what is in flight: for the publisher to check in the journal
    assert inflight.acked.seq == 0 and len(inflight) == 5
    assert inflight.stored(Ack("T1", 3, states[2].hash, 0)) is True
    assert inflight.acked == states[2] and len(inflight) == 2
    assert inflight.stored(Ack("T1", 2, states[1].hash, 0)) is False  # an older one never moves it back
    assert isinstance(inflight.stored(Ack("T1", 3, "f" * 64, 0)), str)  # at the cursor, the wrong hash


def test_without_the_floors_key_the_puback_moves_the_cursor() -> None:
    inflight = InFlight(FeedState(), end_to_end=False)
    inflight.sent(1, FeedState(1, 1, "a" * 64), 0.0)
    inflight.sent(2, FeedState(2, 2, "b" * 64), 0.0)
    inflight.took(2, 1.0)
    assert inflight.acked.seq == 0  # only a prefix
    inflight.took(1, 1.0)
    assert inflight.acked.seq == 2 and not inflight


def test_floor_keygen_writes_the_floors_pair_once(tmp_path: Path) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["floor", "keygen", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "floor.key").stat().st_mode & 0o777 == 0o400
    assert (tmp_path / "floor.pub").stat().st_mode & 0o777 == 0o444
    assert "floor_key" in out.getvalue() and not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]
    with pytest.raises(Exception, match="exists already; a key is never overwritten"):
        keygen(tmp_path / "floor.key", tmp_path / "other.pub")
    assert not (tmp_path / "other.pub").exists()


# ---------------------------------------------------------------------------------- over Mosquitto


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    with Journal.open(tmp_path / "journal.sqlite") as opened:
        yield opened


def publisher(
    journal: Journal, settings: BrokerSettings, signer: Signer | None = None, **options: object
) -> FeedPublisher:
    directory = Path(journal.path).parent
    options.setdefault("floor_keys", public(directory))
    return FeedPublisher(
        journal,
        FeedCursor(journal.path, "T1"),
        settings,
        signer or Signer.from_file(provision(directory, "T1")),
        table_id="T1",
        game="baccarat",
        version="9.9",
        **options,  # type: ignore[arg-type]
    )


def client_of(broker: Broker, user: str, password: str) -> mqtt.Client:
    made = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    made.username_pw_set(user, password)
    made.connect("127.0.0.1", broker.port)
    made.loop_start()
    return made


def publish(client: mqtt.Client, topic: str, payload: bytes) -> int:
    """Publish retained at QoS 1; the broker's reason code (0x87: the ACL refused it)."""
    codes: list[int] = []
    client.on_publish = lambda _c, _u, _mid, reason, _p: codes.append(reason.value)
    client.publish(topic, payload, qos=1, retain=True).wait_for_publish(5)
    wait_for(lambda: codes, 5, "the PUBACK")
    return codes[0]


def test_a_forged_or_replayed_acknowledgement_never_makes_the_table_drop_a_message(
    tmp_path: Path, journal: Journal
) -> None:
    users = {FLOOR: "floor-pw", "T1": "t1-pw", "T2": "t2-pw"}
    secrets = {user: write_secret(tmp_path / f"{user}.password", pw) for user, pw in users.items()}
    floor = {"username": FLOOR, "password_file": secrets[FLOOR]}
    db = tmp_path / "floor.sqlite"
    play(journal, 10)
    with Broker(tmp_path / "broker", users=users) as broker:
        feed = publisher(journal, BrokerSettings(broker.url, "T1", secrets["T1"]), ack_lag_s=1.0)
        # A collector that stores but holds no floor key: the table hears nothing genuine.
        with collecting(db, broker.url, floor_key=None, **floor):
            feed.start()
            wait_for(lambda: floor_seq(db, "T1") == 11 and feed.taken.seq == 11, what="the floor holding 11")
            hash_of = {m["seq"]: m["hash"] for m in _messages(db)}
            attacker = client_of(broker, FLOOR, users[FLOOR])  # a collector's credentials, not the floor's key
            try:
                stranger = Signer(Ed25519PrivateKey.generate(), ACK_PREFIX)
                assert publish(attacker, "tablehost/T1/ack", make_ack(stranger, "T1", 11, hash_of[11], 1.0, 0)) in (
                    0,
                    0x10,
                )
                wait_for(lambda: feed.refused_acks >= 1, what="the forged acknowledgement refused")
                genuine = floor_signer(tmp_path)  # the floor's own key, replayed from elsewhere:
                assert publish(attacker, "tablehost/T1/ack", make_ack(genuine, "T2", 11, hash_of[11], 1.0, 0)) in (
                    0,
                    0x10,
                )
                wait_for(lambda: feed.refused_acks >= 2, what="another table's acknowledgement refused")
                assert publish(attacker, "tablehost/T1/ack", make_ack(genuine, "T1", 11, "e" * 64, 1.0, 0)) in (0, 0x10)
                wait_for(lambda: feed.refused_acks >= 3, what="another journal's acknowledgement refused")
            finally:
                attacker.loop_stop()
                attacker.disconnect()
            for user in ("T1", "T2"):  # only a collector may write an acknowledgement
                table = client_of(broker, user, users[user])
                try:
                    assert publish(table, "tablehost/T1/ack", make_ack(genuine, "T1", 11, hash_of[11], 1.0, 0)) == 0x87
                finally:
                    table.loop_stop()
                    table.disconnect()
            assert feed.acked.seq == 0 and FeedCursor(journal.path, "T1").load().seq == 0
        with collecting(db, broker.url, **floor):  # the floor's collector: the table hears it
            wait_for(lambda: feed.acked.seq == 11, what="the floor's acknowledgement")
        feed.stop()
    assert FeedCursor(journal.path, "T1").load().seq == 11


def _messages(db: Path) -> list[dict[str, object]]:
    store = as_floor_db(db).open(read_only=True)
    try:
        return list(store.messages("T1"))
    finally:
        store.close()


def test_a_key_revoked_then_provisioned_loses_nothing_without_a_resend_by_hand(
    tmp_path: Path, journal: Journal, broker: Broker
) -> None:
    """Issue 27: while a table's new key was not yet on the floor its messages were refused; the
    floor never acknowledged them, so the table resent them after its lag bound, and once the key
    is provisioned the floor is complete: no gap, journal verify --floor matching."""
    db, keys = tmp_path / "floor.sqlite", floor_keys(tmp_path)
    play(journal, 10)
    with collecting(db, broker.url):
        old = publisher(journal, BrokerSettings(broker.url), ack_lag_s=0.5)
        old.start()
        wait_for(lambda: old.acked.seq == 11, what="11 messages acknowledged under the old key")
        old.stop()
        (keys / "T1.pub").unlink()  # the old key revoked (stolen)
        (tmp_path / "new").mkdir()
        keygen(tmp_path / "new" / "T1.key", tmp_path / "new" / "T1.pub")
        new = publisher(
            journal, BrokerSettings(broker.url), Signer.from_file(tmp_path / "new" / "T1.key"), ack_lag_s=0.5
        )
        new.start()
        play(journal, 20, first=11)
        new.on_decisions([])
        wait_for(lambda: _refused(db) >= 2 and new.published >= 40, what="refused, then resent")
        assert new.acked.seq == 11 and floor_seq(db, "T1") == 11
        staged = keys / "T1.pub.tmp"  # provisioned as docs/feed.md says: a copy renamed into place
        staged.write_bytes((tmp_path / "new" / "T1.pub").read_bytes())
        staged.rename(keys / "T1.pub")
        wait_for(lambda: new.acked.seq == 31, what="every message acknowledged under the new key")
        new.stop()
    reader = as_floor_db(db).open(read_only=True)
    try:
        status = reader.status("T1")
        assert (status.last_seq, status.max_seq, status.gaps, status.breaks) == (31, 31, [], 0)
        assert status.refused >= 2  # and what was refused stays visible
    finally:
        reader.close()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["journal", "verify", str(journal.path), "--floor", str(db), "--table", "T1"]) == 0, out.getvalue()


def _refused(db: Path) -> int:
    store = as_floor_db(db).open(read_only=True)
    try:
        return store.status("T1").refused if "T1" in store.tables() else 0
    finally:
        store.close()


def test_a_floor_that_never_acknowledges_holds_the_table_to_a_page_and_its_window(
    tmp_path: Path, journal: Journal, broker: Broker
) -> None:
    """However long the floor is away, the backlog stays in the journal: the table holds at most
    a page of derived messages and its window in flight, resending the window after each lag."""
    for first in range(1, 1201, 200):
        play(journal, 200, first=first)
    feed = publisher(journal, BrokerSettings(broker.url), window=16, ack_lag_s=0.3)
    held: list[int] = []
    with collecting(tmp_path / "floor.sqlite", broker.url, floor_key=None):  # stores, says nothing
        feed.start()
        wait_for(lambda: held.append(feed.in_flight + feed.pending) or feed.published >= 64, what="four resends")
        feed.stop(0)
    assert feed.acked.seq == 0 and feed.taken.seq >= 16
    assert 0 < max(held) <= 16 + PAGE  # of 1,201 messages waiting


def test_a_cursor_behind_the_floors_acknowledgement_catches_up_from_the_journal(
    tmp_path: Path, journal: Journal, broker: Broker
) -> None:
    """A cursor write lost to a power cut leaves the cursor more than a window behind the floor's
    retained acknowledgement: the table checks it against its journal and goes on from there,
    rather than resend its first window for ever."""
    play(journal, 60)
    db = tmp_path / "floor.sqlite"
    with collecting(db, broker.url):
        first = publisher(journal, BrokerSettings(broker.url))
        first.start()
        wait_for(lambda: first.acked.seq == 61, what="61 messages acknowledged")
        first.stop()
        FeedCursor(journal.path, "T1")._conn.execute("DELETE FROM feed_cursor")  # the cursor lost
        again = publisher(journal, BrokerSettings(broker.url), window=4, ack_lag_s=60.0)
        again.start()
        wait_for(lambda: again.acked.seq == 61, what="the cursor back at the floor's acknowledgement")
        play(journal, 5, first=61)
        again.on_decisions([])
        wait_for(lambda: again.acked.seq == 66 and floor_seq(db, "T1") == 66, what="the new messages")
        again.stop()
    assert again.published < 61 and again.refused_acks == 0  # it did not resend all it had sent
