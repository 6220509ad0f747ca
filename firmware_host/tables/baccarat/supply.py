"""Where a Baccarat table's shoes come from: shuffled by hand, or by an automatic shuffler.

:class:`ShoeSupply` is what the table asks of its supply at each point of a shoe's life.
:class:`HandShuffled` is the table without a shuffler (a shuffled shoe is loaded, § 541.3(a));
:class:`~.shuffler.ShufflerSide` is the table with one (§ 541.3(b)), created only then.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from drivers.events import DeviceEvent
from firmware_host.rules.baccarat.cards import shoe_composition
from firmware_host.tables.baccarat.prompts import Action, Prompt
from firmware_host.tables.baccarat.shoe import Shoe
from firmware_host.tables.events import ClockTick

if TYPE_CHECKING:
    from firmware_host.tables.baccarat.controller import BaccaratTable

__all__ = ["HandShuffled", "ShoeSupply"]


class ShoeSupply(Protocol):
    """What a Baccarat table asks of its shoe supply."""

    def on_device(self, event: DeviceEvent) -> None:
        """A device was found or lost (before the table applies it)."""

    def ask(self) -> None:
        """After every event and device change: decide what the devices are asked to do."""

    def load(self, args: Mapping[str, Any]) -> None:
        """``shoe_loaded`` (``args``: the command's) at ``awaiting_shoe``."""

    def shoe_opened(self, shoe: Shoe, fields: dict[str, Any]) -> str:
        """The shoe is in: add to the ``shoe`` announcement's ``fields``; return where it came from, for people."""

    def shoe_closing(self, shoe: Shoe, data: dict[str, Any]) -> None:
        """The shoe is over: add to its ``shoe_result`` ``data``, audit it."""

    def round_finished(self, shoe: Shoe) -> None:
        """A round of ``shoe`` was recorded (before the machine moves on)."""

    def record_between_shoes(self, alert: dict[str, str]) -> None:
        """An alert while no shoe is in play."""

    def load_prompt(self) -> Prompt:
        """The prompt while awaiting a shoe."""

    def view(self) -> dict[str, Any]:
        """The supply's part of the dealer's view."""


class HandShuffled:
    """The supply of a table without a shuffler: the dealer loads a shuffled shoe.

    :param table: the table it supplies.
    """

    #: Not the table's state (:mod:`firmware_host.tables.state_tree`): the table it works for, its settings.
    NOT_STATE = ("table",)

    def __init__(self, table: BaccaratTable) -> None:
        self.table = table
        table.register(ClockTick, self.on_tick)

    def on_tick(self, event: ClockTick) -> None:
        """Without a shuffler a tick changes nothing (§ 541.5(h)(2) ends idle shoes only with one)."""

    def on_device(self, event: DeviceEvent) -> None:
        """Nothing to do: the table's base class handles device health."""

    def ask(self) -> None:
        """No device to ask."""

    def load(self, args: Mapping[str, Any]) -> None:
        """``shoe_loaded``: ``decks`` (default: the table's) six to eight (§ 541.3(a))."""
        decks = args.get("decks", self.table.decks)
        shoe_composition(decks)  # RulesError for a deck count ch. 541 does not play
        self.table.shoe_loaded(decks)

    def shoe_opened(self, shoe: Shoe, fields: dict[str, Any]) -> str:
        return f"{shoe.decks} decks"

    def shoe_closing(self, shoe: Shoe, data: dict[str, Any]) -> None:
        """Nothing to audit: the composition is checked card by card (§ 541.3)."""

    def round_finished(self, shoe: Shoe) -> None:
        """No deck clock without a shuffler."""

    def record_between_shoes(self, alert: dict[str, str]) -> None:
        """No shoe result to carry it: the alert decision is in the journal."""

    def load_prompt(self) -> Prompt:
        return {"action": Action.LOAD_SHOE, "text": "load a shuffled shoe, then press shoe loaded"}

    def view(self) -> dict[str, Any]:
        return {}
