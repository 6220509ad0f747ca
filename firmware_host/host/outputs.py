"""Outputs: what acts on decisions once they are journaled.

- :class:`DealerView` — the dealer's view as a plain stream of lines (next card for whom,
  totals, outcome, "last hand", irregularity alerts), each naming the table and round;
- :class:`PanelOutput` — the tower lamp and buzzer on GPIO;
- :class:`EventFeed` — one JSON object per decision for the casino's surveillance and
  table-games systems (a file, a FIFO or standard output);
- :class:`ShufflerCommands`, :class:`ShakerCommands` — the ``device_command`` decisions for
  the shuffler and the shaker, carried out on their drivers.

Each is an :class:`~firmware_host.host.service.Output`: ``on_decisions(decisions)``, called from
the service thread after the step is durable; none may block.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any, Protocol, TextIO

from firmware_host.tables.decisions import HALTED, Decision, for_outputs, for_surveillance_only
from firmware_host.text import escaped

__all__ = ["DealerView", "PanelOutput", "EventFeed", "DeviceCommands", "ShufflerCommands", "ShakerCommands"]

#: Decision types the dealer sees; ``round_result``/``shoe_result`` are summarised in one line.
_SHOWN = ("prompt", "announce", "alert", "device", "round_result", "shoe_result", HALTED)


class DealerView:
    """The dealer's view in the terminal: one line per decision a dealer acts on, every character
    the text policy refuses (a control, a bidirectional override) escaped (:func:`~firmware_host.text.escaped`).

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
        for decision in map(for_outputs, decisions):
            if decision.type not in _SHOWN or (self.quiet_prompts and decision.type in ("prompt", "device")):
                continue
            if for_surveillance_only(decision):
                continue  # game protection's alerts: for surveillance (the floor feed), not the dealer
            where = f"{self.table_id} r{decision.round}" if decision.round is not None else self.table_id
            self.stream.write(escaped(f"[{where}] {self.describe(decision)}") + "\n")  # a peer's text, never raw
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
    return (
        f"round {data.get('round')}: player {' '.join(data.get('player', []))} = {data.get('player_total')}, "
        f"banker {' '.join(data.get('banker', []))} = {data.get('banker_total')}: {str(data.get('winner')).upper()}"
    )


class Panel(Protocol):
    """The part of :class:`drivers.gpio.TablePanel` the lamp output uses."""

    def show(self, colour: str) -> None: ...

    def buzz(self) -> None: ...

    def alarm(self) -> None: ...


class PanelOutput:
    """Tower lamp follows ``lamp`` decisions; the buzzer sounds on ``fault`` alerts; a halt (the
    journal cannot be written) lights the red lamp and holds the buzzer on."""

    def __init__(self, panel: Panel) -> None:
        self.panel = panel

    def on_decisions(self, decisions: Sequence[Decision]) -> None:
        """Light the lamp / sound the buzzer."""
        for decision in decisions:
            if decision.type == "lamp":
                self.panel.show(decision.data["colour"])
            elif decision.type == "alert" and decision.data.get("severity") == "fault":
                self.panel.buzz()
            elif decision.type == HALTED:
                self.panel.show("red")
                self.panel.alarm()


class EventFeed:
    """One JSON object per decision, one per line: ``{"table", "round", "type", "data"}``."""

    def __init__(self, stream: TextIO, table_id: str) -> None:
        self.stream = stream
        self.table_id = table_id

    def on_decisions(self, decisions: Sequence[Decision]) -> None:
        """Write and flush every decision."""
        for decision in map(for_outputs, decisions):
            record = {"table": self.table_id, "round": decision.round, "type": decision.type, "data": decision.data}
            self.stream.write(json.dumps(record, separators=(",", ":")) + "\n")
        self.stream.flush()


log = logging.getLogger("tablehost.outputs")


class DeviceCommands:
    """Carry out the controller's ``device_command`` decisions addressed to one device.

    The controller is pure: it decides ``{"device", "command", ...}`` and this output sends it
    once the step is durable, through :meth:`send` of the device's kind. Drivers queue
    commands for their own thread, so nothing here blocks. A command the device does not
    take is logged, never sent.

    :param device: the device's name (decisions for other devices are not its own).
    :param driver: the device's driver.
    """

    #: What the log calls the device when a command is not one it takes.
    kind = "device"

    def __init__(self, device: str, driver: Any) -> None:
        self.device = device
        self.driver = driver

    def on_decisions(self, decisions: Sequence[Decision]) -> None:
        """Send every ``device_command`` addressed to this device."""
        for decision in decisions:
            data = decision.data
            if decision.type == "device_command" and data.get("device") == self.device and not self.send(data):
                log.error("%s: device command %r is not one a %s takes", self.device, data.get("command"), self.kind)

    def send(self, data: dict[str, Any]) -> bool:
        """Send one command to the driver; ``False`` if the device does not take it."""
        raise NotImplementedError


class Shuffler(Protocol):
    """The commands of :class:`drivers.shuffler.ShufflerDriver` the controller decides."""

    def start_shuffle(self, batch: str, expected_cards: int) -> None: ...

    def release_batch(self, batch: str) -> None: ...


class ShufflerCommands(DeviceCommands):
    """The shuffler's commands: ``start_shuffle`` (``batch``, ``expected_cards``), ``release_batch`` (``batch``)."""

    kind = "shuffler"
    driver: Shuffler

    def send(self, data: dict[str, Any]) -> bool:
        """Start a shuffle or release a batch."""
        if data.get("command") == "start_shuffle":
            self.driver.start_shuffle(data["batch"], data["expected_cards"])
        elif data.get("command") == "release_batch":
            self.driver.release_batch(data["batch"])
        else:
            return False
        return True


class ShakerCommands(DeviceCommands):
    """The shaker's command: ``request_reading``, a reading of the dice now (a reveal whose
    reading was lost with the host or the link, see :class:`~firmware_host.tables.paigow.PaiGowTable`)."""

    kind = "shaker"

    def send(self, data: dict[str, Any]) -> bool:
        """Ask the shaker for a reading."""
        if data.get("command") != "request_reading":
            return False
        self.driver.request_reading()
        return True
