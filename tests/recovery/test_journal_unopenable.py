"""A journal that cannot be opened at start (issue 27, item 5, at start): ``tablehost run`` tells
the dealer as a table whose journal fails mid-run does (the red lamp, the buzzer held on, the
dealer view's ``TABLE STOPPED`` line) and exits 2 in one line naming the journal and why, which
the unit does not restart; a journal another process holds exits 75 and touches no pin (its
table owns the lamp; a restart loop must not flap it).

Each runs the real command in this process (``main``), on ``make run``'s simulated table, whose
GPIO is gpiozero's ``MockFactory``: its pins are read after the command has returned.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from drivers.gpio import pin_factory
from firmware_host.cli import main
from firmware_host.host.journal import Journal
from firmware_host.host.journal_lock import lock_for_writing
from firmware_host.wiring import start_alarm
from tests.support.paths import REPO
from tests.support.restart_policy import restarts

#: ``make run``'s table: lamp green 5, amber 6, red 13; buzzer 19; all on mock pins.
SIM_PROFILE = REPO / "hardware-profiles" / "tables" / "sim-baccarat.toml"
GREEN, AMBER, RED, BUZZER = 5, 6, 13, 19


@pytest.fixture
def factories(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[MockFactory]]:
    """Every pin factory the start's alarm builds (the profile's: gpiozero's mock)."""
    made: list[MockFactory] = []

    def recorded(name: str | None) -> object:
        factory = pin_factory(name)
        assert isinstance(factory, MockFactory)
        made.append(factory)
        return factory

    monkeypatch.setattr(start_alarm, "pin_factory", recorded)
    yield made
    start_alarm._held.clear()  # the alarm's pins, held for the process's life, released for the next test


def _journal(path: Path) -> Path:
    """A journal of two records, closed."""
    with Journal.open(path) as journal:
        journal.append_meta("table", {"table_id": "SIM-BAC-1", "game": "baccarat", "seed": 0})
    return path


def _run(journal: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``tablehost run`` of the simulated table on ``journal``: exit status, stdout, stderr. This
    process's CPUs are as they were after it (``run`` keeps a core only while it serves)."""
    before = os.sched_getaffinity(0)
    status = main(["run", "--profile", str(SIM_PROFILE), "--journal", str(journal), "--rounds", "1", "--quiet"])
    assert os.sched_getaffinity(0) == before
    out, err = capsys.readouterr()
    return status, out, err


def _alarmed(factories: list[MockFactory], status: int, out: str, err: str, why: str) -> None:
    """Exit 2 (not restarted) in one line naming the journal and ``why``; the red lamp alone lit,
    the buzzer held on, the dealer view's last line the alarm."""
    assert status == 2 and not restarts(status)
    assert err.count("\n") == 1 and err.startswith("tablehost: journal ") and why in err, err
    (factory,) = factories
    assert factory.pin(RED).state and factory.pin(BUZZER).state
    assert not factory.pin(GREEN).state and not factory.pin(AMBER).state
    last = out.strip().splitlines()[-1]
    assert last.startswith("[SIM-BAC-1] TABLE STOPPED: the journal cannot be opened; call a supervisor (journal ")
    assert why in last


@pytest.fixture
def read_only_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory holding a journal, then made read-only: a tmpfs remounted read-only (root: the
    SD card a file-system error remounted so), or without root its modes taken away."""
    mount = tmp_path / "disk"
    mount.mkdir()
    mounted = (
        os.geteuid() == 0
        and subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)]).returncode == 0
    )
    if os.geteuid() == 0 and not mounted:
        pytest.skip("root without the right to mount: a file's modes do not stop root")
    try:
        _journal(mount / "j.sqlite")
        if mounted:
            subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
        else:
            for path in mount.iterdir():
                path.chmod(0o444)
            mount.chmod(0o555)
        yield mount
    finally:
        if mounted:
            subprocess.run(["umount", "--lazy", str(mount)], check=True)
        else:
            mount.chmod(0o755)


def test_a_journal_on_a_read_only_disk_raises_the_alarm_and_exits_2(
    read_only_dir: Path, factories: list[MockFactory], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = _run(read_only_dir / "j.sqlite", capsys)
    _alarmed(factories, status, out, err, "cannot open j.sqlite.lock: ")
    assert "Read-only file system" in err or "Permission denied" in err


def test_a_journal_directory_that_cannot_be_made_raises_the_alarm_and_exits_2(
    read_only_dir: Path, factories: list[MockFactory], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = _run(read_only_dir / "new" / "j.sqlite", capsys)
    _alarmed(factories, status, out, err, f"cannot make the directory {read_only_dir / 'new'}: ")
    assert not (read_only_dir / "new").exists()


def test_a_journal_that_fails_verification_raises_the_alarm_and_exits_2(
    tmp_path: Path, factories: list[MockFactory], capsys: pytest.CaptureFixture[str]
) -> None:
    journal = _journal(tmp_path / "j.sqlite")
    with sqlite3.connect(journal) as conn:
        conn.execute("""UPDATE records SET data = replace(data, '"seed":0', '"seed":1') WHERE seq = 2""")
    conn.close()
    status, out, err = _run(journal, capsys)
    _alarmed(factories, status, out, err, "BROKEN at record 2: changed content")


def test_a_journal_another_process_holds_exits_75_and_touches_no_pin(
    tmp_path: Path, factories: list[MockFactory], capsys: pytest.CaptureFixture[str]
) -> None:
    journal = _journal(tmp_path / "j.sqlite")
    held = lock_for_writing(journal)
    try:
        status, out, err = _run(journal, capsys)
    finally:
        os.close(held)
    assert status == 75 and restarts(status)  # restarted after RestartSec: an alarm each time would flap
    assert err.count("\n") == 1 and "another process is writing to it" in err
    assert factories == [] and "TABLE STOPPED" not in out
