"""Hostile messages never stop the floor (issue 20): the collector refuses, keeps, counts and
acknowledges each, and the real tables' messages keep being stored. GLI-29: a system never
halts on bad data."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.feed.broker import Broker, have_mosquitto
from bench.floor.tables import FloorDb, floor_keys, provision
from firmware_host.feed import schema
from firmware_host.feed.broker import BrokerSettings
from firmware_host.feed.signing import Keyring, Signer
from firmware_host.floor import store_sql as store_module
from firmware_host.floor.admission import Admission, Refusal
from firmware_host.floor.collector import BATCH, Collector, RefusalLog
from firmware_host.floor.store import FloorStore
from tests.support.feed_records import payloads
from tests.support.floor_run import collecting, wait_for


def genuine_body(**changes: Any) -> dict[str, Any]:
    body = {k: v for k, v in schema.check_message(payloads()[-1]).items() if k != "hash"}
    return {**body, **changes}


def hostile(**changes: Any) -> bytes:
    """Message 6 of T1 with ``changes``, hashed where JSON can carry it (as an attacker would)."""
    body = genuine_body(**changes)
    try:
        return schema.encode(schema.seal(body))
    except ValueError:
        return json.dumps({**body, "hash": "0" * 64}).encode()


def deep(depth: int) -> bytes:
    return b'{"table":"T1","seq":6,"data":' + b"[" * depth + b"]" * depth + b"}"


#: The messages of issue 20 that stopped the collector for every table, for good.
ISSUE_20 = {
    "NaN at": hostile(at=float("nan")),
    "seq 2**63": hostile(seq=2**63),
    "round a list": hostile(round=[1, 2]),
    "deep nesting": deep(200_000),
    "text at": hostile(at="yesterday"),
    "text round": hostile(round="3"),
}


@pytest.fixture
def keyed(tmp_path: Path) -> tuple[Signer, Keyring]:
    return Signer.from_file(provision(tmp_path, "T1")), Keyring(floor_keys(tmp_path))


@pytest.fixture
def collector(floor_db: FloorDb, keyed: tuple[Signer, Keyring]) -> Iterator[Collector]:
    """A collector not connected to any broker: :meth:`Collector.process` is what its loop calls
    (on each store: SQLite, PostgreSQL)."""
    store = floor_db.open()
    yield Collector(store, BrokerSettings("mqtt://127.0.0.1:1"), keyed[1])
    store.close()


@pytest.mark.parametrize("name", ISSUE_20)
def test_an_issue_20_message_is_refused_and_the_batch_goes_on(
    collector: Collector, keyed: tuple[Signer, Keyring], name: str
) -> None:
    sent = payloads("T1", keyed[0])
    batch = (
        [("tablehost/T1/events", p) for p in sent[:3]]
        + [("tablehost/T1/events", ISSUE_20[name])]
        + [("tablehost/T1/events", p) for p in sent[3:]]
    )
    kinds = [o.kind for o in collector.process(batch)]
    assert kinds == ["stored"] * 3 + ["refused"] + ["stored"] * 3
    status = collector.store.status("T1")
    assert (status.max_seq, status.gaps, status.refused) == (6, [], 1)
    assert len(collector.store.refusals("T1")[0]["excerpt"]) <= 200 * 4  # bounded (escapes aside)


def test_a_reader_of_what_was_stored_that_fails_costs_neither_the_write_nor_the_next_batch(
    collector: Collector, keyed: tuple[Signer, Keyring], caplog: pytest.LogCaptureFixture
) -> None:
    """A dashboard's hook (Collector.readers) runs after the commit; its exception is counted and
    logged, never raised into the collector's loop (which would leave the batch unacknowledged)."""

    def broken(admitted: object, outcomes: object) -> None:
        raise RuntimeError("a reader's bug")

    collector.readers.append(broken)
    sent = payloads("T1", keyed[0])
    with caplog.at_level(logging.ERROR, logger="tablehost.floor"):
        first = collector.process([("tablehost/T1/events", p) for p in sent[:3]])
        second = collector.process([("tablehost/T1/events", p) for p in sent[3:]])
    assert [o.kind for o in first + second] == ["stored"] * len(sent)
    assert collector.store.status("T1").max_seq == len(sent)
    assert collector.stats.reader_failures == 2
    assert sum("a reader of what was stored failed (1 times)" in r.getMessage() for r in caplog.records) == 1


@pytest.mark.parametrize(
    "payload",
    [b'{"table": "T1", "seq": 6, "x": "\x00"}', b"\x00" * 300, b'{"table": "T1", "seq": 6, "x": "\\u0000"}'],
    ids=["NUL in JSON", "NULs", "u0000"],
)
def test_a_nul_byte_is_refused_and_kept_on_either_store(collector: Collector, payload: bytes) -> None:
    """PostgreSQL's text cannot hold NUL: the refusal's excerpt shows it escaped, the batch goes on."""
    kinds = [
        o.kind for o in collector.process([("tablehost/T1/events", payload), ("tablehost/T1\x00/events", payload)])
    ]
    assert kinds == ["refused", "refused"]
    assert all("\x00" not in r["excerpt"] + r["topic"] for r in collector.store.refusals(limit=10))


