"""Outputs: what acts on decisions once they are journaled.

- :class:`DealerView` — the dealer's view as a plain stream of lines (next card for whom,
  totals, outcome, "last hand", irregularity alerts), each naming the table and round;
- :class:`PanelOutput` — the tower lamp and buzzer on GPIO;
- :class:`EventFeed` — one JSON object per decision for the casino's surveillance and
  table-games systems (a file, a FIFO or standard output);
- :class:`ShufflerCommands` — the ``device_command`` decisions for the shuffler, carried out
  on its driver.

Each is an :class:`~firmware_host.service.Output`: ``on_decisions(decisions)``, called from
the service thread after the step is durable; none may block.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Protocol, Sequence, TextIO

from firmware_host.decisions import Decision

__all__ = ["DealerView", "PanelOutput", "EventFeed", "ShufflerCommands"]

#: Decision types the dealer sees; ``round_result``/``shoe_result`` are summarised in one line.
_SHOWN = ("prompt", "announce", "alert", "device", "round_result", "shoe_result")


class DealerView:
    """The dealer's view in the terminal: one line per decision a dealer acts on.

    :param stream: where lines go (standard output by default in the CLI).
    :param table_id: shown at the start of every line.
    :param quiet_prompts: leave out routine prompts (long simulated runs show progress instead).
    """

    def __init__(self, stream: TextIO, table_id: str, quiet_prompts: bool = False) -> None:
        self.stream = stream
        self.table_id = table_id
        self.quiet_prompts = quiet_prompts

    def on_decisions(self, decisions: Sequence[Decision]) -> None:
        """Write a line for each decision the dealer acts on."""
        for decision in decisions:
            if decision.type not in _SHOWN or (self.quiet_prompts and decision.type in ("prompt", "device")):
                continue
            where = f"{self.table_id} r{decision.round}" if decision.round is not None else self.table_id
            self.stream.write(f"[{where}] {self.describe(decision)}\n")
        self.stream.flush()

    @staticmethod
    def describe(decision: Decision) -> str:
        """The text of one decision for a person."""
        data = decision.data
        if decision.type == "alert":
            return f"{data.get('severity', 'attention').upper()}: {data.get('text')}"
        if decision.type == "round_result":
            return _round_line(data)
        if decision.type == "shoe_result":
            ok = "composition ok" if data.get("composition_ok", True) else "COMPOSITION MISMATCH"
            return f"shoe {data.get('shoe')} finished: {data.get('rounds')} rounds, {data.get('cards_read')} cards read, {ok}"
        text = data.get("text")
        return str(text) if text else f"{decision.type}: " + ", ".join(f"{k}={v}" for k, v in data.items())


def _round_line(data: dict[str, Any]) -> str:
    if data.get("status") == "void":
        return f"round {data.get('round')} VOID"
    if data.get("game") == "paigow":
        return f"round {data.get('round')}: dice {data.get('dice')} total {data.get('total')} start {data.get('start')}"
    return (f"round {data.get('round')}: player {' '.join(data.get('player', []))} = {data.get('player_total')}, "
            f"banker {' '.join(data.get('banker', []))} = {data.get('banker_total')}: {str(data.get('winner')).upper()}")


class Panel(Protocol):
    """The part of :class:`drivers.gpio.TablePanel` the lamp output uses."""

    def show(self, colour: str) -> None: ...

    def buzz(self) -> None: ...


class PanelOutput:
    """Tower lamp follows ``lamp`` decisions; the buzzer sounds on ``fault`` alerts."""

    def __init__(self, panel: Panel) -> None:
        self.panel = panel

    def on_decisions(self, decisions: Sequence[Decision]) -> None:
        """Light the lamp / sound the buzzer."""
        for decision in decisions:
            if decision.type == "lamp":
                self.panel.show(decision.data["colour"])
            elif decision.type == "alert" and decision.data.get("severity") == "fault":
                self.panel.buzz()


class EventFeed:
    """One JSON object per decision, one per line: ``{"table", "round", "type", "data"}``."""

    def __init__(self, stream: TextIO, table_id: str) -> None:
        self.stream = stream
        self.table_id = table_id

    def on_decisions(self, decisions: Sequence[Decision]) -> None:
        """Write and flush every decision."""
        for decision in decisions:
            record = {"table": self.table_id, "round": decision.round, "type": decision.type, "data": decision.data}
            self.stream.write(json.dumps(record, separators=(",", ":")) + "\n")
        self.stream.flush()


log = logging.getLogger("tablehost.outputs")


class Shuffler(Protocol):
    """The commands of :class:`drivers.shuffler.ShufflerDriver` the controller decides."""

    def start_shuffle(self, batch: str, expected_cards: int) -> None: ...

    def release_batch(self, batch: str) -> None: ...


class ShufflerCommands:
    """Carry out the controller's ``device_command`` decisions for one shuffler.

    The controller is pure: it decides ``{"device", "command", "batch", ...}`` and this output
    sends it once the step is durable. The driver queues the command for its own thread, so
    nothing here blocks. A command this output does not know is logged, never sent.

    :param device: the shuffler's device name (decisions for other devices are not its own).
    :param driver: the shuffler's driver.
    """

    def __init__(self, device: str, driver: Shuffler) -> None:
        self.device = device
        self.driver = driver

    def on_decisions(self, decisions: Sequence[Decision]) -> None:
        """Send every ``device_command`` addressed to this shuffler."""
        for decision in decisions:
            data = decision.data
            if decision.type != "device_command" or data.get("device") != self.device:
                continue
            if data.get("command") == "start_shuffle":
                self.driver.start_shuffle(data["batch"], data["expected_cards"])
            elif data.get("command") == "release_batch":
                self.driver.release_batch(data["batch"])
            else:
                log.error("%s: device command %r is not one a shuffler takes", self.device, data.get("command"))
