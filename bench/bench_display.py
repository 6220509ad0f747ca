"""Benchmark of the web display (issue 14).

Figures printed:

1. decision to visible: from a step's decisions being durable (the service hands them to its
   outputs) to a Chromium page having drawn the update (``body[data-seq]`` set), p50/p99/max,
   for the dealer display and the scoreboard, on the simulated Baccarat table;
2. the service's CPU and resident memory (``tablehost run --http`` in a subprocess, the
   simulated dealer at a fixed pace) with no browser and with five connected (three dealer
   displays, two scoreboards), over the same number of seconds;
3. the roads per round over a full 8-deck shoe: one round added and every road rendered to
   JSON (what the display does after each round), and all roads rebuilt from the shoe's start.

Usage: ``python bench/bench_display.py [--rounds N] [--seconds S] [--pace P]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from bench.display.chromium import CHROMIUM, LAUNCH_ARGS  # noqa: E402
from bench.display.table import BACCARAT, start, write_profile  # noqa: E402
from firmware_host.rules.baccarat.cards import shoe_composition  # noqa: E402
from firmware_host.rules.baccarat.deal import resolve  # noqa: E402
from firmware_host.rules.baccarat.roads import Outcome, RoadBuilder, roads  # noqa: E402
from firmware_host.tables.decisions import Decision  # noqa: E402

#: Before the page's scripts: when the page has drawn an update, note its seq and the wall time.
RECORD_TIMES = """
window.benchTimes = [];
document.addEventListener("DOMContentLoaded", () => new MutationObserver(() => {
  window.benchTimes.push([Number(document.body.dataset.seq), performance.timeOrigin + performance.now()]);
}).observe(document.body, { attributes: true, attributeFilter: ["data-seq"] }));
"""


class Durable:
    """An output placed before the display's: when each step's last decision record is durable."""

    def __init__(self, service: Any) -> None:
        self.service = service
        self.at: dict[int, float] = {}

    def on_decisions(self, decisions: Sequence[Decision]) -> None:
        if decisions:
            self.at[self.service.step_seq + len(decisions)] = time.time() * 1000


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return (
        f"p50 {statistics.median(ordered):.1f} ms, p99 {p99:.1f} ms, max {ordered[-1]:.1f} ms ({len(ordered)} updates)"
    )


def decision_to_visible(rounds: int, pace: float) -> None:
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        running = start(
            write_profile(Path(folder), BACCARAT.format(decks=8, rules="")),
            Path(folder) / "j.sqlite",
            rounds=rounds,
            pace=pace,
            hold_at={"load_shoe"},
        )
        probe = Durable(running.service)
        outputs = running.service.outputs
        outputs.insert(0, probe)  # when each step is durable (the display follows the journal after)
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        context = browser.new_context(viewport={"width": 1920, "height": 1080}, bypass_csp=True)  # waits eval strings
        context.add_init_script(RECORD_TIMES)
        pages = {"dealer display": context.new_page(), "scoreboard": context.new_page()}
        pages["dealer display"].goto(running.url + "/")
        pages["scoreboard"].goto(running.url + "/scoreboard")
        for page in pages.values():
            page.wait_for_function("window.benchTimes.length > 0")
        running.gate.release()
        running.thread.join(timeout=600)
        running.table.display.hub.flush()
        final = running.table.display.hub.snapshot.seq
        pages["dealer display"].wait_for_function(f"window.tablehost.seq === {final}", timeout=60_000)
        time.sleep(0.5)
        for name, page in pages.items():
            drawn = page.evaluate("window.benchTimes")[1:]  # the first is the snapshot on connect
            samples = [at - probe.at[seq] for seq, at in drawn if seq in probe.at]
            print(f"decision durable -> drawn, {name}: {percentiles(samples)}")
        browser.close()
        running.stop()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory_kib(pid: int) -> tuple[int, int]:
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(status["VmRSS"].split()[0]), int(status["VmHWM"].split()[0])


def service_load(browsers: int, seconds: float, pace: float) -> tuple[float, int, int]:
    """CPU share of one core, RSS and peak RSS (KiB) of ``tablehost run`` with its display over ``seconds``."""
    with tempfile.TemporaryDirectory() as folder:
        shutil.copytree(
            ROOT / "hardware-profiles" / "devices", Path(folder) / "devices"
        )  # beside tables/, as in the repo
        (Path(folder) / "tables").mkdir()
        profile = write_profile(Path(folder) / "tables", BACCARAT.format(decks=8, rules=""))
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "firmware_host",
                "run",
                "--profile",
                str(profile),
                "--journal",
                f"{folder}/j.sqlite",
                "--pace",
                str(pace),
                "--quiet",
                "--seed",
                "5",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        assert process.stdout is not None and process.stderr is not None
        line = ""
        while "dealer display" not in line:
            line = process.stdout.readline()
            if not line:
                raise SystemExit(f"tablehost run did not serve its display: {process.stderr.read().strip()}")
        url = line.split("dealer display ", 1)[1].split()[0].rstrip("/")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS) if browsers else None
            for index in range(browsers):
                page = browser.new_page(viewport={"width": 1920, "height": 1080})  # type: ignore[union-attr]
                page.goto(url + ("/scoreboard" if index % 2 else "/"))
            before, started = cpu_seconds(process.pid), time.monotonic()
            time.sleep(seconds)
            used, elapsed = cpu_seconds(process.pid) - before, time.monotonic() - started
            rss, peak = memory_kib(process.pid)
            if browser is not None:
                browser.close()
        process.terminate()
        process.wait(timeout=20)
        return used / elapsed, rss, peak


def shoe_outcomes(seed: int) -> list[Outcome]:
    """The rounds of one shuffled 8-deck shoe, dealt until fewer than six cards are left."""
    cards = [card for card, count in shoe_composition(8).items() for _ in range(count)]
    random.Random(seed).shuffle(cards)
    outcomes, position = [], 0
    while len(cards) - position >= 6:
        result = resolve(cards[position : position + 6])
        position += result.cards_used
        outcomes.append(Outcome(result.winner, result.player_pair, result.banker_pair, result.natural))
    return outcomes


def roads_per_round() -> None:
    outcomes = shoe_outcomes(1)
    repeats = 20
    started = time.perf_counter()
    for _ in range(repeats):
        builder = RoadBuilder()
        for outcome in outcomes:
            builder.add(outcome)
            json.dumps(builder.roads().to_json_dict())
    incremental = (time.perf_counter() - started) / (repeats * len(outcomes))
    started = time.perf_counter()
    for _ in range(repeats):
        for end in range(1, len(outcomes) + 1):
            roads(outcomes[:end])
    rebuilt = (time.perf_counter() - started) / (repeats * len(outcomes))
    print(
        f"roads over a full shoe ({len(outcomes)} rounds): {incremental * 1e6:.0f} µs per round added and rendered "
        f"to JSON; {rebuilt * 1e6:.0f} µs per round rebuilding every road from the shoe's start"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30, help="rounds for decision-to-visible (default 30)")
    parser.add_argument("--seconds", type=float, default=30.0, help="seconds per CPU/RSS measurement (default 30)")
    parser.add_argument("--pace", type=float, default=0.05, help="simulated dealer's pace, seconds (default 0.05)")
    args = parser.parse_args()
    roads_per_round()
    decision_to_visible(args.rounds, args.pace)
    for browsers in (0, 5):
        share, rss, peak = service_load(browsers, args.seconds, args.pace)
        print(
            f"service with {browsers} browser(s) connected: {share:.1%} of one core, RSS {rss / 1024:.1f} MiB "
            f"(peak {peak / 1024:.1f} MiB) over {args.seconds:g} s"
        )


if __name__ == "__main__":
    main()
