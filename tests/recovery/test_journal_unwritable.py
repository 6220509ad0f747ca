"""A journal that cannot be written mid-run (issue 27, item 5): before the service exits it tells
the dealer (the red lamp, the buzzer held on, a banner on the display, the dealer view's line)
and writes the reason into the journal while it can still take it; the step that failed is
acted on by nothing, the journal still verifies, and the stop stays prompt."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from bench.display.table import BACCARAT, PROFILES, write_profile
from firmware_host.config.profiles import load_table
from firmware_host.errors import JournalError
from firmware_host.host.journal import Journal
from firmware_host.host.journal_verify import verify
from firmware_host.host.service import HALTED_META
from firmware_host.wiring import Table, build_table
from tests.support.paths import REPO

#: The display tests' Baccarat table, with the tower lamp and buzzer on mock GPIO pins.
GPIO = """
[gpio]
pin_factory = "mock"
buttons = { no_more_bets = 17, reveal = 27, card_disclosed = 22, void_round = 23, acknowledge = 24 }
lamp = { green = 5, amber = 6, red = 13 }
buzzer = 19
"""
#: The embedded simulated table (``make run``'s).
SIM_PROFILE = REPO / "hardware-profiles" / "tables" / "sim-baccarat.toml"
#: Rounds played before the journal fails (the run is asked for many more).
BEFORE = 2


class _Stream(threading.Thread):
    """The dealer page's live stream, read to its end (the server's stop ends it)."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url, self.states = url, []  # type: tuple[str, list[dict[str, Any]]]
        self.open = threading.Event()

    def run(self) -> None:
        with httpx2.stream("GET", self.url + "/api/stream?view=dealer", timeout=30) as response:
            self.open.set()
            for line in response.iter_lines():
                if line.startswith("data: "):
                    self.states.append(json.loads(line[6:])["state"])


def _play_until_it_fails(tmp_path: Path, fail: Any) -> tuple[Table, BaseException | None, float, str]:
    """Run the simulated table with its display; once it has played :data:`BEFORE` rounds, call
    ``fail(table)``; return the table (stopped), what its loop raised, the seconds from the
    failure to the end of the stop, and the dealer view's text."""
    out = io.StringIO()
    profile = load_table(
        write_profile(tmp_path, BACCARAT.format(decks=8, rules="") + GPIO), devices_dir=PROFILES / "devices"
    )
    table = build_table(profile, journal_path=tmp_path / "j.sqlite", seed=4, rounds=200, stream=out)
    raised: list[BaseException] = []

    def loop() -> None:
        try:
            table.service.run()
        except BaseException as exc:
            raised.append(exc)

    table.start()
    assert table.display is not None
    stream = _Stream(table.display.url)
    stream.start()
    assert stream.open.wait(10)
    thread = threading.Thread(target=loop)
    thread.start()
    deadline = time.monotonic() + 60
    while table.service.rounds_finished < BEFORE and time.monotonic() < deadline:
        time.sleep(0.01)
    fail(table)
    failed_at = time.monotonic()
    thread.join(30)
    table.stop()
    stopped = time.monotonic() - failed_at
    stream.join(10)
    table.stream_states = stream.states  # type: ignore[attr-defined]
    return table, raised[0] if raised else None, stopped, out.getvalue()


def _halted(table: Table, reason: str) -> None:
    """The dealer was told, on every output."""
    panel = table.panel
    assert panel is not None and panel.lit() == "red" and panel.buzzer is not None and panel.buzzer.is_active
    assert table.display is not None
    state = json.loads(table.display.hub.snapshot.state)
    assert state["banner"].startswith("TABLE STOPPED: the journal cannot be written") and reason in state["banner"]
    assert state["lamp"] == "red" and state["prompt"]["action"] == "wait"
    pushed = table.stream_states  # type: ignore[attr-defined]
    assert pushed and pushed[-1]["banner"] == state["banner"]  # pushed to the page before the server stopped
    panel.close()


