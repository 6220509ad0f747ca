"""The floor dashboard under two attacks of issue 29, on this checkout and on another, side by side.

1. **The surveillance lockout (N4).** One wrong secret every 0.5 s, each from a new loopback
   address (127.0.0.10 and up: none is the Pi's own), against a dashboard where an officer
   (127.0.0.2) is logged in, reads ``/api/tiles`` every second and holds a live stream, and
   another officer (127.0.0.3) logs in anew every 5 s. The attacker names an unknown user, then
   (this checkout) the logged-in officer. Counted: the officer's answers by status, whether
   their stream lived through it and whether a new stream opens at the end, and the other
   officer's new logins by status. On a checkout before sessions (HTTP Basic remembered for
   ``LOGIN_TTL_S`` = 300 s), the remembered login is shortened to 20 s so that its expiry falls
   inside the run; the figures say so.
2. **The record cost (N9).** ``/api/tables/<id>/rounds/<n>`` on a table of 2,000 rounds: wall
   time and the process's CPU per request (the dashboard runs in this process), for an early,
   a middle and a late round; then 6 pit users asking for records back to back for 20 s while an
   officer reads ``/api/tiles`` every 0.2 s: the officer's latency, the process's CPU, the pit's
   answers.

Run: ``python bench/bench_floor_access.py [--other /tmp/main-ref] [--seconds 60]``: each side runs
in a child process whose ``PYTHONPATH`` is its checkout; a side's JSON is printed, then a table.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import http.client
import inspect
import itertools
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
SECRET, OTHER_SECRET, PIN = "ann-surveillance-1", "carol-surveillance-2", "13579"
SHORT_TTL_S = 20.0
#: Pit clients asking for records as fast as they are answered, and for how long (seconds).
PIT_CLIENTS, HAMMER_S = 6, 20.0


def _basic(user: str, secret: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{secret}".encode()).decode()


def _request(url: str, path: str, source: str, headers: dict[str, str]) -> tuple[int, dict[str, str]]:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=20, source_address=(source, 0))
    try:
        connection.request("GET", path, headers=headers)
        answer = connection.getresponse()
        answer.read()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}
    finally:
        connection.close()


class _Stream(threading.Thread):
    """A live stream held open: the messages and keepalives it got, and how it ended."""

    def __init__(self, url: str, source: str, headers: dict[str, str]) -> None:
        super().__init__(daemon=True)
        host, port = url.removeprefix("http://").rsplit(":", 1)
        self.connection = http.client.HTTPConnection(host, int(port), timeout=60, source_address=(source, 0))
        self.connection.request("GET", "/api/stream", headers=headers)
        self.answer = self.connection.getresponse()
        self.status, self.lines, self.ended = self.answer.status, 0, False

    def run(self) -> None:
        try:
            while self.answer.readline():
                self.lines += 1
        except (OSError, AttributeError):  # closed under it at the end
            pass
        self.ended = True


def _setup(directory: Path, journal: Path, rounds: int | None) -> tuple[Path, str, bool]:
    """A floor store holding the table of ``journal`` (its first ``rounds`` rounds' messages), and
    the credentials; whether this checkout has named users."""
    from firmware_host.feed import schema
    from firmware_host.feed.schema import FeedState
    from firmware_host.floor.admission import Admission
    from firmware_host.floor.store import FloorStore
    from firmware_host.host.segments import records

    db, table = directory / "floor.sqlite", "BAC-BENCH"
    messages = [m for m, _ in schema.derive(table, list(records(journal)), FeedState())]
    if rounds is not None:
        messages = [m for m in messages if (m.get("round") or 0) <= rounds]
    admission = Admission("tablehost", None)
    store = FloorStore(db)
    try:
        for start in range(0, len(messages), 500):
            chunk = messages[start : start + 500]
            store.ingest([admission.admit(f"tablehost/{table}/events", schema.encode(m)) for m in chunk])
    finally:
        store.close()
    http_dir = directory / "http"
    try:
        from firmware_host.web.users import add_user

        for name, secret in (("ann", SECRET), ("carol", OTHER_SECRET)):
            add_user(http_dir / "users", name, "surveillance", secret, ("pit", "surveillance"), n=2**14)
        for n in range(PIT_CLIENTS):
            add_user(http_dir / "users", f"pit{n}", "pit", f"pit-secret-{n}", ("pit", "surveillance"), n=2**14)
        named = True
    except ImportError:
        from firmware_host.web.pins import write_pin_file

        write_pin_file(http_dir / "surveillance.pin", PIN)
        named = False
    return db, table, named


@contextlib.contextmanager
def _dashboard(db: Path, http_dir: Path) -> Iterator[Any]:
    from firmware_host.floor.dashboard.serve import Dashboard
    from firmware_host.floor.store import FloorStore

    extra = {"open_writer": lambda: FloorStore(db)} if "open_writer" in inspect.signature(Dashboard).parameters else {}
    dashboard = Dashboard("127.0.0.1:0", lambda: FloorStore(db, read_only=True), http_dir, poll_s=0.5, **extra)
    dashboard.start()
    try:
        dashboard.floor.ready.wait(60)
        yield dashboard
    finally:
        dashboard.stop()


def lockout(journal: Path, seconds: float, attacker_names_officer: bool) -> dict[str, Any]:
    """Attack 1: the officer's answers, their stream, the other officer's new logins."""
    with tempfile.TemporaryDirectory() as tmp:
        db, _, named = _setup(Path(tmp), journal, 20)
        if not named:  # before sessions: the remembered HTTP Basic login, shortened to fall inside the run
            import firmware_host.floor.dashboard.app as app_module

            app_module.LOGIN_TTL_S = SHORT_TTL_S  # type: ignore[attr-defined]
        with _dashboard(db, Path(tmp) / "http") as dashboard:
            url = dashboard.url
            officer = {"Authorization": _basic("ann", SECRET if named else PIN)}
            status, headers = _request(url, "/api/me", "127.0.0.2", officer)
            assert status == 200, status
            if "set-cookie" in headers:  # a session: the page's later requests carry its cookie only
                officer = {"Cookie": headers["set-cookie"].split(";")[0]}
            stream = _Stream(url, "127.0.0.2", officer)
            stream.start()
            counts: dict[str, Counter[int]] = {"officer": Counter(), "new logins": Counter(), "attack": Counter()}
            stop = threading.Event()

            def attack() -> None:
                name = "ann" if attacker_names_officer else "mallory"
                for n in itertools.count():
                    if stop.wait(0.5):
                        return
                    source = f"127.0.{1 + n // 240}.{10 + n % 240}"
                    counts["attack"][
                        _request(url, "/api/tiles", source, {"Authorization": _basic(name, "wrong-0000")})[0]
                    ] += 1

            attacker = threading.Thread(target=attack, daemon=True)
            attacker.start()
            started = time.monotonic()
            tick = 0
            while time.monotonic() - started < seconds:
                counts["officer"][_request(url, "/api/tiles", "127.0.0.2", officer)[0]] += 1
                if tick % 5 == 4:
                    carol = _basic("carol", OTHER_SECRET if named else PIN)
                    counts["new logins"][_request(url, "/api/me", "127.0.0.3", {"Authorization": carol})[0]] += 1
                tick += 1
                time.sleep(1.0)
            stop.set()
            attacker.join()
            reopened = _Stream(url, "127.0.0.2", officer)
            stream_alive = not stream.ended
            reopened.connection.close()
            stream.connection.close()
    return {
        "named users": named,
        "attacker names the officer": attacker_names_officer,
        "seconds": seconds,
        "remembered login s": None if named else SHORT_TTL_S,
        "officer": dict(counts["officer"]),
        "officer's stream alive at the end": stream_alive,
        "officer's stream lines": stream.lines,
        "a new stream at the end": reopened.status,
        "other officer's new logins": dict(counts["new logins"]),
        "attack answers": dict(counts["attack"]),
    }


def record_cost(journal: Path, requests: int = 5) -> dict[str, Any]:
    """Attack 2: wall time and CPU per round record on a table of the journal's rounds."""
    with tempfile.TemporaryDirectory() as tmp:
        db, table, named = _setup(Path(tmp), journal, None)
        with _dashboard(db, Path(tmp) / "http") as dashboard:
            auth = {"Authorization": _basic("ann", SECRET if named else PIN)}
            status, headers = _request(dashboard.url, "/api/me", "127.0.0.2", auth)
            if "set-cookie" in headers:
                auth = {"Cookie": headers["set-cookie"].split(";")[0]}
            found: dict[str, Any] = {}
            for number in (10, 1000, 1990):
                path = f"/api/tables/{table}/rounds/{number}"
                assert _request(dashboard.url, path, "127.0.0.2", auth)[0] == 200
                cpu, wall = time.process_time(), time.perf_counter()
                for _ in range(requests):
                    _request(dashboard.url, path, "127.0.0.2", auth)
                found[f"round {number}"] = {
                    "ms wall": round(1000 * (time.perf_counter() - wall) / requests, 1),
                    "ms CPU": round(1000 * (time.process_time() - cpu) / requests, 1),
                }
            found["6 pit clients hammering records"] = _hammered(dashboard.url, table, auth, named)
    return found


def _hammered(url: str, table: str, auth: dict[str, str], named: bool) -> dict[str, Any]:
    """:data:`PIT_CLIENTS` pit users asking for round records back to back for :data:`HAMMER_S`,
    while an officer reads ``/api/tiles`` every 0.2 s: the officer's latency, the pit's answers."""
    stop = threading.Event()
    answers: Counter[int] = Counter()

    def hammer(n: int) -> None:
        headers = {"Authorization": _basic(f"pit{n}", f"pit-secret-{n}" if named else PIN)}
        for k in itertools.count():
            if stop.is_set():
                return
            answers[
                _request(url, f"/api/tables/{table}/rounds/{1 + (k * 37) % 1990}", f"127.0.2.{n + 1}", headers)[0]
            ] += 1

    for n in range(PIT_CLIENTS):  # logged in first, one at a time (a login is a scrypt check)
        headers = {"Authorization": _basic(f"pit{n}", f"pit-secret-{n}" if named else PIN)}
        assert _request(url, "/api/me", f"127.0.2.{n + 1}", headers)[0] == 200
    threads = [threading.Thread(target=hammer, args=(n,), daemon=True) for n in range(PIT_CLIENTS)]
    cpu = time.process_time()
    for thread in threads:
        thread.start()
    latencies = []
    started = time.monotonic()
    while time.monotonic() - started < HAMMER_S:
        at = time.perf_counter()
        _request(url, "/api/tiles", "127.0.0.2", auth)
        latencies.append(1000 * (time.perf_counter() - at))
        time.sleep(0.2)
    stop.set()
    for thread in threads:
        thread.join()
    latencies.sort()
    return {
        "officer's /api/tiles ms p50": round(latencies[len(latencies) // 2], 1),
        "officer's /api/tiles ms p99": round(latencies[int(len(latencies) * 0.99)], 1),
        "process CPU %": round(100 * (time.process_time() - cpu) / HAMMER_S),
        "pit answers": dict(answers),
    }


def _side(args: argparse.Namespace) -> None:
    import firmware_host

    journal = Path(args.journal)
    result = {
        "checkout": str(Path(firmware_host.__file__ or "").parents[1]),
        "load": round(os.getloadavg()[0], 1),
        "lockout, unknown names": lockout(journal, args.seconds, False),
        "lockout, the officer's name": lockout(journal, args.seconds, True),
        "record cost": record_cost(journal),
    }
    print(json.dumps(result))


def _journal(directory: Path) -> Path:
    journal = directory / "hist.journal"
    if not journal.exists():
        sys.path.insert(0, str(HERE))
        from bench.floor.tables import run_table, table_profile

        run_table(table_profile(directory, "BAC-HIST"), journal, 2000, timeout=1800)
    return journal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", type=Path, help="another checkout (e.g. main in a worktree) to run side by side")
    parser.add_argument("--seconds", type=float, default=60.0, help="each lockout run (default 60)")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "bench-floor-access")
    parser.add_argument("--journal", help=argparse.SUPPRESS)  # a side's run (a child process)
    args = parser.parse_args()
    if args.journal:
        _side(args)
        return
    args.dir.mkdir(parents=True, exist_ok=True)
    journal = _journal(args.dir)
    for checkout in [args.other, HERE] if args.other else [HERE]:
        done = subprocess.run(
            [sys.executable, __file__, "--journal", str(journal), "--seconds", str(args.seconds)],
            env={**os.environ, "PYTHONPATH": str(checkout)},
            cwd=checkout,
            stdout=subprocess.PIPE,
            text=True,
            check=True,
        )
        print(done.stdout.strip().splitlines()[-1], flush=True)


if __name__ == "__main__":
    main()
