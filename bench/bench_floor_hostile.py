"""Floor collector under attack, over loopback with a real Mosquitto (``/usr/sbin/mosquitto``):

the collector's rate storing the real tables' messages while 10,000 hostile messages arrive
among them (issue 20), against the same tables with no attack. The collector is ``tablehost
floor --keys DIR`` in a child process (its CPU and peak RSS from /proc); the tables are
:class:`~firmware_host.feed.publisher.FeedPublisher` s with a backlog in their journals, all
started at once; an attacker publishes the hostile messages at QoS 1 from two connections
meanwhile: the messages that stopped the collector before (NaN, seq 2**63, a list for round,
deep nesting), text where numbers belong, forgeries with a correct hash chained to a genuine
message (unsigned, or signed by another key), a forged seq of 10**9, made-up table ids, garbage
bytes and payloads over the size limit.

    .venv/bin/python bench/bench_floor_hostile.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import paho.mqtt.client as mqtt  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402

from bench.bench_feed import PUBLISHED_PER_ROUND, backlogged, keys_dir, proc_stats, publisher, wind_down  # noqa: E402
from bench.feed.broker import Broker, floor_command  # noqa: E402
from firmware_host.feed import schema  # noqa: E402
from firmware_host.feed.signing import Signer  # noqa: E402
from firmware_host.floor.store import FloorStore  # noqa: E402

#: A genuine-looking message of table T0 to start each forgery from.
TEMPLATE = {
    "table": "T0",
    "seq": 2,
    "journal_seq": 2,
    "journal_hash": "1" * 64,
    "at": 1796116391.58,
    "round": 1,
    "type": "round_result",
    "data": {"round": 1, "winner": "banker"},
    "prev_hash": "2" * 64,
}


def _sealed(**changes: Any) -> bytes:
    body = {**TEMPLATE, **changes}
    try:
        return schema.encode(schema.seal(body))
    except ValueError:  # NaN: no canonical JSON, any hash
        return json.dumps({**body, "hash": "0" * 64}).encode()


OTHER_KEY = Signer(Ed25519PrivateKey.generate())
#: The kinds of hostile message, each ``n -> (topic, payload)``.
HOSTILE: dict[str, Callable[[int], tuple[str, bytes]]] = {
    "NaN at": lambda n: ("tablehost/T0/events", _sealed(at=float("nan"), seq=n + 2)),
    "seq 2**63": lambda n: ("tablehost/T0/events", _sealed(seq=2**63 + n)),
    "round a list": lambda n: ("tablehost/T0/events", _sealed(round=[n])),
    "deep nesting": lambda n: ("tablehost/T0/events", b'{"data":' + b"[" * 5000 + b"]" * 5000 + b"}"),
    "text at": lambda n: ("tablehost/T0/events", _sealed(at=f"{n}")),
    "unsigned forgery": lambda n: ("tablehost/T0/events", _sealed(seq=n + 2)),
    "forgery, another key": lambda n: (
        "tablehost/T0/events",
        schema.encode(OTHER_KEY.sign(schema.seal({**TEMPLATE, "seq": n + 2}))),
    ),
    "seq 10**9": lambda n: ("tablehost/T0/events", _sealed(seq=10**9 + n)),
    "made-up table": lambda n: (f"tablehost/FAKE-{n}/events", _sealed(table=f"FAKE-{n}")),
    "garbage": lambda n: ("tablehost/T0/events", bytes(range(256)) * 4),
    "bad status": lambda n: ("tablehost/T0/status", b'{"table":"T0","state":"pwned"}'),
    "oversize": lambda n: ("tablehost/T0/events", b" " * (schema.MAX_PAYLOAD + 1)),
}


def attack(port: int, count: int, done: threading.Event) -> None:
    """Publish ``count`` hostile messages (every kind in turn; 1 in 100 is oversize) at QoS 1."""
    kinds = [k for k in HOSTILE if k != "oversize"]

    def run(start: int) -> None:
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        client.max_inflight_messages_set(200)
        client.connect("127.0.0.1", port)
        client.loop_start()
        last = None
        for n in range(start, count, 2):
            kind = "oversize" if n % 100 == 99 else kinds[n % len(kinds)]
            last = client.publish(*HOSTILE[kind](n), qos=1)
        if last is not None:
            last.wait_for_publish(120)
        client.loop_stop()
        client.disconnect()

    threads = [threading.Thread(target=run, args=(start,)) for start in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    done.set()


def watch(collector: subprocess.Popen[str], subscribed: threading.Event) -> None:
    """Read the collector's log: note its connection; print only its warnings beyond refusals (rate-limited anyway)."""
    assert collector.stderr is not None
    for line in collector.stderr:
        if "floor: subscribed to" in line:
            subscribed.set()
        elif "refused" not in line and ("WARNING" in line or "ERROR" in line):
            print(line, end="", file=sys.stderr)


