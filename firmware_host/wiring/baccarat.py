"""Wiring of a Baccarat table: the controller and the simulated dealer."""

from __future__ import annotations

from typing import Callable

from drivers.events import DeviceEvent
from firmware_host.baccarat.rules import RulesSubmission
from firmware_host.baccarat_table import BaccaratTable
from firmware_host.journal import Journal
from firmware_host.profiles import TableProfile
from firmware_host.recovery import shoe_resume_point
from firmware_host.wiring.devices import DeviceParts
from sim.dealer import BaccaratDealer

__all__ = ["controller", "dealer"]


def controller(profile: TableProfile) -> BaccaratTable:
    """The Baccarat controller with the table's Rules Submission."""
    approved = {name: slot.model.approved for name, slot in profile.devices.items()}
    rules = RulesSubmission.from_mapping(profile.rules.data, str(profile.path))
    return BaccaratTable(profile.table_id, approved, rules, profile.decks)


def dealer(profile: TableProfile, table: BaccaratTable, devices: dict[str, DeviceParts],
           emit: Callable[[DeviceEvent], None], press: Callable[[str], None], seed: int,
           journal: Journal) -> BaccaratDealer:
    """The simulated dealer at the simulated shoe, resumed where the journal stands."""
    shoe = next(parts.sim for parts in devices.values() if parts.slot.model.kind == "shoe")
    errors = {name: float(value) for name, value in profile.dealer.items()}
    sim_dealer = BaccaratDealer(emit, press, seed, shoe, offered=table.rules.offered_wagers, errors=errors)
    sim_dealer.resume_after(table.rounds_finished)
    sim_dealer.resume_shoe(shoe_resume_point(journal).shoes_loaded)
    return sim_dealer
