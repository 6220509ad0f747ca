"""A real Chromium for the display tests: Playwright for Python driving Debian's ``/usr/bin/chromium``.

``playwright install`` cannot download here, so the browser is the system's (``make deps``
apt-installs it when missing). One browser per pytest(-xdist) worker, shared by its tests; a
fresh context (cookies, storage) and page per test. Tests skip when Chromium or Playwright is
missing rather than fail to start.

Use it from a test package's ``conftest.py``: ``from tests.support.browser import browser, page``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

__all__ = ["CHROMIUM", "LAUNCH_ARGS", "browser", "page"]

#: The system Chromium (override with ``TABLEHOST_CHROMIUM``).
CHROMIUM = Path(os.environ.get("TABLEHOST_CHROMIUM", "/usr/bin/chromium"))
#: Headless, no sandbox (containers), and nothing that reaches for the network.
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--disable-dev-shm-usage"]
#: The kiosk screen the pages are laid out for (a 1080p HDMI display).
VIEWPORT = {"width": 1920, "height": 1080}


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for this worker."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not (CHROMIUM.is_file() or shutil.which(str(CHROMIUM))):
        pytest.skip(f"no Chromium at {CHROMIUM} (make deps installs it)")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


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
