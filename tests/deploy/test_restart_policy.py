"""The unit's restart policy matches what ``tablehost``'s exit statuses mean (issue 27 item 2).

:func:`~tests.support.restart_policy.restarts` applies ``systemd.service(5)``'s words to the
unit's keys; the statuses are the ones real runs of ``tablehost run`` end with.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host.cli import EXIT_ERROR
from firmware_host.errors import TemporaryError
from firmware_host.host.journal_lock import writer_lock_path
from tests.support.paths import REPO
from tests.support.restart_policy import restarts

PROFILE = REPO / "hardware-profiles" / "tables" / "sim-baccarat.toml"


def run(journal: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "firmware_host", "run", "--rounds", "1", "--journal", str(journal), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_exit_2_means_a_person_must_look_and_75_may_pass_by_itself() -> None:
    assert EXIT_ERROR == 2 and TemporaryError.exit_status == 75
    assert not restarts(EXIT_ERROR)
    assert restarts(TemporaryError.exit_status)
    assert not restarts(0)  # systemctl stop: SIGTERM, a clean exit
    assert restarts(1)  # an unexpected exception: a crash
    assert restarts(None, signal.SIGKILL) and restarts(None, signal.SIGABRT)  # the OOM killer, the watchdog


def test_a_careless_profile_exits_2_and_is_not_restarted(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("not = [toml\n")
    ran = run(tmp_path / "j.sqlite", "--profile", str(bad))
    assert ran.returncode == 2 and "not valid TOML" in ran.stderr
    assert not restarts(ran.returncode)


def test_a_start_while_another_process_holds_the_journal_exits_75_and_is_restarted(tmp_path: Path) -> None:
    journal = tmp_path / "j.sqlite"
    fd = os.open(writer_lock_path(journal), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        ran = run(journal, "--profile", str(PROFILE))
    finally:
        os.close(fd)
    assert ran.returncode == 75, ran.stderr
    assert "another process is writing to it" in ran.stderr and ran.stderr.count("\n") == 1
    assert restarts(ran.returncode)
    again = run(journal, "--profile", str(PROFILE))  # the restart, once the lock is free
    assert again.returncode == 0, again.stderr


def test_a_first_start_killed_is_restarted_and_then_starts(tmp_path: Path) -> None:
    """The issue's reproducer as systemd sees it: ``tablehost run`` SIGKILLed at the first
    fdatasync of its first start (restarted), then started again: it plays (exit 0). Every other
    kill point of a first start is in tests/host/journal/test_first_start.py."""
    journal = tmp_path / "j.sqlite"
    if shutil.which("strace") is None:
        pytest.skip("strace is a Debian package of make deps")
    killed = subprocess.run(
        ["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=fdatasync"]
        + ["-e", "inject=fdatasync:signal=SIGKILL:when=1", sys.executable, "-m", "firmware_host", "run"]
        + ["--profile", str(PROFILE), "--rounds", "1", "--journal", str(journal)],
        cwd=REPO,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert killed.returncode != 0 and restarts(None, signal.SIGKILL)
    assert run(journal, "--profile", str(PROFILE)).returncode == 0