def test_floor_status_exits_1_and_counts_refusals(
    collector: Collector, keyed: tuple[Signer, Keyring], floor_db: FloorDb, capsys: pytest.CaptureFixture[str]
) -> None:
    from firmware_host.cli import main

    collector.process(
        [("tablehost/T1/events", p) for p in payloads("T1", keyed[0])]
        + [("tablehost/T1/events", ISSUE_20["NaN at"]), ("tablehost/NOBODY/events", b"{}"), ("elsewhere/x", b"")]
    )
    assert main(["floor", "status", *floor_db.args()]) == 1  # was 0, with "gaps none"
    out = capsys.readouterr().out
    assert "gaps none, breaks 0, refused 1 (last: not a JSON message: NaN is not a JSON number)" in out
    assert "(topics naming no known table): refused 2" in out
    assert main(["floor", "export", *floor_db.args(), "--table", "", "--refused"]) == 0
    kept = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["topic"], r["table"]) for r in kept] == [("elsewhere/x", ""), ("tablehost/NOBODY/events", "")]


def test_a_flood_grows_the_refused_table_only_to_its_bounds(
    collector: Collector, keyed: tuple[Signer, Keyring], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "REFUSED_KEPT_PER_TABLE", 50)
    monkeypatch.setattr(store_module, "REFUSED_KEPT_TOTAL", 120)
    collector.process([("tablehost/T1/events", payloads("T1", keyed[0])[0])])
    for burst in range(3):
        collector.process(
            [(f"tablehost/FAKE-{burst}-{n}/events", b"x" * 10_000) for n in range(100)]
            + [("tablehost/T1/events", b"[]")] * 100
            + [("#/junk", b"\xff" * 300)] * 100
        )
    store = collector.store
    assert store.tables() == ["T1"]  # made-up table ids never add a table
    assert store.status("T1").refused == 300 and store.refused_unknown() == 600
    kept = store.refusals(limit=10_000)
    assert len(kept) == 100 and len(store.refusals("T1", 10_000)) == 50  # per table, then in all
    assert all(len(r["excerpt"]) <= 200 * 4 and len(r["topic"]) <= 200 for r in kept)


def test_refusals_are_logged_at_a_rate_limit(caplog: pytest.LogCaptureFixture) -> None:
    from firmware_host.floor.model import Outcome

    caplog.set_level(logging.WARNING, "tablehost.floor")
    limited = RefusalLog(burst=3, window_s=3600)
    for _ in range(1000):
        limited.refused(Outcome("refused", "T1", 1, "bad"))
    assert caplog.text.count("refused a message of T1") == 3
    limited._start -= 3601  # the window is over: one line sums up the rest
    limited.refused(Outcome("refused", "T1", 1, "bad"))
    assert "997 more messages refused in the last 3601 s" in caplog.text
    assert caplog.text.count("refused a message of T1") == 4


def topics() -> st.SearchStrategy[str]:
    level = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
    return st.one_of(
        st.builds("/".join, st.lists(level, max_size=5)),
        st.builds(
            lambda t, leaf: f"tablehost/{t}/{leaf}",
            st.sampled_from(["T1", "T2", "", "+"]) | level,
            st.sampled_from(["events", "status", "x"]),
        ),
    )


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=8,
)


def payload_strategy(signer: Signer) -> st.SearchStrategy[bytes]:
    fields = st.fixed_dictionaries({}, optional={f: json_values for f in (*schema.FIELDS, "key_id", "sig")})
    mutated = st.builds(
        lambda body, c: json.dumps({**body, **c}, allow_nan=True).encode(),
        st.just(signer.sign(schema.check_message(payloads()[-1]))),
        fields,
    )
    return st.one_of(
        st.binary(max_size=300), mutated, st.builds(lambda v: json.dumps(v, allow_nan=True).encode(), json_values)
    )


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_arbitrary_messages_never_raise_and_the_real_table_is_stored(
    keyed: tuple[Signer, Keyring], data: st.DataObject
) -> None:
    """Any topic and payload, among a real table's messages: the collector never raises, refuses
    what is not the real table's, and stores every real message, once."""
    signer, keyring = keyed
    genuine = [("tablehost/T1/events", p) for p in payloads("T1", signer)]
    noise = data.draw(st.lists(st.tuples(topics(), payload_strategy(signer)), max_size=8))
    cut = data.draw(st.integers(0, len(noise)))
    batch = [*noise[:cut], *genuine[:3], *noise[cut:], *genuine[3:]]
    store = FloorStore(":memory:")  # a fresh floor for each example
    try:
        collector = Collector(store, BrokerSettings("mqtt://127.0.0.1:1"), keyring)
        outcomes = collector.process(batch)
        assert len(outcomes) == len(batch)
        assert [o.kind for o in outcomes[cut : cut + 3]] == ["stored"] * 3
        assert [m["seq"] for m in store.messages("T1")] == [1, 2, 3, 4, 5, 6]
        assert store.gaps("T1") == [] and store.status("T1").breaks == 0 and store.tables() == ["T1"]
    finally:
        store.close()


