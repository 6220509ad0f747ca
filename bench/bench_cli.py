"""Benchmark the ``tablehost`` start-up: whole-process wall time of commands; prints figures, asserts nothing.

Each command runs as its own process (the installed ``tablehost`` console script beside this
Python, else ``python -m firmware_host``), ``--runs`` times, interleaved with the others so
that a busy machine slows them all alike; the figures are the median and the 90th
percentile, with the median CPU time (user + system) of the process, which a busy machine
inflates less. Beside them, a bare ``python -c "import argparse, json"`` of the same
interpreter: the floor any Python command line pays. Targets (issue 12): the light commands
within 3x the bare Python, ``baccarat odds --decks 8`` at most 100 ms.

Run: ``.venv/bin/python bench/bench_cli.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

from bench_baccarat import tablehost_command  # bench/ is this script's folder, on sys.path

#: A light command may take at most this many times the bare Python (median).
LIGHT_FACTOR_MAX = 3.0
#: ``baccarat odds --decks 8`` may take at most this long, whole process (median), seconds.
ODDS_MAX_S = 0.100


@dataclass(frozen=True)
class Case:
    """One command to time: what the table calls it, its argv after the program, its stdin, its target."""

    name: str
    argv: tuple[str, ...]
    stdin: str = ""
    target: str = "light"  # "light" (factor of bare), "odds" (absolute), or "" (the reference)


def cases() -> list[Case]:
    program = tablehost_command()
    return [
        Case('python -c "import argparse, json"', (sys.executable, "-c", "import argparse, json"), target=""),
        Case("tablehost --help", (*program, "--help")),
        Case("tablehost paigow start --dice 1,2,3 --json", (*program, "paigow", "start", "--dice", "1,2,3", "--json")),
        Case("tablehost baccarat resolve (one line)", (*program, "baccarat", "resolve"), stdin="9S 2H KD 5C 3D\n"),
        Case("tablehost baccarat odds --decks 8", (*program, "baccarat", "odds", "--decks", "8"), target="odds"),
    ]


def time_once(case: Case) -> tuple[float, float]:
    """(wall, CPU) seconds from spawning ``case`` to its exit; raises if it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(case.argv, input=case.stdin, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def p90(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=10, method="inclusive")[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="runs of each command (default 30)")
    args = parser.parse_args()
    todo = cases()
    for case in todo:
        time_once(case)  # warm the page cache and the bytecode caches
    samples: dict[str, list[float]] = {case.name: [] for case in todo}
    cpu: dict[str, list[float]] = {case.name: [] for case in todo}
    for _ in range(args.runs):
        for case in todo:
            wall, used = time_once(case)
            samples[case.name].append(wall)
            cpu[case.name].append(used)
    bare = statistics.median(samples[todo[0].name])
    print(f"{args.runs} runs each, interleaved; {' '.join(tablehost_command())}")
    print(f"{'command':<46}{'median':>9}{'p90':>9}{'cpu':>9}{'x bare':>8}  target")
    for case in todo:
        median, high = statistics.median(samples[case.name]), p90(samples[case.name])
        used = statistics.median(cpu[case.name])
        if case.target == "light":
            verdict = f"<= {LIGHT_FACTOR_MAX:g}x: {'met' if median <= LIGHT_FACTOR_MAX * bare else 'MISSED'}"
        elif case.target == "odds":
            verdict = f"<= {ODDS_MAX_S * 1e3:.0f} ms: {'met' if median <= ODDS_MAX_S else 'MISSED'}"
        else:
            verdict = "(reference)"
        figures = "".join(f"{seconds * 1e3:7.1f}ms" for seconds in (median, high, used))
        print(f"{case.name:<46}{figures}{median / bare:7.1f}x  {verdict}")


if __name__ == "__main__":
    main()
