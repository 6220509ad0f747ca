"""Floor feed benchmark, over loopback with a real Mosquitto (``/usr/sbin/mosquitto``):

1. decision to stored at the collector: p50 / p99 latency, one step every few milliseconds;
2. backlog drain after a simulated hour (and a day) of play with the broker down, messages/s;
3. 50 simulated tables publishing to one broker and one collector (``tablehost floor``, a child
   process): messages/s, and the collector's CPU and peak RSS;
4. ``tablehost run`` (a simulated Baccarat table) with the feed on and off: its CPU and peak RSS.

    .venv/bin/python bench/bench_feed.py [--quick] [--puback]

The tables' cursors follow the floor's signed acknowledgement (the floor's key provisioned, the
collectors sign with it); ``--puback``: the broker's PUBACK, as a table without ``floor_key``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import paho.mqtt.client as mqtt  # noqa: E402

from bench.feed.broker import Broker, floor_command  # noqa: E402
from bench.floor.tables import provision_floor  # noqa: E402
from drivers.events.shoe import CardRead  # noqa: E402
from firmware_host.feed.ack import ACK_PREFIX  # noqa: E402
from firmware_host.feed.broker import BrokerSettings  # noqa: E402
from firmware_host.feed.cursor import FeedCursor  # noqa: E402
from firmware_host.feed.publisher import FeedPublisher  # noqa: E402
from firmware_host.feed.signing import PUBLIC_SUFFIX, Keyring, Signer, keygen, load_public_keys  # noqa: E402
from firmware_host.floor.collector import Collector  # noqa: E402
from firmware_host.floor.store import FloorStore  # noqa: E402
from firmware_host.host.journal import Journal  # noqa: E402
from firmware_host.tables.decisions import Decision  # noqa: E402

#: Records of one simulated round: 6 cards with their prompts, 3 announcements, the result (about
#: what a simulated Baccarat round journals).
CARDS_PER_ROUND = 6
#: Messages a round of :func:`play_round` publishes (two announcements and the result).
PUBLISHED_PER_ROUND = 3
#: Rounds in an hour at a busy Minibaccarat table.
ROUNDS_PER_HOUR = 200
#: The cursors follow the floor's acknowledgement (``--puback``: the broker's).
END_TO_END = {"on": True}


def play_round(journal: Journal, n: int, at: float) -> None:
    """One round's steps: cards with prompts (not published), announcements and the result (published)."""
    for card in range(CARDS_PER_ROUND):
        journal.append_step(
            at + card,
            CardRead(device="shoe", rank="9", suit="S"),
            [Decision("prompt", {"action": "deal", "to": "player", "card": card}, n)],
        )
    journal.append_step(
        at + 7,
        CardRead(device="shoe", rank="K", suit="D"),
        [
            Decision(
                "announce",
                {
                    "announce": "point_counts",
                    "player": ["9S", "KD"],
                    "banker": ["9S", "9S"],
                    "player_total": 9,
                    "banker_total": 8,
                    "text": "player 9, banker 8",
                },
                n,
            ),
            Decision("announce", {"announce": "outcome", "winner": "player", "text": "player wins"}, n),
            Decision(
                "round_result",
                {
                    "round": n,
                    "shoe": 1,
                    "winner": "player",
                    "player": ["9S", "KD"],
                    "banker": ["9S", "9S"],
                    "player_total": 9,
                    "banker_total": 8,
                    "settlement": [{"seat": 1, "kind": "player", "amount": 2500, "paid": 2500}],
                },
                n,
            ),
            Decision("lamp", {"colour": "green"}, n),
        ],
    )