def counts(db: Path) -> tuple[int, int]:
    """(messages stored, refusals counted) in the floor's database."""
    try:
        store = FloorStore(db, read_only=True)
    except Exception:
        return 0, 0
    try:
        (stored,) = store._conn.execute("SELECT count(*) FROM messages").fetchone()
        (refused,) = store._conn.execute("SELECT coalesce(sum(count), 0) FROM refused_counts").fetchone()
        return stored, refused
    except Exception:
        return 0, 0
    finally:
        store.close()


def run(tmp: Path, broker: Broker, tables: int, rounds: int, hostile: int, label: str) -> None:
    db = tmp / f"floor-{label}.sqlite"
    client_id = f"bench-hostile-{label}"
    journals = backlogged(tmp, f"{label}-table", tables, rounds)
    feeds = [publisher(journal, f"T{t}", broker.url) for t, journal in enumerate(journals)]  # keys provisioned
    collector = subprocess.Popen(
        floor_command(broker.url, db, "--client-id", client_id, "-v", keys=keys_dir(tmp)),
        cwd=REPO,
        stderr=subprocess.PIPE,
        text=True,
    )
    subscribed = threading.Event()
    threading.Thread(target=watch, args=(collector, subscribed), daemon=True).start()
    if not subscribed.wait(30):
        raise SystemExit("the collector did not connect")
    time.sleep(0.5)  # its SUBSCRIBE follows the CONNACK
    expected = tables * (1 + PUBLISHED_PER_ROUND * rounds)
    cpu_before, _ = proc_stats(collector.pid)
    attacked = threading.Event()
    started = time.perf_counter()
    if hostile:
        threading.Thread(target=attack, args=(broker.port, hostile, attacked), daemon=True).start()
    for feed in feeds:
        feed.start()
    while counts(db)[0] < expected:
        if collector.poll() is not None:
            raise SystemExit(f"the collector exited ({collector.returncode}) under attack")
        time.sleep(0.05)
    elapsed = time.perf_counter() - started
    while hostile and counts(db)[1] < hostile and time.perf_counter() - started < 300:
        time.sleep(0.05)
    all_in = time.perf_counter() - started
    cpu_after, rss = proc_stats(collector.pid)
    stored, refused = counts(db)
    wind_down(feeds, journals, collector, broker.url, client_id)
    size = sum(p.stat().st_size for p in tmp.glob(f"floor-{label}.sqlite*")) / 1e6
    print(
        f"{label}: {tables} tables x {1 + PUBLISHED_PER_ROUND * rounds} real messages = {expected} stored in "
        f"{elapsed:.1f} s: {expected / elapsed:.0f} real messages/s"
        + (
            f"; {refused} of {hostile} hostile refused ({all_in:.1f} s for all), "
            f"{(expected + refused) / all_in:.0f} messages/s in all"
            if hostile
            else ""
        )
        + f"; collector CPU {cpu_after - cpu_before:.1f} s, peak RSS {rss:.0f} MB; floor database {size:.1f} MB"
        f" (stored {stored})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs (a smoke test of the bench)")
    args = parser.parse_args()
    tables, rounds, hostile = (5, 20, 1000) if args.quick else (20, 100, 10_000)
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as name:
        tmp = Path(name)
        with Broker(tmp / "broker") as broker:
            run(tmp, broker, tables, rounds, 0, "calm")
            run(tmp, broker, tables, rounds, hostile, "attacked")


if __name__ == "__main__":
    main()
