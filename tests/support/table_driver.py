"""Drive a table controller with event sequences, the way the service does.

:class:`TableDriver` keeps the clock, feeds events and keeps every decision; each game's
test folder subclasses it with the table it builds and the game's own event helpers.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Generic, TypeVar

from drivers.events import DeviceEvent
from firmware_host.tables.base import TableController
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import DealerCommand

__all__ = ["TableDriver", "command"]

Table = TypeVar("Table", bound=TableController)


def command(command_name: str, /, **args: Any) -> DealerCommand:
    """A dealer command with its arguments (``command("style", name="...")`` works too)."""
    return DealerCommand(device="buttons", command=command_name, args=args or None)


class TableDriver(Generic[Table]):
    """A controller and everything it decided, fed one event at a time.

    :param table: the controller under test.
    """

    def __init__(self, table: Table) -> None:
        self.table = table
        self.decisions: list[Decision] = []
        #: Every event fed, with the time it was fed at (what a journal would replay).
        self.steps: list[tuple[float, DeviceEvent]] = []
        self.clock = 0.0

    @property
    def events(self) -> list[DeviceEvent]:
        """Every event fed, in order."""
        return [event for _, event in self.steps]

    def feed(self, *events: DeviceEvent | Iterable[DeviceEvent], gap: float = 1.0) -> list[Decision]:
        """Feed events (or lists of events) ``gap`` seconds apart; return their decisions."""
        out: list[Decision] = []
        for item in events:
            for event in [item] if isinstance(item, DeviceEvent) else item:
                self.clock += gap
                self.steps.append((self.clock, event))
                out += self.handle(event, self.clock)
        self.decisions += out
        return out

    def handle(self, event: DeviceEvent, at: float, mono_ns: int | None = None) -> list[Decision]:
        """Hand one event to the table (``tests/tables/conftest.py`` checks its checkpoints here)."""
        return self.table.handle(event, at, mono_ns)

    def of(self, type_: str, decisions: Iterable[Decision] | None = None) -> list[dict[str, Any]]:
        """The data of every decision of one type (of all decisions by default)."""
        return [d.data for d in (self.decisions if decisions is None else decisions) if d.type == type_]

    def prompt(self) -> dict[str, Any]:
        """The latest prompt decision."""
        return self.of("prompt")[-1]

    def results(self) -> list[dict[str, Any]]:
        """Every round_result so far."""
        return self.of("round_result")

    def alerts(self, decisions: Iterable[Decision] | None = None) -> list[str]:
        """The codes of the alerts decided."""
        return [a["code"] for a in self.of("alert", decisions)]

    def announced(self, what: str, decisions: Iterable[Decision] | None = None) -> list[dict[str, Any]]:
        """The ``announce`` decisions that announce ``what``."""
        return [a for a in self.of("announce", decisions) if a["announce"] == what]
