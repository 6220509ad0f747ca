"""Floor stores found by name (issue 31 item 4): the engine is looked up by the scheme of ``--db`` in
a registry and imported only then; an unknown one is one line naming it, exit 2; each engine holds its
own SQL and schema for every step; the shared SQL's placeholders are each engine's own, never made
by rewriting the statement."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.floor.tables import FloorDb
from firmware_host.cli import main
from firmware_host.floor import migrations, sql_postgres, sql_sqlite
from firmware_host.floor.model import FloorError
from firmware_host.floor.store import ENGINES, engine, engine_name, open_store
from firmware_host.floor.store_sqlite import SqliteStore
from tests.support.paths import REPO


def test_the_engine_is_found_by_the_scheme_of_db_and_a_path_is_sqlite(tmp_path: Path) -> None:
    assert engine_name(str(tmp_path / "floor.sqlite")) == engine_name(tmp_path / "floor.sqlite") == "sqlite"
    assert engine_name("postgresql://floor@db/floor") == engine_name("POSTGRESQL://x/y") == "postgresql"
    assert engine_name("postgres://floor@db/floor") == "postgres"
    assert engine("sqlite") is SqliteStore
    assert set(ENGINES) >= {"sqlite", "postgresql", "postgres"}
    assert engine("postgres") is engine("postgresql")
    assert engine("postgresql").engine == "postgresql"


def test_an_unknown_engine_is_an_error_naming_it(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(FloorError, match="no store engine 'mysql'.*postgresql://"):
        open_store("mysql://floor@db/floor")
    assert not (REPO / "mysql:").exists()  # not taken for a SQLite file's path
    assert main(["floor", "status", "--db", "mongodb://h/floor"]) == 2  # in-process: the CLI's one line
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "no store engine 'mongodb'" in line


def test_each_engine_holds_its_own_schema_for_every_step() -> None:
    versions = [m.version for m in migrations.MIGRATIONS]
    assert list(sql_sqlite.STEPS) == list(sql_postgres.STEPS) == versions
    assert all(sql_sqlite.STEPS[v] and sql_postgres.STEPS[v] for v in versions)
    assert "WITHOUT ROWID" in " ".join(sql_sqlite.STEPS[1]) and "BIGSERIAL" in " ".join(sql_postgres.STEPS[1])


def test_the_shared_sqls_placeholders_are_the_engines_own_and_a_question_mark_is_text(floor_db: FloorDb) -> None:
    store = floor_db.open()
    try:
        with store._db() as db:
            # String replacement of "?" would have made this literal a placeholder.
            assert db.execute("SELECT $1 || '?' || $2 || $1", ("a", "b")).fetchone() == ("a?ba",)
    finally:
        store.close()
