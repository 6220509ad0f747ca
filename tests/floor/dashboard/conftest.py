"""Fixtures of the floor dashboard's tests: a journal of a simulated table (made once per
worker), Chromium (:mod:`tests.support.browser`) and ``login``, a page logged in."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.display.chromium import VIEWPORT
from tests.floor.dashboard.support import SURVEILLANCE_SECRET, basic, make_journal
from tests.support.browser import browser, csp_page  # noqa: F401 (fixtures)


@pytest.fixture(scope="session")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A simulated Baccarat table's journal of 30 rounds."""
    return make_journal(tmp_path_factory.mktemp("dashboard-journal"), 30)


@pytest.fixture
def login(browser: Any) -> Iterator[Any]:  # noqa: F811 (the fixture above)
    """``login(user, secret)``: a fresh page whose requests carry HTTP Basic credentials, so the
    first opens a session (its cookie carries the rest); ``secret=None``: no credentials.
    JavaScript errors fail the test."""
    contexts: list[Any] = []
    errors: list[str] = []

    def open_page(user: str = "ann", secret: str | None = SURVEILLANCE_SECRET) -> Any:
        context = browser.new_context(  # the CSP bypassed for Playwright's waits (tests.support.browser.page)
            viewport=VIEWPORT,
            bypass_csp=True,
            **({"extra_http_headers": basic(user, secret)} if secret is not None else {}),
        )
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
