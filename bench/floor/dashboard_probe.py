"""What the floor dashboard's map has drawn, and when: a headless Chromium on the map, for the benches.

:class:`DashboardProbe` opens Debian's Chromium (:mod:`bench.display.chromium`) through
Playwright, logs in with HTTP Basic, opens the floor map and waits until it is live (the stream
open, the first snapshot drawn). A script added before the page's own watches the map with a
``MutationObserver``: each tile that appears, or whose ``data-seq`` (the latest stored feed
seq it shows) changes, is noted as ``(table, seq)`` with the wall clock (``Date.now()``) of
the task after the frame that changed it, that is once that frame is painted. A
``PerformanceObserver`` counts the page's long tasks (over 50 ms). :meth:`~DashboardProbe.drawn`
drains the notes; :meth:`~DashboardProbe.frame_stats` sums up the page's drawing.

Threads: Playwright's sync API must be called from the thread that started it, and refuses a
thread with a running asyncio loop. The probe runs every Playwright call on a thread of its own
(a one-thread executor), so its methods may be called from any thread, one call at a time or
several at once (they queue).

    with DashboardProbe("http://127.0.0.1:8090", "surveillance", "probe-secret-1") as probe:
        ...
        for drawn in probe.drawn():
            latency = drawn.at - published[(drawn.table, drawn.seq)]
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from bench.display.chromium import CHROMIUM, LAUNCH_ARGS, VIEWPORT

__all__ = ["Drawn", "DashboardProbe", "OBSERVER"]

T = TypeVar("T")

#: Seconds to wait for the map to be live after it is asked for (500 tiles on a busy machine).
LIVE_TIMEOUT_S = 60.0

#: Runs before the page's scripts: notes every tile drawn (appearing, or its ``data-seq``
#: changing) with the wall clock of the task after its frame, and the long tasks.
OBSERVER = """
(() => {
  const PROBE = window.__probe = { drawn: [], longTasks: 0, longTaskMs: 0, maxLongTaskMs: 0, renderMs: 0, maxRenderMs: 0 };
  let frame = [], changed = 0;
  const stamp = () => {
    const at = Date.now(), took = performance.now() - changed;
    PROBE.renderMs += took; PROBE.maxRenderMs = Math.max(PROBE.maxRenderMs, took);
    for (const [t, s] of frame) PROBE.drawn.push([t, s, at]);
    frame = [];
  };
  const note = (node) => {
    if (node.nodeType === 1 && node.dataset.table !== undefined && node.dataset.seq !== undefined) {
      if (!frame.length) { changed = performance.now(); setTimeout(stamp, 0); }  // runs once the frame is painted
      frame.push([node.dataset.table, Number(node.dataset.seq)]);
    }
  };
  const watch = () => {
    if (!document.getElementById("map")) return;  // the login form: nothing to watch
    new MutationObserver((changes) => {
      for (const change of changes) {
        if (change.type === "attributes") note(change.target);
        else for (const node of change.addedNodes) note(node);
      }
    }).observe(document.getElementById("map"), { subtree: true, childList: true, attributes: true, attributeFilter: ["data-seq"] });
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", watch); else watch();
  try {
    new PerformanceObserver((list) => {
      for (const task of list.getEntries()) {
        PROBE.longTasks += 1; PROBE.longTaskMs += task.duration; PROBE.maxLongTaskMs = Math.max(PROBE.maxLongTaskMs, task.duration);
      }
    }).observe({ type: "longtask", buffered: true });
  } catch (e) { PROBE.longTasks = -1; }  // a browser without the Long Tasks API
})();
"""
_DRAIN = "() => { const d = window.__probe.drawn; window.__probe.drawn = []; return d; }"
_STATS = """() => ({
  long_tasks: window.__probe.longTasks, long_task_ms: window.__probe.longTaskMs, max_long_task_ms: window.__probe.maxLongTaskMs,
  render_ms: window.__probe.renderMs, max_render_ms: window.__probe.maxRenderMs,
  draws: window.floor.frames, draw_ms: window.floor.drawMs || 0, max_draw_ms: window.floor.maxDrawMs || 0,
  batches: window.floor.batches, tiles: window.floor.tiles.size,
  mean_draw_ms: window.floor.frames ? (window.floor.drawMs || 0) / window.floor.frames : 0,
})"""


@dataclasses.dataclass(frozen=True)
class Drawn:
    """One tile drawn showing a new latest seq."""

    table: str  #: table id of the tile
    seq: int  #: the feed seq the tile now shows as its latest
    at: float  #: ``time.time()`` (wall clock, same machine) when the page had drawn it


class DashboardProbe:
    """The floor map in a headless Chromium, logged in as ``role``.

    :param url: the dashboard's base URL (``http://127.0.0.1:8090``).
    :param role: the login's role (``pit`` or ``surveillance``): it logs in (the login form, then
        the session's cookie) as the user ``probe-<role>``, who must have that role.
    :param credential: that user's secret.
    :param chromium: the browser (default :data:`~bench.display.chromium.CHROMIUM`).
    """

    def __init__(self, url: str, role: str, credential: str, *, chromium: Path | None = None) -> None:
        self.url, self.role, self.credential = url.rstrip("/"), role, credential
        self.chromium = chromium or CHROMIUM
        self._worker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="dashboard-probe")
        self._playwright: Any = None
        self._browser: Any = None
        self._page: Any = None
        self.errors: list[str] = []  #: the page's JavaScript errors

    def _call(self, work: Callable[[], T]) -> T:
        return self._worker.submit(work).result()

    def __enter__(self) -> DashboardProbe:
        try:
            self._call(self._open)
        except BaseException:
            self.__exit__()
            raise
        return self

    def _open(self) -> None:
        from playwright.sync_api import sync_playwright  # a bench dependency, imported when used

        self._playwright = sync_playwright().start()
        self._browser = self._playwright.chromium.launch(
            executable_path=str(self.chromium), args=LAUNCH_ARGS, headless=True
        )
        context = self._browser.new_context(  # Playwright's waits evaluate strings, which the page's CSP forbids
            viewport=VIEWPORT, bypass_csp=True
        )
        context.add_init_script(OBSERVER)
        self._page = context.new_page()
        self._page.on("pageerror", lambda error: self.errors.append(str(error)))
        answer = self._page.goto(self.url + "/login")
        if answer is None or answer.status != 200:
            raise RuntimeError(f"the login at {self.url}/login answered {answer.status if answer else 'nothing'}")
        self._page.fill("#user", f"probe-{self.role}")
        self._page.fill("#secret", self.credential)
        self._page.click("#enter")
        self._page.wait_for_url(self.url + "/", timeout=LIVE_TIMEOUT_S * 1000)
        self._page.wait_for_function(
            "document.body.dataset.connected === 'true' && Number(document.body.dataset.frames) > 0",
            timeout=LIVE_TIMEOUT_S * 1000,
        )
        self._page.wait_for_function("Boolean(document.body.dataset.role)", timeout=10_000)  # /api/me answered
        shown = self._page.evaluate("document.body.dataset.role")
        if shown != self.role:
            raise RuntimeError(f"the credential given for {self.role} logs in as {shown}")

    def __exit__(self, *exc: object) -> None:
        def close() -> None:
            if self._browser is not None:
                self._browser.close()
            if self._playwright is not None:
                self._playwright.stop()
            self._browser = self._playwright = self._page = None

        try:
            self._call(close)
        finally:
            self._worker.shutdown()

    def drawn(self) -> list[Drawn]:
        """Every tile drawn with a new seq since the last call (the page's notes are drained)."""
        notes = self._call(lambda: self._page.evaluate(_DRAIN))
        return [Drawn(str(table), int(seq), at / 1000.0) for table, seq, at in notes]

    def frame_stats(self) -> dict[str, float]:
        """The page's drawing since it opened: ``draws`` (animation frames that drew tiles),
        ``draw_ms`` (their total), ``mean_draw_ms``, ``max_draw_ms``, ``long_tasks`` and
        ``long_task_ms`` (tasks over 50 ms; -1 without the Long Tasks API), ``max_long_task_ms``,
        ``render_ms`` and ``max_render_ms`` (from a frame's first tile change to the task after
        its paint: style, layout and paint),
        ``batches`` (SSE messages received) and ``tiles``."""
        stats = self._call(lambda: self._page.evaluate(_STATS))
        return {name: float(value) for name, value in stats.items()}
