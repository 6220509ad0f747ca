"""Security: TLS to the broker, per-table credentials, the ACL of deploy/mosquitto, secret files."""

from __future__ import annotations

import signal
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from bench.feed.broker import Broker, make_ca, write_secret
from bench.floor.tables import floor_seq, journal_export, run_table, start_table, table_profile
from firmware_host.errors import JournalError, TablehostError
from firmware_host.feed import schema
from firmware_host.feed.broker import BrokerError, BrokerSettings, client, parse_url, read_secret
from firmware_host.host import segments
from tests.support.floor_run import collecting, wait_for, wait_for_the_floor

USERS = {"SIM-BAC-1": "table-one-secret", "SIM-BAC-2": "table-two-secret", "tablehost-floor": "floor-secret"}


def feed_section(url: str, user: str, password_file: Path, extra: str = "") -> str:
    return f'broker = "{url}"\nusername = "{user}"\npassword_file = "{password_file}"\nwarn_after_s = 0.2\n{extra}'


@pytest.fixture
def secured(tmp_path: Path) -> Broker:
    with Broker(tmp_path / "broker", users=USERS, tls=make_ca(tmp_path / "pki")) as broker:
        yield broker


def floor_settings(tmp_path: Path, broker: Broker) -> dict[str, object]:
    return {
        "username": "tablehost-floor",
        "password_file": write_secret(tmp_path / "floor.pw", "floor-secret"),
        "ca_file": broker.tls.ca,
    }


def test_a_table_with_its_credentials_publishes_over_tls(tmp_path: Path, secured: Broker) -> None:
    password = write_secret(tmp_path / "table.pw", USERS["SIM-BAC-1"])
    profile = table_profile(
        tmp_path, feed=feed_section(secured.url, "SIM-BAC-1", password, f'ca_file = "{secured.tls.ca}"')
    )
    db, journal = tmp_path / "floor.sqlite", tmp_path / "journal.sqlite"
    with collecting(db, secured.url, **floor_settings(tmp_path, secured)):
        run_table(profile, journal, 4)
        wait_for_the_floor(db, journal, profile, secured.url, 4)
    assert "mqtts://" in secured.url and len(journal_export(journal).splitlines()) == 4


@pytest.mark.parametrize("case", ["wrong password", "no CA: the broker's certificate is not trusted"])
def test_a_table_the_broker_refuses_plays_on_and_warns(tmp_path: Path, secured: Broker, case: str) -> None:
    password = write_secret(tmp_path / "table.pw", "guess" if case == "wrong password" else USERS["SIM-BAC-1"])
    ca = f'ca_file = "{secured.tls.ca}"' if case == "wrong password" else ""
    profile = table_profile(tmp_path, feed=feed_section(secured.url, "SIM-BAC-1", password, ca))
    db, journal = tmp_path / "floor.sqlite", tmp_path / "journal.sqlite"
    with collecting(db, secured.url, **floor_settings(tmp_path, secured)):
        table = start_table(profile, journal, 100_000)  # it plays on until stopped
        try:
            wait_for(lambda: troubles_journaled(journal), what="the feed's trouble journaled")
        finally:
            table.send_signal(signal.SIGTERM)
            out, err = table.communicate(timeout=60)
    assert table.returncode == 0 and "WARNING: floor feed down" in out
    assert (
        "refused the connection: Not authorized" in err
        if case == "wrong password"
        else "CERTIFICATE_VERIFY_FAILED" in err
    )
    assert floor_seq(db) == 0
    said = troubles_journaled(journal)  # the trouble, and why, is on record
    assert said[0].startswith("floor feed down") and f"WARNING: {said[0]}" in out


def troubles_journaled(journal: Path) -> list[str]:
    """The feed troubles the journal holds (read-only: the table may be writing it)."""
    try:
        return [r.data["trouble"] for r in segments.records(journal) if r.type == "FloorFeedStatus"]
    except JournalError:  # not a journal yet
        return []


