"""Fixtures of the display tests: a simulated table serving its display on a free loopback port."""

from __future__ import annotations

import dataclasses
import io
import threading
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from firmware_host.config.profiles import load_table
from firmware_host.display.pins import write_pin_file
from firmware_host.wiring import Table, build_table
from tests.support.browser import browser, page  # noqa: F401 (fixtures)
from tests.support.paths import REPO

#: The test PINs (written hashed to files in tmp_path, with a cheap scrypt cost to keep tests quick).
DEALER_PIN, SUPERVISOR_PIN = "2468", "13579"
#: scrypt N for the test PIN files (the real default is 2**14).
TEST_SCRYPT_N = 2 ** 10

BACCARAT = """
[table]
id = "T-BAC"
game = "baccarat"
decks = {decks}

[rules]
variant = "standard"
{rules}

[devices.shoe]
model = "tablehost-ts8-2026"
port = "sim"

[display]
listen = "127.0.0.1:0"
dealer_pin_file = "dealer.pin"
supervisor_pin_file = "supervisor.pin"
limits = {{ min = 2500, max = 500000 }}
"""

PAIGOW = """
[table]
id = "T-PG"
game = "paigow"

[rules]
player_bank_offered = true
co_banking_offered = true
commission_percent = "5"

[devices.shaker]
model = "tablehost-ds3-2026"
port = "sim"

[display]
listen = "127.0.0.1:0"
dealer_pin_file = "dealer.pin"
supervisor_pin_file = "supervisor.pin"
limits = {{ min = 1000, max = 200000 }}

[sim.dealer]
bank = {bank}
"""


@dataclasses.dataclass
class Running:
    """A table whose service runs in a thread, its display served."""

    table: Table
    thread: threading.Thread

    @property
    def url(self) -> str:
        assert self.table.display is not None
        return self.table.display.url

    @property
    def service(self) -> Any:
        return self.table.service

    def stop(self) -> None:
        self.table.service.stop()
        self.thread.join(timeout=10)
        self.table.stop()


def write_profile(folder: Path, text: str) -> Path:
    """A table profile in ``folder`` with the test PIN files beside it."""
    write_pin_file(folder / "dealer.pin", DEALER_PIN, n=TEST_SCRYPT_N)
    write_pin_file(folder / "supervisor.pin", SUPERVISOR_PIN, n=TEST_SCRYPT_N)
    path = folder / "table.toml"
    path.write_text(text)
    return path


def start(profile_path: Path, journal: Path, *, seed: int = 1, pace: float = 0.0, rounds: int | None = None,
          simulated_dealer: bool = True) -> Running:
    """Build and start the table of ``profile_path`` (``simulated_dealer=False``: nobody plays)."""
    profile = load_table(profile_path, devices_dir=REPO / "hardware-profiles" / "devices")
    table = build_table(profile, journal_path=journal, seed=seed, rounds=rounds, stream=io.StringIO(), pace=pace)
    if not simulated_dealer and table.dealer is not None:
        table.service.outputs.remove(table.dealer)
        table.dealer = None
    table.start()
    thread = threading.Thread(target=table.service.run, name="service", daemon=True)
    thread.start()
    return Running(table, thread)


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
