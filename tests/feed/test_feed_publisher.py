"""The publisher against a real Mosquitto: window, cursor, status and will, trouble, identical resends."""

from __future__ import annotations

import io
import json
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from bench.feed.broker import Broker, free_port
from bench.floor.tables import floor_seq, provision, provision_floor, start_table, table_profile
from bench.floor.tcp_proxy import TcpProxy
from firmware_host.feed.broker import BrokerSettings
from firmware_host.feed.cursor import FeedCursor
from firmware_host.feed.publisher import FeedPublisher
from firmware_host.feed.signing import PUBLIC_SUFFIX, Signer, load_public_keys
from firmware_host.feed.warning import FeedTrouble, TroubleLamp
from firmware_host.host.journal import Journal
from firmware_host.host.journal_verify import verify
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import FloorFeedStatus
from tests.support.feed_records import play
from tests.support.floor_run import collecting, wait_for


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    with Journal.open(tmp_path / "journal.sqlite") as opened:
        yield opened


def signer(journal: Journal) -> Signer:
    """Table T1's key, provisioned beside the journal (where the test's collector finds its public key)."""
    return Signer.from_file(provision(Path(journal.path).parent, "T1"))


def floor_keys_of(journal: Journal) -> dict[str, object]:
    """The floor's public key, provisioned beside the journal (the test's collector signs with its private key)."""
    return load_public_keys(provision_floor(Path(journal.path).parent).with_suffix(PUBLIC_SUFFIX))  # type: ignore[return-value]


def publisher(journal: Journal, url: str, **options: object) -> FeedPublisher:
    settings = BrokerSettings(url, keepalive_s=int(options.pop("keepalive_s", 15)))  # type: ignore[call-overload]
    options.setdefault("floor_keys", floor_keys_of(journal))
    return FeedPublisher(
        journal,
        FeedCursor(journal.path, "T1"),
        settings,
        signer(journal),
        table_id="T1",
        game="baccarat",
        version="9.9",
        **options,
    )  # type: ignore[arg-type]


class Subscriber:
    """A raw subscriber that keeps every payload of a topic filter, in arrival order."""

    def __init__(self, url_port: int, topic: str) -> None:
        self.payloads: list[bytes] = []
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        self.client.on_message = lambda _c, _u, message: self.payloads.append(message.payload)
        self.client.on_connect = lambda client, *_: client.subscribe(topic, qos=1)
        self.client.connect("127.0.0.1", url_port)
        self.client.loop_start()

    def last(self) -> dict[str, object] | None:
        """The last payload without its signature (the collector checks it: tests/floor/test_floor_cli.py)."""
        if not self.payloads:
            return None
        return {k: v for k, v in json.loads(self.payloads[-1]).items() if k not in ("key_id", "sig")}

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def test_every_message_is_acknowledged_and_the_cursor_follows(tmp_path: Path, broker: Broker, journal: Journal) -> None:
    play(journal, 30)
    feed = publisher(journal, broker.url)
    with collecting(tmp_path / "floor.sqlite", broker.url):
        feed.start()
        wait_for(lambda: floor_seq(tmp_path / "floor.sqlite", "T1") == 31, what="31 messages on the floor")
        play(journal, 5, first=31)  # the service wakes it: new steps go out too
        feed.on_decisions([])
        wait_for(lambda: floor_seq(tmp_path / "floor.sqlite", "T1") == 36, what="36 messages on the floor")
        feed.stop()
    assert FeedCursor(journal.path, "T1").load().seq == 36
    assert verify(journal.path).ok  # the cursor's table leaves the journal's chain alone


def test_no_more_than_the_window_is_unacknowledged_and_a_black_hole_is_left(
    tmp_path: Path, broker: Broker, journal: Journal
) -> None:
    play(journal, 5)
    db = tmp_path / "floor.sqlite"
    with TcpProxy(broker.port) as proxy, collecting(db, broker.url):
        feed = publisher(journal, proxy.url(), window=5, keepalive_s=2, ack_timeout_s=1.0)
        feed.start()
        wait_for(lambda: floor_seq(db, "T1") == 6 and feed.acked.seq == 6, what="the first messages")
        proxy.swallow()  # connections stay up, nothing gets through: no PUBACK, no PINGRESP
        play(journal, 40, first=6)
        feed.on_decisions([])
        seen: list[int] = []
        wait_for(lambda: seen.append(feed.in_flight) or feed.in_flight == 5, what="a full window")
        assert feed.acked.seq == 6 and max(seen) == 5
        wait_for(lambda: feed.connections >= 1 and feed.in_flight == 0, what="the dead connection left")
        proxy.restore()
        wait_for(lambda: seen.append(feed.in_flight) or floor_seq(db, "T1") == 46, what="every message after the cut")
        assert max(seen) <= 5
        feed.stop()


def test_the_retained_status_says_online_then_offline_at_a_clean_stop(broker: Broker, journal: Journal) -> None:
    play(journal, 2)
    # No floor key: the broker's PUBACK moves the cursor (the raw subscriber acknowledges nothing).
    feed = publisher(journal, broker.url, status_every_s=0.0, floor_keys=None)
    status, floor = Subscriber(broker.port, "tablehost/T1/status"), Subscriber(broker.port, "tablehost/T1/events")
    try:
        feed.start()
        wait_for(lambda: (status.last() or {}).get("seq") == 3, what="status with seq 3")
        assert status.last() == {"table": "T1", "state": "online", "version": "9.9", "game": "baccarat", "seq": 3}
        feed.stop()
        wait_for(lambda: (status.last() or {}).get("state") == "offline", what="offline")
    finally:
        status.close()
        floor.close()
    late = Subscriber(broker.port, "tablehost/T1/status")  # retained: a late subscriber gets it too
    try:
        wait_for(lambda: late.last() is not None, what="the retained status")
        assert late.last() == {"table": "T1", "state": "offline", "version": "9.9", "game": "baccarat", "seq": 3}
    finally:
        late.close()


