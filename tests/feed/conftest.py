"""Fixtures of the feed tests: a real Mosquitto per test (free port, own directory)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.feed.broker import Broker, have_mosquitto

if not have_mosquitto():
    pytest.skip("needs the Debian package mosquitto (make deps)", allow_module_level=True)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """An anonymous Mosquitto with persistence, started for the test and stopped after it."""
    with Broker(tmp_path / "broker") as running:
        yield running
