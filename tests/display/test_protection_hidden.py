"""Nothing leaks (docs/protection.md): at a table whose every round opens advantage windows, the
scoreboard (DOM and stream, in Chromium), ``/api/roads``, ``/api/scoreboard`` and ``/api/state``
(even with the supervisor's PIN) hold no EV, no odds and no advantage window; the journal holds them."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

from tests.display.conftest import BACCARAT, SUPERVISOR_PIN, start, write_profile

ROUNDS = 6
WAIT_MS = 30_000
#: What would betray game protection: its words, and an exact EV as journaled ("-123/4567").
LEAKS = re.compile(r"advantage|odds|\bev\b|ev_percent|-?\d+/\d{3,}", re.IGNORECASE)
#: Below the banker's and the player's full-shoe EV: every round of the shoe opens windows.
PROFILE = BACCARAT.format(decks=8, rules="[protection]\nadvantage_threshold = -0.013")


def supervisor() -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"supervisor:{SUPERVISOR_PIN}".encode()).decode()}


def test_the_scoreboard_and_the_api_hold_no_ev_and_no_window(tmp_path: Path, browser: Any) -> None:
    table = start(write_profile(tmp_path, PROFILE), tmp_path / "journal.sqlite", rounds=ROUNDS)
    try:
        context = browser.new_context(
            viewport={"width": 1920, "height": 1080}, bypass_csp=True
        )  # Playwright waits eval
        board = context.new_page()
        board.goto(table.url + "/scoreboard")
        table.thread.join(timeout=90)
        board.wait_for_function(f"document.body.dataset.rounds === '{ROUNDS}'", timeout=WAIT_MS)
        records = list(table.table.journal.records())
        windows = [r for r in records if r.type == "alert" and r.data.get("code") == "advantage-window"]
        assert len({r.round for r in windows}) >= ROUNDS and any(r.type == "odds" for r in records)
        text = board.inner_text("body")
        html = board.content()
        messages = json.dumps(board.evaluate("window.tablehost.messages"))
        assert not LEAKS.search(text) and not LEAKS.search(messages), "the scoreboard shows game protection"
        assert "advantage-window" not in html
        for path in ("/api/roads", "/api/scoreboard"):
            answer = board.request.get(table.url + path)
            assert answer.ok and not LEAKS.search(answer.text()), path
        state = board.request.get(table.url + "/api/state", headers=supervisor())
        assert state.ok and not LEAKS.search(state.text())
        assert json.loads(state.text())["round"] is not None  # the supervisor's view, not a refusal
        context.close()
    finally:
        table.stop()
