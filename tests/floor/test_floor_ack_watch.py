"""The collector reading back the floor's acknowledgements (:mod:`firmware_host.floor.ack_watch`)
when things go wrong: the store unreadable (counted, logged at a rate limit, retried with a
backoff), an acknowledgement not under the floor's key (counted, logged), a marker that never
comes back (the collector goes on after a deadline), and the evidence checked before anything is
said. Rule: hostile input and failures are bounded, counted and logged at a rate limit; nothing
the floor said is lost."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.floor.tables import provision_floor
from firmware_host.feed.ack import ACK_PREFIX, check_ack, make_ack
from firmware_host.feed.broker import BrokerSettings
from firmware_host.feed.signing import Signer
from firmware_host.floor import ack_watch
from firmware_host.floor.collector import Collector
from firmware_host.floor.model import FloorError
from firmware_host.floor.store import open_store
from firmware_host.metrics.floor import FloorMetrics
from tests.support.feed_records import payloads

MARKER = "tablehost/~floor/ack"


class Failing:
    """The store, with the methods named in ``broken`` raising FloorError; calls counted by name."""

    def __init__(self, store: Any) -> None:
        self.store, self.broken, self.calls = store, set[str](), dict[str, int]()

    def __getattr__(self, name: str) -> Any:
        real = getattr(self.store, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] = self.calls.get(name, 0) + 1
            if name in self.broken:
                raise FloorError(f"{name}: the database is away")
            return real(*args, **kwargs)

        return call


class Rig:
    """A collector with a fake client and clock: what it publishes, its store, its signer."""

    def __init__(self, tmp_path: Path) -> None:
        self.now = 1_000.0
        self.real = open_store(str(tmp_path / "floor.sqlite"))
        self.store = Failing(self.real)
        self.signer = Signer.from_file(provision_floor(tmp_path), "floor key", ACK_PREFIX)
        self.collector = Collector(self.store, BrokerSettings("mqtt://127.0.0.1:1"), None, floor_signer=self.signer)  # type: ignore[arg-type]
        assert self.collector.watch is not None
        self.watch = self.collector.watch
        self.watch.clock = lambda: self.now
        self.published: list[tuple[str, bytes]] = []
        self.client = SimpleNamespace(
            publish=lambda topic, payload, qos, retain=False: self.published.append((topic, payload)),
            ack=lambda mid, qos: None,
        )
        self._mid = 0

    def receive(self, topic: str, payload: bytes) -> None:
        self._mid += 1
        message = SimpleNamespace(topic=topic, mid=self._mid, qos=1, payload=payload)
        self.collector._received(self.client, message)  # type: ignore[arg-type]

    def subscribed(self) -> bytes:
        """The broker granted the three subscriptions: the marker's word published."""
        self.collector._on_subscribed(self.client, [SimpleNamespace(is_failure=False)] * 3)  # type: ignore[arg-type]
        ((topic, word),) = [p for p in self.published if p[0] == MARKER][-1:]
        return word

    def flush(self, times: int = 1) -> None:
        for _ in range(times):
            assert self.collector._flush(self.client)  # type: ignore[arg-type]

    def acks(self) -> list[tuple[str, int, int]]:
        """(table, seq, epoch) of each acknowledgement published."""
        keys = self.signer.public_keys()
        return [
            (a.table, a.seq, a.epoch)
            for topic, payload in self.published
            if topic != MARKER
            for a in [check_ack(payload, topic.split("/")[1], keys)]
        ]


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    made = Rig(tmp_path)
    try:
        yield made
    finally:
        made.real.close()


def _errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR and r.name == "tablehost.floor"]


def test_a_store_unreadable_for_the_heard_acks_is_counted_logged_once_and_retried_with_a_backoff(
    rig: Rig, caplog: pytest.LogCaptureFixture
) -> None:
    word = rig.subscribed()
    rig.receive(MARKER, word)
    rig.receive("tablehost/T1/ack", make_ack(rig.signer, "T1", 5, "a" * 64, 1.0, rig.real.epoch()))
    rig.store.broken.add("epoch")
    with caplog.at_level(logging.ERROR, "tablehost.floor"):
        rig.flush(200)  # 200 passes of the collector's loop (0.1 s each: 20 s) at one instant
    assert rig.store.calls["epoch"] == 1  # tried once: the next try waits for the backoff
    assert rig.watch.failures["store"] == 1 and len(_errors(caplog)) == 1
    assert rig.acks() == []  # the heard not checked: nothing said
    rig.now += ack_watch.BACKOFF_S[0]
    rig.flush(200)
    assert rig.store.calls["epoch"] == 2 and rig.watch.failures["store"] == 2
    rig.store.broken.clear()
    rig.now += ack_watch.BACKOFF_S[1]
    rig.flush()
    assert rig.watch.heard == {} and [(t, s) for t, s, _ in rig.acks()] == [("T1", 0)]  # a new epoch: T1 anew
    assert rig.acks()[0][2] > 0


