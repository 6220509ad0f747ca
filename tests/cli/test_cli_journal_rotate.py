"""``tablehost journal rotate PATH``: a stopped table's journal goes on in a new segment; a
running table's is refused (the writer's lock), never cut under it."""

from __future__ import annotations

import pathlib
import subprocess
import sys

from bench.floor.tables import run_table, start_table, table_profile
from firmware_host.errors import JournalError
from firmware_host.host import segments
from firmware_host.host.journal_lock import writer_lock_path
from firmware_host.host.journal_verify import verify
from tests.support.floor_run import wait_for
from tests.support.paths import REPO


def tablehost(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "firmware_host", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def playing(journal: pathlib.Path) -> bool:
    """Whether the table has written its first steps (the file may not be a journal yet)."""
    try:
        return verify(journal).records_checked > 50
    except JournalError:
        return False


def test_rotate_starts_a_segment_that_verifies_deep_and_plays_on(tmp_path: pathlib.Path) -> None:
    profile, journal = table_profile(tmp_path), tmp_path / "journal.sqlite"
    run_table(profile, journal, 2)
    rotated = tablehost("journal", "rotate", str(journal), "--profile", str(profile))
    assert rotated.returncode == 0, rotated.stderr
    assert f"rotated: the old segment is {segments.archive_path(journal, 1)}" in rotated.stdout
    run_table(profile, journal, 4)  # the table plays on from the new segment's checkpoint
    assert [s.path.name for s in segments.segments_of(journal)] == ["journal.000001.sqlite", "journal.sqlite"]
    assert verify(journal).ok
    deep = tablehost("journal", "verify", str(journal), "--deep", "--profile", str(profile))
    assert deep.returncode == 0, deep.stdout + deep.stderr


def test_rotate_refuses_the_journal_of_a_running_table(tmp_path: pathlib.Path) -> None:
    profile, journal = table_profile(tmp_path), tmp_path / "journal.sqlite"
    table = start_table(profile, journal, 10_000)
    try:
        wait_for(lambda: playing(journal), what="the table playing")
        assert writer_lock_path(journal).exists()
        refused = tablehost("journal", "rotate", str(journal), "--profile", str(profile))
        assert refused.returncode == 75  # EX_TEMPFAIL: it may pass by itself (docs/recovery.md, "Exit statuses")
        assert "another process is writing to it (a running tablehost?); stop it first" in refused.stderr
        assert segments.segments_of(journal) == [segments.Segment(journal, 1, True)]
    finally:
        table.kill()
        table.communicate()
