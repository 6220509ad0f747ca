"""Fixtures of the display tests: a simulated table serving its display on a free loopback port
(:mod:`bench.display.table`, shared with the display bench)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from bench.display.table import (  # noqa: F401 (DEALER_PIN, SUPERVISOR_PIN, TEST_SCRYPT_N: the tests' PINs)
    BACCARAT, DEALER_PIN, PAIGOW, SUPERVISOR_PIN, TEST_SCRYPT_N, Running, start, write_profile,
)
from tests.support.browser import browser, page  # noqa: F401 (fixtures)


@pytest.fixture
def run_table(tmp_path: Path) -> Iterator[Callable[..., Running]]:
    """Start tables: ``run_table("baccarat", face_down=True, pace=0.05)``; all stopped after the test."""
    started: list[Running] = []

    def run(game: str = "baccarat", *, face_down: bool = False, pace: float = 0.0, bank: float = 0.2,
            journal: Path | None = None, **options: Any) -> Running:
        rules = 'initial_deal = "face_down"' if face_down else ""
        text = BACCARAT.format(decks=options.pop("decks", 8), rules=rules) if game == "baccarat" \
            else PAIGOW.format(bank=bank)
        running = start(write_profile(tmp_path, text), journal or tmp_path / "journal.sqlite", pace=pace, **options)
        started.append(running)
        return running

    yield run
    for running in started:
        running.stop()


def enter_pin(page: Any, pin: str) -> None:
    """Key ``pin`` in on the page's PIN pad, then OK."""
    for digit in pin:
        page.click(f"#pin-keys button[data-key='{digit}']")
    page.click("#pin-keys button[data-key='ok']")


def inputs(running: Running, command: str) -> list[dict[str, Any]]:
    """The journaled DealerCommand inputs of ``command``."""
    journal = running.table.journal
    return [r.data for r in journal.records() if r.kind == "input" and r.type == "DealerCommand"
            and r.data["command"] == command]
