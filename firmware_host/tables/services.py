"""What a table controller's collaborators ask of it: :class:`TableServices`.

A game controller is a facade over collaborators (a Baccarat table's shoe, round and shuffler
side; a Pai Gow table's bank, roll and settlement; every table's clock and device identities).
They decide through the controller, by this named interface, never through its underscore
methods (``tests/architecture/test_rooms.py`` checks): so a newcomer reading a collaborator
finds what it may do here, and the controller may change how it does it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

from drivers.events import DeviceEvent
from firmware_host.tables.decisions import Decision

if TYPE_CHECKING:
    from firmware_host.tables.base import DeviceHealth

__all__ = ["TableServices"]


class TableServices(Protocol):
    """The decisions and checks a table offers its collaborators
    (:class:`~firmware_host.tables.base.TableController` implements it)."""

    #: The machine's state.
    state: str
    #: What the table knows of each of its devices, by name.
    devices: dict[str, DeviceHealth]

    @property
    def paused(self) -> bool:
        """True while any device is lost, unidentified or refused."""

    @property
    def step_decisions(self) -> Sequence[Decision]:
        """The decisions of the step under way so far."""

    def decide(self, type: str, data: dict[str, Any], round: int | None = None) -> None:
        """Record a decision of this step."""

    def alert(self, code: str, text: str, severity: str = "attention", round: int | None = None) -> None:
        """Record an ``alert`` decision (``round``: None between rounds)."""

    def alert_in_round(self, code: str, text: str, severity: str = "attention") -> None:
        """An ``alert`` decision of the round under way."""

    def announce(self, what: str, text: str, **fields: Any) -> None:
        """An ``announce`` decision of the round under way."""

    def decision_round(self) -> int | None:
        """The round a decision belongs to: the open one, or None between rounds."""

    def require_state(self, command: str, *states: str) -> None:
        """Refuse ``command`` (as the machine refuses a trigger) outside ``states``."""

    def refuse(self, code: str, text: str, severity: str = "warning") -> NoReturn:
        """Refuse the input being applied."""

    def describe(self, event: DeviceEvent) -> str:
        """The event as an alert names it."""

    def paused_text(self) -> str:
        """Why the table is paused, for a refusal."""

    def say_prompt(self, prompt: dict[str, Any]) -> None:
        """Decide ``prompt`` now."""

    def prompt_again(self) -> None:
        """Have the prompt decided again after this event even if it is unchanged."""

    def show_lamp(self) -> None:
        """Decide the lamp's colour now."""

    def on_devices_changed(self) -> None:
        """A device was lost, found, approved or refused."""
