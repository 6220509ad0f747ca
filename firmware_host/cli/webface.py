"""``python -m firmware_host.cli.webface``: the table's web face, a process of its own.

Started by ``tablehost run`` (with ``--http``, ``[display] listen`` or ``--metrics``), which
restarts it when it dies, or by systemd as ``tablehost-web.service`` under its own user
(:mod:`firmware_host.wiring.webface`). It reads the journal (read-only) and talks to the service
over the control socket; it is given no key file. Its first line on standard output says where
it serves (``{"display": url, "metrics": url}``) or why it cannot (``{"error": why}``, exit 2).
SIGTERM or SIGINT stop it; with ``--parent PID`` it also stops once that process is gone.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from firmware_host.errors import TablehostError

__all__ = ["main", "build_parser", "lower_priority", "run_idle", "IDLE_NICE", "PARENT_CHECK_S"]

log = logging.getLogger("tablehost.webface")

#: Seconds between checks that the parent (``--parent``) still runs.
PARENT_CHECK_S = 1.0
#: The nice of a web face that serves on idle time (``--idle``), and of its autogroup.
IDLE_NICE = 19


def build_parser() -> argparse.ArgumentParser:
    """The web face's arguments."""
    parser = argparse.ArgumentParser(prog="tablehost-web", description=__doc__)
    parser.add_argument("--profile", required=True, type=Path, help="the table profile")
    parser.add_argument("--devices-dir", type=Path, help="where the device models are (default: ../devices)")
    parser.add_argument("--journal", required=True, type=Path, help="the table's journal (read only)")
    parser.add_argument("--socket", required=True, type=Path, help="the service's control socket")
    parser.add_argument("--http", metavar="HOST:PORT", help="serve the dealer display here")
    parser.add_argument("--metrics", metavar="HOST:PORT", help="serve /metrics here")
    parser.add_argument("--parent", type=int, help="stop when this process is gone")
    parser.add_argument(
        "--nice", type=int, default=0, choices=range(20), metavar="0-19", help="lower its priority by this much"
    )
    parser.add_argument(
        "--idle",
        action="store_true",
        help="once it serves, run only on CPU time nothing else wants (SCHED_IDLE, nice 19): tablehost run's child",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0)
    return parser


def lower_priority(by: int) -> None:
    """Lower this process's priority by ``by``, so that under CPU contention the kernel serves the
    service's loop first.

    The web face runs in a session of its own, so with ``sched_autogroup`` (Debian's and Raspberry
    Pi OS's kernels) it is in a scheduling group of its own, which the kernel weighs against the
    service's group whatever either process's nice: the group's nice is lowered too
    (``/proc/self/autogroup``; without it a web face at nice 10 still took half the CPU)."""
    os.nice(by)
    _autogroup_nice(by)


def run_idle() -> None:
    """Run every thread of this process under ``SCHED_IDLE`` at nice :data:`IDLE_NICE`, and its
    autogroup at that nice: from now on the web face runs only on CPU time nothing else wants.

    A nice only shares a contended core out: at nice 10 (weights 110 to 1,024) the web face may
    take a tenth of it, and under its floods the loop kept only 64-87% of its quiet rate
    (bench/bench_webface.py --split-cpus). ``SCHED_IDLE`` gives it the
    least weight there is (3 against a nice 0 task's 1024), and a waking loop preempts it at once;
    the autogroup's nice weighs its group (15 against 1024) as low as a group goes. The price: the
    pages lag while anything else needs the CPU. Done once the web face serves, not at its start: a
    web face under ``SCHED_IDLE`` beside a busy core took over a minute to start (and ``tablehost
    run`` gives up on it after :data:`~firmware_host.wiring.child.READY_TIMEOUT_S`). Linux keeps a
    policy and a nice per thread, so each thread is set, until no new one appears; threads started
    later take their creator's. Where the policy is refused (a seccomp filter), the nice is all
    there is, logged."""
    done: set[int] = set()
    while threads := {int(name) for name in os.listdir("/proc/self/task")} - done:
        for thread in threads:
            try:
                os.sched_setscheduler(thread, os.SCHED_IDLE, os.sched_param(0))
            except ProcessLookupError:  # the thread ended meanwhile
                continue
            except OSError as exc:
                log.warning(
                    "web face: thread %d cannot run under SCHED_IDLE (%s): nice %d only", thread, exc, IDLE_NICE
                )
            with contextlib.suppress(ProcessLookupError):
                os.setpriority(os.PRIO_PROCESS, thread, IDLE_NICE)
        done |= threads
    _autogroup_nice(IDLE_NICE)


def _autogroup_nice(nice: int) -> None:
    """Set this process's scheduling autogroup's nice, where the kernel has autogroups."""
    try:
        with open("/proc/self/autogroup", "w") as group:
            group.write(str(nice))
    except OSError:  # a kernel without autogroups: the process's nice is all there is
        log.debug("no scheduling autogroup to lower")


def main(argv: Sequence[str] | None = None) -> int:
    """Serve until SIGTERM, SIGINT or the parent's end; 0, or 2 when it cannot serve as configured."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=[logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)],
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    if args.nice:
        lower_priority(args.nice)
    from firmware_host.config.profiles import load_table
    from firmware_host.wiring.webface import build_webface

    try:
        face = build_webface(
            load_table(args.profile, args.devices_dir), args.journal, args.socket, args.http, args.metrics
        )
        face.start()
    except TablehostError as exc:
        print(json.dumps({"error": str(exc)}), flush=True)
        return 2
    if args.idle:
        run_idle()  # before it says it serves: tablehost run's child is idle once it is ready
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    print(json.dumps(face.urls()), flush=True)
    try:
        while not stop.wait(PARENT_CHECK_S):
            if args.parent is not None and os.getppid() != args.parent:
                break  # the service is gone (a SIGKILL): so is its web face
    finally:
        face.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
