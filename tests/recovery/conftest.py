"""Fixtures of the recovery tests: a simulated table profile with a keyed journal, and a
directory in memory for the runs that are killed, not cut off from their disk."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware_host.host.journal_keys import write_key
from tests.support.tmpfs import in_memory


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    """A fresh journal key (mode 0400), as ``tablehost journal keygen`` makes it."""
    path = tmp_path / "journal.key"
    write_key(path)
    return path


@pytest.fixture
def ram_path(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path]:
    """A fresh directory in memory (:func:`tests.support.tmpfs.in_memory`), removed afterwards;
    ``tmp_path`` where there is none.

    For the runs SIGKILLed or stopped (and their profiles, logs and journals): what they lose or
    keep is the same on either file system, since every ``write()`` a process made before its
    SIGKILL is in the kernel's page cache, where the next process (and SQLite's WAL recovery)
    reads it, fsynced or not; an fsync only matters when the machine itself stops, which the
    power-cut tests (``test_power_cuts.py``, ``test_cutfs.py``) cut on a disk of their own.
    """
    path = in_memory(request.node.name)
    if path is None:
        yield tmp_path
        return
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
