"""Issue 20 item 5: ``tablehost run`` verifies the chain of the live segment at open.

A journal changed before its last checkpoint used to resume in silence and be appended to; one
changed after it was reported as "replay diverged at step N"; a 0-byte file became a new
journal. Each is now refused, exit 2, in one line that names the record that changed in the
words of ``tablehost journal verify``.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host.config.profiles import load_table
from firmware_host.host.journal import Journal
from firmware_host.host.journal_codec import CHECKPOINT_TYPE
from firmware_host.host.service import Service
from firmware_host.wiring import game_wiring
from tests.support.journal_forge import execute
from tests.support.journals_010 import JOURNALS, copy_journal

FIXTURE = next(f for f in JOURNALS if f.name == "paigow")


def tablehost(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "firmware_host", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def run(journal: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``tablehost run`` resuming ``journal`` (the rounds it holds: it stops at once if it opens)."""
    return tablehost(
        "run",
        "--profile",
        str(FIXTURE.profile_path),
        "--rounds",
        str(FIXTURE.rounds),
        "--seed",
        str(FIXTURE.seed),
        "--journal",
        str(journal),
        "--quiet",
        cwd=cwd,
    )


@pytest.fixture
def checkpointed(tmp_path: Path) -> tuple[Path, int]:
    """A copy of the Pai Gow fixture continued with a checkpoint; its seq."""
    path = copy_journal(FIXTURE, tmp_path)
    profile = load_table(FIXTURE.profile_path)
    with Journal.open(path) as journal:
        service = Service(game_wiring(profile.game).controller(profile), journal)
        service.recover(started_by="0.1.0")
        seq = service.checkpoint()
        found = journal.last_checkpoint()
        assert found is not None and found.seq == seq
    return path, seq


def _change(path: Path, seq: int) -> None:
    """Change one record's content without sealing it again, as someone with the file would."""
    (data,) = execute(path, "SELECT data FROM records WHERE seq = ?", seq)[0]
    execute(path, "UPDATE records SET data = ? WHERE seq = ?", data.replace("}", ', "x": 1}', 1), seq)


def _refused_in_one_line(ran: subprocess.CompletedProcess[str]) -> str:
    assert ran.returncode == 2, (ran.stdout, ran.stderr)
    lines = ran.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in ran.stderr, ran.stderr
    return lines[0]


def test_run_refuses_a_journal_changed_before_its_last_checkpoint(
    checkpointed: tuple[Path, int], tmp_path: Path
) -> None:
    path, checkpoint_seq = checkpointed
    before = execute(path, "SELECT count(*) FROM records")[0][0]
    _change(path, 5)
    line = _refused_in_one_line(run(path, tmp_path))
    assert "BROKEN at record 5: changed content" in line and "journal verify" in line, line
    assert execute(path, "SELECT count(*) FROM records")[0][0] == before  # nothing appended
    verified = tablehost("journal", "verify", str(path), cwd=tmp_path)
    assert verified.returncode == 1 and "BROKEN at record 5: changed content" in verified.stdout
    assert checkpoint_seq > 5


def test_run_names_the_record_changed_after_the_checkpoint_not_a_replay_step(
    checkpointed: tuple[Path, int], tmp_path: Path
) -> None:
    path, checkpoint_seq = checkpointed
    with Journal.open(path) as journal:  # steps after the checkpoint (journal of this version)
        profile = load_table(FIXTURE.profile_path)
        service = Service(game_wiring(profile.game).controller(profile), journal)
        service.recover(started_by="0.1.0")
        from firmware_host.tables.events import DealerCommand

        service.step(DealerCommand(device="console", command="new_dice"))
        last = journal.last_seq
    changed = next(
        seq
        for (seq,) in execute(
            path, "SELECT seq FROM records WHERE seq > ? AND kind = 'decision' ORDER BY seq", checkpoint_seq
        )
    )
    assert changed <= last
    _change(path, changed)
    line = _refused_in_one_line(run(path, tmp_path))
    assert f"BROKEN at record {changed}: changed content" in line and "replay diverged" not in line, line


@pytest.mark.parametrize("content", [b"tablehost journal? no: a text file\n" * 40, "sqlite"])
def test_run_refuses_a_foreign_file_instead_of_starting_a_journal_in_it(content: bytes | str, tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    if content == "sqlite":
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE inventory (item TEXT)")
        conn.close()
    else:
        assert isinstance(content, bytes)
        path.write_bytes(content)
    size = path.stat().st_size
    line = _refused_in_one_line(run(path, tmp_path))
    assert str(path) in line and "not a" in line, line
    assert path.stat().st_size == size or content == "sqlite"  # not made a journal


def test_an_empty_file_is_made_a_journal_anew_and_a_missing_one_is_created(tmp_path: Path) -> None:
    """A 0-byte file holds no record: a first start cut short (issue 27 item 1), made anew."""
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    with Journal.open(empty) as journal:
        assert journal.last_seq == 1 and journal.first_record.type == "journal"
    with Journal.open(tmp_path / "new.sqlite") as journal:
        assert journal.last_seq == 1 and journal.first_record.type == "journal"


def test_a_checkpoint_record_changed_is_named_at_open(checkpointed: tuple[Path, int]) -> None:
    from firmware_host.errors import JournalError

    path, checkpoint_seq = checkpointed
    assert execute(path, "SELECT type FROM records WHERE seq = ?", checkpoint_seq)[0][0] == CHECKPOINT_TYPE
    _change(path, checkpoint_seq)
    with pytest.raises(JournalError, match=f"BROKEN at record {checkpoint_seq}: changed content"):
        Journal.open(path)
