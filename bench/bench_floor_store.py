"""The floor store's write latency on SQLite and on a real PostgreSQL (issue 22).

Each store takes the same signed-format feed messages (the tests' six records, republished
under ``--tables`` table ids) through :class:`~firmware_host.floor.collector.Collector.process`,
as the collector's loop calls it: in batches of 1 (a message at a time: the latency a quiet
floor sees) and of 100 (a busy floor's batch). Reported: each write transaction's p50 and p99
(ms, from :class:`~firmware_host.floor.collector.CollectorStats`' timing), and messages/s. Then
the same messages again: all duplicates (what a second, redundant collector's writes cost).

SQLite runs with ``synchronous=FULL`` on the temporary directory's file system; PostgreSQL is
:class:`bench.floor.postgres.Postgres` (``fsync`` off, ``synchronous_commit`` off: the rig's
settings, so its figures are the engine's and loopback's cost, not a disk's).

    .venv/bin/python bench/bench_floor_store.py [--tables N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.floor.postgres import Postgres, have_postgres  # noqa: E402
from bench.floor.records import payloads  # noqa: E402
from firmware_host.feed.broker import BrokerSettings  # noqa: E402
from firmware_host.floor.collector import Collector  # noqa: E402
from firmware_host.floor.store import open_store  # noqa: E402


def run(spec: str, password_file: Path | None, messages: list[tuple[str, bytes]], batch: int) -> dict[str, Any]:
    """Write ``messages`` in batches of ``batch``, then write them again (duplicates)."""
    store = open_store(spec, password_file=password_file)
    try:
        figures: dict[str, Any] = {}
        for phase in ("new", "duplicate"):
            collector = Collector(store, BrokerSettings("mqtt://127.0.0.1:1"), None)
            seconds: list[float] = []
            started = time.perf_counter()
            for first in range(0, len(messages), batch):
                collector.process(messages[first : first + batch])
                seconds.append(collector.stats.last_write_seconds)
            elapsed = time.perf_counter() - started
            kinds = collector.counts
            assert kinds["stored" if phase == "new" else "duplicate"] == len(messages), kinds
            ms = sorted(s * 1000 for s in seconds)
            figures[phase] = {
                "p50_ms": round(statistics.median(ms), 2),
                "p99_ms": round(ms[min(len(ms) - 1, int(len(ms) * 0.99))], 2),
                "messages_per_s": round(len(messages) / elapsed),
            }
        return figures
    finally:
        store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200, help="table ids (six messages each)")
    args = parser.parse_args()
    messages = [(f"tablehost/T{n}/events", p) for n in range(args.tables) for p in payloads(f"T{n}")]
    print(f"{len(messages)} messages, {args.tables} tables")
    with tempfile.TemporaryDirectory() as directory:
        stores: list[tuple[str, Any]] = [("sqlite", lambda i: (str(Path(directory) / f"floor{i}.sqlite"), None))]
        server = Postgres().start() if have_postgres() else None
        try:
            if server is not None:
                import psycopg

                def database(i: int) -> tuple[str, Path]:
                    with psycopg.connect(server.dsn_with_password, autocommit=True) as admin:
                        admin.execute(f"CREATE DATABASE bench{i}")
                    return server.dsn.rsplit("/", 1)[0] + f"/bench{i}", server.password_file

                stores.append(("postgresql", database))
            for n, (name, make) in enumerate(stores):
                for i, batch in enumerate((1, 100)):
                    spec, password = make(n * 10 + i)
                    figures = run(spec, password, messages, batch)
                    for phase, got in figures.items():
                        print(
                            f"{name:10} batch {batch:3} {phase:9} p50 {got['p50_ms']:7.2f} ms  p99 "
                            f"{got['p99_ms']:7.2f} ms  {got['messages_per_s']:6} messages/s",
                            flush=True,
                        )
        finally:
            if server is not None:
                server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
