"""The journal runs SQLite's checkpoints itself and checks them (issue 27 item 5).

SQLite's automatic checkpoint runs inside a commit and drops its errors: on a disk whose
fsyncs failed, a table acted on three more steps and the journal was broken after fsck.
Here the automatic checkpoint is off, the journal checkpoints every
``CHECKPOINT_EVERY_COMMITS`` steps, and the first failure stops the service before any
output acts on the step (which is committed in the log, and replayed after a restart).
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from firmware_host.errors import JournalError
from firmware_host.host.journal import CHECKPOINT_EVERY_COMMITS, Journal
from firmware_host.host.journal_export import round_results
from firmware_host.host.journal_verify import verify
from firmware_host.host.service import Service
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import ClockTick, DealerCommand
from tests.support.paths import REPO


class FailingCheckpoints:
    """The journal's connection, but every ``wal_checkpoint`` fails as a disk returning EIO makes it."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self.checkpoints = 0

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if "wal_checkpoint" in sql:
            self.checkpoints += 1
            raise sqlite3.OperationalError("disk I/O error")
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


class Finisher:
    """A controller deciding one round result per dealer command."""

    rounds = 0

    def handle(self, event: object, at: float, mono_ns: int | None = None) -> list[Decision]:
        self.rounds += 1
        return [Decision("round_result", {"round": self.rounds}, self.rounds)]


def test_automatic_checkpoints_are_off_and_the_journal_checkpoints_itself(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as journal:
        assert journal._conn.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
        spy = FailingCheckpoints(journal._conn)
        journal._conn = spy  # type: ignore[assignment]
        for n in range(CHECKPOINT_EVERY_COMMITS - 1):
            journal.append_step(float(n), ClockTick("clock"), [])
        assert spy.checkpoints == 0
        with pytest.raises(JournalError, match="checkpoint of its write-ahead log failed: disk I/O error"):
            journal.append_step(1e6, ClockTick("clock"), [])
        assert spy.checkpoints == 1
        last = journal.last_seq
        journal._conn = spy._conn
    with Journal.open(path) as journal:  # the step was committed (in the log) before the checkpoint failed
        assert journal.last_seq == last
    assert verify(path).ok


def test_a_failed_checkpoint_stops_the_service_before_an_output_acts(tmp_path: Path) -> None:
    acted: list[list[Decision]] = []

    class Output:
        def on_decisions(self, decisions: list[Decision]) -> None:
            acted.append(decisions)

    with Journal.open(tmp_path / "j.sqlite") as journal:
        service = Service(Finisher(), journal, [Output()], clock=lambda: 1000.0)
        for _ in range(CHECKPOINT_EVERY_COMMITS - 1):
            service.step(DealerCommand("dealer", "finish"))
        journal._conn = FailingCheckpoints(journal._conn)  # type: ignore[assignment]
        acted_before = len(acted)
        with pytest.raises(JournalError, match="the table stops"):
            service.step(DealerCommand("dealer", "finish"))
        assert len(acted) == acted_before  # the failing step's decisions reached no output
        journal._conn = journal._conn._conn  # type: ignore[attr-defined]


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is a Debian package of make deps")
def test_a_run_whose_disk_fails_a_checkpoint_stops_with_the_error(tmp_path: Path) -> None:
    """``tablehost run`` where every fdatasync of the journal's own file (a checkpoint's; commits
    sync the log) returns EIO: the run stops at its first checkpoint, in one line, exit 2, and
    every round it printed is in the journal."""
    path = tmp_path / "j.sqlite"
    ran = subprocess.run(
        ["strace", "-f", "-qq", "-o", "/dev/null", "-P", str(path), "-e", "trace=fdatasync"]
        + ["-e", "inject=fdatasync:error=EIO", sys.executable, "-m", "firmware_host", "run"]
        + ["--profile", str(REPO / "hardware-profiles" / "tables" / "sim-baccarat.toml")]
        + ["--rounds", "60", "--journal", str(path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 2, ran.stderr
    last_line = ran.stderr.strip().splitlines()[-1]
    assert "checkpoint of its write-ahead log failed: disk I/O error" in last_line
    printed = {int(m) for m in re.findall(r"\] round (\d+): ", ran.stdout)}
    journaled = {r["round"] for r in round_results(path)}
    assert printed and len(journaled) < 60
    assert printed <= journaled
