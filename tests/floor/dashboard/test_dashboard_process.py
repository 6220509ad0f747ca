"""The floor dashboard in a process of its own, beside the collectors (issue 30 item 3): it follows
the store alone (PostgreSQL's ``NOTIFY`` from the collectors' commits, with a fallback for a missed
one; SQLite polled); killing a collector leaves the map up and moving with the others' tables;
killing the dashboard leaves every collector storing; ``tablehost floor --http`` starts it as a
child process, never gives it the floor's key, and starts it again when it dies. A real SQLite,
PostgreSQL, Mosquitto and Chromium."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from bench.feed.broker import Broker, floor_command, free_port, have_mosquitto
from bench.floor.tables import FloorDb, provision_floor
from firmware_host.feed import schema
from firmware_host.feed.broker import BrokerSettings
from firmware_host.floor.collector import Collector
from firmware_host.floor.dashboard.serve import Dashboard
from firmware_host.floor.model import Unreadable
from tests.floor.dashboard.support import get, messages_of, users_dir
from tests.support.floor_run import wait_for
from tests.support.paths import REPO

ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}


def _tiles(url: str) -> dict[str, dict[str, Any]]:
    try:
        status, answer = get(url + "/api/tiles")
    except OSError:
        return {}
    return {tile["table"]: tile for tile in answer["tiles"]} if status == 200 else {}


def _seq(url: str, table: str) -> int:
    return int(_tiles(url).get(table, {}).get("seq", 0))


def _publish(collector: Collector, messages: list[dict[str, Any]]) -> None:
    """Store ``messages`` as a collector does (admitted, ingested in its transaction), without a broker."""
    collector.process([(f"tablehost/{m['table']}/events", schema.encode(m)) for m in messages])


@contextlib.contextmanager
def _dashboard(db: FloorDb, directory: Path, fallback_s: float) -> Iterator[Dashboard]:
    dashboard = Dashboard(
        "127.0.0.1:0",
        lambda: db.open(read_only=True),
        users_dir(directory),
        open_writer=db.open,
        poll_s=0.2,
        fallback_s=fallback_s,
    )
    dashboard.start()
    try:
        yield dashboard
    finally:
        dashboard.stop()


@contextlib.contextmanager
def _collector(db: FloorDb, heard: bool = True) -> Iterator[Collector]:
    """A collector's storing (unsigned, no broker) on ``db``; ``heard=False``: its commits notify no one."""
    store = db.open()
    if not heard:
        store._announce = lambda db, tables: None  # type: ignore[method-assign]
    try:
        yield Collector(store, BrokerSettings("mqtt://127.0.0.1:1"), None)
    finally:
        store.close()


def test_the_dashboard_follows_a_collectors_commits_by_notify_on_postgresql_and_by_polling_on_sqlite(
    floor_db: FloorDb, journal: Path, tmp_path: Path
) -> None:
    feed = messages_of(journal, "BAC-01")
    with _collector(floor_db) as collector:
        _publish(collector, feed[:5])
        with _dashboard(floor_db, tmp_path, fallback_s=3600) as dashboard:  # never the fallback after the first look
            wait_for(lambda: _seq(dashboard.url, "BAC-01") == 5, 20, "the first pass")
            _publish(collector, feed[5:])
            wait_for(lambda: _seq(dashboard.url, "BAC-01") == feed[-1]["seq"], 10, "the commits followed")
            status = {"table": "BAC-01", "state": "offline", "version": "0.3.0", "game": "baccarat", "seq": 1}
            collector.process([("tablehost/BAC-01/status", schema.encode(status))])  # no new message: its status
            wait_for(lambda: _tiles(dashboard.url)["BAC-01"]["online"] is False, 10, "the status followed")
            follower = dashboard.floor.follower
            assert follower is not None
            if floor_db.kind == "postgresql":
                assert follower.notified >= 3  # the two writes and the status, each on its commit
                assert follower.compared <= 2  # the first look, and one when the listener connected
            else:
                assert follower.notified == 0 and follower.compared >= 3  # the first look, then one per change at least