def test_a_table_killed_leaves_its_will_offline_retained(tmp_path: Path, broker: Broker) -> None:
    floor = Subscriber(broker.port, "tablehost/SIM-BAC-1/events")
    table = start_table(
        table_profile(tmp_path, feed='broker = "mqtt://127.0.0.1:1"'), tmp_path / "journal.sqlite", 10_000, broker.url
    )
    status = Subscriber(broker.port, "tablehost/SIM-BAC-1/status")
    try:
        wait_for(lambda: (status.last() or {}).get("state") == "online", what="online")
        table.send_signal(signal.SIGKILL)
        table.wait()
        wait_for(lambda: (status.last() or {}).get("state") == "offline", what="the will")
    finally:
        status.close()
        floor.close()
        table.kill()


def test_feed_trouble_shows_on_the_dealer_view_and_the_lamp_and_clears(tmp_path: Path, journal: Journal) -> None:
    shown: list[str] = []

    class Panel:
        def show(self, colour: str) -> None:
            shown.append(colour)

        def buzz(self) -> None:
            pass

    lamp, view = TroubleLamp(Panel()), io.StringIO()
    lamp.show("green")
    down = Broker(tmp_path / "late")  # configured, not started: the feed starts in trouble
    said: list[FloorFeedStatus] = []
    feed = publisher(journal, down.url, warn_after_s=0.2, on_trouble=FeedTrouble(view, "T1", lamp, said.append))
    play(journal, 3)
    feed.start()
    try:
        wait_for(lambda: "WARNING: floor feed down" in view.getvalue(), what="the warning")
        assert shown[-1] == "amber" and feed.troubled
        lamp.show("red")  # a paused table stays red
        assert shown[-1] == "red"
        lamp.show("green")
        assert shown[-1] == "amber"
        with down, collecting(tmp_path / "floor.sqlite", down.url):  # until the floor acknowledges it is trouble
            wait_for(lambda: "floor feed back" in view.getvalue(), what="the feed back")
            assert shown[-1] == "green" and not feed.troubled
            # For the journal (the service's queue): the trouble and why, then healthy again.
            assert [bool(status.trouble) for status in said] == [True, False]
            assert said[0].device == "feed" and f"WARNING: {said[0].trouble}" in view.getvalue()
            wait_for(lambda: floor_seq(tmp_path / "floor.sqlite", "T1") == 4, what="record 1 and three results")
            feed.stop()
    finally:
        feed.stop(0)


def test_a_restarted_feed_resends_identical_bytes(broker: Broker, journal: Journal) -> None:
    play(journal, 10)
    events = Subscriber(broker.port, "tablehost/T1/events")
    try:
        first = publisher(journal, broker.url, floor_keys=None)  # the raw subscriber acknowledges nothing
        first.start()
        wait_for(lambda: len(events.payloads) == 11, what="11 messages")
        first.stop()
        cursor = FeedCursor(journal.path, "T1")
        cursor._conn.execute("DELETE FROM feed_cursor")  # as if the cursor were lost: resend everything
        again = publisher(journal, broker.url, floor_keys=None)
        again.start()
        wait_for(lambda: len(events.payloads) == 22, what="the resend")
        again.stop()
    finally:
        events.close()
    assert events.payloads[:11] == events.payloads[11:]


def test_a_table_whose_broker_is_unreachable_plays_on_and_warns(tmp_path: Path) -> None:
    profile = table_profile(tmp_path, feed=f'broker = "mqtt://127.0.0.1:{free_port()}"\nwarn_after_s = 0.2')
    table = start_table(profile, tmp_path / "journal.sqlite", 8)
    out, err = table.communicate(timeout=120)
    assert table.returncode == 0, err[-2000:]
    assert "stopped: 8 rounds in the journal" in out
    assert "WARNING: floor feed down" in out  # on the dealer view, and play went on


def test_the_service_thread_only_wakes_the_publisher(broker: Broker, journal: Journal) -> None:
    readers: set[str] = set()

    class Watched:
        def records_after(self, seq: int, limit: int) -> list[object]:
            readers.add(threading.current_thread().name)
            return journal.records_after(seq, limit)

    feed = FeedPublisher(
        Watched(),
        FeedCursor(journal.path, "T1"),
        BrokerSettings(broker.url),
        signer(journal),
        table_id="T1",
        game="baccarat",
        version="9.9",
    )
    floor = Subscriber(broker.port, "tablehost/T1/events")
    try:
        feed.start()
        for n in range(1, 6):
            play(journal, 1, first=n)
            feed.on_decisions([Decision("round_result", {}, n)])  # what the service thread calls
        wait_for(lambda: len(floor.payloads) == 6, what="record 1 and five results")
        feed.stop()
    finally:
        floor.close()
    assert readers == {"feed-T1"}  # the journal is read on the feed's thread only
