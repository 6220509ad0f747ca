"""The floor soak's servers: one Mosquitto (users and the deploy ACL), one PostgreSQL, two collectors,
and the live ``tablehost run`` tables (one of them behind a :class:`~bench.floor.tcp_proxy.TcpProxy`).

Every table has its own MQTT user (its id) and password, and its own Ed25519 key: the private key
under ``tmp/keys``, the public key in ``tmp/floor-keys``, the collectors' ``--keys`` (as
tests/support/floor_run.py provisions them). The collectors log in as ``tablehost-floor``, each
with its own persistent session (``--client-id floor-a`` / ``floor-b``); ``floor-b`` serves the
dashboard (``--http``), ``floor-a`` is the one the soak kills.
"""

from __future__ import annotations

import contextlib
import secrets
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from bench.feed.broker import Broker, floor_command, free_port, write_secret
from bench.floor.postgres import Postgres
from bench.floor.soak_measure import postmaster_pid
from bench.floor.tables import FloorDb, floor_keys, provision, start_table, table_profile
from bench.floor.tcp_proxy import TcpProxy
from firmware_host.web.users import add_user

__all__ = ["Rig", "FLOOR_USER", "DASHBOARD_PIN", "SUBSCRIBED", "wait_for_line"]

REPO = Path(__file__).resolve().parents[2]
#: The collectors' MQTT user (deploy/mosquitto/acl).
FLOOR_USER = "tablehost-floor"
#: The secret of the dashboard's user probe-surveillance in the soak.
DASHBOARD_PIN = "probe-27182818"
#: Seconds a collector may take to connect and subscribe.
CONNECT_S = 60.0
#: What a collector logs once the broker has granted its subscriptions (floor/collector.py ``_on_subscribed``).
SUBSCRIBED = "floor: subscribed to"


def wait_for_line(log: Path, line: str, seen: int, child: subprocess.Popen[str], deadline: float) -> None:
    """Wait until ``log`` holds ``line`` more than ``seen`` times (a restarted child appends to the
    same log); raise if ``child`` exits or the monotonic ``deadline`` passes first."""
    while (log.read_text().count(line) if log.exists() else 0) <= seen:
        if child.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{log.stem} did not log {line!r}: {log.read_text()[-2000:] if log.exists() else ''}")
        time.sleep(0.05)


def _drain(stream: IO[str] | None, log: IO[str]) -> None:
    """Copy a child's output to its log (a pipe nobody reads would stall the child)."""
    if stream is None:
        return
    for line in stream:
        log.write(line)


