"""The floor's store in the tests, on SQLite or on a real PostgreSQL (a pytest plugin).

- ``postgres_server`` (session): one :class:`~bench.floor.postgres.Postgres` per xdist worker,
  started the first time a test asks for it (never for a run without PostgreSQL tests);
- ``postgres_db``: a fresh database on it, made for the test (``CREATE DATABASE``) and dropped
  after it, so tests are independent;
- ``floor_db``: parametrized ``sqlite`` / ``postgresql``, a :class:`FloorDb` either way.

A test on PostgreSQL is skipped only when the Debian package ``postgresql`` is not installed
(``make deps`` installs it).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.floor.postgres import Postgres, have_postgres
from bench.floor.tables import FloorDb

__all__ = ["STORES"]

#: The stores ``floor_db`` runs a test on.
STORES = ("sqlite", "postgresql")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Postgres]:
    """One PostgreSQL server for this worker, started on first use."""
    if not have_postgres():
        pytest.skip("needs the Debian package postgresql (make deps)")
    with Postgres() as server:
        yield server


@pytest.fixture
def postgres_db(postgres_server: Postgres, tmp_path: Path) -> Iterator[FloorDb]:
    """A database of its own for the test, on the worker's server."""
    import psycopg

    name = f"floor_{secrets.token_hex(6)}"
    with psycopg.connect(postgres_server.dsn_with_password, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name} STRATEGY FILE_COPY")  # quicker than WAL_LOG for a small one
    try:
        yield FloorDb(postgres_server.dsn.rsplit("/", 1)[0] + f"/{name}", tmp_path, postgres_server.password_file)
    finally:
        with psycopg.connect(postgres_server.dsn_with_password, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(params=STORES)
def floor_db(request: pytest.FixtureRequest, tmp_path: Path) -> FloorDb:
    """The floor's database on each store in turn."""
    if request.param == "postgresql":
        return request.getfixturevalue("postgres_db")
    return FloorDb(str(tmp_path / "floor.sqlite"), tmp_path)
