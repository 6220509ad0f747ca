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

__all__ = ["CHROMIUM", "LAUNCH_ARGS", "CSP_WATCH", "browser", "page", "csp_page"]


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
    """A fresh page at the kiosk's size; its console errors fail the test. Playwright's waits on a
    JavaScript expression evaluate strings, which the pages' CSP forbids, so this context bypasses
    it: the pages are proven under their CSP by tests of their own (``csp_page``)."""
    context = browser.new_context(viewport=VIEWPORT, bypass_csp=True)
    errors: list[str] = []
    new_page = context.new_page()
    new_page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield new_page
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


#: Run before any page script (over the DevTools protocol, which the page's CSP does not bind):
#: every CSP violation the page reports, in ``window.cspViolations``.
CSP_WATCH = (
    "window.cspViolations = [];"
    "document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push("
    "`${e.violatedDirective} ${e.blockedURI}`));"
)


@pytest.fixture
def csp_page(browser: Any) -> Iterator[Any]:
    """``csp_page(**context_options)``: fresh pages under the pages' own Content-Security-Policy
    (not bypassed), each watching for violations (:data:`CSP_WATCH`); their console errors and
    their violations fail the test. Wait with selectors: the CSP forbids evaluating strings."""
    contexts: list[Any] = []
    errors: list[str] = []

    def open_page(**options: Any) -> Any:
        context = browser.new_context(viewport=VIEWPORT, **options)
        contexts.append(context)
        new_page = context.new_page()
        new_page.on("pageerror", lambda error: errors.append(str(error)))
        new_page.on(
            "console",
            lambda message: errors.append(message.text) if "Content Security Policy" in message.text else None,
        )
        new_page.add_init_script(CSP_WATCH)
        return new_page

    yield open_page
    violations = [v for context in contexts for p in context.pages for v in p.evaluate("window.cspViolations || []")]
    for context in contexts:
        context.close()
    assert not errors and not violations, f"on the pages: {errors}, CSP violations: {violations}"