def pct(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def keys_dir(tmp: Path) -> Path:
    """The collector's public keys (made empty once)."""
    keys = tmp / "floor-keys"
    keys.mkdir(exist_ok=True)
    return keys


def signer(tmp: Path, table: str) -> Signer:
    """The table's signing key, provisioned once: private under ``tmp/keys``, public in :func:`keys_dir`."""
    private = tmp / "keys" / f"{table}.key"
    if not private.exists():
        private.parent.mkdir(exist_ok=True)
        keygen(private, keys_dir(tmp) / f"{table}.pub")
    return Signer.from_file(private)


class Floor:
    """A collector on a thread (verifying against :func:`keys_dir`), recording when each (table, seq) was stored."""

    def __init__(self, db: Path, url: str) -> None:
        self.store = FloorStore(db)
        self.name = db.stem
        self.stored: dict[tuple[str, int], float] = {}
        ingest = self.store.ingest

        def timed(batch: list[object]) -> list[object]:
            outcomes = ingest(batch)
            now = time.perf_counter()
            for outcome in outcomes:
                if outcome.kind == "stored":
                    self.stored[(outcome.table, outcome.seq)] = now
            return outcomes

        self.store.ingest = timed  # type: ignore[method-assign]
        floor_key = Signer.from_file(provision_floor(db.parent), "floor key", ACK_PREFIX) if END_TO_END["on"] else None
        self.collector = Collector(
            self.store,
            BrokerSettings(url),
            Keyring(keys_dir(db.parent)),
            client_id=f"bench-{db.stem}",
            floor_signer=floor_key,
        )
        self.thread = threading.Thread(target=self.collector.run, daemon=True)
        self.thread.start()
        self.collector.subscribed.wait(10)

    def wait(self, count: int, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while len(self.stored) < count:
            if time.monotonic() > deadline:
                raise SystemExit(f"only {len(self.stored)} of {count} messages stored")
            time.sleep(0.005)

    def close(self) -> None:
        """Stop, and end the session at the broker (a real floor has one collector, always there)."""
        self.collector.stop()
        self.thread.join(10)
        self.store.close()
        forget_session(self.collector.settings.url, self.collector.client_id)


def forget_session(url: str, client_id: str) -> None:
    """Connect with a clean start and no session expiry: the broker drops the session and its queue."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    _, host, port = BrokerSettings(url).endpoint
    client.connect(host, port, clean_start=True)
    client.loop_start()
    time.sleep(0.2)
    client.disconnect()
    client.loop_stop()


def publisher(journal: Journal, table: str, url: str) -> FeedPublisher:
    """The table's publisher, signing with its key (provisioned beside the journal)."""
    return FeedPublisher(
        journal,
        FeedCursor(journal.path, table),
        BrokerSettings(url),
        signer(Path(journal.path).parent, table),
        table_id=table,
        game="baccarat",
        version="bench",
        floor_keys=floor_public(Path(journal.path).parent) if END_TO_END["on"] else None,
    )


def floor_public(tmp: Path) -> dict[str, Any]:
    """The floor's public key (its pair made once under ``tmp``)."""
    return load_public_keys(provision_floor(tmp).with_suffix(PUBLIC_SUFFIX))


def latency(tmp: Path, broker: Broker, steps: int) -> None:
    floor = Floor(tmp / "latency-floor.sqlite", broker.url)
    with Journal.open(tmp / "latency.sqlite") as journal:
        journal.append_meta("table", {"table_id": "T1"})
        feed = publisher(journal, "T1", broker.url)
        feed.start()
        floor.wait(1)
        made: dict[int, float] = {}
        for n in range(1, steps + 1):
            journal.append_step(
                float(n),
                CardRead(device="shoe", rank="9", suit="S"),
                [Decision("round_result", {"round": n, "winner": "banker"}, n)],
            )
            made[n + 1] = time.perf_counter()  # feed seq n + 1 (seq 1 is the journal's first record)
            feed.on_decisions([])
            time.sleep(0.004)
        floor.wait(steps + 1)
        feed.stop()
    floor.close()
    ms = [(floor.stored[("T1", seq)] - at) * 1000 for seq, at in made.items()]
    print(
        f"decision to stored: {steps} decisions 4 ms apart: p50 {pct(ms, 0.5):.2f} ms, p99 {pct(ms, 0.99):.2f} ms, "
        f"max {max(ms):.2f} ms"
    )


def drain(tmp: Path, broker: Broker, hours: float) -> None:
    rounds = int(ROUNDS_PER_HOUR * hours)
    path = tmp / f"drain-{hours}.sqlite"
    with Journal.open(path) as journal:
        journal.append_meta("table", {"table_id": "D1"})
        for n in range(1, rounds + 1):
            play_round(journal, n, n * 20.0)
        records = journal.last_seq
        signer(tmp, f"D{hours:g}")  # provisioned before the collector reads its keys
        floor = Floor(tmp / f"drain-{hours}-floor.sqlite", broker.url)
        feed = publisher(journal, f"D{hours:g}", broker.url)
        started = time.perf_counter()
        feed.start()
        expected = 1 + PUBLISHED_PER_ROUND * rounds
        floor.wait(expected)
        elapsed = time.perf_counter() - started
        feed.stop()
        floor.close()
    print(
        f"backlog drain after {hours:g} h down ({rounds} rounds, {records} journal records, {expected} messages): "
        f"{elapsed:.2f} s, {expected / elapsed:.0f} messages/s"
    )


def proc_stats(pid: int) -> tuple[float, float]:
    """(CPU seconds, peak RSS MB) of a live process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / 100.0  # utime + stime in clock ticks (USER_HZ = 100)
    hwm = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("VmHWM"))
    return cpu, int(hwm.split()[1]) / 1024


def backlogged(tmp: Path, name: str, tables: int, rounds: int) -> list[Journal]:
    """Open journals of tables ``T0``.. each holding ``rounds`` rounds (``tmp/<name>-<n>.sqlite``)."""
    journals = []
    for t in range(tables):
        journal = Journal.open(tmp / f"{name}-{t}.sqlite")
        journal.append_meta("table", {"table_id": f"T{t}"})
        for n in range(1, rounds + 1):
            play_round(journal, n, n * 20.0)
        journals.append(journal)
    return journals


def wind_down(
    feeds: list[FeedPublisher], journals: list[Journal], collector: subprocess.Popen[Any], url: str, client_id: str
) -> None:
    """Stop the feeds, close the journals, stop the collector and end its session."""
    for feed in feeds:
        feed.stop(0)
    for journal in journals:
        journal.close()
    collector.terminate()
    collector.wait(10)
    forget_session(url, client_id)


def many_tables(tmp: Path, broker: Broker, tables: int, rounds: int) -> None:
    db = tmp / "floor-50.sqlite"
    collector = subprocess.Popen(
        floor_command(
            broker.url,
            db,
            "--client-id",
            "bench-floor",
            keys=keys_dir(tmp),
            floor_key="beside" if END_TO_END["on"] else None,
        ),
        cwd=REPO,
    )
    journals = backlogged(tmp, "table", tables, rounds)
    time.sleep(1.0)  # the collector's session exists
    expected = tables * (1 + PUBLISHED_PER_ROUND * rounds)
    feeds = [publisher(journal, f"T{t}", broker.url) for t, journal in enumerate(journals)]
    cpu_before, _ = proc_stats(collector.pid)
    started = time.perf_counter()
    for feed in feeds:
        feed.start()
    while True:
        try:
            store = FloorStore(db, read_only=True)
            (count,) = store._conn.execute("SELECT count(*) FROM messages").fetchone()
            store.close()
        except Exception:
            count = 0
        if count >= expected:
            break
        time.sleep(0.05)
    elapsed = time.perf_counter() - started
    cpu_after, rss = proc_stats(collector.pid)
    wind_down(feeds, journals, collector, broker.url, "bench-floor")
    print(
        f"{tables} tables x {1 + PUBLISHED_PER_ROUND * rounds} messages to one broker and collector: {expected} messages in "
        f"{elapsed:.1f} s, {expected / elapsed:.0f} messages/s; collector CPU {cpu_after - cpu_before:.1f} s "
        f"({100 * (cpu_after - cpu_before) / elapsed:.0f}% of a core), peak RSS {rss:.0f} MB"
    )


def signed_profile(tmp: Path, url: str) -> Path:
    """The simulated Baccarat table's profile with a ``[feed]`` section and its signing key."""
    tables = tmp / "profiles" / "tables"
    tables.mkdir(parents=True, exist_ok=True)
    if not (tmp / "profiles" / "devices").exists():
        (tmp / "profiles" / "devices").symlink_to(REPO / "hardware-profiles" / "devices")
    text = (REPO / "hardware-profiles" / "tables" / "sim-baccarat.toml").read_text()
    signer(tmp, "SIM-BAC-1")
    path = tables / "sim-baccarat.toml"
    floor = f'floor_key = "{provision_floor(tmp).with_suffix(PUBLIC_SUFFIX)}"\n' if END_TO_END["on"] else ""
    path.write_text(f'{text}\n[feed]\nbroker = "{url}"\nsigning_key = "{tmp / "keys" / "SIM-BAC-1.key"}"\n{floor}')
    return path


def table_cost(tmp: Path, broker: Broker, rounds: int, repeats: int = 2) -> None:
    profiles = {
        "off": REPO / "hardware-profiles" / "tables" / "sim-baccarat.toml",
        "on": signed_profile(tmp, broker.url),
    }
    figures: dict[str, list[tuple[float, float, float]]] = {"off": [], "on": []}
    for run in range(repeats):
        for label, extra in (("off", []), ("on", ["--feed", broker.url])):
            floor = Floor(tmp / f"cost-floor-{label}-{run}.sqlite", broker.url)  # each journal its own floor
            started = time.perf_counter()
            child = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "firmware_host",
                    "run",
                    "--profile",
                    str(profiles[label]),
                    "--rounds",
                    str(rounds),
                    "--seed",
                    "3",
                    "--journal",
                    str(tmp / f"cost-{label}-{run}.sqlite"),
                    "--quiet",
                    *extra,
                ],
                cwd=REPO,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            _, status, usage = os.wait4(child.pid, 0)
            child.returncode = os.waitstatus_to_exitcode(status)
            assert child.returncode == 0, child.returncode
            figures[label].append(
                (time.perf_counter() - started, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)
            )
            floor.close()
    for label, runs in figures.items():
        wall, cpu, rss = (min(values) for values in zip(*runs))
        print(
            f"tablehost run, {rounds} simulated rounds, feed {label:3}: best of {repeats}: {wall:.1f} s, "
            f"CPU {cpu:.2f} s, peak RSS {rss:.0f} MB"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs (a smoke test of the bench)")
    parser.add_argument("--puback", action="store_true", help="cursors on the broker's PUBACK (no floor key)")
    args = parser.parse_args()
    END_TO_END["on"] = not args.puback
    print(f"cursors on {'the broker' if args.puback else 'the floor'}'s acknowledgement")
    with tempfile.TemporaryDirectory(prefix="bench-feed-") as name:
        tmp = Path(name)
        with Broker(tmp / "broker") as broker:
            latency(tmp, broker, 200 if args.quick else 2000)
            drain(tmp, broker, 1)
            if not args.quick:
                drain(tmp, broker, 24)
            many_tables(tmp, broker, 50, 20 if args.quick else 100)
            table_cost(tmp, broker, 20 if args.quick else 60)


if __name__ == "__main__":
    main()
