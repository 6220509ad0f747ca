"""Journal benchmark: durable appends per second, append latency (p50, p99, max), verify and
replay speed, for an unkeyed and a keyed journal.

The verify figure (µs of CPU a record, median of ``--verifies`` whole verifies of the same file,
process time: other work on the machine does not count) is what every start spends per record
of the live segment: it does not depend on the disk once the file is in the page cache.

Each append is one step as the service writes it: a card event and three decisions, one
transaction committed with ``synchronous=FULL`` (an fsync of the WAL per append), so the
figures are mostly the disk's. Run it on the disk the journal will live on (``--dir``):
tmpfs makes fsync free and the figures meaningless for a Pi's SD card.

    .venv/bin/python bench/bench_journal.py [--appends N] [--verifies N] [--dir DIR]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import tempfile
import time

from firmware_host.host.journal import Journal
from firmware_host.host.journal_verify import verify
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import DealerCommand

DEFAULT_APPENDS = 2000
DEFAULT_VERIFIES = 9
KEY = os.urandom(32)


def filesystem_of(directory: pathlib.Path) -> str:
    """The mount point and filesystem type holding ``directory`` (from /proc/mounts)."""
    best = ("?", "?")
    target = str(directory.resolve())
    try:
        with open("/proc/mounts", encoding="utf-8") as mounts:
            for line in mounts:
                _, mount, fstype, *_ = line.split()
                if (target == mount or target.startswith(mount.rstrip("/") + "/")) and len(mount) >= len(best[0]):
                    best = (mount, fstype)
    except OSError:
        pass
    return f"{best[1]} on {best[0]}"


def one_step(i: int) -> tuple[float, DealerCommand, list[Decision]]:
    """A step the size of a dealt card: the input and a prompt, an announcement, a lamp."""
    rnd = i // 6
    return (
        1.7e9 + i * 0.5,
        DealerCommand("shoe", "card", {"card": "9S", "seq": i}),
        [
            Decision("prompt", {"action": "deal", "to": "banker"}, rnd),
            Decision("announce", {"text": "Player 9, Banker 7"}, rnd),
            Decision("lamp", {"colour": "green"}, rnd),
        ],
    )


def percentile(sorted_values: list[float], fraction: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(fraction * len(sorted_values)))]


def run(directory: pathlib.Path, appends: int, key: bytes | None, verifies: int) -> None:
    path = directory / f"bench-{'keyed' if key else 'unkeyed'}.sqlite"
    steps = [one_step(i) for i in range(appends)]
    latencies = []
    with Journal.open(path, hmac_key=key) as journal:
        started = time.perf_counter()
        for at, ev, decisions in steps:
            t0 = time.perf_counter()
            journal.append_step(at, ev, decisions)
            latencies.append(time.perf_counter() - t0)
        elapsed = time.perf_counter() - started
        t0 = time.perf_counter()
        replayed = sum(1 for _ in journal.steps())
        replay_s = time.perf_counter() - t0
        records = journal.last_seq
    verify_times = []
    for _ in range(verifies):
        t0 = time.process_time()
        report = verify(path, hmac_key=key)
        verify_times.append(time.process_time() - t0)
    verify_s = statistics.median(verify_times)
    assert report.ok and replayed == appends, report
    latencies.sort()
    ms = 1000.0
    print(
        f"{'keyed' if key else 'unkeyed':8} {appends} steps ({records} records): "
        f"{appends / elapsed:8.0f} appends/s, latency p50 {percentile(latencies, 0.50) * ms:.3f} ms, "
        f"p99 {percentile(latencies, 0.99) * ms:.3f} ms, max {latencies[-1] * ms:.3f} ms, "
        f"mean {statistics.fmean(latencies) * ms:.3f} ms"
    )
    print(
        f"{'':8} verify {verify_s / records * 1e6:.2f} µs/record of CPU, {records / verify_s:9.0f} records/s "
        f"({verify_s * ms:.0f} ms of CPU, median of {verifies}); "
        f"steps() replay read {appends / replay_s:9.0f} steps/s; file {path.stat().st_size / 1e6:.1f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=DEFAULT_APPENDS, help="steps to append per journal")
    parser.add_argument(
        "--dir",
        type=pathlib.Path,
        default=pathlib.Path("."),
        help="directory on the disk to measure (default: the current one)",
    )
    parser.add_argument("--verifies", type=int, default=DEFAULT_VERIFIES, help="whole verifies timed (median)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="bench-journal-") as tmp:
        directory = pathlib.Path(tmp)
        print(f"journal benchmark in {directory} ({filesystem_of(directory)}), synchronous=FULL, WAL")
        for key in (None, KEY):
            run(directory, args.appends, key, args.verifies)


if __name__ == "__main__":
    main()
