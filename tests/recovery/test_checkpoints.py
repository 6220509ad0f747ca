"""Issue 15: checkpoints and segments under SIGKILL, and checkpoints across versions.

The kill loop's tables checkpoint every 20 steps (:data:`~bench.soak.profiles.CHECKPOINTS`),
so every kill-loop test also kills checkpoint writes and restarts from checkpoints, and its
audit replays the journal from its first record comparing every checkpoint (``verify --deep``).
Here the table also rotates its journal every few rounds, so kills land in rotations too.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from bench.soak.killloop import Run, kill_loop
from bench.soak.profiles import CHECKPOINTS, write_profile
from firmware_host.config.profiles import load_table
from firmware_host.host.journal import Journal
from firmware_host.host.journal_codec import CHECKPOINT_TYPE
from firmware_host.host.journal_export import round_results
from firmware_host.host.journal_verify import verify
from firmware_host.host.service import Service
from firmware_host.wiring import game_wiring
from firmware_host.wiring.journal_tools import verify_deep
from tests.support.journals_010 import JOURNALS, copy_journal

#: A segment of a few rounds: the run below rotates a dozen times.
ROTATE = "rotate_mb = 0.05"


def test_kills_during_checkpoints_and_rotations_lose_and_duplicate_nothing(ram_path: Path, key_file: Path) -> None:
    profile = write_profile(
        ram_path,
        faults="drop_frame = 0.01, unreadable_card = 0.02",
        key_file=key_file,
        journal=f"{CHECKPOINTS}\n{ROTATE}",
    )
    run = Run(profile, ram_path / "journal.sqlite", rounds=60, seed=5)
    report = kill_loop(run, kills=15, seed=5)
    assert len(report.kills) == 15
    key = key_file.read_bytes()
    checked = verify(run.journal, hmac_key=key)
    assert checked.ok, checked.detail
    assert len(checked.segments) >= 4, "the run rotated too seldom to be killed in rotations"
    assert [r["round"] for r in round_results(run.journal)] == list(range(1, 61))
    deep = verify_deep(run.journal, load_table(profile))
    assert deep.problems == [] and deep.checkpoints >= len(checked.segments)
    assert not [p.name for p in run.journal.parent.iterdir() if p.name.endswith(".partial")]


def test_a_checkpoint_this_version_cannot_load_is_said_and_the_journal_replayed_from_its_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Upgrades: a checkpoint an earlier version wrote with other state is not loaded; the
    journal is replayed from its first record instead, and the log says so."""
    fixture = next(f for f in JOURNALS if f.name == "paigow")
    path = copy_journal(fixture, tmp_path)
    profile = load_table(fixture.profile_path)
    with Journal.open(path) as journal:  # this version continues the 0.1.0 journal with a checkpoint
        service = Service(game_wiring(profile.game).controller(profile), journal, version="9.9")
        steps = service.recover(started_by="0.1.0")
        service.checkpoint()
    with Journal.open(path) as journal:
        found = journal.last_checkpoint()
        assert found is not None and found.data["service"]["steps"] == steps
        fresh = Service(game_wiring(profile.game).controller(profile), journal, version="10.0")  # a later one
        assert fresh.recover(started_by="0.1.0") == steps and fresh.recovered_from == found
    _rewrite_checkpoint(path, lambda data: data["controller"]["classes"][0][1].append("added_in_a_later_version"))
    with Journal.open(path) as journal, caplog.at_level(logging.WARNING, "tablehost.service"):
        later = Service(game_wiring(profile.game).controller(profile), journal, version="9.9")
        assert later.recover(started_by="0.1.0") == steps
    assert later.recovered_from is None and later.replayed_steps == steps
    assert "does not fit this version" in caplog.text and "replaying journal" in caplog.text


def _rewrite_checkpoint(path: Path, change: object) -> None:
    """Change the last checkpoint's data and seal it again (as an earlier version would have written it)."""
    import json
    import sqlite3

    from firmware_host.host.journal_codec import canonical_json, seal
    from firmware_host.host.journal_file import COLUMNS, INSERT

    with sqlite3.connect(path) as conn:
        seq, kind, type_, at, round_, data, prev, _, mac = conn.execute(
            f"SELECT {COLUMNS} FROM records WHERE type = ? ORDER BY seq DESC LIMIT 1", (CHECKPOINT_TYPE,)
        ).fetchone()
        parsed = json.loads(data)
        change(parsed)  # type: ignore[operator]
        row = seal(seq, kind, type_, at, round_, canonical_json(parsed, "checkpoint"), prev, None)
        conn.execute("DELETE FROM records WHERE seq >= ?", (seq,))
        conn.execute(INSERT, row)


def test_verify_deep_names_a_checkpoint_that_is_not_what_the_replay_gives(tmp_path: Path) -> None:
    fixture = next(f for f in JOURNALS if f.name == "paigow")
    path = copy_journal(fixture, tmp_path)
    profile = load_table(fixture.profile_path)
    with Journal.open(path) as journal:
        service = Service(game_wiring(profile.game).controller(profile), journal)
        service.recover(started_by="0.1.0")
        service.checkpoint()
    assert verify_deep(path, profile).problems == []
    _rewrite_checkpoint(path, lambda data: data["service"].update(rounds_finished=0))
    problems = verify_deep(path, profile).problems
    assert len(problems) == 1 and "service's counters differ" in problems[0]


def test_every_0_1_0_journal_continues_checkpoints_rotates_and_verifies_deep(tmp_path: Path) -> None:
    """A journal an earlier version wrote (no checkpoints) is continued by this one, checkpointed,
    rotated and restarted from the new segment's checkpoint."""
    for fixture in JOURNALS:
        directory = tmp_path / fixture.name
        directory.mkdir()
        path = copy_journal(fixture, directory)
        profile = load_table(fixture.profile_path)
        key = None  # the 0.1.0 journals are unkeyed
        with Journal.open(path, hmac_key=key) as journal:
            service = Service(game_wiring(profile.game).controller(profile), journal)
            steps = service.recover(started_by="0.1.0")
            service.rotate()
        with Journal.open(path, hmac_key=key) as journal:
            restarted = Service(game_wiring(profile.game).controller(profile), journal)
            assert restarted.recover(started_by="0.1.0") == steps and restarted.replayed_steps == 0
        assert verify(path, hmac_key=key).ok
        assert verify_deep(path, profile).problems == []
        shutil.rmtree(directory)
