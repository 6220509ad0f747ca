"""The floor on either store (issue 22): ``floor status``, ``floor export`` and ``journal verify
--floor`` print the same on SQLite and on PostgreSQL; the schema is migrated by version; the
DSN's password never comes from the command line; a plain run never imports psycopg."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.floor.tables import FloorDb
from firmware_host.cli import main
from firmware_host.floor import migrations
from firmware_host.floor.store import FloorError, open_store
from tests.support.feed_records import admit, payloads
from tests.support.paths import REPO


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def fill(db: FloorDb) -> None:
    """Two tables, one with a gap, a duplicate, a refusal and a retained status."""
    store = db.open()
    try:
        sent = payloads()
        store.ingest(admit([*sent[:3], sent[5], sent[1], b"[]"]))
        store.ingest(admit(payloads("T2"), "T2"))
        store.ingest(
            admit(
                [b'{"table": "T2", "state": "online", "version": "0.1.0", "game": "baccarat", "seq": 0}'],
                "T2",
                "status",
            )
        )
    finally:
        store.close()


def outputs(db: FloorDb) -> dict[str, object]:
    """What every read command prints (``last_seen`` and ``lag_s``, times of arrival, aside)."""
    made: dict[str, object] = {}
    status, out, _ = cli("floor", "status", *db.args(), "--json")
    made["status"] = (
        status,
        [{k: v for k, v in json.loads(line).items() if k not in ("last_seen", "lag_s")} for line in out.splitlines()],
    )
    for what in ("--rounds", "--messages", "--shoes"):
        for table in ("T1", "T2"):
            made[f"export {what} {table}"] = cli("floor", "export", *db.args(), "--table", table, what)[:2]
    refused = cli("floor", "export", *db.args(), "--table", "T1", "--refused")
    made["refused"] = (
        refused[0],
        [{k: v for k, v in json.loads(line).items() if k != "at"} for line in refused[1].splitlines()],
    )
    made["unknown table"] = cli("floor", "export", *db.args(), "--table", "T9", "--rounds")[0]
    return made


def test_status_and_export_print_the_same_on_both_stores(tmp_path: Path, postgres_db: FloorDb) -> None:
    sqlite = FloorDb(str(tmp_path / "floor.sqlite"), tmp_path)
    fill(sqlite)
    fill(postgres_db)
    on_sqlite, on_postgres = outputs(sqlite), outputs(postgres_db)
    assert on_sqlite == on_postgres
    status, tables = on_postgres["status"]  # type: ignore[misc]
    assert status == 1 and [t["gaps"] for t in tables] == [[[4, 5]], []]  # T1: 4..5 missing
    assert (tables[0]["duplicates"], tables[0]["refused"], tables[1]["online"]) == (1, 1, True)
    assert on_postgres["unknown table"] == 2


def test_the_schema_is_migrated_by_version_once(postgres_db: FloorDb) -> None:
    for _ in range(2):  # a second open (another collector) finds it migrated
        postgres_db.open().close()
    store = postgres_db.open(read_only=True)
    try:
        with store._db() as db:
            rows = db.execute("SELECT version FROM schema_version ORDER BY version").fetchall()
    finally:
        store.close()
    assert [v for (v,) in rows] == [m.version for m in migrations.MIGRATIONS]


def test_a_newer_schema_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "floor.sqlite"
    open_store(path).close()
    import sqlite3

    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO schema_version VALUES (?, 0, 'from the future')", (migrations.LATEST + 1,))
    with pytest.raises(FloorError, match=f"schema version {migrations.LATEST + 1} is newer"):
        open_store(path, read_only=True)


def test_a_dsn_with_a_password_is_refused_with_exit_2(tmp_path: Path) -> None:
    status, out, err = cli("floor", "status", "--db", "postgresql://floor:s3cret@127.0.0.1:1/floor")
    assert status == 2 and "holds a password" in err and "s3cret" not in err + out
    assert len(err.strip().splitlines()) == 1


def test_a_password_file_readable_by_others_is_refused_with_exit_2(tmp_path: Path, postgres_db: FloorDb) -> None:
    loose = tmp_path / "loose.password"
    loose.write_text(Path(str(postgres_db.password_file)).read_text())
    loose.chmod(0o644)
    status, out, err = cli("floor", "status", "--db", postgres_db.spec, "--db-password-file", str(loose))
    assert status == 2 and len(err.strip().splitlines()) == 1 and "loose.password" in err
    status, out, err = cli("floor", "status", "--db", postgres_db.spec)  # no password at all
    assert status == 2 and len(err.strip().splitlines()) == 1 and "password" in err


def test_an_unreachable_server_is_one_line_and_exit_2(tmp_path: Path) -> None:
    secret = tmp_path / "pw"
    secret.write_text("x\n")
    secret.chmod(0o600)
    status, _, err = cli(
        "floor",
        "export",
        "--db",
        "postgresql://floor@127.0.0.1:1/floor",
        "--db-password-file",
        str(secret),
        "--table",
        "T1",
        "--rounds",
    )
    assert status == 2 and len(err.strip().splitlines()) == 1 and "postgresql://floor@127.0.0.1:1/floor" in err


def test_a_plain_run_never_imports_psycopg(tmp_path: Path) -> None:
    fill(FloorDb(str(tmp_path / "floor.sqlite"), tmp_path))
    code = (
        "import sys; from firmware_host.cli import main; main(['floor', 'status', '--db', sys.argv[1]]); "
        "print('psycopg' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "floor.sqlite")],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=60,
    )
    assert done.stdout.splitlines()[-1] == "False", done.stderr
