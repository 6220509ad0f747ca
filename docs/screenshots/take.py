"""Take the README's screenshots: a simulated table plays, Chromium photographs its pages.

    .venv/bin/python docs/screenshots/take.py [baccarat] [paigow]   # writes docs/screenshots/*.png

Each table plays with a fixed seed (the same pictures every time) until the moment shown —
Baccarat: the banker's third card due late in a shoe, the player's shown; Pai Gow: the delivery plan, then the tile entry with
the dealer's house way — and its dealer display and scoreboard are captured at each of
:data:`SIZES`: 1920x1080 (``baccarat-dealer.png``), and the Pi's small screens, 800x480 (the
7" Touch Display) and 720x1280 (the Touch Display 2, portrait): ``baccarat-dealer-800x480.png``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.display.conftest import BACCARAT, PAIGOW, Running, start, write_profile  # noqa: E402
from tests.support.browser import CHROMIUM, LAUNCH_ARGS, VIEWPORT  # noqa: E402

#: Rounds played before the moment shown.
ROUNDS = {"baccarat": 52, "paigow": 8}
SEEDS = {"baccarat": 7, "paigow": 3}
#: The screens photographed: the kiosk's 1080p and the Pi's two touch displays.
SIZES = [(VIEWPORT["width"], VIEWPORT["height"]), (800, 480), (720, 1280)]


def png(name: str, size: tuple[int, int]) -> str:
    """The picture's path: ``name.png`` at 1080p, ``name-WxH.png`` at the other sizes."""
    suffix = "" if size == SIZES[0] else f"-{size[0]}x{size[1]}"
    return str(HERE / f"{name}{suffix}.png")


def after(running: list[Running], rounds: int, action: str, **fields: Any) -> Any:
    """A gate test: the first prompt of ``action`` (with ``fields``) once ``rounds`` are finished."""

    def holds(prompt: dict[str, Any]) -> bool:
        return (
            bool(running)
            and running[0].service.rounds_finished >= rounds
            and prompt.get("action") == action
            and all(prompt.get(k) == v for k, v in fields.items())
        )

    return holds


def shoot(page: Any, url: str, name: str) -> None:
    """Photograph the page of ``url`` at every size (loaded at that size, as a kiosk does)."""
    for size in SIZES:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.goto(url)
        page.wait_for_function("document.body.dataset.seq !== undefined")
        page.wait_for_timeout(400)
        page.screenshot(path=png(name, size))


def both_pages(browser: Any, folder: Path, game: str, profile: str, action: str, **fields: Any) -> tuple[Running, Any]:
    """Play ``game`` until the moment shown, then photograph its dealer display and board."""
    holder: list[Running] = []
    running = start(
        write_profile(folder, profile),
        folder / "journal.sqlite",
        seed=SEEDS[game],
        hold_at=after(holder, ROUNDS[game], action, **fields),
    )
    holder.append(running)
    running.gate.holding.wait(120)
    running.table.display.hub.flush()
    page = browser.new_page(viewport=VIEWPORT)
    shoot(page, running.url + "/", f"{game}-dealer")
    shoot(page, running.url + "/scoreboard", f"{game}-scoreboard")
    return running, page


def baccarat(browser: Any, folder: Path) -> None:
    running, page = both_pages(
        browser, folder, "baccarat", BACCARAT.format(decks=8, rules=""), "deal", card=3, to="banker"
    )
    page.close()
    running.stop()


def paigow(browser: Any, folder: Path) -> None:
    running, page = both_pages(browser, folder, "paigow", PAIGOW.format(bank=0.3), "deliver")
    try:
        running.gate.release(after([running], 0, "set_hands"))
        running.gate.holding.wait(60)
        running.table.display.hub.flush()
        for size in SIZES:
            page.set_viewport_size({"width": size[0], "height": size[1]})
            page.goto(running.url + "/")
            page.wait_for_selector("#prompt[data-action='set_hands']")
            page.click("button[data-command='tiles']")
            for text in ("6-6", "4-4", "1-5", "3-4"):
                page.click(f"#picker button[data-tile='{text}']")
            page.wait_for_function("document.querySelector('#house-way').textContent !== ''")
            page.screenshot(path=png("paigow-tiles", size))
        page.close()
    finally:
        running.stop()


def main() -> None:
    games = {"baccarat": baccarat, "paigow": paigow}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        for game in sys.argv[1:] or games:
            with tempfile.TemporaryDirectory() as folder:
                games[game](browser, Path(folder))
        browser.close()


if __name__ == "__main__":
    main()