def test_a_missed_notification_is_caught_by_the_fallback_on_postgresql(
    postgres_db: FloorDb, journal: Path, tmp_path: Path
) -> None:
    feed = messages_of(journal, "BAC-01")
    with _collector(postgres_db, heard=False) as collector:  # commits no one hears of
        _publish(collector, feed[:5])
        with _dashboard(postgres_db, tmp_path, fallback_s=1.0) as dashboard:
            wait_for(lambda: _seq(dashboard.url, "BAC-01") == 5, 20, "the first pass")
            follower = dashboard.floor.follower
            assert follower is not None
            wait_for(lambda: follower.notified >= 1, 10, "the listener connected")  # it says so: look at everything
            heard = follower.notified
            _publish(collector, feed[5:])
            wait_for(lambda: _seq(dashboard.url, "BAC-01") == feed[-1]["seq"], 10, "the fallback's look")
            assert follower.notified == heard


class _Process:
    """A ``tablehost`` child process whose log is read (and kept) in a thread."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.lines: list[str] = []
        self.connected = threading.Event()
        self.popen = subprocess.Popen(
            argv, cwd=REPO, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            self.lines.append(line)
            if "floor: subscribed to" in line:  # not "connected": a new session hears nothing before its SUBACK
                self.connected.set()

    def kill(self) -> None:
        self.popen.send_signal(signal.SIGKILL)
        self.popen.wait(10)

    def stop(self) -> int:
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(30)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
        return int(self.popen.returncode)


def _map_seq(page: Any, table: str) -> int:
    found = page.get_attribute(f".tile[data-table='{table}']", "data-seq")
    return int(found or 0)


@pytest.mark.slow  # four processes, a broker and Chromium: about 10 s quiet, 30 s loaded
@pytest.mark.skipif(not have_mosquitto(), reason="needs the Debian package mosquitto (make deps)")
def test_killing_a_collector_leaves_the_map_moving_and_killing_the_dashboard_leaves_the_collectors_storing(
    postgres_db: FloorDb, journal: Path, tmp_path: Path, login: Any
) -> None:
    postgres_db.open().close()  # the schema, before the dashboard opens it to read
    feeds = {prefix: messages_of(journal, f"BAC-{prefix}") for prefix in ("A", "B")}
    listen = f"127.0.0.1:{free_port()}"
    url = f"http://{listen}"
    dashboard_argv = [sys.executable, "-m", "firmware_host", "floor", "dashboard", *postgres_db.args()]
    dashboard_argv += ["--http", listen, "--http-dir", str(users_dir(tmp_path))]
    running: list[_Process] = []
    with Broker(tmp_path / "broker") as broker:
        publisher = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="tables", protocol=mqtt.MQTTv5)
        publisher.connect("127.0.0.1", broker.port)
        publisher.loop_start()

        def publish(prefix: str, messages: list[dict[str, Any]]) -> None:
            for message in messages:
                publisher.publish(f"floor{prefix}/BAC-{prefix}/events", schema.encode(message), qos=1).wait_for_publish(
                    10
                )

        try:
            dashboard = _Process(dashboard_argv)
            running.append(dashboard)
            collectors = {}
            for prefix in ("A", "B"):  # one collector per group of tables, one database
                argv = floor_command(
                    broker.url, postgres_db.args(), "--topic-prefix", f"floor{prefix}", "--client-id", prefix, "-v"
                )
                collectors[prefix] = _Process(argv)
                running.append(collectors[prefix])
            assert all(c.connected.wait(30) for c in collectors.values()), [c.lines for c in collectors.values()]
            for prefix in ("A", "B"):
                publish(prefix, feeds[prefix][:5])
            # Liveness bounds of a minute: about 5 s quiet, over 30 s once with six workers on two cores.
            wait_for(lambda: _seq(url, "BAC-A") == 5 and _seq(url, "BAC-B") == 5, 60, "both tables on the map")
            page = login()
            page.goto(url + "/")
            page.wait_for_selector("body[data-tiles='2']")
            assert _map_seq(page, "BAC-A") == 5 and _map_seq(page, "BAC-B") == 5

            collectors["A"].kill()  # the map stays up, and moves with B's table
            publish("A", feeds["A"][5:10])  # nobody stores these now
            publish("B", feeds["B"][5:10])
            page.wait_for_function("document.querySelector(\".tile[data-table='BAC-B']\")?.dataset.seq === '10'")
            assert _map_seq(page, "BAC-A") == 5 and dashboard.popen.poll() is None

            dashboard.kill()  # B's collector stores on
            publish("B", feeds["B"][10:20])
            with contextlib.closing(postgres_db.open(read_only=True)) as store:
                wait_for(lambda: store.status("BAC-B").max_seq == 20, 60, "the collector storing without a dashboard")
            assert collectors["B"].popen.poll() is None
            restarted = _Process(dashboard_argv)
            running.append(restarted)
            wait_for(lambda: _seq(url, "BAC-B") == 20, 60, "the restarted dashboard showing everything")
            assert _seq(url, "BAC-A") == 5
            page.goto(url + "/")
            page.wait_for_function("document.querySelector(\".tile[data-table='BAC-B']\")?.dataset.seq === '20'")
        finally:
            publisher.loop_stop()
            publisher.disconnect()
            for process in running:
                process.stop()
                print(" ".join(process.argv[2:5]), "".join(process.lines[-15:]), sep="\n")  # shown on a failure
    assert not any("Traceback" in line for process in running for line in process.lines), running[0].lines[-20:]


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            found += [int(child) for child in (task / "children").read_text().split()]
    return found


@pytest.mark.skipif(not have_mosquitto(), reason="needs the Debian package mosquitto (make deps)")
def test_floor_http_starts_the_dashboard_as_a_child_without_the_key_and_starts_it_again_when_killed(
    tmp_path: Path,
) -> None:
    db = tmp_path / "floor.sqlite"
    floor_key = provision_floor(tmp_path)
    listen = f"127.0.0.1:{free_port()}"
    with Broker(tmp_path / "broker") as broker:
        argv = floor_command(
            broker.url, db, "--http", listen, "--http-dir", str(users_dir(tmp_path)), floor_key=floor_key
        )
        assert "--floor-key" in argv
        floor = _Process(argv)
        try:
            wait_for(
                lambda: _status(f"http://{listen}/api/me") == 200 and bool(_children(floor.popen.pid)), 30, "the map"
            )
            (child,) = _children(floor.popen.pid)
            command = Path(f"/proc/{child}/cmdline").read_text().split("\0")
            assert command[3:5] == ["floor", "dashboard"]
            assert "--floor-key" not in command and str(floor_key) not in command and "--broker" not in command
            os.kill(child, signal.SIGKILL)
            wait_for(lambda: _children(floor.popen.pid) not in ([], [child]), 30, "the dashboard started again")
            wait_for(lambda: _status(f"http://{listen}/api/me") == 200, 30, "the map served again")
            assert floor.popen.poll() is None
        finally:
            code = floor.stop()
        assert code == 0, floor.lines[-20:]
        assert "the dashboard exited" in "".join(floor.lines)
    with pytest.raises(ProcessLookupError):
        os.kill(child, 0)


def _status(url: str) -> int:
    try:
        return get(url)[0]
    except OSError:
        return 0


def test_the_dashboard_refuses_the_collectors_key(tmp_path: Path) -> None:
    db = tmp_path / "floor.sqlite"
    done = subprocess.run(
        [sys.executable, "-m", "firmware_host", "floor", "--floor-key", str(provision_floor(tmp_path)), "dashboard"]
        + ["--db", str(db), "--http", "127.0.0.1:0", "--http-dir", str(users_dir(tmp_path))],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "--floor-key is the collector's" in done.stderr


def test_what_is_new_of_many_tables_is_read_in_one_query_at_most_span_each(floor_db: FloorDb, journal: Path) -> None:
    with _collector(floor_db) as collector:
        for table in ("BAC-01", "BAC-02", "BAC-03"):
            _publish(collector, messages_of(journal, table)[:8])
        store = collector.store
        found = store.newer_of({"BAC-01": 2, "BAC-02": 0, "BAC-03": 8, "NONE": 0}, 3)
    assert {t: [m["seq"] for m in ms if not isinstance(m, Unreadable)] for t, ms in found.items()} == {
        "BAC-01": [3, 4, 5],
        "BAC-02": [1, 2, 3],
    }
    assert found["BAC-01"][0] == messages_of(journal, "BAC-01")[2]  # as published
