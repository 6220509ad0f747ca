"""Benchmark of the whole service on the simulated Baccarat table (issue 3).

Figures printed:

1. latency from the simulated shoe sending a card (``SimShoe.draw``, which writes the
   frame to the pseudo-terminal) to the controller's decision on it being durable in the
   journal (the first output call after the commit), p50/p99/max — with the journal on
   the working disk and on tmpfs (``/dev/shm``), which separates our processing from fsync;
2. rounds per second and peak resident memory of ``tablehost run --rounds N`` in a
   subprocess, faults off and on;
3. CPU used by an idle service (devices connected, heartbeats flowing, nobody dealing).

Usage: ``python bench/bench_service.py [--cards N] [--rounds N] [--idle-seconds S]``.
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from firmware_host.config.profiles import load_table  # noqa: E402
from firmware_host.tables.decisions import Decision  # noqa: E402
from firmware_host.wiring import build_table  # noqa: E402

PROFILE = ROOT / "hardware-profiles" / "tables" / "sim-baccarat.toml"


def quiet_profile(directory: Path, faults: bool) -> Path:
    """A copy of the simulated Baccarat profile, with or without faults."""
    shutil.copytree(ROOT / "hardware-profiles" / "devices", directory / "devices", dirs_exist_ok=True)
    (directory / "tables").mkdir(exist_ok=True)
    text = PROFILE.read_text()
    if not faults:
        text = "\n".join(
            line
            for line in text.splitlines()
            if not line.startswith("faults =") and not line.startswith(("card_drawn_in_error", "card_disclosed"))
        )
    path = directory / "tables" / ("faulty.toml" if faults else "clean.toml")
    path.write_text(text)
    return path


class CardLatency:
    """Output placed first: pairs each ``draw()`` with the next durable step's decisions."""

    def __init__(self) -> None:
        self.sent_at: float | None = None
        self.samples: list[float] = []
        self.lock = threading.Lock()

    def wrap(self, shoe: Any) -> None:
        draw = shoe.draw

        def timed_draw() -> Any:
            with self.lock:
                self.sent_at = time.perf_counter()
            return draw()

        shoe.draw = timed_draw

    def on_decisions(self, decisions: Sequence[Decision]) -> None:
        now = time.perf_counter()
        with self.lock:
            if self.sent_at is not None and any(d.type in ("prompt", "announce", "round_result") for d in decisions):
                self.samples.append(now - self.sent_at)
                self.sent_at = None


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def measure_latency(journal_dir: Path, cards: int, label: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        profile = load_table(quiet_profile(Path(tmp), faults=False))
        latency = CardLatency()
        table = build_table(
            profile,
            journal_path=journal_dir / f"lat-{os.getpid()}-{label}.sqlite",
            seed=1,
            stream=io.StringIO(),
            quiet=True,
        )
        table.service.outputs.insert(0, latency)
        latency.wrap(table.devices[0].sim)
        runner = threading.Thread(target=table.service.run)
        table.start()
        runner.start()
        deadline = time.monotonic() + 120
        while len(latency.samples) < cards and time.monotonic() < deadline:
            time.sleep(0.05)
        table.service.stop()
        runner.join()
        table.stop()
        samples = [s * 1e6 for s in latency.samples[10:]]  # skip warm-up
        print(
            f"card -> journaled decision ({label}): n={len(samples)}  p50 {statistics.median(samples):.0f} us  "
            f"p99 {percentile(samples, 0.99):.0f} us  max {max(samples):.0f} us"
        )


def measure_run(rounds: int, faults: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        profile = quiet_profile(Path(tmp), faults)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "firmware_host",
                "run",
                "--profile",
                str(profile),
                "--rounds",
                str(rounds),
                "--seed",
                "4",
                "--journal",
                str(Path(tmp) / "run.sqlite"),
                "--quiet",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
        )
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        print(
            f"tablehost run --rounds {rounds} ({'faults on' if faults else 'no faults'}): {elapsed:.1f} s, "
            f"{rounds / elapsed:.1f} rounds/s, CPU {cpu:.1f} s, peak RSS {after.ru_maxrss / 1024:.1f} MiB"
        )


def measure_idle(seconds: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        profile = load_table(quiet_profile(Path(tmp), faults=False))
        table = build_table(profile, journal_path=Path(tmp) / "idle.sqlite", seed=1, stream=io.StringIO(), quiet=True)
        table.dealer = None  # nobody deals: the table sits waiting for a shoe
        runner = threading.Thread(target=table.service.run)
        table.start()
        runner.start()
        time.sleep(1.0)  # let the handshake finish
        cpu0, wall0 = time.process_time(), time.monotonic()
        time.sleep(seconds)
        cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
        table.service.stop()
        runner.join()
        table.stop()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"idle service with its simulated shoe (heartbeats every 1 s): {100 * cpu / wall:.2f} % of one core "
            f"over {wall:.0f} s; this process's peak RSS {rss:.1f} MiB"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--idle-seconds", type=float, default=10.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=ROOT) as disk:
        measure_latency(Path(disk), args.cards, "journal on disk")
    if Path("/dev/shm").is_dir():
        with tempfile.TemporaryDirectory(dir="/dev/shm") as shm:
            measure_latency(Path(shm), args.cards, "journal on tmpfs")
    measure_run(args.rounds, faults=False)
    measure_run(args.rounds, faults=True)
    measure_idle(args.idle_seconds)


if __name__ == "__main__":
    main()
