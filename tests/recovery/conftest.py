"""Fixtures of the recovery tests: a simulated table profile with a keyed journal."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_host.host.journal_keys import write_key


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    """A fresh journal key (mode 0400), as ``tablehost journal keygen`` makes it."""
    path = tmp_path / "journal.key"
    write_key(path)
    return path