class Rig:
    """The soak's broker, database, collectors and live tables under ``tmp``.

    :param tables: the republished tables' ids; ``live``: the live tables' ids (the first one
        publishes through the proxy).
    """

    def __init__(self, tmp: Path, tables: list[str], live: list[str]) -> None:
        self.tmp, self.tables, self.live = tmp, tables, live
        self.passwords = {table: secrets.token_urlsafe(12) for table in [*tables, *live, FLOOR_USER]}
        self.broker = Broker(tmp / "broker", users=self.passwords)
        self.postgres = Postgres()
        self.keys = floor_keys(tmp)
        for table in [*tables, *live]:
            provision(tmp, table)
        self.collectors: dict[str, subprocess.Popen[str]] = {}
        self.live_tables: dict[str, subprocess.Popen[str]] = {}
        self.http_port = free_port()
        self.proxy: TcpProxy | None = None
        self._floor_password = write_secret(tmp / "floor.password", self.passwords[FLOOR_USER])
        self._logs: list[IO[str]] = []

    # -- servers ---------------------------------------------------------------------------

    def start(self) -> Rig:
        self.postgres.start()
        self.broker.start()
        self.proxy = TcpProxy(self.broker.port).__enter__()
        waits = [self._launch_collector(name) for name in ("floor-a", "floor-b")]  # both start at once
        for wait in waits:
            wait()
        return self

    @property
    def db(self) -> FloorDb:
        """The floor's store, as ``floor status`` and ``floor export`` open it."""
        return FloorDb(self.postgres.dsn, self.tmp, self.postgres.password_file)

    @property
    def postmaster(self) -> int:
        return postmaster_pid(self.postgres.data)

    @property
    def dashboard_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def _spawn(self, name: str, command: list[str]) -> subprocess.Popen[str]:
        log = open(self.tmp / f"{name}.log", "a", buffering=1)  # noqa: SIM115 (closed in close())
        self._logs.append(log)
        child = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        threading.Thread(target=_drain, args=(child.stdout, log), daemon=True).start()
        return child

    def start_collector(self, name: str) -> subprocess.Popen[str]:
        """Start collector ``name`` (``floor-b`` with the dashboard) and wait until it is subscribed."""
        self._launch_collector(name)()
        return self.collectors[name]

    def _launch_collector(self, name: str) -> Callable[[], None]:
        """Start collector ``name``; return the wait until the broker has its subscriptions (its
        SUBACK: a new session hears nothing published before it, and a resumed one is only then
        sure to be the broker's again)."""
        options = ["--client-id", name, "--username", FLOOR_USER, "--password-file", str(self._floor_password), "-v"]
        if name == "floor-b":
            pins = self.tmp / "floor-http"
            pins.mkdir(exist_ok=True)
            add_user(
                pins / "users", "probe-surveillance", "surveillance", DASHBOARD_PIN, ("pit", "surveillance"), n=2**12
            )
            options += ["--http", f"127.0.0.1:{self.http_port}", "--http-dir", str(pins)]
        log = self.tmp / f"{name}.log"
        already = log.read_text().count(SUBSCRIBED) if log.exists() else 0
        child = self._spawn(name, floor_command(self.broker.url, self.db.args(), *options, keys=self.keys))
        self.collectors[name] = child
        deadline = time.monotonic() + CONNECT_S
        return lambda: wait_for_line(log, SUBSCRIBED, already, child, deadline)

    def kill_collector(self, name: str) -> None:
        """SIGKILL collector ``name`` (no goodbye: its session and queue stay at the broker)."""
        child = self.collectors[name]
        child.send_signal(signal.SIGKILL)
        child.wait(10)

    # -- live tables -----------------------------------------------------------------------

    def start_live(self, table: str, rounds: int, pace: float, seed: int) -> subprocess.Popen[str]:
        """Start a live ``tablehost run`` table; the first live table goes through the proxy."""
        password = write_secret(self.tmp / f"{table}.password", self.passwords[table])
        feed = f'broker = "{self.broker.url}"\nusername = "{table}"\npassword_file = "{password}"'
        profile = table_profile(self.tmp, table, feed=feed)
        assert self.proxy is not None
        url = self.proxy.url() if table == self.live[0] else self.broker.url
        child = start_table(profile, self.journal(table), rounds, url, seed=seed, pace=pace)
        log = open(self.tmp / f"{table}.log", "a", buffering=1)  # noqa: SIM115 (closed in close())
        self._logs.append(log)
        for stream in (child.stdout, child.stderr):
            threading.Thread(target=_drain, args=(stream, log), daemon=True).start()
        self.live_tables[table] = child
        return child

    def journal(self, table: str) -> Path:
        return self.tmp / f"{table}.journal"

    # -- the end ---------------------------------------------------------------------------

    def close(self) -> None:
        """Stop everything this rig started (collectors and tables first, then the servers)."""
        for child in [*self.live_tables.values(), *self.collectors.values()]:
            if child.poll() is None:
                child.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    child.wait(15)
                if child.poll() is None:
                    child.kill()
                    child.wait()
        if self.proxy is not None:
            self.proxy.__exit__(None, None, None)
        self.broker.stop()
        self.postgres.stop()
        for log in self._logs:
            log.close()
        shutil.rmtree(self.tmp / "broker" / "data", ignore_errors=True)
