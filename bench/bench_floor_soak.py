"""Floor soak: many tables through one Mosquitto to two collectors on one PostgreSQL, with faults (issue 22).

    .venv/bin/python bench/bench_floor_soak.py --tables 500 --live 3 --duration 480 [--json F] [--plot F]

**The tables.** A simulated Baccarat and a simulated Pai Gow journal are played once; their feed
messages are re-issued under ``--tables`` ids (``B001``, ``P002``, ... every other one Pai Gow),
each table signing with its own Ed25519 key and logging in to the broker as itself under the
deploy ACL, ``at`` rewritten to the round's scheduled publish time (bench/floor/soak_issue.py),
all of it computed before the first message is due. Each table publishes a round's messages at
once (as a table does at the result), a round every ``3600 / (hands_per_hour * speed)`` s:
mini-baccarat 75 hands/h, Pai Gow 30 (published planning figures), times ``--speed`` (10). Among
them ``--live`` real ``tablehost run`` tables (simulated Baccarat) play at the same pace
(``--pace``), the first one through a TCP proxy.

**The timeline** (fractions of ``--duration``): at 25% collector ``floor-a`` is SIGKILLed, and
restarted ``--down`` s later (its persistent session queued meanwhile); at 50% the broker
restarts (SIGTERM, persistence on: sessions and queues survive; the tables resend from their
last PUBACK); at 70% the proxied table's network is cut for ``--cut`` s (connections closed,
new ones refused; its feed catches up from its journal). Then the drain: until the store holds
every message, or ``--drain-timeout``.

**The figures**: stored messages/s (from the store's ``received_at``), decision -> stored
(``received_at - at``) p50/p99/max overall and around each fault, CPU seconds and peak RSS of
each collector (across the restart), PostgreSQL's own CPU (postmaster and backends), Mosquitto's
CPU, and the dashboard's publish -> drawn latency over all tiles (bench/floor/dashboard_probe.py,
when present).

**The checks** (exit 1 on a failure): every republished table's stored messages are exactly the
issued ones (seq 1..N once each, the same hashes); each live table's ``floor export --rounds``
equals its ``journal export --rounds``; ``floor status`` shows no gap, break, refusal or
unreadable record for any table; both collectors are alive at the end.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.floor import soak_report  # noqa: E402
from bench.floor.soak_issue import PACES, play_source, reissue, rounds_of, schedule  # noqa: E402
from bench.floor.soak_measure import CpuMeter, postgres_cpu, stored_count, stored_rows  # noqa: E402
from bench.floor.soak_publish import game_of, publish_share  # noqa: E402
from bench.floor.soak_rig import DASHBOARD_PIN, Rig  # noqa: E402
from bench.floor.tables import floor_export, journal_export, run_table  # noqa: E402
from firmware_host.feed.signing import Signer  # noqa: E402


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=500, help="republished tables (default 500)")
    parser.add_argument("--live", type=int, default=3, help="live tablehost run tables among them (default 3)")
    parser.add_argument("--duration", type=float, default=480.0, help="seconds of play (default 480)")
    parser.add_argument("--speed", type=float, default=10.0, help="times a real table's pace (default 10)")
    parser.add_argument("--down", type=float, default=20.0, help="seconds collector floor-a stays killed")
    parser.add_argument("--cut", type=float, default=30.0, help="seconds the proxied table's network is cut")
    parser.add_argument("--publishers", type=int, default=2, help="publisher processes (default 2)")
    parser.add_argument("--drain-timeout", type=float, default=300.0, help="seconds the drain may take")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="write the figures and checks as JSON here")
    parser.add_argument("--plot", type=Path, help="a PNG of stored msg/s and latency over time (needs matplotlib)")
    args = parser.parse_args(argv)
    if args.tables < 1 or args.live < 1 or args.duration < 20 or args.speed <= 0 or args.publishers < 1:
        parser.error("--tables and --live >= 1, --duration >= 20, --speed > 0, --publishers >= 1")
    return args


#: Seconds between two looks at the store while it drains.
DRAIN_POLL_S = 0.5


def load() -> str:
    """The machine's load averages (1, 5, 15 min): it is shared, so every figure carries them."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