def test_a_full_disk_stops_the_table_with_the_lamp_buzzer_and_banner(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def fill(table: Table) -> None:  # the disk holds no more pages than the journal has now
        journal = table.journal
        with journal._lock:
            (pages,) = journal._conn.execute("PRAGMA page_count").fetchone()
            journal._conn.execute(f"PRAGMA max_page_count = {pages}")

    with caplog.at_level(logging.CRITICAL, "tablehost.service"):
        table, raised, stopped, view = _play_until_it_fails(tmp_path, fill)
    assert isinstance(raised, JournalError) and "database or disk is full" in str(raised)
    _halted(table, "database or disk is full")
    assert "TABLE STOPPED: the journal cannot be written" in view
    said = [r.getMessage() for r in caplog.records]
    refused_too = any(m.startswith("the journal cannot take why the table stops either") for m in said)
    assert stopped < 10  # prompt: the display's last push and the stop, not a hang
    report = verify(tmp_path / "j.sqlite")
    assert report.ok  # what was written before the full disk is whole
    with Journal.open(tmp_path / "j.sqlite") as journal:
        records = list(journal.records())
    halted = [r for r in records if r.type == HALTED_META]
    # The small `halted` record may still fit in the last page's free room where the step did not
    # (SQLite's page fill decides): then it is the last record and says why; else the log says so.
    if refused_too:
        assert halted == []
    else:
        assert halted == [records[-1]] and "database or disk is full" in halted[0].data["reason"]


def test_the_reason_is_journaled_while_the_journal_can_take_it(tmp_path: Path) -> None:
    def fail_once(table: Table) -> None:  # one write refused (an I/O error that passes): the next is taken
        journal, append = table.journal, table.journal.append_step

        def refuse(*args: Any, **kwargs: Any) -> int:
            journal.append_step = append  # type: ignore[method-assign]
            raise JournalError(f"journal {journal.path}: cannot append record {journal.last_seq + 1}: disk I/O error")

        journal.append_step = refuse  # type: ignore[method-assign]

    table, raised, _, _ = _play_until_it_fails(tmp_path, fail_once)
    assert isinstance(raised, JournalError)
    _halted(table, "disk I/O error")
    assert verify(tmp_path / "j.sqlite").ok
    with Journal.open(tmp_path / "j.sqlite") as journal:
        records = list(journal.records())
    assert records[-1].type == HALTED_META and records[-1].data["reason"] == str(raised)
    assert records[-1].data["reason"].endswith("disk I/O error")


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs of 256 KiB, 96 KiB of it taken: a disk that fills within a few dozen steps."""
    mount = tmp_path / "disk"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs (needs root): {made.stderr.decode().strip()}")
    try:
        (mount / "filler").write_bytes(bytes(96 * 1024))
        yield mount
    finally:
        subprocess.run(["umount", "--lazy", str(mount)], check=True)


def test_tablehost_run_on_a_disk_that_fills_stops_with_exit_2_and_says_so(small_disk: Path) -> None:
    journal = small_disk / "j.sqlite"
    command = [sys.executable, "-m", "firmware_host", "run", "--profile", str(SIM_PROFILE), "--journal", str(journal)]
    done = subprocess.run([*command, "--rounds", "500"], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 2
    stopped = done.stderr.strip().splitlines()[-1]
    assert stopped.startswith(f"tablehost: journal {journal}: cannot append record ") and "disk is full" in stopped
    assert (
        f"TABLE STOPPED: the journal cannot be written; call a supervisor ({stopped[len('tablehost: ') :]})"
        in done.stdout
    )
    assert verify(journal).ok
    with Journal.open(journal) as reopened:  # the reason, when the disk could still take that small record
        last = list(reopened.records(reopened.last_seq))[0]
    written = last.type == HALTED_META and last.data["reason"] == stopped[len("tablehost: ") :]
    assert written or "the journal cannot take why the table stops either" in done.stderr
