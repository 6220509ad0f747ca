"""A real Chromium for the display tests: Playwright for Python driving Debian's ``/usr/bin/chromium``.

``playwright install`` cannot download here, so the browser is the system's (``make deps``
apt-installs it when missing). One browser per pytest(-xdist) worker, shared by its tests; a
fresh context (cookies, storage) and page per test. Tests skip when Chromium or Playwright is
missing rather than fail to start.

Use it from a test package's ``conftest.py``: ``from tests.support.browser import browser, page``.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from bench.display.chromium import CHROMIUM, LAUNCH_ARGS, VIEWPORT

__all__ = ["CHROMIUM", "LAUNCH_ARGS", "browser", "page"]


#: The worker's one Playwright and Chromium, shared by every test package that imports
#: :func:`browser` into its conftest (each import is a fixture of its own; a second Playwright in
#: one process would fail: "Sync API inside the asyncio loop"), and how many hold it.
_SHARED: dict[str, Any] = {}
_HOLDERS: list[None] = []


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for this worker."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not (CHROMIUM.is_file() or shutil.which(str(CHROMIUM))):
        pytest.skip(f"no Chromium at {CHROMIUM} (make deps installs it)")
    if not _SHARED:
        playwright = _SHARED["playwright"] = sync_api.sync_playwright().start()
        _SHARED["chromium"] = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS, headless=True)
    _HOLDERS.append(None)
    try:
        yield _SHARED["chromium"]
    finally:
        _HOLDERS.pop()
        if not _HOLDERS:
            _SHARED.pop("chromium").close()
            _SHARED.pop("playwright").stop()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page at the kiosk's size; its console errors fail the test."""
    context = browser.new_context(viewport=VIEWPORT)
    errors: list[str] = []
    new_page = context.new_page()
    new_page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield new_page
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
