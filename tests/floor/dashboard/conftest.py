"""Fixtures of the floor dashboard's tests: a journal of a simulated table (made once per
worker), and Chromium (:mod:`tests.support.browser`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.floor.dashboard.support import make_journal
from tests.support.browser import browser, csp_page  # noqa: F401 (fixtures)


@pytest.fixture(scope="session")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A simulated Baccarat table's journal of 30 rounds."""
    return make_journal(tmp_path_factory.mktemp("dashboard-journal"), 30)