pytestmark_mqtt = pytest.mark.skipif(not have_mosquitto(), reason="needs the Debian package mosquitto (make deps)")


def publish_all(port: int, messages: list[tuple[str, bytes]]) -> None:
    attacker = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    attacker.connect("127.0.0.1", port)
    attacker.loop_start()
    try:
        for topic, payload in messages:
            attacker.publish(topic, payload, qos=1).wait_for_publish(5)
    finally:
        attacker.loop_stop()
        attacker.disconnect()


@pytestmark_mqtt
def test_over_mosquitto_each_bad_message_is_acknowledged_once_and_never_stops_the_floor(
    tmp_path: Path, keyed: tuple[Signer, Keyring]
) -> None:
    """Against a real broker: the messages of issue 20 arrive among a table's; the collector stays
    up, stores the table's, and acknowledges the bad ones, so a restart is not sent them again."""
    db, sent = tmp_path / "floor.sqlite", payloads("T1", keyed[0])
    bad = [("tablehost/T1/events", p) for p in ISSUE_20.values()]
    with Broker(tmp_path / "broker") as broker:
        with collecting(db, broker.url) as floor:
            publish_all(
                broker.port, [("tablehost/T1/events", sent[0]), *bad, *(("tablehost/T1/events", p) for p in sent[1:])]
            )
            wait_for(lambda: floor.collector.counts["stored"] == 6, what="the table's six messages")
            assert floor.collector.counts["refused"] == len(ISSUE_20) and floor._thread.is_alive()
        with collecting(db, broker.url) as again:  # the same persistent session, resumed
            publish_all(broker.port, [("tablehost/T1/events", sent[5])])
            wait_for(lambda: again.collector.counts["duplicate"] == 1, what="the resent message")
            assert again.collector.counts["refused"] == 0  # nothing redelivered
    store = FloorStore(db, read_only=True)
    try:
        assert store.status("T1").refused == len(ISSUE_20) and store.gaps("T1") == []
    finally:
        store.close()


def test_the_collector_takes_at_most_a_batch_unacknowledged_from_the_broker(
    collector: Collector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the store cannot be written nothing is acknowledged: the CONNECT's Receive Maximum
    (MQTT 5 defaults to 65,535, each message up to 256 KiB) bounds what the broker sends meanwhile."""
    asked: dict[str, Any] = {}

    def connect(client: mqtt.Client, host: str, port: int, **options: Any) -> None:
        asked.update(vars(options["properties"]))
        collector.stop()
        raise OSError("no broker in this test")

    monkeypatch.setattr(mqtt.Client, "connect", connect)
    collector.run()
    assert asked["ReceiveMaximum"] == BATCH


def test_n6_two_thousand_lone_surrogates_are_refused_in_ten_log_lines_without_a_traceback(
    collector: Collector, keyed: tuple[Signer, Keyring], caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 29 N6: a "\\ud800" escape in ``data`` raised UnicodeEncodeError (not MessageError) in the
    hash, and admission logged each with a traceback: 2,000 messages, 30,010 lines. Now each is a
    refusal of the schema's, logged at the refusals' rate limit (10 lines a minute)."""
    body = genuine_body()
    text = json.dumps({**body, "data": {"reason": "\ud800"}, "hash": "0" * 64}).encode()
    assert b'"\\ud800"' in text
    sent = payloads("T1", keyed[0])
    with caplog.at_level(logging.DEBUG, logger="tablehost.floor"):
        outcomes = []
        for _ in range(0, 2000, BATCH):
            outcomes += collector.process([("tablehost/T1/events", text)] * BATCH)
        outcomes += collector.process([("tablehost/T1/events", p) for p in sent])
    assert [o.kind for o in outcomes] == ["refused"] * 2000 + ["stored"] * len(sent)
    assert collector.admission.failures == 0  # the schema refused them: no defect of ours was reached
    assert "lone surrogate" in collector.store.refusals("T1")[0]["reason"]
    lines = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) <= 10 and not any(r.exc_info for r in lines) and "Traceback" not in caplog.text


def test_a_defect_in_the_checks_is_counted_and_logged_once_a_minute(
    keyed: tuple[Signer, Keyring], caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever fails inside admission is a refusal, counted, one line (one traceback) a kind a minute."""

    def broken(payload: bytes, *, signed: bool = False) -> dict[str, Any]:
        raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")

    monkeypatch.setattr(schema, "check_message", broken)
    admission = Admission("tablehost", keyed[1])
    with caplog.at_level(logging.DEBUG, logger="tablehost.floor"):
        verdicts = [admission.admit(f"tablehost/T1/events{'x1b[2J' * (i % 2)}", b"{}") for i in range(2000)]
    assert all(isinstance(v, Refusal) for v in verdicts) and admission.failures == 1000  # the rest: bad topics
    failed = [r for r in caplog.records if "checking a message" in r.getMessage()]
    assert len(failed) == 1 and failed[0].exc_info is not None and "1 in all" in failed[0].getMessage()