def _raw_client(broker: Broker, user: str) -> tuple[mqtt.Client, list[tuple[int, bool]]]:
    acks: list[tuple[int, bool]] = []
    raw = client(
        BrokerSettings(broker.url, user, write_secret(broker.directory / f"{user}.pw", USERS[user]), broker.tls.ca),
        f"raw-{user}",
    )
    raw.on_publish = lambda _c, _u, mid, reason, _p: acks.append((mid, reason.is_failure))
    raw.connect("127.0.0.1", broker.port)
    raw.loop_start()
    return raw, acks


def test_a_table_publishing_under_another_tables_topic_is_refused_by_the_broker(
    tmp_path: Path, secured: Broker
) -> None:
    db = tmp_path / "floor.sqlite"
    genuine = schema.encode(
        schema.seal(
            {
                "table": "SIM-BAC-2",
                "seq": 1,
                "journal_seq": 1,
                "journal_hash": "1" * 64,
                "at": 1.0,
                "round": None,
                "type": "journal_opened",
                "data": {},
                "prev_hash": schema.GENESIS_HASH,
            }
        )
    )
    with collecting(db, secured.url, **floor_settings(tmp_path, secured)) as floor:
        impostor, acks = _raw_client(secured, "SIM-BAC-1")
        try:
            denied = impostor.publish("tablehost/SIM-BAC-2/events", genuine, qos=1)
            own = impostor.publish("tablehost/SIM-BAC-1/events", genuine, qos=1)  # T2's message on T1's topic
            wait_for(lambda: len(acks) == 2, what="both PUBACKs")
        finally:
            impostor.loop_stop()
            impostor.disconnect()
        assert dict(acks) == {denied.mid: True, own.mid: False}  # MQTT 5 PUBACK 0x87 "Not authorized"
        wait_for(lambda: floor.collector.counts["refused"] == 1, what="the collector's refusal")
    assert floor_seq(db, "SIM-BAC-2") == 0 and floor_seq(db, "SIM-BAC-1") == 0  # nothing stored
    # ... and the collector, which only reads, may not publish at all
    reader, acks = _raw_client(secured, "tablehost-floor")
    try:
        sent = reader.publish("tablehost/SIM-BAC-1/events", genuine, qos=1)
        wait_for(lambda: acks, what="the PUBACK")
    finally:
        reader.loop_stop()
        reader.disconnect()
    assert acks == [(sent.mid, True)]


def test_secret_files_must_be_private(tmp_path: Path) -> None:
    loose = tmp_path / "loose.pw"
    loose.write_text("secret\n")
    loose.chmod(0o644)
    with pytest.raises(BrokerError, match="mode 0644 lets others read it; chmod 0400"):
        read_secret(loose, "password")
    with pytest.raises(BrokerError, match="client key file .* mode 0644"):
        client(BrokerSettings("mqtts://127.0.0.1:1", cert_file=loose, key_file=loose), "x")
    assert read_secret(write_secret(tmp_path / "ok.pw", "secret"), "password") == "secret"


def test_a_table_with_a_loose_password_file_does_not_start(tmp_path: Path) -> None:
    loose = tmp_path / "loose.pw"
    loose.write_text("secret\n")
    loose.chmod(0o640)
    profile = table_profile(tmp_path, feed=feed_section("mqtt://127.0.0.1:1883", "SIM-BAC-1", loose))
    table = start_table(profile, tmp_path / "journal.sqlite", 1)
    _, err = table.communicate(timeout=60)
    assert table.returncode == 2 and f"password file {loose}: mode 0640 lets others read it" in err


@pytest.mark.parametrize(
    "url, why",
    [
        ("http://h:1", "scheme must be mqtt:// or mqtts://"),
        ("mqtt://user:pw@h:1", "credentials go in files"),
        ("mqtt://h:99999", "Port out of range"),
        ("mqtts://", "expected mqtts://host:port"),
    ],
)
def test_bad_broker_urls_are_clear_errors(url: str, why: str) -> None:
    with pytest.raises(TablehostError, match=why):
        parse_url(url)


def test_broker_urls_default_their_ports() -> None:
    assert parse_url("mqtt://floor") == (False, "floor", 1883)
    assert parse_url("mqtts://floor") == (True, "floor", 8883)
    assert parse_url("mqtts://10.0.0.5:18883") == (True, "10.0.0.5", 18883)
