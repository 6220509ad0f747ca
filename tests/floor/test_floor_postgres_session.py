"""The collectors' PostgreSQL sessions (issue 27, item 4): any number of collectors starting
together on a new database migrate it once, none fails; every session commits with
``synchronous_commit = on`` whatever the server's or the database's default."""

from __future__ import annotations

import threading
from pathlib import Path

import psycopg

from bench.floor.tables import FloorDb
from firmware_host.floor import migrations
from firmware_host.floor.store_sql import SqlStore
from tests.support.feed_records import admit, payloads

#: Collectors started together on one new database, and how many times (the race is a matter of timing).
COLLECTORS, TRIALS = 6, 4


def _admin(db: FloorDb) -> psycopg.Connection:
    """A connection to ``db`` with the rig's password (the tests' own, never a collector's)."""
    password = Path(str(db.password_file)).read_text().strip()
    return psycopg.connect(db.spec, password=password, autocommit=True)


def _open_together(db: FloorDb, count: int) -> tuple[list[SqlStore], list[BaseException]]:
    """``count`` stores opened to write by as many threads released at once."""
    barrier = threading.Barrier(count)
    stores: list[SqlStore] = []
    errors: list[BaseException] = []

    def open_one() -> None:
        barrier.wait()
        try:
            stores.append(db.open())
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return stores, errors


def test_collectors_starting_together_on_a_new_database_all_migrate_it(postgres_db: FloorDb) -> None:
    for _ in range(TRIALS):
        with _admin(postgres_db) as admin:  # a new database again: nothing of the schema in it
            admin.execute("DROP SCHEMA public CASCADE")
            admin.execute("CREATE SCHEMA public")
        stores, errors = _open_together(postgres_db, COLLECTORS)
        try:
            assert errors == [] and len(stores) == COLLECTORS
            with _admin(postgres_db) as admin:
                versions = [v for (v,) in admin.execute("SELECT version FROM schema_version ORDER BY version")]
            assert versions == [m.version for m in migrations.MIGRATIONS]  # each step applied once
            stores[0].ingest(admit(payloads()[:3]))
            assert [s.status("T1").last_seq for s in stores] == [3] * COLLECTORS
        finally:
            for store in stores:
                store.close()


def test_every_session_commits_synchronously_when_the_database_says_off(postgres_db: FloorDb) -> None:
    with _admin(postgres_db) as admin:
        name = admin.execute("SELECT current_database()").fetchone()[0]  # type: ignore[index]
        admin.execute(f"ALTER DATABASE {name} SET synchronous_commit = off")
    with _admin(postgres_db) as plain:  # a session without the collector's setting gets the default
        assert plain.execute("SHOW synchronous_commit").fetchone() == ("off",)
    for read_only in (False, True):
        store = postgres_db.open(read_only=read_only)
        try:
            with store._db() as db:  # type: ignore[attr-defined]
                assert db.execute("SHOW synchronous_commit").fetchone() == ("on",)
                assert db.execute("SHOW default_transaction_read_only").fetchone() == (
                    ("on",) if read_only else ("off",)
                )
        finally:
            store.close()
