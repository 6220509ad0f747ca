"""Wiring of a Baccarat table: the controller, the shuffler's commands and the simulated dealer."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from drivers.events import DeviceEvent
from drivers.gpio import TablePanel
from firmware_host.config.baccarat import shuffler_slot, table_rules
from firmware_host.config.profiles import TableProfile
from firmware_host.host.outputs import ShufflerCommands
from firmware_host.host.service import Output
from firmware_host.rules.baccarat.advantage_play import DetectionPolicy
from firmware_host.rules.baccarat.wagers import in_wager_order
from firmware_host.tables.baccarat.controller import BaccaratTable
from firmware_host.wiring.devices import DeviceParts
from firmware_host.wiring.simulated import sim_players
from sim.dealers.baccarat import BaccaratDealer
from sim.devices.resume import ResumePoints, resume_shuffler

__all__ = ["controller", "outputs", "dealer"]


def controller(profile: TableProfile) -> BaccaratTable:
    """The Baccarat controller with the table's Rules Submission (and its shuffler's, if it has one)."""
    approved = {name: slot.model.approved for name, slot in profile.devices.items()}
    rules, shuffler = table_rules(profile)
    slot = shuffler_slot(profile)
    table = BaccaratTable(
        profile.table_id, approved, rules, profile.decks,
        initial_cards_face_down=rules.initial_deal == "face_down",
        face_up_discards=rules.face_up_discards,
        shuffler=shuffler,
        shuffler_device=slot.name if slot is not None else "shuffler",
        advantage_threshold=profile.protection.advantage_threshold,
        detection=dataclasses.replace(profile.protection.detection or DetectionPolicy(), gaming_day=profile.gaming_day),
    )  # fmt: skip
    table.clock.step_tolerance_ns, table.clock.gaming_day = profile.clock.step_tolerance_ns, profile.gaming_day
    return table


def outputs(profile: TableProfile, table: BaccaratTable, devices: dict[str, DeviceParts]) -> list[Output]:
    """What carries out the controller's device commands: the shuffler's, if the table has one."""
    return [ShufflerCommands(name, parts.driver) for name, parts in devices.items()
            if parts.slot.model.kind == "shuffler"]  # fmt: skip


def dealer(
    profile: TableProfile,
    table: BaccaratTable,
    devices: dict[str, DeviceParts],
    emit: Callable[[DeviceEvent], None],
    press: Callable[[str], None],
    seed: int,
    resume: ResumePoints,
    panel: TablePanel | None,
) -> BaccaratDealer:
    """The simulated dealer at the simulated shoe (and shuffler), resumed where the journal stands."""
    shoe = next(parts.sim for parts in devices.values() if parts.slot.model.kind == "shoe")
    assert shoe is not None  # a simulated table's shoe is simulated
    shuffler = next((parts.sim for parts in devices.values() if parts.slot.model.kind == "shuffler"), None)
    errors = {name: float(value) for name, value in profile.dealer.items()}
    exposed = () if table.shoe is None else tuple(table.shoe.exposed.elements())
    sim_dealer = BaccaratDealer(
        emit,
        press,
        seed,
        shoe,
        offered=in_wager_order(table.rules.offered_wagers),  # one order, every process
        errors=errors,
        shuffler=shuffler,
        **sim_players(profile, table.rules, exposed),
    )
    sim_dealer.resume_after(table.rounds_finished)
    sim_dealer.resume_shoe(resume.shoe.shoes_loaded)
    if shuffler is not None:
        resume_shuffler(shoe, shuffler, resume.shuffler, resume.shoe.draws)
    if table.state == "betting":
        sim_dealer.resume_wagers(table.round.wagers)
    return sim_dealer
