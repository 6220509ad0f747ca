"""Issue 6 item 1 at a Pai Gow table: what a restarted simulated table takes over from the journal.

The kill loop (``test_kill_restart.py``) proves the whole; these pin the parts: the shaker's
lid as the table last accepted it, the reading a reveal is owed, and wagers not placed twice.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from bench.soak.profiles import paigow_profile
from drivers.events import DeviceEvent
from drivers.events.dice import LidChanged, ShakeDetected
from drivers.events.lifecycle import DeviceIdentified, DeviceLost
from firmware_host.config.profiles import load_table
from firmware_host.host.journal import Journal
from firmware_host.tables.events import DealerCommand, WagerPlaced
from firmware_host.wiring import Table, build_table
from sim.devices.resume import ShakerResumePoint, shaker_resume_point

SHAKER_UP = DeviceIdentified(device="shaker", model="DS-3", serial="SIM-0001", firmware="1.0.4")


def console(command: str, **args: Any) -> DealerCommand:
    return DealerCommand(device="console", command=command, args=args or None)


def played(directory: Path, *events: DeviceEvent) -> Path:
    """A Pai Gow journal holding ``events`` after the shaker's handshake and a new dice set."""
    journal = directory / "journal.sqlite"
    table = build_table(load_table(paigow_profile(directory)), journal_path=journal, seed=4, stream=io.StringIO())
    try:
        for event in (SHAKER_UP, console("new_dice"), *events):
            table.service.step(event)
    finally:
        table.stop()
    return journal


def restarted(directory: Path, journal: Path) -> Table:
    return build_table(
        load_table(directory / "tables" / "sim-paigow.toml"), journal_path=journal, seed=4, stream=io.StringIO()
    )


def to_the_reveal() -> list[DeviceEvent]:
    shakes = [ShakeDetected(device="shaker", count=n) for n in (1, 2, 3)]
    return [
        WagerPlaced(device="console", seat=3, kind="paigow", amount=1000),
        console("no_more_bets"),
        console("no_bank"),
        *shakes,
        LidChanged(device="shaker", open=True),
    ]


def test_535_8_b_a_restarted_shaker_starts_with_the_lid_off_as_journaled(tmp_path: Path) -> None:
    table = restarted(tmp_path, played(tmp_path, *to_the_reveal()))
    try:
        shaker = table.devices[0].sim
        assert table.service.controller.state == "reading"
        assert shaker_resume_point(table.journal.steps()) == ShakerResumePoint(lid_open=True, covering=1, shakes=3)
        assert shaker.lid_open and (shaker.covering, shaker.shakes) == (1, 3)
    finally:
        table.stop()


def test_each_time_the_lid_goes_back_on_is_a_new_covering_with_no_shakes(tmp_path: Path) -> None:
    journal = played(tmp_path, *to_the_reveal(), LidChanged(device="shaker", open=False))
    with Journal.open(journal) as opened:
        assert shaker_resume_point(opened.steps()) == ShakerResumePoint(lid_open=False, covering=2, shakes=0)


def test_a_lid_change_ignored_while_paused_does_not_count(tmp_path: Path) -> None:
    # The lid came off while the shaker was lost: the table ignored it, so the restarted shaker's lid is on.
    events = to_the_reveal()[:-1] + [
        DeviceLost(device="shaker", reason="unplugged"),
        LidChanged(device="shaker", open=True),
    ]
    table = restarted(tmp_path, played(tmp_path, *events))
    try:
        assert not shaker_resume_point(table.journal.steps()).lid_open
        assert not table.devices[0].sim.lid_open
    finally:
        table.stop()


def test_535_8_b_the_restarted_table_asks_for_the_reading_a_reveal_is_owed(tmp_path: Path) -> None:
    table = restarted(tmp_path, played(tmp_path, *to_the_reveal()))
    try:
        back = table.service.step(SHAKER_UP)  # the handshake after the restart
        assert [d.data for d in back if d.type == "device_command"] == [
            {"device": "shaker", "command": "request_reading"}
        ]
    finally:
        table.stop()


def test_535_7_a_a_restarted_dealer_does_not_place_the_journaled_wagers_again(tmp_path: Path) -> None:
    # The players' chips stay on the layout (§ 535.7(a)): the first two wagers of round 1 reached the
    # journal before the host died, and a wager recorded twice would double the seat's wager.
    journal = tmp_path / "journal.sqlite"
    first = build_table(load_table(paigow_profile(tmp_path)), journal_path=journal, seed=4, stream=io.StringIO())
    assert first.dealer is not None
    bets = [
        WagerPlaced(device="console", seat=seat, kind=kind, amount=amount) for seat, kind, amount in first.dealer.bets()
    ]
    assert len(bets) >= 3
    for event in (SHAKER_UP, console("new_dice"), *bets[:2]):
        first.service.step(event)
    first.stop()
    table = restarted(tmp_path, journal)
    try:
        assert table.dealer is not None
        placed: list[DeviceEvent] = []
        table.dealer.emit = placed.append
        table.dealer.place_bets()
        assert placed == bets[2:]
    finally:
        table.stop()
