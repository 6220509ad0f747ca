"""Fixtures of the recovery tests: a simulated table profile with a keyed journal, and a
directory in memory for the runs that are killed, not cut off from their disk."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware_host.host.journal_keys import write_key

#: Where :func:`ram_path` makes its directories: a tmpfs on Linux.
RAM = Path("/dev/shm")


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    """A fresh journal key (mode 0400), as ``tablehost journal keygen`` makes it."""
    path = tmp_path / "journal.key"
    write_key(path)
    return path


@pytest.fixture
def ram_path(tmp_path: Path) -> Iterator[Path]:
    """A fresh directory on a tmpfs (:data:`RAM`), removed afterwards; ``tmp_path`` where there is none.

    For the runs SIGKILLed or stopped (and their profiles, logs and journals): what they lose or
    keep is the same on either file system, since every ``write()`` a process made before its
    SIGKILL is in the kernel's page cache, where the next process (and SQLite's WAL recovery)
    reads it, fsynced or not; an fsync only matters when the machine itself stops, which the
    power-cut tests (``test_power_cuts.py``, ``test_cutfs.py``) cut on a disk of their own. On
    a shared disk the journal's fsync per step (``synchronous=FULL``) is most of such a run's
    wall time, and none of what it checks.
    """
    if not (RAM.is_dir() and os.access(RAM, os.W_OK)):
        yield tmp_path
        return
    path = Path(tempfile.mkdtemp(prefix="tablehost-recovery-", dir=RAM))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