class Soak:
    """One soak run under ``tmp`` (see the module's docstring)."""

    def __init__(self, args: argparse.Namespace, tmp: Path) -> None:
        self.args, self.tmp = args, tmp
        self.rng = random.Random(args.seed)
        self.tables = [f"{'BP'[n % 2]}{n:03d}" for n in range(args.tables)]
        self.live = [f"LIVE-{n}" for n in range(1, args.live + 1)]
        self.events: list[tuple[str, float]] = []
        self.meters = {name: CpuMeter(name) for name in ("floor-a", "floor-b", "mosquitto")}
        self.postgres_cpu: list[tuple[float, float]] = []
        self.drawn: list[Any] = []
        self.frames: dict[str, float] = {}
        self.notes: list[str] = []
        self.source_journals: dict[str, Path] = {}  #: the journal each game's tables re-issue

    # -- preparation -----------------------------------------------------------------------

    def sources(self) -> dict[str, list[list[dict[str, Any]]]]:
        """The source journals' messages by round, enough rounds for the whole duration (the games
        played at once, each by its own ``tablehost run``)."""
        rounds = {
            game: math.ceil(self.args.duration / pace.period_s(self.args.speed)) + 2 for game, pace in PACES.items()
        }
        with ThreadPoolExecutor(len(PACES)) as pool:
            played = {game: pool.submit(play_source, self.tmp, game, rounds[game], self.args.seed) for game in PACES}
            self.source_journals.update((game, future.result()) for game, future in played.items())
        return {game: rounds_of(journal) for game, journal in self.source_journals.items()}

    def plan(self, groups: dict[str, list[list[dict[str, Any]]]], start: float) -> dict[str, list[float]]:
        """Each republished table's publish times from ``start``."""
        times = {}
        for table in self.tables:
            pace = PACES[game_of(table)]
            period = pace.period_s(self.args.speed)
            rounds = min(len(groups[pace.game]) - 1, int(self.args.duration // period))
            times[table] = schedule(start, period, rounds, self.rng)
        return times

    def lead_s(self, groups: dict[str, list[list[dict[str, Any]]]]) -> float:
        """Seconds the publishers need to start and pre-compute their share: measured here on a sample,
        three times over (two publishers share a loaded machine with everything else), and 10 s to start."""
        probe = Signer.from_file(self.tmp / "keys" / f"{self.tables[0]}.key")
        sample = groups["baccarat"][:20]
        started = time.perf_counter()
        reissue(sample, self.tables[0], probe, [0.0] * len(sample))
        per_message = (time.perf_counter() - started) / sum(len(g) for g in sample)
        total = sum(len(g) for game in groups.values() for g in game) * len(self.tables) / len(PACES)
        return 10.0 + 3.0 * per_message * total / min(int(self.args.publishers), os.cpu_count() or 1)

    # -- the run ---------------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        args = self.args
        self.load_before = load()
        rig = Rig(self.tmp, self.tables, self.live)
        try:
            with ThreadPoolExecutor(1) as pool:  # the source journals play while the servers start
                sourcing = pool.submit(self.sources)
                rig.start()
                groups = sourcing.result()
            start = time.time() + self.lead_s(groups)
            self.start, self.until = start, start + args.duration
            times = self.plan(groups, start)
            publishers = self.fork_publishers(rig, groups, times)
            expected = {t: sum(len(g) for g in groups[game_of(t)][: len(times[t])]) for t in self.tables}
            stop = threading.Event()
            threading.Thread(target=self.sample, args=(rig, stop), daemon=True).start()
            probe = threading.Thread(target=self.watch_dashboard, args=(rig, stop), daemon=True)
            probe.start()
            self.wait_until(start)
            self.start_live(rig)
            self.faults(rig)
            self.wait_until(self.until)
            drained = self.drain(rig, publishers, expected)
            self.load_after = load()
            stop.set()
            probe.join(30)
            self.sample_once(rig)
            rows = stored_rows(rig.postgres.dsn_with_password)
            self.published = issued = self.issued(publishers)
            checks = soak_report.checks(rig, rows, issued, self.live, drained, self.source_journals)
            return soak_report.figures(self, rig, groups, rows, checks)
        finally:
            rig.close()

    def fork_publishers(
        self, rig: Rig, groups: dict[str, list[list[dict[str, Any]]]], times: dict[str, list[float]]
    ) -> list[tuple[multiprocessing.process.BaseProcess, Path]]:
        """Start the publisher processes, each with every n-th table (spawned: this process has threads)."""
        context = multiprocessing.get_context("spawn")
        made: list[tuple[multiprocessing.process.BaseProcess, Path]] = []
        for n in range(self.args.publishers):
            share = [
                (table, rig.passwords[table], self.tmp / "keys" / f"{table}.key", times[table])
                for table in self.tables[n :: self.args.publishers]
            ]
            out = self.tmp / f"publisher-{n}.json"
            process = context.Process(
                target=publish_share,
                args=(share, groups, rig.broker.port, self.until, self.args.drain_timeout, out),
                daemon=True,
            )
            process.start()
            made.append((process, out))
        return made

    def start_live(self, rig: Rig) -> None:
        pace = PACES["baccarat"]
        self.live_rounds = int(self.args.duration * 0.9 // pace.period_s(self.args.speed))
        for n, table in enumerate(self.live):
            rig.start_live(table, self.live_rounds, pace.run_pace_s(self.args.speed), self.args.seed + n)

    def faults(self, rig: Rig) -> None:
        """Kill a collector, restart the broker, cut a table's network, each on time."""
        assert rig.proxy is not None
        self.wait_until(self.start + 0.25 * self.args.duration)
        self.meters["floor-a"].sample(rig.collectors["floor-a"].pid)
        rig.kill_collector("floor-a")
        self.event("floor-a killed")
        self.wait_until(time.time() + self.args.down)
        rig.start_collector("floor-a")
        self.event("floor-a restarted")
        self.wait_until(self.start + 0.5 * self.args.duration)
        self.meters["mosquitto"].sample(rig.broker.pid)
        rig.broker.restart()
        self.event("broker restarted")
        self.wait_until(self.start + 0.7 * self.args.duration)
        rig.proxy.drop()
        self.event(f"{self.live[0]} cut")
        self.wait_until(time.time() + self.args.cut)
        rig.proxy.restore()
        self.event(f"{self.live[0]} restored")

    def drain(self, rig: Rig, publishers: list[tuple[Any, Path]], expected: dict[str, int]) -> bool:
        """Wait for the publishers, the live tables and the store to hold everything; False on the timeout."""
        deadline = time.time() + self.args.drain_timeout
        for process, _ in publishers:
            process.join(max(1.0, deadline - time.time()))
        total = sum(expected.values())
        for table, child in rig.live_tables.items():
            child.wait(max(1.0, deadline - time.time()))
            if floor_export(rig.db, table) != journal_export(rig.journal(table)):
                # a clean stop publishes for 3 s; the next start publishes the rest (and plays nothing)
                profile = self.tmp / "profiles" / "tables" / f"{table}.toml"
                run_table(profile, rig.journal(table), self.live_rounds, rig.broker.url)
        while time.time() < deadline:
            stored = stored_count(rig.postgres.dsn_with_password, self.live)
            live_done = all(floor_export(rig.db, t) == journal_export(rig.journal(t)) for t in self.live)
            if stored >= total and live_done:
                self.event("drained")
                return True
            time.sleep(DRAIN_POLL_S)
        self.event("drain timed out")
        return False

    # -- measuring -------------------------------------------------------------------------

    def sample_once(self, rig: Rig) -> None:
        for name, child in rig.collectors.items():
            if child.poll() is None:
                self.meters[name].sample(child.pid)
        self.meters["mosquitto"].sample(rig.broker.pid)
        try:
            self.postgres_cpu.append((time.time(), postgres_cpu(rig.postmaster)))
        except OSError:
            pass

    def sample(self, rig: Rig, stop: threading.Event) -> None:
        while not stop.wait(1.0):
            self.sample_once(rig)

    def watch_dashboard(self, rig: Rig, stop: threading.Event) -> None:
        """Collect what the dashboard drew (bench/floor/dashboard_probe.py, if this tree has it)."""
        try:
            from bench.floor.dashboard_probe import DashboardProbe  # type: ignore[import-not-found]
        except ImportError:
            self.notes.append("dashboard: bench/floor/dashboard_probe.py is not in this tree, no dashboard figure")
            return
        with DashboardProbe(rig.dashboard_url, "surveillance", DASHBOARD_PIN) as probe:
            while not stop.wait(1.0):
                self.drawn += probe.drawn()
            self.drawn += probe.drawn()
            self.frames = probe.frame_stats()

    def event(self, what: str) -> None:
        self.events.append((what, time.time()))
        print(f"  {time.time() - self.start:6.1f} s  {what}", flush=True)

    @staticmethod
    def wait_until(moment: float) -> None:
        while (left := moment - time.time()) > 0:
            time.sleep(min(left, 0.5))

    def issued(self, publishers: list[tuple[Any, Path]]) -> dict[str, Any]:
        """What the publishers issued and how it went (their JSON files)."""
        merged: dict[str, Any] = {"issued": {}, "acked_all": True, "published": 0, "reconnects": 0, "late_s": 0.0}
        merged["cpu_s"] = 0.0
        merged["unacked"] = {}
        for process, out in publishers:
            if not out.exists():
                merged["acked_all"] = False
                self.notes.append(f"publisher {process.pid} wrote nothing (exit {process.exitcode})")
                continue
            part = json.loads(out.read_text())
            merged["issued"].update(part["issued"])
            merged["unacked"].update(part["unacked"])
            merged["acked_all"] &= part["acked_all"]
            merged["published"] += part["published"]
            merged["reconnects"] += part["reconnects"]
            merged["cpu_s"] += part["cpu_s"]
            merged["late_s"] = max(merged["late_s"], part["late_s"])
        return merged


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    print(f"floor soak: {args.tables} tables, {args.live} live, {args.duration:g} s at {args.speed:g}x; load {load()}")
    with tempfile.TemporaryDirectory(prefix="bench-soak-") as name:
        soak = Soak(args, Path(name))
        figures = soak.run()
    print(soak_report.text(figures))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    if args.plot:
        print(soak_report.plot(figures, args.plot))
    return 0 if all(check["ok"] for check in figures["checks"]) else 1


if __name__ == "__main__":
    sys.exit(main())
