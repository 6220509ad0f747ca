"""Lean ``run`` benchmark (issue 23): peak RSS and start to READY of ``make run``'s table, now and at 0.1.0.

``make run`` plays 20 rounds of the simulated Baccarat table (hardware-profiles/tables/sim-baccarat.toml,
seed 1, a fresh journal, no display, no feed). This runs that command, ``python -m firmware_host run
--profile ... --rounds N --seed 1 --journal FRESH``, as a child process of the same interpreter, for
the current tree (this script's) and for each baseline revision, by default both readings of "0.1.0":

- :data:`RELEASE_010`, 56d578c, the commit the 0.1.0 journal fixtures were written by and name
  "tablehost 0.1.0" (tests/fixtures/journals-0.1.0/make_journals.py); it had no display and no feed;
- the last commit at version 0.1.0: the parent of the commit that moved ``pyproject.toml`` off
  ``version = "0.1.0"`` (the display and the feed were in it, imported by every run).

A baseline is extracted with ``git archive`` into a temporary directory (no worktree: nothing in the
repository changes) and run from there: ``PYTHONPATH`` and the working directory point at it, so its
``firmware_host``, ``drivers`` and ``sim`` shadow the editable install (checked before timing).

Each run is timed from spawning the process to the systemd ``READY=1`` it sends to a notify socket of
ours (``NOTIFY_SOCKET``), with the CPU time the child had used by then (``/proc/PID/stat``: on a
shared, busy machine the wall time mostly measures the wait for a core), and its peak resident set
(``ru_maxrss`` of the child, from ``wait4``) and CPU time (user + system) are read when it exits. The trees take turns, ``--repeats`` times (the
order reversed every other time, so a machine growing busier slows all alike); the figures are
medians. Goals: peak RSS at most 36 MiB, start to READY no slower than 0.1.0's. Prints figures,
asserts nothing.

    .venv/bin/python bench/bench_lean.py [--repeats 5] [--rounds 20[,300]] [--baseline REV ...]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from pathlib import Path

from notify import notify_socket, wait_ready  # bench/ is this script's folder, on sys.path

ROOT = Path(__file__).resolve().parents[1]
PROFILE = Path("hardware-profiles/tables/sim-baccarat.toml")
#: The peak RSS goal of ``make run``'s table, MiB.
RSS_GOAL_MIB = 36.0
#: tablehost 0.1.0 as the 0.1.0 journal fixtures name it (tests/fixtures/journals-0.1.0/make_journals.py).
RELEASE_010 = "56d578c"
#: Seconds a run may take before the benchmark gives up on it.
RUN_TIMEOUT_S = 300.0


@dataclasses.dataclass(frozen=True)
class Sample:
    """One run: seconds from spawn to READY=1 (wall, and the child's CPU by then), peak RSS in MiB,
    CPU seconds of the whole run, its wall seconds."""

    ready_s: float
    ready_cpu_s: float
    rss_mib: float
    cpu_s: float
    wall_s: float


@dataclasses.dataclass(frozen=True)
class Tree:
    """A source tree to run: its name in the report, its root, and the environment that selects it."""

    name: str
    root: Path
    env: dict[str, str]


def last_010_commit() -> str:
    """The last commit whose ``pyproject.toml`` says ``version = "0.1.0"``."""
    commits = subprocess.run(
        ["git", "log", "--reverse", "--format=%H", "--", "pyproject.toml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    seen = False
    for commit in commits:
        if _version_at(commit) == "0.1.0":
            seen = True
        elif seen:
            return subprocess.run(
                ["git", "rev-parse", f"{commit}^"], cwd=ROOT, capture_output=True, text=True, check=True
            ).stdout.strip()
    raise SystemExit("bench_lean: no commit moved pyproject.toml off version 0.1.0; give --baseline")


def _version_at(commit: str) -> str | None:
    text = subprocess.run(["git", "show", f"{commit}:pyproject.toml"], cwd=ROOT, capture_output=True, text=True).stdout
    try:
        return tomllib.loads(text).get("project", {}).get("version")
    except tomllib.TOMLDecodeError:
        return None


def extract(revision: str, into: Path) -> Tree:
    """``revision``'s tree, extracted into ``into`` (no worktree, nothing in the repository changes).

    The archive is streamed, never held: a child's peak RSS (``ru_maxrss``) counts the memory
    of the process it was forked from, so this one must stay well below the runs it measures.
    """
    with (
        subprocess.Popen(["git", "archive", "--format=tar", revision], cwd=ROOT, stdout=subprocess.PIPE) as archive,
        tarfile.open(fileobj=archive.stdout, mode="r|") as tar,
    ):
        tar.extractall(into, filter="data")
    if archive.returncode:
        raise SystemExit(f"bench_lean: git archive {revision} exited {archive.returncode}")
    env = {**os.environ, "PYTHONPATH": str(into)}
    found = subprocess.run(
        [sys.executable, "-c", "import firmware_host; print(firmware_host.__file__)"],
        cwd=into,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not Path(found).is_relative_to(into):
        raise SystemExit(f"bench_lean: the baseline imports {found}, not its own tree {into}")
    commit = subprocess.run(
        ["git", "rev-parse", "--short", revision], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    return Tree(commit, into, env)


def run_once(tree: Tree, rounds: int, work: Path) -> Sample:
    """One ``make run``-like run of ``tree`` on a fresh journal in ``work``."""
    journal = work / "journal.sqlite"
    for stale in work.glob("journal.sqlite*"):
        stale.unlink()
    with (work / "stderr").open("w+b") as stderr, notify_socket(work, RUN_TIMEOUT_S, tree.env) as (sock, env):
        started = time.perf_counter()
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "firmware_host",
                "run",
                "--profile",
                str(PROFILE),
                "--rounds",
                str(rounds),
                "--seed",
                "1",
                "--journal",
                str(journal),
            ],
            cwd=tree.root,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
        try:
            wait_ready(sock)
            ready = time.perf_counter() - started
            ready_cpu = cpu_seconds(proc.pid)
        except BaseException:
            proc.kill()
            raise
        finally:
            _, status, usage = os.wait4(proc.pid, 0)  # the socket stays bound: STOPPING=1 comes later
            wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            stderr.seek(0)
            raise SystemExit(
                f"bench_lean: {tree.name} exited {proc.returncode}: {stderr.read().decode(errors='replace')[-2000:]}"
            )
    return Sample(ready, ready_cpu, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime, wall)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds process ``pid`` has used so far (/proc/PID/stat, proc(5)), which a
    busy machine inflates far less than wall time."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _median(samples: list[Sample], field: str) -> float:
    return statistics.median(getattr(s, field) for s in samples)


def report(rounds: int, results: dict[str, list[Sample]]) -> None:
    """Print the medians (and ranges) of each tree, and the goals against each baseline."""
    print(
        f"\n`tablehost run` of sim-baccarat.toml, --rounds {rounds}, median of {len(results['current'])} "
        f"interleaved runs (range):"
    )
    for name, samples in results.items():

        def fmt(field: str, unit: str, digits: int) -> str:
            values = [getattr(s, field) for s in samples]
            return f"{_median(samples, field):.{digits}f}{unit} ({min(values):.{digits}f}-{max(values):.{digits}f})"

        print(
            f"  {name:<12} start to READY {fmt('ready_s', ' s', 3)} (CPU {fmt('ready_cpu_s', ' s', 2)}), "
            f"peak RSS {fmt('rss_mib', ' MiB', 1)}, CPU {fmt('cpu_s', ' s', 2)}, wall {fmt('wall_s', ' s', 2)}"
        )
    now = results["current"]
    rss, ready, cpu = _median(now, "rss_mib"), _median(now, "ready_s"), _median(now, "cpu_s")
    print(f"  goal: peak RSS {rss:.1f} MiB <= {RSS_GOAL_MIB:g} MiB: {'met' if rss <= RSS_GOAL_MIB else 'NOT met'}")
    for name, then in results.items():
        if name != "current":
            ratio = ready / _median(then, "ready_s")
            cpu_ratio = _median(now, "ready_cpu_s") / _median(then, "ready_cpu_s")
            print(
                f"  against {name}: start to READY {ratio:.2f}x ({'met' if ratio <= 1 else 'NOT met'}; its CPU "
                f"{cpu_ratio:.2f}x), "
                f"peak RSS {rss - _median(then, 'rss_mib'):+.1f} MiB, CPU {cpu / _median(then, 'cpu_s'):.2f}x"
            )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs of each tree (default 5)")
    parser.add_argument("--rounds", default="20", help="comma-separated round counts (default 20, make run's)")
    parser.add_argument(
        "--baseline",
        action="append",
        metavar="REV",
        help=f"a revision to compare with, repeatable (default: {RELEASE_010} and the last commit at version 0.1.0)",
    )
    args = parser.parse_args(argv)
    baselines = args.baseline or [RELEASE_010, last_010_commit()]
    with tempfile.TemporaryDirectory(prefix="bench-lean-") as tmp:
        trees = [Tree("current", ROOT, {**os.environ})]
        trees += [extract(rev, Path(tmp) / f"baseline-{n}") for n, rev in enumerate(baselines)]
        work = Path(tmp) / "work"
        work.mkdir()
        print(
            f"{sys.executable}; current tree {ROOT}; baselines "
            + ", ".join(f"{tree.name} in {tree.root}" for tree in trees[1:]),
            flush=True,
        )
        for rounds in (int(n) for n in args.rounds.split(",")):
            results: dict[str, list[Sample]] = {tree.name: [] for tree in trees}
            for repeat in range(args.repeats):
                for tree in trees if repeat % 2 == 0 else reversed(trees):
                    results[tree.name].append(run_once(tree, rounds, work))
            report(rounds, results)
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"this benchmark's own peak RSS {own:.1f} MiB: no run's figure can be below it (they were forked from it)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
