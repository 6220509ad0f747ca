"""Take the README's screenshots: a simulated table plays, Chromium photographs its pages.

    .venv/bin/python docs/screenshots/take.py      # writes docs/screenshots/*.png

Each game's table plays a fixed number of rounds with a fixed seed (the same pictures every
time), stops, and the dealer display and the scoreboard are captured at 1920x1080.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.display.conftest import start, write_profile, BACCARAT, PAIGOW  # noqa: E402
from tests.support.browser import CHROMIUM, LAUNCH_ARGS, VIEWPORT  # noqa: E402

#: Rounds each table plays before the pictures: a good part of a shoe, a handful of rolls.
ROUNDS = {"baccarat": 46, "paigow": 9}
SEEDS = {"baccarat": 7, "paigow": 3}


def take(game: str, browser: object, folder: Path) -> None:
    text = BACCARAT.format(decks=8, rules="") if game == "baccarat" else PAIGOW.format(bank=0.3)
    running = start(write_profile(folder, text), folder / "journal.sqlite", seed=SEEDS[game], rounds=ROUNDS[game])
    try:
        running.thread.join(timeout=120)
        page = browser.new_page(viewport=VIEWPORT)  # type: ignore[attr-defined]
        for path, name in (("/", "dealer"), ("/scoreboard", "scoreboard")):
            page.goto(running.url + path)
            page.wait_for_function("document.body.dataset.seq !== undefined")
            page.wait_for_timeout(300)
            page.screenshot(path=str(HERE / f"{game}-{name}.png"))
        page.close()
    finally:
        running.stop()


def main() -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        for game in sys.argv[1:] or ROUNDS:
            with tempfile.TemporaryDirectory() as folder:
                take(game, browser, Path(folder))
        browser.close()


if __name__ == "__main__":
    main()
