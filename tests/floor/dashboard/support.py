"""A floor store filled with real tables' verified messages, and the dashboard served on it, for
the dashboard's tests and its screenshots.

A simulated table's journal (``tablehost run``, made once per test session) is derived into
feed messages under any table id (:func:`messages_of`), admitted by the collector's own
:class:`~firmware_host.floor.admission.Admission` and ingested into the real SQLite store
(:func:`store_messages`), exactly as the collector stores them.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import itertools
import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.floor.tables import run_table, table_profile
from firmware_host.feed import schema
from firmware_host.feed.schema import FeedState
from firmware_host.floor.admission import Admission
from firmware_host.floor.dashboard.serve import Dashboard
from firmware_host.floor.store import FloorStore
from firmware_host.host.segments import records as read_records
from firmware_host.web.users import add_user
from tests.support.feed_records import RECORDS, Rec

#: The dashboard's users in the tests: ann of the surveillance room, bob of the pit.
PIT_SECRET, SURVEILLANCE_SECRET = "bob-pit-2468", "ann-surv-13579"
USERS = {
    "ann": ("surveillance", SURVEILLANCE_SECRET),
    "bob": ("pit", PIT_SECRET),
    "probe-surveillance": ("surveillance", SURVEILLANCE_SECRET),  # the benches' DashboardProbe
}
TEST_SCRYPT_N = 2**10


def messages_of(journal: Path, table: str) -> list[dict[str, Any]]:
    """The feed messages of ``journal`` as table ``table`` publishes them."""
    return feeds_of(journal, [table])[table]


def feeds_of(journal: Path, tables: list[str], count: int | None = None) -> dict[str, list[dict[str, Any]]]:
    """The feed messages of ``journal`` (its first ``count``) as each of ``tables`` publishes them
    (the journal read once)."""
    records = list(read_records(journal))
    return {
        table: [m for m, _ in itertools.islice(schema.derive(table, records, FeedState()), count)] for table in tables
    }


def current_round(messages: list[dict[str, Any]]) -> int:
    """The round a table's tile shows for ``messages``: the latest any message names (the round whose
    betting is open once its ``odds`` are out, the one just finished before that)."""
    return max(m["round"] for m in messages if m.get("round") is not None)


def store_messages(
    db: Path, messages: list[dict[str, Any]], status: str | None = "online", offline: frozenset[str] = frozenset()
) -> None:
    """Admit and store ``messages`` (unsigned, as ``--unsigned`` does), and each table's retained
    status (``offline`` for the tables in ``offline``)."""
    admission = Admission("tablehost", None)
    store = FloorStore(db)
    try:
        by_table: dict[str, list[bytes]] = {}
        for message in messages:
            by_table.setdefault(message["table"], []).append(schema.encode(message))
        batch = [admission.admit(f"tablehost/{table}/events", p) for table, items in by_table.items() for p in items]
        if status is not None:
            for table, items in by_table.items():
                game = "paigow" if "PG" in table else "baccarat"
                state = "offline" if table in offline else status
                text = schema.encode(
                    {"table": table, "state": state, "version": "0.3.0", "game": game, "seq": len(items)}
                )
                batch.append(admission.admit(f"tablehost/{table}/status", text))
        store.ingest(batch)
    finally:
        store.close()


def protection_messages(table: str) -> list[dict[str, Any]]:
    """A chained feed with a round, a device alert and an advantage-window alert (game protection)."""
    records = RECORDS + [
        Rec(
            11,
            "decision",
            "alert",
            {
                "code": "advantage-window",
                "text": "banker EV +1.2% at 40 cards seen",
                "severity": "attention",
                "wager": "banker",
                "ev": "3/250",
            },
            round=2,
        ),
        Rec(
            12,
            "decision",
            "alert",
            {"code": "device-lost", "text": "shoe: lost (§ 541.5(b))", "severity": "fault"},
            round=2,
        ),
    ]
    now = time.time()  # a table's clock: the lag is the store's
    return [m for m, _ in schema.derive(table, [dataclasses.replace(r, at=now) for r in records], FeedState())]


def make_journal(directory: Path, rounds: int, table: str = "SIM-BAC-1", seed: int = 1) -> Path:
    """A simulated Baccarat table's journal of ``rounds`` rounds."""
    journal = directory / f"{table}-{rounds}.journal"
    if not journal.exists():
        run_table(table_profile(directory, table), journal, rounds, seed=seed)
    return journal


def users_dir(directory: Path) -> Path:
    """The dashboard's users file (fast scrypt, for tests): ann (surveillance), bob (pit), the probe."""
    users = directory / "floor-http"
    if not (users / "users").exists():
        for name, (role, secret) in USERS.items():
            add_user(users / "users", name, role, secret, ("pit", "surveillance"), n=TEST_SCRYPT_N)
    return users


def basic(user: str, secret: str) -> dict[str, str]:
    """The Authorization header of HTTP Basic ``user``/``secret``."""
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{secret}".encode()).decode()}


def get(
    url: str,
    user: str | None = "ann",
    secret: str | None = SURVEILLANCE_SECRET,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """GET ``url`` with HTTP Basic ``user``/``secret``: (status, JSON or text)."""
    sent = dict(headers or {})
    if user is not None:
        sent.update(basic(user, secret or ""))
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=sent), timeout=10) as answer:
            status, body = answer.status, answer.read()
    except urllib.error.HTTPError as exc:
        status, body = exc.code, exc.read()
    try:
        return status, json.loads(body)
    except ValueError:
        return status, body.decode()


@dataclasses.dataclass
class Served:
    dashboard: Dashboard
    db: Path

    @property
    def url(self) -> str:
        return self.dashboard.url


@contextlib.contextmanager
def serving(db: Path, directory: Path, poll_s: float = 0.2) -> Iterator[Served]:
    """The dashboard on ``db`` on a free loopback port, for the ``with`` block."""
    if not db.exists():
        FloorStore(db).close()
    dashboard = Dashboard(
        "127.0.0.1:0",
        lambda: FloorStore(db, read_only=True),
        users_dir(directory),
        open_writer=lambda: FloorStore(db),
        poll_s=poll_s,
    )
    dashboard.start()
    try:
        dashboard.floor.ready.wait(30)
        yield Served(dashboard, db)
    finally:
        dashboard.stop()
