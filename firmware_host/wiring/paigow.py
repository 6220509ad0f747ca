"""Wiring of a Pai Gow table: the controller and the simulated dealer, players and bank."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drivers.events import DeviceEvent
from drivers.gpio import TablePanel
from firmware_host.config.profiles import TableProfile
from firmware_host.config.rules import load_paigow_rules
from firmware_host.errors import ProfileError
from firmware_host.host.outputs import ShakerCommands
from firmware_host.host.service import Output
from firmware_host.tables.paigow import WAGER_KIND, PaiGowTable
from firmware_host.wiring.devices import DeviceParts
from sim.dealers.paigow import Lid, PaiGowDealer, ResumedShaking
from sim.devices.resume import ResumePoints

__all__ = ["controller", "outputs", "dealer"]


def controller(profile: TableProfile) -> PaiGowTable:
    """The Pai Gow controller with the table's Rules Submission."""
    approved = {name: slot.model.approved for name, slot in profile.devices.items()}
    shaker = next((name for name, slot in profile.devices.items() if slot.model.kind == "shaker"), "shaker")
    table = PaiGowTable(profile.table_id, approved, load_paigow_rules(profile.rules, profile.path), shaker)
    table.clock.step_tolerance_ns, table.clock.gaming_day = profile.clock.step_tolerance_ns, profile.gaming_day
    return table


def outputs(profile: TableProfile, table: PaiGowTable, devices: dict[str, DeviceParts]) -> list[Output]:
    """What carries out the controller's device commands: the shaker's."""
    return [ShakerCommands(name, parts.driver) for name, parts in devices.items()
            if parts.slot.model.kind == "shaker"]  # fmt: skip


def dealer(
    profile: TableProfile,
    table: PaiGowTable,
    devices: dict[str, DeviceParts],
    emit: Callable[[DeviceEvent], None],
    press: Callable[[str], None],
    seed: int,
    resume: ResumePoints,
    panel: TablePanel | None,
) -> PaiGowDealer:
    """The simulated dealer at the simulated shaker, resumed after the journal's finished rounds."""
    shaker = next(parts.sim for parts in devices.values() if parts.slot.model.kind == "shaker")
    assert shaker is not None  # a simulated table's shaker is simulated
    lid = _reed_switch(profile, panel, table.lid_open) if profile.gpio.lid_source == "gpio" else None
    sim_dealer = PaiGowDealer(emit, press, seed, shaker, table.rules, table.view, lid=lid, choices=profile.dealer)
    sim_dealer.resume_after(table.rounds_finished)
    if table.state == "shaking":
        round_ = table.round
        sim_dealer.resume_shaking(
            ResumedShaking(
                shaker.covering, round_.shakes, round_.shaken_by, round_.bank_seat, round_.cut is not None, round_.style
            )
        )
    if table.state == "betting":
        sim_dealer.resume_wagers((seat, WAGER_KIND) for seat in table.round.wagers)
    return sim_dealer


def _reed_switch(profile: TableProfile, panel: TablePanel | None, lid_open: bool) -> Lid:
    """Set the lid's reed switch on its mock pin (it reads low while the lid is on), starting
    where the table believes the lid is (``lid_open``, from the journal)."""
    if panel is None or not panel.simulated or panel.lid is None:
        raise ProfileError(
            profile.path,
            "gpio.pin_factory",
            'a simulated table with lid_source = "gpio" needs pin_factory = "mock" and a lid pin',
        )
    panel.preset_mock_lid(lid_open)
    pin: Any = panel.lid.pin

    def set_lid(open_: bool) -> None:
        if open_:
            pin.drive_high()
        else:
            pin.drive_low()

    return set_lid
