"""``tablehost floor dashboard``: the live floor dashboard in a process of its own (issue 30 item 3).

``tablehost floor dashboard --db PATH|DSN --http HOST:PORT --http-dir DIR`` serves the map beside
any number of collectors (``tablehost floor --db ...`` without ``--http``), following the store
alone (:mod:`firmware_host.floor.dashboard.follow`): killing a collector leaves the map up, killing
the dashboard leaves every collector storing. It holds no key: it takes none of the collector's
options (``--floor-key`` above all, which signs the floor's acknowledgements), and the collector
that starts it (``tablehost floor --http``, :class:`DashboardChild`) passes it none, in a process
of its own (``exec``: nothing of the collector's memory).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from firmware_host.errors import TablehostError

__all__ = ["register_dashboard", "run_dashboard", "child_command", "check_dashboard", "DashboardChild", "BACKOFF_S"]

log = logging.getLogger("tablehost.floor")

#: Seconds before the dashboard child is started again after each exit in a row (the last repeats).
BACKOFF_S = (0.5, 1.0, 2.0, 4.0, 8.0)
#: Seconds a child must have run for its next exit to start the back-off from the first step again.
HEALTHY_S = 30.0
#: Seconds between two looks at whether the process that started the dashboard is still there.
PARENT_CHECK_S = 1.0
#: The collector's options the dashboard refuses (given before ``dashboard`` on the command line).
COLLECTOR_ONLY = ("floor_key", "keys", "broker", "metrics", "password_file", "key_file")


def register_dashboard(commands: Any, add_db_arguments: Any, add_skew_bound: Any) -> None:
    """Add ``floor dashboard``."""
    parser = commands.add_parser(
        "dashboard", help="the live floor dashboard alone, following the store (no key, no collector)"
    )
    add_db_arguments(parser)
    add_http_arguments(parser, required=True)
    add_skew_bound(parser, "the tiles' clock-skew mark")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log each pass's trouble (-vv: debug)")
    parser.set_defaults(func=run_dashboard)


def add_http_arguments(parser: argparse.ArgumentParser, required: bool = False) -> None:
    """``--http HOST:PORT`` and ``--http-dir DIR``."""
    files = "the users file, users (tablehost floor user add), and tls.crt, tls.key off loopback"
    parser.add_argument("--http", metavar="HOST:PORT", required=required, help="serve the live floor dashboard")
    parser.add_argument("--http-dir", type=Path, metavar="DIR", help=f"the dashboard's files: {files}")


def check_dashboard(args: argparse.Namespace) -> None:
    """What the dashboard would refuse to start on, refused now in one line (:class:`WebError`): a
    bad address, an address off loopback without TLS files, no users."""
    from firmware_host.floor.dashboard.serve import check_listen, load_users
    from firmware_host.web.server import parse_listen

    host, _ = parse_listen(args.http)
    directory = args.http_dir or Path(".")
    check_listen(host, directory)
    load_users(directory)


def child_command(args: argparse.Namespace) -> list[str]:
    """The dashboard's command line, from the collector's arguments: the store, the address and the
    users' directory, nothing else (never a key)."""
    command = [sys.executable, "-m", "firmware_host", "floor", "dashboard", "--db", str(args.db)]
    if args.db_password_file is not None:
        command += ["--db-password-file", str(args.db_password_file)]
    command += ["--http", args.http, "--http-dir", str(args.http_dir or Path("."))]
    command += ["--clock-skew-s", repr(args.clock_skew_s)] + ["-v"] * min(args.verbose, 2)
    return command


def run_dashboard(args: argparse.Namespace) -> int:
    """``floor dashboard --db PATH|DSN --http HOST:PORT --http-dir DIR``: serve until SIGTERM or SIGINT."""
    given = [f"--{name.replace('_', '-')}" for name in COLLECTOR_ONLY if getattr(args, name, None)]
    if given:
        raise TablehostError(
            f"tablehost floor dashboard: {', '.join(given)} is the collector's; the dashboard takes no key or broker"
        )
    from firmware_host.cli.floor import open_db
    from firmware_host.floor.dashboard.serve import Dashboard

    logging.basicConfig(
        level=[logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)],
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    dashboard = Dashboard(
        args.http,
        lambda: open_db(args, read_only=True),
        args.http_dir or Path("."),
        open_writer=lambda: open_db(args),  # the view log is kept in the store
        skew_bound_s=args.clock_skew_s,
    )
    parent = os.getppid()
    dashboard.start()
    print(f"floor: dashboard on {dashboard.url}", flush=True)
    try:
        while not stop.wait(PARENT_CHECK_S):
            if os.getppid() != parent:  # the collector that started it died, even by SIGKILL: no orphan
                log.warning("floor dashboard: the process that started it is gone; stopping")
                break
    finally:
        dashboard.stop()
    print("floor: dashboard stopped", flush=True)
    return 0


class DashboardChild:
    """The dashboard as a child process of ``tablehost floor --http``, started again after it exits,
    with back-off (:data:`BACKOFF_S`), until :meth:`stop`. Its standard output and error are the
    collector's; it runs in a session of its own, so a terminal's Ctrl-C reaches the collector, which
    stops it.

    :param command: its command line (:func:`child_command`).
    """

    def __init__(self, command: list[str], backoff_s: tuple[float, ...] = BACKOFF_S) -> None:
        self.command, self.backoff_s = command, backoff_s
        self.process: subprocess.Popen[bytes] | None = None
        self.restarts = 0  #: starts after the first
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="floor-dashboard-child", daemon=True)

    def start(self) -> None:
        """Start the child, and keep it running."""
        self._thread.start()

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            started = time.monotonic()
            with self._lock:
                if self._stop.is_set():
                    return
                self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, start_new_session=True)
            code = self.process.wait()
            if self._stop.is_set():
                return
            failures = 1 if time.monotonic() - started >= HEALTHY_S else failures + 1
            delay = self.backoff_s[min(failures, len(self.backoff_s)) - 1]
            log.warning("floor: the dashboard exited (status %s); starting it again in %.1f s", code, delay)
            self._stop.wait(delay)
            self.restarts += 1

    def stop(self) -> None:
        """Stop the child (SIGTERM, then SIGKILL after 15 s) and stop keeping it running."""
        with self._lock:
            self._stop.set()
            process = self.process
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._thread.join(20)
