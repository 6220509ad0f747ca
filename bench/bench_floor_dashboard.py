"""Floor dashboard benchmark: how long a stored message takes to show on the map of 500 tiles.

A real collector and dashboard (child processes) on SQLite, or on a throw-away PostgreSQL
(``--store postgresql``), with a real Mosquitto: this build's dashboard in a process of its own
(``tablehost floor`` and ``tablehost floor dashboard``, issue 30 item 3); with ``--against TREE``
the same load then runs on another build's source tree (``git worktree add /tmp/last 61e3076``),
as that build starts it (``--against-layout one``: ``tablehost floor --http``, the collector and
its dashboard in one process), and both are printed, side by side. 500 tables each
publish a signed feed (a journal opened, then round results, each table with its own key) at a
total rate (default 500 messages/s) for a time (default 60 s); the floor map is open in a
headless Chromium (:class:`bench.floor.dashboard_probe.DashboardProbe`). Reported: publish ->
drawn latency of each message, p50, p99 and max, overall and per tenth of the run (a latency
that grows says the dashboard falls behind); the page's frames, draw time and long tasks; the
collector's and the dashboard's CPU and peak RSS.

A message's latency is from just before it is published to when the page has drawn its tile at
that seq or a later one (a tile shows each table's latest; the seqs between two draws are
never drawn one by one).

    .venv/bin/python bench/bench_floor_dashboard.py [--tables 500] [--rate 500] [--seconds 60]
        [--store sqlite|postgresql] [--against TREE [--against-layout one|split] [--against-first]]
"""

from __future__ import annotations

import argparse
import base64
import bisect
import contextlib
import dataclasses
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import paho.mqtt.client as mqtt  # noqa: E402

from bench.bench_feed import forget_session, keys_dir, pct, proc_stats, signer  # noqa: E402
from bench.bench_floor_hostile import watch  # noqa: E402
from bench.feed.broker import Broker, floor_command, free_port  # noqa: E402
from bench.floor.dashboard_probe import DashboardProbe, Drawn  # noqa: E402
from bench.floor.records import Rec  # noqa: E402
from firmware_host.feed import schema  # noqa: E402
from firmware_host.feed.schema import FeedState  # noqa: E402
from firmware_host.feed.signing import Signer  # noqa: E402
from firmware_host.web.users import add_user  # noqa: E402

PIN = "probe-secret-1"  #: the secret of probe-surveillance, the user the probe and the readers log in as
CLIENT_ID = "bench-dashboard"


class Table:
    """One simulated table's signed feed: a journal opened, then one round result per message."""

    def __init__(self, table: str, key: Signer, seed: int) -> None:
        self.table, self.key, self.state = table, key, FeedState()
        self.random = random.Random(seed)
        self.round = 0
        self.topic = f"tablehost/{table}/events"

    def _record(self) -> Rec:
        seq = self.state.journal_seq + 1
        if seq == 1:
            return Rec(1, "meta", "journal", {"format": 1, "keyed": False, "key_id": None}, at=time.time())
        self.round += 1
        player, banker = self.random.randrange(10), self.random.randrange(10)
        winner = "player" if player > banker else "banker" if banker > player else "tie"
        data = {
            "round": self.round,
            "shoe": 1 + self.round // 70,
            "game": "baccarat",
            "winner": winner,
            "player_total": player,
            "banker_total": banker,
            "settlement": [{"seat": 1, "kind": "banker", "amount": 2500, "paid": 2375 if winner == "banker" else 0}],
        }
        return Rec(seq, "decision", "round_result", data, round=self.round, at=time.time())

    def next(self) -> tuple[int, bytes]:
        """The next message: its seq and its signed payload."""
        ((message, self.state),) = schema.derive(self.table, [self._record()], self.state)
        return message["seq"], schema.encode(self.key.sign(message))

    def status(self) -> bytes:
        """The retained status: online."""
        status = {"table": self.table, "state": "online", "version": "bench", "game": "baccarat", "seq": self.state.seq}
        return schema.encode(self.key.sign(status))