def test_a_first_word_the_store_cannot_say_is_retried_with_a_backoff_not_every_pass(
    rig: Rig, caplog: pytest.LogCaptureFixture
) -> None:
    rig.receive(MARKER, rig.subscribed())
    rig.store.broken.add("epoch")
    with caplog.at_level(logging.ERROR, "tablehost.floor"):
        rig.flush(300)
        assert rig.store.calls["epoch"] == 1 and len(_errors(caplog)) == 1
        for _ in range(200):  # the backoff doubles, up to its longest
            rig.now += ack_watch.BACKOFF_S[1]
            rig.flush(5)
    assert rig.store.calls["epoch"] == 201 and rig.watch.failures["store"] == 201
    assert len(_errors(caplog)) == 3  # the first, the 100th and the 200th
    rig.store.broken.clear()
    rig.now += ack_watch.BACKOFF_S[1]
    rig.flush()
    assert rig.collector._epoch == rig.real.epoch()


def test_an_ack_not_under_the_floors_key_is_counted_on_metrics_and_logged_at_a_rate_limit(
    rig: Rig, caplog: pytest.LogCaptureFixture
) -> None:
    stranger = Signer(Ed25519PrivateKey.generate(), ACK_PREFIX)  # a forgery, or a second floor key
    with caplog.at_level(logging.ERROR, "tablehost.floor"):
        for seq in range(150):
            rig.receive("tablehost/T1/ack", make_ack(stranger, "T1", seq, "a" * 64, 1.0, 1))
    assert rig.watch.heard == {} and rig.watch.failures["refused"] == 150
    assert len(_errors(caplog)) == 2 and "does not check under the floor's key" in _errors(caplog)[0]
    metrics = FloorMetrics(rig.collector.stats, "sqlite", "0")
    (family,) = [m for m in metrics.collect() if m.name == "tablehost_floor_ack_failures"]
    assert {s.labels["kind"]: s.value for s in family.samples if s.name.endswith("_total")} == {
        "refused": 150,
        "store": 0,
        "unsettled": 0,
    }


def test_a_marker_that_never_comes_back_stops_holding_the_acks_after_a_deadline(
    rig: Rig, caplog: pytest.LogCaptureFixture
) -> None:
    """A broker that grants ``+/ack`` and filters its delivery by a read ACL: without a deadline
    the collector would hold every table's acknowledgement for ever."""
    rig.subscribed()
    rig.collector._say(rig.client, ["T1"])  # type: ignore[arg-type]
    rig.flush(10)
    assert rig.acks() == []  # held: the marker may still come
    rig.now += ack_watch.SETTLE_S
    with caplog.at_level(logging.ERROR, "tablehost.floor"):
        rig.flush(10)
    assert [(t, s) for t, s, _ in rig.acks()] == [("T1", 0)]
    assert rig.watch.failures["unsettled"] == 1 and len(_errors(caplog)) == 1
    assert "did not deliver this collector's marker" in _errors(caplog)[0]


def test_heard_acks_are_checked_before_a_batch_is_acknowledged_and_nothing_is_said_if_they_cannot_be(
    rig: Rig,
) -> None:
    """The retained acknowledgements are the evidence of a restore and the collector's own replace
    them at the broker: in one pass, the heard are checked before the batch's are said, and if the
    check fails nothing is said (the evidence stays at the broker)."""
    rig.receive(MARKER, rig.subscribed())
    rig.flush()
    first = len(rig.published)
    rig.receive("tablehost/T1/ack", make_ack(rig.signer, "T1", 5, "a" * 64, 1.0, rig.real.epoch()))
    for payload in payloads("T1")[:3]:
        rig.receive("tablehost/T1/events", payload)
    rig.store.broken.add("holds")
    rig.flush()
    assert rig.store.calls["holds"] == 1 and rig.watch.heard != {}
    assert len(rig.published) == first  # stored, and nothing said: the heard are not checked yet
    assert rig.real.status("T1").last_seq == 3
    rig.store.broken.clear()
    before = rig.real.epoch()
    rig.now += ack_watch.BACKOFF_S[0]
    rig.flush()
    (said,) = rig.acks()
    assert said[0:2] == ("T1", 3) and said[2] > before  # checked first: a new epoch, then T1's 3 said in it


def test_a_marker_of_the_connection_before_settles_nothing(rig: Rig) -> None:
    """The session outlives a connection (clean_start off): the last connection's marker may come
    after the reconnect and before the new SUBACK, and must not settle the check before the new
    subscription's retained acknowledgements are heard (a review of this change)."""
    old = rig.subscribed()
    rig.watch.connected()
    rig.receive(MARKER, old)
    assert not rig.watch.settled
    rig.receive(MARKER, rig.subscribed())
    assert rig.watch.settled
