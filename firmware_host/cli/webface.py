"""``python -m firmware_host.cli.webface``: the table's web face, a process of its own.

Started by ``tablehost run`` (with ``--http``, ``[display] listen`` or ``--metrics``), which
restarts it when it dies, or by systemd as ``tablehost-web.service`` under its own user
(:mod:`firmware_host.wiring.webface`). It reads the face file beside the journal (read-only: what
the display may show, :mod:`firmware_host.display.face_file`; never the journal itself) and talks
to the service over the control socket; it is given no key file. Its first line on standard output says where
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
from firmware_host.host import cpus

__all__ = ["main", "build_parser", "lower_priority", "yield_cpu", "YIELD_NICE", "PARENT_CHECK_S"]

log = logging.getLogger("tablehost.webface")

#: Seconds between checks that the parent (``--parent``) still runs.
PARENT_CHECK_S = 1.0
#: The nice of a web face once it serves (``--yield-cpu``), and of its autogroup: the lowest there is.
YIELD_NICE = 19


def build_parser() -> argparse.ArgumentParser:
    """The web face's arguments."""
    parser = argparse.ArgumentParser(prog="tablehost-web", description=__doc__)
    parser.add_argument("--profile", required=True, type=Path, help="the table profile")
    parser.add_argument("--devices-dir", type=Path, help="where the device models are (default: ../devices)")
    parser.add_argument(
        "--journal",
        required=True,
        type=Path,
        help="the table's journal: its face file beside it is read (the journal itself never)",
    )
    parser.add_argument("--socket", required=True, type=Path, help="the service's control socket")
    parser.add_argument("--http", metavar="HOST:PORT", help="serve the dealer display here")
    parser.add_argument("--metrics", metavar="HOST:PORT", help="serve /metrics here")
    parser.add_argument("--parent", type=int, help="stop when this process is gone")
    parser.add_argument(
        "--nice", type=int, default=0, choices=range(20), metavar="0-19", help="lower its priority by this much"
    )
    parser.add_argument(
        "--yield-cpu",
        action="store_true",
        help="once it serves, every thread and its autogroup at nice 19: tablehost run's child",
    )
    parser.add_argument(
        "--cpus",
        help="run on these CPUs (comma-separated), or 'auto': all it may use but the lowest, the table's loop's",
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


def yield_cpu() -> None:
    """Put every thread of this process, and its scheduling autogroup, at nice :data:`YIELD_NICE`:
    from now on a contended core goes to the service's loop first.

    At nice 10 (CFS weights 110 to 1,024) a flooded web face could take a tenth of the table's core
    (the loop kept 64-87% of its quiet rate, bench/bench_webface.py --split-cpus); at 19 its group
    weighs 15 against the service's 1,024, so the loop keeps 98.5% of a core they both want, and
    the web face keeps the rest: never frozen, it still answers, follows the face file and notices
    a dead parent. ``SCHED_IDLE`` (no floor at all) was tried and left: on a loaded machine its web
    face fell 5,676 records behind, grew from 41 to 122 MiB and took over a minute to end after its
    parent. Done once the web face serves, not at its start, which would be slow beside a busy core
    (``tablehost run`` gives up on it after :data:`~firmware_host.wiring.child.READY_TIMEOUT_S`).
    Linux keeps a nice per thread, so each thread is set, until no new one appears; threads started
    later take their creator's."""
    done: set[int] = set()
    while threads := {int(name) for name in os.listdir("/proc/self/task")} - done:
        for thread in threads:
            with contextlib.suppress(ProcessLookupError):  # the thread ended meanwhile
                os.setpriority(os.PRIO_PROCESS, thread, YIELD_NICE)
        done |= threads
    _autogroup_nice(YIELD_NICE)


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
    if args.cpus is not None:
        try:
            chosen = cpus.parse_cpus(args.cpus, os.sched_getaffinity(0), frozenset(range(os.cpu_count() or 1)))
        except ValueError as exc:
            print(f"--cpus {exc}", file=sys.stderr)
            return 2
        try:
            cpus.keep_to(chosen)
        except OSError as exc:  # a cpuset without them: it serves where it may
            log.warning("web face: cannot run on CPUs %s (%s): left where it was", sorted(chosen), exc)
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
    if args.yield_cpu:
        yield_cpu()  # before it says it serves: tablehost run's child yields once it is ready
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
