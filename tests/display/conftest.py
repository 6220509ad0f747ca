"""Fixtures of the display tests: a simulated table serving its display on a free loopback port
(:mod:`bench.display.table`, shared with the display bench)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.display.table import (  # noqa: F401 (DEALER_PIN, SUPERVISOR_PIN, TEST_SCRYPT_N: the tests' PINs)
    BACCARAT,
    DEALER_PIN,
    PAIGOW,
    SUPERVISOR_PIN,
    TEST_SCRYPT_N,
    Running,
    start,
    write_profile,
)
from firmware_host.display.app import build_app
from firmware_host.display.hub import DisplayHub
from firmware_host.display.server import DisplayServer
from firmware_host.display.view import BaccaratView
from firmware_host.host.journal_codec import MONO_KEY
from firmware_host.web.lockout import Lockout, LockoutPolicy
from firmware_host.web.pins import Credentials, write_pin_file
from firmware_host.web.server import ConnectionLimits
from firmware_host.web.streams import StreamSlots
from tests.support.browser import browser, csp_page, page  # noqa: F401 (fixtures)


@pytest.fixture
def run_table(tmp_path: Path) -> Iterator[Callable[..., Running]]:
    """Start tables: ``run_table("baccarat", face_down=True, pace=0.05)``; all stopped after the test."""
    started: list[Running] = []

    def run(
        game: str = "baccarat",
        *,
        face_down: bool = False,
        pace: float = 0.0,
        bank: float = 0.2,
        journal: Path | None = None,
        **options: Any,
    ) -> Running:
        rules = 'initial_deal = "face_down"' if face_down else ""
        text = (
            BACCARAT.format(decks=options.pop("decks", 8), rules=rules)
            if game == "baccarat"
            else PAIGOW.format(bank=bank)
        )
        options.setdefault("web_face", os.environ.get("TABLEHOST_TEST_WEB_FACE", "thread"))  # "child": the real split
        running = start(write_profile(tmp_path, text), journal or tmp_path / "journal.sqlite", pace=pace, **options)
        started.append(running)
        return running

    yield run
    for running in started:
        running.stop()


def enter_pin(tab: Any, pin: str) -> None:
    """Key ``pin`` in on the page's PIN pad (``tab``: a Playwright page), then OK."""
    for digit in pin:
        tab.click(f"#pin-keys button[data-key='{digit}']")
    tab.click("#pin-keys button[data-key='ok']")


def inputs(running: Running, command: str) -> list[dict[str, Any]]:
    """The journaled DealerCommand inputs of ``command`` (without the monotonic stamp)."""
    journal = running.table.journal
    return [
        {k: v for k, v in r.data.items() if k != MONO_KEY}
        for r in journal.records()
        if r.kind == "input" and r.type == "DealerCommand" and r.data["command"] == command
    ]


@dataclasses.dataclass
class Served:
    """A display app (a Baccarat view, no table) served by the real uvicorn on a free loopback port."""

    server: DisplayServer
    hub: DisplayHub
    credentials: Credentials
    refused: list[dict[str, Any]]
    emitted: list[Any]

    @property
    def url(self) -> str:
        return self.server.url


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Served]]:
    """``serve(require_login=True, limits=ConnectionLimits(...), lockout=LockoutPolicy(...))``: started
    display servers, all stopped after the test (the dealer's PIN is DEALER_PIN)."""
    started: list[Served] = []

    def run(
        *,
        require_login: bool = False,
        limits: ConnectionLimits = ConnectionLimits(),
        lockout: LockoutPolicy | None = None,
        streams: StreamSlots | None = None,
    ) -> Served:
        write_pin_file(tmp_path / "d.pin", DEALER_PIN, n=TEST_SCRYPT_N)
        credentials = Credentials({"dealer": tmp_path / "d.pin"}, Lockout(lockout) if lockout else None)
        hub = DisplayHub(BaccaratView("T"), lambda: 0)
        refused: list[dict[str, Any]] = []
        emitted: list[Any] = []
        app = build_app(
            hub, "baccarat", emitted.append, credentials, refused.append, require_login=require_login, streams=streams
        )
        served = Served(DisplayServer(app, "127.0.0.1", 0, limits=limits), hub, credentials, refused, emitted)
        hub.start()
        served.server.start()
        started.append(served)
        return served

    yield run
    for served in started:
        served.server.stop()
        served.hub.stop()
        served.credentials.lockout.close()
