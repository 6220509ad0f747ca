"""A simulated table serving its display on a free loopback port, started in a thread.

:func:`write_profile` writes a table profile (:data:`BACCARAT`, :data:`PAIGOW`) with PIN files
beside it; :func:`start` builds and starts the table, its simulated dealer optionally held at a
prompt by a :class:`Gate` while a test (or the bench) acts at the display.
"""

from __future__ import annotations

import dataclasses
import io
import json
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.soak.profiles import PROFILES
from firmware_host.config.profiles import load_table
from firmware_host.web.pins import write_pin_file
from firmware_host.wiring import Table, build_table

__all__ = [
    "DEALER_PIN",
    "SUPERVISOR_PIN",
    "TEST_SCRYPT_N",
    "DISPLAY",
    "BACCARAT",
    "PAIGOW",
    "Gate",
    "Running",
    "write_profile",
    "start",
]

#: The test PINs (written hashed to files in tmp_path, with a cheap scrypt cost to keep tests quick).
DEALER_PIN, SUPERVISOR_PIN = "2468", "13579"
#: scrypt N for the test PIN files (the real default is 2**14).
TEST_SCRYPT_N = 2**10

#: What both tables' ``[display]`` say besides their limits: a free loopback port, the test PIN files.
DISPLAY = """listen = "127.0.0.1:0"
dealer_pin_file = "dealer.pin"
supervisor_pin_file = "supervisor.pin"
"""

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
limits = {{ min = 2500, max = 500000 }}
{{display}}"""

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
limits = {{ min = 1000, max = 200000 }}
{{display}}
[sim.dealer]
bank = {bank}
"""


class Gate:
    """Stands between the service and the simulated dealer: it passes every step on until a
    prompt whose action is in :attr:`hold_at` comes (or that ``hold_at`` accepts, when it is a
    function of the prompt), then holds the dealer there (the test acts at the display instead)
    until :meth:`release`."""

    def __init__(self, dealer: Any, hold_at: set[str] | Callable[[dict[str, Any]], bool]) -> None:
        self.dealer, self.hold_at = dealer, hold_at
        self.held: list[Any] = []
        self.holding = threading.Event()
        self._lock = threading.Lock()

    def on_decisions(self, decisions: Any) -> None:
        with self._lock:
            if not self.holding.is_set() and any(d.type == "prompt" and self._holds(d.data) for d in decisions):
                self.holding.set()
            if self.holding.is_set():
                self.held.append(list(decisions))
                return
        self.dealer.on_decisions(decisions)

    def _holds(self, prompt: dict[str, Any]) -> bool:
        return self.hold_at(prompt) if callable(self.hold_at) else prompt.get("action") in self.hold_at

    def release(self, hold_at: set[str] | Callable[[dict[str, Any]], bool] | None = None) -> None:
        """Let the dealer go on (holding next at ``hold_at``): it sees what it missed."""
        with self._lock:
            self.hold_at = hold_at or set()
            held, self.held = self.held, []
            self.holding.clear()
            for decisions in held:
                self.dealer.on_decisions(decisions)


@dataclasses.dataclass
class Running:
    """A table whose service runs in a thread, its display served."""

    table: Table
    thread: threading.Thread
    gate: Gate | None = None
    stopped: bool = False

    @property
    def url(self) -> str:
        """Where the dealer display is served (by the web face in this process, or its child)."""
        child = self.table.web_child
        if child is not None:
            return child.urls["display"]
        assert self.table.display is not None
        return self.table.display.url

    @property
    def service(self) -> Any:
        return self.table.service

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until the display has applied every decision journaled so far (True), or ``timeout``
        seconds (False); in this process or in its web face child."""
        display, face = self.table.display, self.table.face
        if display is not None:
            return display.hub.flush(timeout)
        if face is None or not face.sync(timeout):
            return False
        last = face.written  # the last record the display may show, in the face file
        deadline = time.monotonic() + timeout
        while self.seq() < last:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def seq(self) -> int:
        """The journal seq the display's state stands at."""
        display = self.table.display
        if display is not None:
            return display.hub.snapshot.seq
        with urllib.request.urlopen(self.url + "/api/state", timeout=5) as answer:
            return int(json.load(answer)["seq"])

    def refusals_written(self, count: int = 1, timeout: float = 10.0) -> None:
        """Wait until the display's refusal records so far are journaled (at least ``count``, from a child)."""
        display = self.table.display
        if display is not None:
            display.server.app.state.refusals.written()
            return
        deadline = time.monotonic() + timeout
        while len(self.table.journal.meta("display_refused")) < count and time.monotonic() < deadline:
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop the service and the table (once)."""
        if self.gate is not None:
            self.gate.release()
        self.table.service.stop()
        self.thread.join(timeout=10)
        if not self.stopped:
            self.stopped = True
            self.table.stop()


def write_profile(folder: Path, text: str) -> Path:
    """A table profile in ``folder`` with the test PIN files beside it."""
    write_pin_file(folder / "dealer.pin", DEALER_PIN, n=TEST_SCRYPT_N)
    write_pin_file(folder / "supervisor.pin", SUPERVISOR_PIN, n=TEST_SCRYPT_N)
    path = folder / "table.toml"
    path.write_text(text.replace("{display}", DISPLAY))
    return path


def start(
    profile_path: Path,
    journal: Path,
    *,
    seed: int = 1,
    pace: float = 0.0,
    rounds: int | None = None,
    hold_at: set[str] | Callable[[dict[str, Any]], bool] | None = None,
    **build: Any,
) -> Running:
    """Build and start the table of ``profile_path``; with ``hold_at``, its simulated dealer
    stops at the first prompt of those actions (see :class:`Gate`). ``build``: more of
    :func:`~firmware_host.wiring.build_table`'s options (``web_face="child"``)."""
    profile = load_table(profile_path, devices_dir=PROFILES / "devices")
    table = build_table(
        profile, journal_path=journal, seed=seed, rounds=rounds, stream=io.StringIO(), pace=pace, **build
    )
    gated = None
    if hold_at is not None:
        outputs = table.service.outputs
        gated = Gate(table.dealer, hold_at)
        outputs[outputs.index(table.dealer)] = gated
    table.start()
    thread = threading.Thread(target=table.service.run, name="service", daemon=True)
    thread.start()
    return Running(table, thread, gated)
