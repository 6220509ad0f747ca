"""The pages on the screens a Pi drives (issue 23 item 1): at 800x480, 1024x600, 1280x720,
1280x800, 1920x1080 and 720x1280 portrait, both games' dealer display, scoreboard, tile entry,
card entry and PIN pad fit the screen: no scrolling; every button (the dealer's actions, the
bank offer's seats, the tiles, the keys) whole on screen and at least 48x48 CSS px; every line of
text either whole or folded out of sight, never cut; no type under 14 px; cards, dice, tiles and
the roads (6 rows each) at a legible size and inside their boxes.

Each page is shown in the state with the most on it: Baccarat late in a shoe (60 rounds), between
rounds with both hands of three cards and the outcome up; Pai Gow after 8 rolls, at the delivery
plan (eight hands), the bank offer (a button per seat), the tile entry (four tiles chosen) and
the settled round (the house way and every hand's result); the most alerts the display keeps.
One simulated table per state, started once per module and held there (bench.display.table.Gate);
one browser per worker (tests.support.browser). One test per state, so that xdist starts each table
in one worker only: it shows each of the state's views and measures it at every size in turn, the
page resized between sizes, each view and size a subtest of its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from firmware_host.rules.paigow_tiles.tiles import TILE_SET
from tests.display.conftest import BACCARAT, DEALER_PIN, PAIGOW, Running, start, write_profile

#: The screens (CSS px): the Pi 7" Touch Display, 7" 1024x600 panels, HDMI 720p, 1280x800
#: panels, 1080p, and the Touch Display 2 as it comes (portrait).
SIZES = [(800, 480), (1024, 600), (1280, 720), (1280, 800), (1920, 1080), (720, 1280)]
#: The least touch target and type size, CSS px.
MIN_TARGET, MIN_FONT = 48, 14
WAIT_MS = 20_000

#: How many action buttons each game's dealer display has (all must show at every size).
ACTIONS = {"baccarat": 6, "paigow": 9}

#: What is on the page at this size: the document's scroll size, every visible button's box,
#: every element with text of its own (its font size; whole, folded or cut by the viewport and
#: its clipping ancestors; its scrollWidth against its clientWidth), and the boxes of cards,
#: tiles, dice and road grids against the box they belong in. Within an open modal only, when
#: one is open (the page behind it is covered).
MEASURE = """() => {
  const vw = innerWidth, vh = innerHeight, doc = document.documentElement;
  const out = { scroll: [doc.scrollWidth, doc.scrollHeight], problems: [], minFont: Infinity, minFontAt: "", buttons: [] };
  const name = (e) => `${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""}${typeof e.className === "string" && e.className ? "." + e.className.trim().split(/\\s+/).join(".") : ""} "${(e.textContent || "").trim().slice(0, 40)}"`;
  const root = document.querySelector(".modal.open") || document.body;
  const visible = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden"; };
  const clipper = (e) => {
    for (let a = e.parentElement; a; a = a.parentElement) { const s = getComputedStyle(a); if (s.overflowX !== "visible" || s.overflowY !== "visible") return a; }
    return null;
  };
  // "whole", "none" (folded out of sight) or "part" (cut) by the viewport and the clipping ancestors
  const shown = (e) => {
    const r = e.getBoundingClientRect(); let box = { left: 0, top: 0, right: vw, bottom: vh };
    for (let a = clipper(e); a; a = clipper(a)) {
      const c = a.getBoundingClientRect();
      box = { left: Math.max(box.left, c.left), top: Math.max(box.top, c.top), right: Math.min(box.right, c.right), bottom: Math.min(box.bottom, c.bottom) };
    }
    if (r.left >= box.left - 1 && r.top >= box.top - 1 && r.right <= box.right + 1 && r.bottom <= box.bottom + 1) return "whole";
    if (r.right <= box.left + 1 || r.left >= box.right - 1 || r.bottom <= box.top + 1 || r.top >= box.bottom - 1) return "none";
    return "part";
  };
  const inside = (r, c, vertical) => r.top >= c.top - 1 && r.bottom <= c.bottom + 1 && (vertical || (r.left >= c.left - 1 && r.right <= c.right + 1));
  for (const b of root.querySelectorAll("button")) {
    if (!visible(b)) continue;
    const r = b.getBoundingClientRect();
    out.buttons.push({ text: b.textContent.trim(), command: b.dataset.command || null, width: r.width, height: r.height, shown: shown(b) });
    if (r.width < 48 || r.height < 48) out.problems.push(`button ${name(b)} is ${r.width.toFixed(0)}x${r.height.toFixed(0)}`);
    if (shown(b) !== "whole") out.problems.push(`button ${name(b)}: ${shown(b)} on screen`);
  }
  for (const e of root.querySelectorAll("*")) {
    if (e instanceof SVGElement || !visible(e)) continue;
    if (![...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    const how = shown(e);
    if (how === "none") continue;  // folded: a whole entry out of sight
    const size = parseFloat(getComputedStyle(e).fontSize);
    if (size < out.minFont) { out.minFont = size; out.minFontAt = name(e); }
    if (how === "part") out.problems.push(`text ${name(e)} is cut`);
    if (e.clientWidth && e.scrollWidth > e.clientWidth + 1) out.problems.push(`text ${name(e)} overflows: ${e.scrollWidth} > ${e.clientWidth}`);
  }
  for (const e of root.querySelectorAll(".card, .tile, .die, .road svg")) {
    if (!visible(e)) continue;
    const box = e.closest("button, .hand, .road, .roll, .result, .panel, .chosen");
    if (box && !inside(e.getBoundingClientRect(), box.getBoundingClientRect(), e.closest(".road"))) out.problems.push(`${name(e)} outside ${name(box)}`);
  }
  return out;
}"""


def _after(holder: list[Running], rounds: int, action: str, **fields: Any) -> Callable[[dict[str, Any]], bool]:
    """A gate test: the first prompt of ``action`` whose ``fields`` match (a value, or a test of
    the value) once ``rounds`` are finished."""

    def holds(prompt: dict[str, Any]) -> bool:
        return (
            bool(holder)
            and holder[0].service.rounds_finished >= rounds
            and prompt.get("action") == action
            and all(test(prompt.get(k)) if callable(test) else prompt.get(k) == test for k, test in fields.items())
        )

    return holds


def _three_cards(exposed: Any) -> bool:
    return isinstance(exposed, dict) and len(exposed.get("player") or []) == 3


#: The states shown: game, seed, rounds played first, where the dealer is held (and then,
#: released, where it is held next).
STATES: dict[str, tuple[str, int, int, str, dict[str, Any], str | None]] = {
    # late in the shoe, between rounds: both hands of three cards and the outcome stay up
    "baccarat": ("baccarat", 7, 60, "deal", {"card": 3, "to": "banker", "exposed": _three_cards}, "place_bets"),
    "paigow-deliver": ("paigow", 3, 8, "deliver", {}, None),
    "paigow-bank": ("paigow", 3, 8, "offer_bank", {}, None),
    "paigow-hands": ("paigow", 3, 8, "set_hands", {}, None),
    "paigow-results": ("paigow", 3, 8, "set_hands", {}, None),  # then settled at the display (_settle)
}


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], Running]]:
    """The table held at a state of :data:`STATES`, started on first use and kept for the module."""
    started: dict[str, Running] = {}

    def table(state: str) -> Running:
        if state not in started:
            game, seed, rounds, action, fields, then = STATES[state]
            folder: Path = tmp_path_factory.mktemp(state)
            text = BACCARAT.format(decks=8, rules="") if game == "baccarat" else PAIGOW.format(bank=0.3)
            holder: list[Running] = []
            running = start(
                write_profile(folder, text),
                folder / "journal.sqlite",
                seed=seed,
                hold_at=_after(holder, rounds, action, **fields),
            )
            holder.append(running)
            started[state] = running
            assert running.gate is not None and running.gate.holding.wait(60), f"{state}: never held"
            if then is not None:
                running.gate.release(_after(holder, 0, then))
                assert running.gate.holding.wait(60), f"{state}: never held at {then}"
            if state == "paigow-results":
                assert running.flush()  # the prompt _settle reads is the held one (a loaded machine lags)
                _settle(running)
            assert running.flush()
        return started[state]

    yield table
    for running in started.values():
        running.stop()


def _settle(running: Running) -> None:
    """Enter every hand's tiles at the display's API (four each from one set, § 535.3(c)) and
    wait for the round's results: the dealer display then shows the house way and each result."""
    prompt = httpx2.get(running.url + "/api/state").json()["prompt"]
    tiles = iter(tile.text for tile in TILE_SET)
    bank = [] if prompt.get("bank") is None else [str(prompt["bank"])]  # the player bank's hand is entered too
    positions = [p for p in prompt["positions"] if p not in bank] + bank
    hands = {position: ",".join(next(tiles) for _ in range(4)) for position in positions}
    args = {"hands": hands, **({"dealer": ",".join(next(tiles) for _ in range(4))} if prompt.get("dealer") else {})}
    answer = httpx2.post(running.url + "/api/action", json={"command": "tiles", "args": args, "pin": DEALER_PIN})
    assert answer.status_code == 202, answer.text
    for _ in range(200):
        assert running.flush()
        if httpx2.get(running.url + "/api/state").json()["current"].get("results"):
            return
        time.sleep(0.05)
    raise AssertionError("the tiles entered were never settled")


def _open_card_entry(page: Any) -> None:
    page.click("button[data-command='card_entered']")


def _open_pin_pad(page: Any) -> None:
    page.click("button[data-command='void_round']")


def _open_tile_entry(page: Any) -> None:
    page.click("button[data-command='tiles']")
    for text in ("6-6", "4-4", "1-5", "3-4"):
        page.click(f"#picker button[data-tile='{text}']")
    page.wait_for_function("document.querySelector('#house-way').textContent !== ''", timeout=WAIT_MS)


#: The most alerts the dealer display keeps (firmware_host.display.view.MAX_ALERTS), long ones.
ALERTS = [
    {
        "code": "shoe-lost",
        "severity": "fault",
        "text": "shoe: lost (the serial port closed: device disconnected); table paused",
    },
    {
        "code": "shoe-fault",
        "severity": "fault",
        "text": "shoe: fault 12: a card is jammed at the exit; clear it, then acknowledge",
    },
    {
        "code": "device-refused",
        "severity": "fault",
        "text": "shoe: its serial number changed since the last session; a supervisor acknowledges",
    },
    {
        "code": "procedure",
        "severity": "attention",
        "text": "the burn card is shown face up before the shoe is played (§ 541.5(g))",
    },
    {"code": "reading-ignored", "severity": "warning", "text": "shoe: a card reading while no card is due; ignored"},
    {"code": "table-paused", "severity": "attention", "text": "the table is paused until the shoe answers again"},
]


def _show_alerts(page: Any) -> None:
    """The page's own renderAlerts with the most alerts it keeps (the newest last, shown first),
    and the LAST HAND badge where the game has one (shown once the cut card is out)."""
    page.evaluate("(alerts) => renderAlerts({ alerts })", ALERTS)
    _show_last_hand(page)


def _show_last_hand(page: Any) -> None:
    page.evaluate("document.querySelector('#last-hand')?.classList.remove('hidden')")


#: The pages: name → (state, path, what opens the part measured).
VIEWS: dict[str, tuple[str, str, Callable[[Any], None] | None]] = {
    "baccarat-dealer": ("baccarat", "/", None),
    "baccarat-scoreboard": ("baccarat", "/scoreboard", _show_last_hand),
    "baccarat-card-entry": ("baccarat", "/", _open_card_entry),
    "baccarat-pin-pad": ("baccarat", "/", _open_pin_pad),
    "baccarat-dealer-alerts": ("baccarat", "/", _show_alerts),
    "paigow-dealer-deliver": ("paigow-deliver", "/", None),
    "paigow-dealer-alerts": ("paigow-deliver", "/", _show_alerts),
    "paigow-dealer-bank-offer": ("paigow-bank", "/", None),
    "paigow-dealer-set-hands": ("paigow-hands", "/", None),
    "paigow-tile-entry": ("paigow-hands", "/", _open_tile_entry),
    "paigow-dealer-results": ("paigow-results", "/", None),
    "paigow-scoreboard": ("paigow-deliver", "/scoreboard", None),
}


@pytest.fixture(scope="module")
def screen(browser: Any) -> Iterator[tuple[Any, list[str]]]:
    """One page for the module, resized for each test, and the JavaScript errors it has had."""
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, bypass_csp=True)  # Playwright waits eval
    page, errors = context.new_page(), []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page, errors
    context.close()


@pytest.fixture
def shown(screen: tuple[Any, list[str]], tables: Callable[[str], Running]) -> Iterator[Callable[..., Any]]:
    """Show a view at a size: ``shown("baccarat-dealer", 800, 480)`` → the page, measured into
    ``page.measured``; a JavaScript error since the last ``shown`` fails it. A view already on the
    page (the view shown last, at another size) is resized, as a turned screen is; else loaded."""
    page, errors = screen
    errors.clear()

    def show(view: str, width: int, height: int) -> Any:
        errors.clear()
        state, path, opener = VIEWS[view]
        page.set_viewport_size({"width": width, "height": height})
        if getattr(page, "view", None) != view:
            page.view = None
            page.goto(tables(state).url + path)
            page.wait_for_function("document.body.dataset.seq !== undefined", timeout=WAIT_MS)
            if opener is not None:
                opener(page)
            page.view = view
        page.evaluate(
            "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
        )  # laid out anew
        page.measured = page.evaluate(MEASURE)
        assert not errors, f"JavaScript errors on the page: {errors}"
        return page

    yield show
    assert not errors, f"JavaScript errors on the page: {errors}"


#: The views shown in each state, every one at every size.
VIEWS_OF = {state: [view for view, (at, _, _) in VIEWS.items() if at == state] for state in STATES}


@pytest.mark.parametrize("state", list(STATES))
def test_the_pages_fit_every_screen(shown: Callable[..., Any], subtests: pytest.Subtests, state: str) -> None:
    for view in VIEWS_OF[state]:
        for width, height in SIZES:
            with subtests.test(view=view, size=f"{width}x{height}"):
                fits_the_screen(shown, view, (width, height))


def fits_the_screen(shown: Callable[..., Any], view: str, size: tuple[int, int]) -> None:
    """``view`` at ``size``: no scrolling, no problem the measure finds, no type too small, and what the view must show."""
    width, height = size
    page = shown(view, width, height)
    measured = page.measured
    assert measured["scroll"] == [width, height], f"the page scrolls: {measured['scroll']} at {width}x{height}"
    assert measured["problems"] == []
    assert measured["minFont"] >= MIN_FONT, f"{measured['minFont']} px type: {measured['minFontAt']}"
    if "-dealer" in view:
        game = view.split("-")[0]
        commands = [b["command"] for b in measured["buttons"] if b["command"]]
        assert len(commands) == ACTIONS[game] == len(set(commands))  # every action button, whole (above)
        prompt = page.evaluate("""(() => { const p = document.querySelector('#prompt'), r = p.getBoundingClientRect();
            return { size: parseFloat(getComputedStyle(p).fontSize), top: r.top, bottom: r.bottom, text: p.textContent }; })()""")
        assert prompt["text"].strip() and prompt["top"] >= 0 and prompt["bottom"] <= height and prompt["size"] >= 20
    if view.endswith("-alerts"):
        alerts = page.evaluate("""[...document.querySelectorAll('#alerts .alert')].map((a) => {
            const r = a.getBoundingClientRect(), box = a.parentElement.getBoundingClientRect();
            return { code: a.dataset.code, severity: a.dataset.severity,
                     whole: r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1 }; })""")
        assert len(alerts) == len(ALERTS) and alerts[0]["whole"], (
            "the first alert is not on screen"
        )  # the rest whole or folded (above)
        # Most severe first, newest first within a severity: what folds away on a small screen is
        # never a fault behind newer warnings.
        assert [a["code"] for a in alerts] == [
            "device-refused",
            "shoe-fault",
            "shoe-lost",
            "table-paused",
            "procedure",
            "reading-ignored",
        ]
    if view == "paigow-dealer-results":
        assert page.text_content("#work h2") == "Result" and page.locator("#work .plan div").count() >= 2
    if view == "baccarat-dealer":
        hands_are_legible(page)
    if view == "baccarat-scoreboard":
        roads_keep_six_rows(page, height)
    if view == "paigow-scoreboard":
        assert page.evaluate("document.querySelectorAll('#rolls .roll').length") == 8  # every roll, whole (above)
    if view == "paigow-tile-entry":
        assert sum(b["command"] is None and b["text"] != "" for b in measured["buttons"]) >= 21 + 3


def hands_are_legible(page: Any) -> None:
    """Both hands of three cards (the round just played stays up): each card at least 64 px
    tall, its rank at least 16 px, clear of the hand's total; inside its hand (the measure checks it)."""
    cards = page.evaluate("""[...document.querySelectorAll('.hand .card')].map((c) => {
        const r = c.getBoundingClientRect(), total = c.closest('.hand').querySelector('.total').getBoundingClientRect();
        return { card: c.dataset.card, height: r.height, rank: parseFloat(getComputedStyle(c.querySelector('.r')).fontSize),
                 underTotal: r.top < total.bottom && r.bottom > total.top && r.left < total.right && r.right > total.left }; })""")
    assert len(cards) == 6
    assert all(c["height"] >= 64 and c["rank"] >= 16 and not c["underTotal"] for c in cards), cards


def roads_keep_six_rows(page: Any, height: int) -> None:
    """The big road and the three derived roads: 6 rows of cells at least 24 px (big road) and
    14 px (derived), the grid's whole height on screen, the newest column in sight."""
    roads = page.evaluate("""Object.fromEntries(['big-road', 'big-eye-boy', 'small-road', 'cockroach-pig'].map((id) => {
        const svg = document.querySelector(`#${id} svg`), r = svg.getBoundingClientRect(), grid = svg.parentElement.getBoundingClientRect();
        const marks = [...svg.querySelectorAll('g')].map((g) => g.getBoundingClientRect()).filter((m) => m.width);
        const newest = marks.length ? marks.reduce((a, b) => (b.right > a.right ? b : a)) : null;
        return [id, { cell: +svg.dataset.cell, height: r.height, top: r.top, bottom: r.bottom, marks: marks.length,
                      newestInside: !newest || (newest.left >= grid.left - 1 && newest.right <= grid.right + 1) }];
    }))""")
    for name, road in roads.items():
        assert road["height"] == pytest.approx(6 * road["cell"] + 1, abs=1), name  # six rows
        assert road["cell"] >= (24 if name == "big-road" else 14), (name, road)
        assert road["marks"] and road["top"] >= 0 and road["bottom"] <= height and road["newestInside"], (name, road)