class Publisher:
    """Publishes the tables' messages at QoS 1 through one connection, noting when each was sent."""

    def __init__(self, port: int) -> None:
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-tables", protocol=mqtt.MQTTv5)
        self.client.max_inflight_messages_set(1000)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        self.sent: dict[tuple[str, int], float] = {}

    def one(self, table: Table) -> None:
        seq, payload = table.next()
        self.sent[(table.table, seq)] = time.time()
        self.client.publish(table.topic, payload, qos=1)

    def paced(self, tables: list[Table], rate: float, seconds: float) -> None:
        """``rate`` messages a second in all, for ``seconds``, tables in a shuffled round-robin."""
        order = tables[:]
        random.Random(7).shuffle(order)
        started, n = time.monotonic(), 0
        while (elapsed := time.monotonic() - started) < seconds:
            due = int(elapsed * rate)
            while n < due:
                self.one(order[n % len(order)])
                n += 1
            time.sleep(0.002)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def http_ready(url: str, timeout: float = 60) -> None:
    """Wait for the dashboard to answer ``/api/me``."""
    header = {"Authorization": "Basic " + base64.b64encode(f"probe-surveillance:{PIN}".encode()).decode()}
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(urllib.request.Request(url + "/api/me", headers=header), timeout=5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit(f"the dashboard at {url} does not answer") from None
            time.sleep(0.2)


def tiles_seqs(url: str) -> dict[str, int]:
    header = {"Authorization": "Basic " + base64.b64encode(f"probe-surveillance:{PIN}".encode()).decode()}
    with urllib.request.urlopen(urllib.request.Request(url + "/api/tiles", headers=header), timeout=30) as answer:
        return {t["table"]: t["seq"] for t in json.loads(answer.read())["tiles"]}


def latencies(sent: dict[tuple[str, int], float], drawn: list[Drawn]) -> dict[tuple[str, int], float]:
    """Per message sent: seconds until its tile was drawn at its seq or a later one (missing: never)."""
    by_table: dict[str, list[tuple[int, float]]] = {}
    for d in drawn:
        by_table.setdefault(d.table, []).append((d.seq, d.at))
    firsts: dict[str, tuple[list[int], list[float]]] = {}
    for table, draws in by_table.items():
        draws.sort(key=lambda item: item[1])
        seqs, ats, high = [], [], 0
        for seq, at in draws:  # the draws that raised the table's seq, in time order
            if seq > high:
                seqs.append(seq)
                ats.append(at)
                high = seq
        firsts[table] = seqs, ats
    found = {}
    for (table, seq), at in sent.items():
        seqs, ats = firsts.get(table, ([], []))
        i = bisect.bisect_left(seqs, seq)
        if i < len(seqs):
            found[(table, seq)] = ats[i] - at
    return found


def ms(values: list[float]) -> str:
    return (
        f"p50 {1000 * pct(values, 0.5):.0f} ms, p99 {1000 * pct(values, 0.99):.0f} ms, max {1000 * max(values):.0f} ms"
    )


def tenths(latency: dict[tuple[str, int], float], sent: dict[tuple[str, int], float], start: float, end: float) -> str:
    """p50 of ``latency`` in each tenth of the run (by when the message was sent), milliseconds."""
    parts: list[list[float]] = [[] for _ in range(10)]
    for key, value in latency.items():
        parts[min(9, int(10 * (sent[key] - start) / (end - start)))].append(value)
    return ", ".join(f"{1000 * pct(values, 0.5):.0f}" if values else "-" for values in parts)


@dataclasses.dataclass(frozen=True)
class Db:
    """The floor's store: ``--db`` and its extra arguments, and how the bench reads it itself."""

    arg: str
    extra: list[str]
    connect: Callable[[], Any]


def stores(kind: str, tmp: Path) -> Iterator[Db]:
    """The store, for the run's time (PostgreSQL started and stopped)."""
    if kind == "sqlite":
        path = tmp / "floor.sqlite"
        yield Db(str(path), [], lambda: sqlite3.connect(f"file:{path}?mode=ro", uri=True))
        return
    import psycopg

    from bench.floor.postgres import Postgres

    with Postgres() as server:
        yield Db(
            server.dsn,
            ["--db-password-file", str(server.password_file)],
            lambda: psycopg.connect(server.dsn_with_password),
        )


def stored_at(db: Db) -> dict[tuple[str, int], float]:
    """When the collector stored each message (the store's ``received_at``, the wall clock)."""
    with contextlib.closing(db.connect()) as conn:
        rows = conn.execute("SELECT table_id, seq, received_at FROM messages").fetchall()
    return {(str(table), int(seq)): float(at) for table, seq, at in rows}


@dataclasses.dataclass(frozen=True)
class Build:
    """Whose code runs the floor: a source tree, and how it is laid out (``split``: the collector and
    ``floor dashboard`` in processes of their own; ``one``: ``floor --http``, as builds before issue 30)."""

    tree: Path
    layout: str

    @property
    def name(self) -> str:
        return f"{'this build' if self.tree == REPO else self.tree} ({self.layout})"


def start(build: Build, broker: Broker, db: Db, http: str, directory: Path, keys: Path) -> list[subprocess.Popen[str]]:
    """The floor's processes of ``build``: the collector first (its log read by :func:`watch`), then
    the dashboard where it has its own."""
    web = ["--http", http, "--http-dir", str(directory)]
    command = floor_command(
        broker.url,
        ["--db", db.arg, *db.extra],
        *(web if build.layout == "one" else []),
        "--client-id",
        CLIENT_ID,
        "-v",
        keys=keys,
    )
    # From the tree's own directory ``-m firmware_host`` imports that tree's code (before the venv's).
    processes = [subprocess.Popen(command, cwd=build.tree, stderr=subprocess.PIPE, text=True)]
    if build.layout == "split":
        processes.append(
            subprocess.Popen(
                [sys.executable, "-m", "firmware_host", "floor", "dashboard", "--db", db.arg, *db.extra, *web],
                cwd=build.tree,
                text=True,
            )
        )
    return processes


def run(args: argparse.Namespace, tmp: Path, broker: Broker, db: Db, build: Build) -> dict[str, float]:
    """One build under the load; its figures (also printed)."""
    (tmp / "http").mkdir()
    add_user(tmp / "http" / "users", "probe-surveillance", "surveillance", PIN, ("pit", "surveillance"))
    tables = [Table(f"BAC-{n:03d}", signer(tmp, f"BAC-{n:03d}"), n) for n in range(1, args.tables + 1)]
    http = f"127.0.0.1:{free_port()}"
    url = f"http://{http}"
    processes = start(build, broker, db, http, tmp / "http", keys_dir(tmp))
    collector = processes[0]
    subscribed = threading.Event()
    threading.Thread(target=watch, args=(collector, subscribed), daemon=True).start()
    publisher = None
    try:
        if not subscribed.wait(60):
            raise SystemExit("the collector did not connect")
        http_ready(url)
        publisher = Publisher(broker.port)
        for table in tables:  # every table on the map before the page opens: its first message and its status
            publisher.one(table)
            publisher.client.publish(f"tablehost/{table.table}/status", table.status(), qos=1, retain=True)
        deadline = time.monotonic() + 60
        while len(tiles_seqs(url)) < len(tables) and time.monotonic() < deadline:
            time.sleep(0.5)
        with DashboardProbe(url, "surveillance", PIN) as probe:
            probe.drawn()
            before = probe.frame_stats()
            sent_before = set(publisher.sent)
            cpu_before = [proc_stats(p.pid)[0] for p in processes]
            drawn: list[Drawn] = []
            load = threading.Thread(target=publisher.paced, args=(tables, args.rate, args.seconds))
            started = time.time()
            load.start()
            while load.is_alive():
                time.sleep(1.0)
                drawn += probe.drawn()
            load.join()
            ended = time.time()
            cpu_load = [proc_stats(p.pid)[0] for p in processes]
            last = {t.table: t.state.seq for t in tables}
            deadline = time.monotonic() + 120
            shown: dict[str, int] = {}
            while time.monotonic() < deadline:  # until every tile shows its table's last seq
                drawn += probe.drawn()
                for d in drawn:
                    shown[d.table] = max(shown.get(d.table, 0), d.seq)
                if all(shown.get(t, 0) >= seq for t, seq in last.items()):
                    break
                time.sleep(0.5)
            after = probe.frame_stats()
            errors = probe.errors
        after_stats = [proc_stats(p.pid) for p in processes]
    finally:
        if publisher is not None:
            publisher.close()
        for process in processes:
            process.terminate()
            process.wait(30)
        forget_session(broker.url, CLIENT_ID)
    sent = {k: v for k, v in publisher.sent.items() if k not in sent_before}
    found = latencies(sent, drawn)
    behind = sum(1 for t, seq in last.items() if shown.get(t, 0) < seq)
    print(
        f"{build.name}: {args.tables} tiles, {len(sent)} messages at {len(sent) / (ended - started):.0f}/s for "
        f"{ended - started:.0f} s on {args.store}, load {os.getloadavg()[0]:.2f}: publish -> drawn "
        f"{ms(list(found.values()))}; "
        f"{len(sent) - len(found)} messages never drawn, {behind} tiles short of their table's last seq"
    )
    stored = stored_at(db)
    to_store = [stored[key] - at for key, at in sent.items() if key in stored]
    to_draw = {key: at + found[key] - stored[key] for key, at in sent.items() if key in stored and key in found}
    print(f"  of which publish -> stored {ms(to_store)}; stored -> drawn {ms(list(to_draw.values()))}")
    for label, values in (("publish -> drawn", found), ("stored -> drawn", to_draw)):
        print(f"  {label}, p50 by tenth of the run: {tenths(values, sent, started, ended)} ms")
    draws = after["draws"] - before["draws"]
    print(
        f"  page: {draws:.0f} frames drew tiles ({len(sent) / max(draws, 1):.0f} messages a frame), "
        f"{after['batches'] - before['batches']:.0f} SSE batches, mean draw "
        f"{(after['draw_ms'] - before['draw_ms']) / max(draws, 1):.1f} ms, max {after['max_draw_ms']:.1f} ms, "
        f"to painted: mean {(after['render_ms'] - before['render_ms']) / max(draws, 1):.1f} ms, "
        f"max {after['max_render_ms']:.0f} ms; "
        f"long tasks {after['long_tasks'] - before['long_tasks']:.0f} "
        f"({after['long_task_ms'] - before['long_task_ms']:.0f} ms, max {after['max_long_task_ms']:.0f} ms)"
        + (f"; JavaScript errors: {errors}" if errors else "")
    )
    names = ["collector (with its dashboard)"] if build.layout == "one" else ["collector", "dashboard"]
    for name, before_cpu, load_cpu, (after_cpu, rss) in zip(names, cpu_before, cpu_load, after_stats):
        print(
            f"  {name}: CPU {100 * (load_cpu - before_cpu) / (ended - started):.0f}% of a core "
            f"under load ({after_cpu - before_cpu:.1f} s in all), peak RSS {rss:.0f} MB"
        )
    drawn_s = list(found.values())
    return {"p50": pct(drawn_s, 0.5), "p99": pct(drawn_s, 0.99), "max": max(drawn_s), "load": os.getloadavg()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=500, help="tables on the map")
    parser.add_argument("--rate", type=float, default=500.0, help="messages a second, all tables together")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the tables publish")
    parser.add_argument("--store", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--against", type=Path, metavar="TREE", help="another build's source tree, run after this one")
    parser.add_argument("--against-layout", choices=("one", "split"), default="one", help="how TREE runs the floor")
    parser.add_argument(
        "--against-first", action="store_true", help="run TREE first (the order's effect on a loaded machine)"
    )
    args = parser.parse_args()
    builds = [Build(REPO, "split")]
    if args.against is not None:
        builds.insert(0 if args.against_first else 1, Build(args.against.resolve(), args.against_layout))
    figures = {}
    for build in builds:  # each on a fresh broker and store
        with tempfile.TemporaryDirectory(prefix="bench-dashboard-") as name:
            tmp = Path(name)
            with Broker(tmp / "broker") as broker:
                for db in stores(args.store, tmp):
                    figures[build.name] = run(args, tmp, broker, db, build)
    if len(figures) > 1:
        print("publish -> drawn, side by side (the same run; a loaded machine shows in the load average):")
        for name, got in figures.items():
            print(
                f"  {name}: p50 {1000 * got['p50']:.0f} ms, p99 {1000 * got['p99']:.0f} ms, "
                f"max {1000 * got['max']:.0f} ms (load {got['load']:.2f})"
            )


if __name__ == "__main__":
    main()
