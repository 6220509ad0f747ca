"""The roll at a Pai Gow table: the shakes, the lid, the dice reading, no rolls (§ 535.8, § 535.12).

:class:`RollReader` is the table's collaborator for the shaker's reports: it counts the shakes
after no more bets (at least three, § 535.8(a), § 535.11(i)), follows the lid (§ 535.8(b): the
dealer removes it; § 535.11(i): never the bank), reads the dice with
:func:`~firmware_host.rules.paigow_dice.dice.validate_reading` and calls every reading that is
not a roll a no roll to reshake (§ 535.12(a),(b)); a valid roll goes to the
:class:`~.delivery.Delivery`. After the deal it sees the shaker covered and shaken once
(§ 535.8(f), § 535.11(m)). A reading that is not a valid roll never yields a starting position;
every reading is kept in the round as a :class:`~.round.Roll` (see :mod:`.round`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from drivers.events import DeviceEvent
from drivers.events.dice import DiceRead, LidChanged, ShakeDetected
from drivers.events.lifecycle import DeviceFault
from firmware_host.errors import RulesError
from firmware_host.rules.paigow_dice.dice import validate_reading
from firmware_host.tables.paigow.round import (
    LID_REMOVED_BY_BANK,
    NOT_REVEALED,
    SHAKES_REQUIRED,
    TOO_FEW_SHAKES,
    Roll,
    die_reading,
)

if TYPE_CHECKING:
    from firmware_host.tables.paigow.controller import PaiGowTable

__all__ = ["RollReader"]


class RollReader:
    """The shaker's reports at ``table``, and the no rolls they make.

    :param table: the table whose :attr:`~.controller.PaiGowTable.round` holds the shakes and readings.
    """

    #: Not the table's state (:mod:`firmware_host.tables.state_tree`): the table it works for.
    NOT_STATE = ("table",)

    def __init__(self, table: PaiGowTable) -> None:
        self.table = table
        #: Whether the shaker's lid is off, as last reported or commanded.
        self.lid_open = False
        table.register(ShakeDetected, self.on_shake)
        table.register(LidChanged, self.on_lid)
        table.register(DiceRead, self.on_reading)
        table.register(DeviceFault, self.on_fault)

    # -- the shaker's reports ---------------------------------------------------------------
    def on_shake(self, event: ShakeDetected) -> None:
        """A shake: counted towards the roll (§ 535.8(a)), or the closing shake (§ 535.8(f))."""
        table = self.table
        if self._shaker_paused(event):
            return
        if table.state == "reading" and table.round.reveal_fault is not None:
            table.reshake()  # the no roll is being reshaken before its reading came
        if table.state == "shaking" or (table.state == "reading" and table.round.reveal_fault is None):
            # In the reading, before the reading came: a shake felt before the lid came off,
            # reported after a reed switch on GPIO (another path to the host) saw the lid open.
            table.round.shakes += 1
        elif table.state == "closing" and not self.lid_open:
            table.announce("shaker_closed", "the shaker is covered and shaken once (§ 535.8(f), § 535.11(m))")
            table.shaker_closed()
        elif table.state == "closing":
            table.alert_in_round("procedure", "cover the shaker before shaking it once (§ 535.8(f))", "warning")
        else:
            table.alert_in_round(
                "shake-ignored",
                f"{event.device}: a shake while {table.state.replace('_', ' ')} is not "
                "counted (§ 535.8(a): no more bets, then at least three shakes)",
                "warning",
            )

    def on_lid(self, event: LidChanged) -> None:
        """The lid came off (the reveal, § 535.8(b)) or went back on (a reveal without a reading is no roll)."""
        table = self.table
        if self._shaker_paused(event):
            return
        self.lid_open = event.open
        if event.open and table.state == "shaking":
            self._reveal_now()
        elif not event.open and table.state == "reading":
            if table.round.reveal_fault is None and table.round.shakes < SHAKES_REQUIRED:
                self._too_few_shakes()
            elif table.round.reveal_fault is None:
                self._no_roll(NOT_REVEALED, "no roll: the lid went back on before the dice were read", None)
            table.reshake()

    def on_reading(self, event: DiceRead) -> None:
        """A reading of the dice: the roll (§ 535.8(b),(c)), or a no roll (§ 535.12(a),(b), § 535.8(a))."""
        table = self.table
        if self._shaker_paused(event):
            return
        if table.state not in ("shaking", "reading"):
            table.alert_in_round(
                "reading-ignored",
                f"{event.device}: a dice reading while {table.state.replace('_', ' ')} is not a roll; ignored",
                "warning",
            )
            return
        verdict = validate_reading([die_reading(die) for die in event.dice], event.dice_in_shaker)  # type: ignore[misc]
        round_ = table.round
        if table.state == "shaking":
            reason = TOO_FEW_SHAKES if round_.shakes < SHAKES_REQUIRED else NOT_REVEALED
            round_.rolls.append(Roll.of(event, False, reason))
            table.alert_in_round(
                "reading-before-reveal",
                f"a reading came after {round_.shakes} shake(s) without the lid coming off: not a roll",
                "warning",
            )
            section = "535.8(a)" if reason == TOO_FEW_SHAKES else None
            self._no_roll(reason, "no roll: reshake, then remove the lid", section)
            table.reshake()
        elif round_.reveal_fault is not None:
            round_.rolls.append(Roll.of(event, False, round_.reveal_fault))
            table.reshake()
        elif round_.shakes < SHAKES_REQUIRED:
            round_.rolls.append(Roll.of(event, False, TOO_FEW_SHAKES))
            self._too_few_shakes()
            table.reshake()
        elif verdict.valid:
            round_.rolls.append(Roll.of(event, True, None))
            table.delivery.accept_roll(verdict.total, verdict.text)  # type: ignore[arg-type]
        else:
            round_.rolls.append(Roll.of(event, False, verdict.reason))
            if verdict.no_roll:
                self._no_roll(verdict.reason, verdict.text, verdict.section)  # type: ignore[arg-type]
            else:
                table.alert_in_round("invalid-reading", f"{event.device}: {verdict.text}; reshake", "attention")
                round_.reshake_reason = verdict.reason
                table.prompt_again()
            table.reshake()

    def on_fault(self, event: DeviceFault) -> None:
        """The base class has alerted; a reveal without a reading is left to the dealer's reshake."""

    # -- the dealer's commands ----------------------------------------------------------------
    def reveal(self, args: Mapping[str, Any]) -> None:
        """``reveal``: the dealer removes the lid (§ 535.8(b))."""
        self.table.require_state("reveal", "shaking")
        self.lid_open = True
        self._reveal_now()

    def lid_removed_by_bank(self, args: Mapping[str, Any]) -> None:
        """§ 535.11(i): only the dealer removes the lid; if the bank did, cover and reshake."""
        table = self.table
        round_ = table.round
        if round_.bank is None:
            raise RulesError("no player banks this round")
        text = "no roll: the bank removed the lid; the bank covers and reshakes"
        if table.state == "shaking":
            self.lid_open = True
            table.reveal()
            self._no_roll(LID_REMOVED_BY_BANK, text, "535.11(i)")
        elif table.state == "reading" and round_.reveal_fault is None:
            self._no_roll(LID_REMOVED_BY_BANK, text, "535.11(i)")
        elif table.state == "reading":
            raise RulesError("a no roll is already called: cover the shaker and reshake")
        elif table.state == "delivering":
            # The reading came with the lid the bank lifted: that roll is not a roll.
            accepted = round_.rolls[-1]
            round_.rolls[-1] = Roll(accepted.dice, accepted.flat, accepted.dice_in_shaker, False, LID_REMOVED_BY_BANK)
            round_.total, round_.plan = None, None
            self._no_roll(LID_REMOVED_BY_BANK, text + "; the total and starting position are withdrawn", "535.11(i)")
            table.reshake()
        else:
            table.require_state("lid_removed_by_bank", "shaking", "reading", "delivering")

    # -- the table's callbacks -------------------------------------------------------------------
    def cover_for_reshake(self) -> None:
        """The shaker is covered for a reshake: its shakes count from none, the reveal is new."""
        self.table.round.shakes = 0
        self.table.round.reveal_fault = None

    def request_reading(self) -> None:
        """When the table resumes with the lid off and no reading yet, ask the shaker to read the
        dice (§ 535.8(b)): the reading may have been lost with the link or the host (an unplugged
        cable, a restarted Pi), or ignored while paused, and the dice lie as they fell until the
        lid goes back on."""
        table = self.table
        if not table.paused and table.state == "reading" and table.round.reveal_fault is None:
            table.decide(
                "device_command", {"device": table.shaker_device, "command": "request_reading"}, table.decision_round()
            )

    # -- the roll's steps -------------------------------------------------------------------------
    def _reveal_now(self) -> None:
        """§ 535.8(b): the lid comes off and the dice are read.

        Whether three shakes came first (§ 535.8(a)) is judged when the reading arrives: the
        shaker sends every shake report before its reading, on the same link, whereas a lid
        read by a reed switch on GPIO reaches the host by another path and may overtake the
        last shake reports.
        """
        self.table.reveal()

    def _too_few_shakes(self) -> None:
        """§ 535.8(a): the lid came off before the third shake: a no roll."""
        self._no_roll(
            TOO_FEW_SHAKES,
            f"no roll: the lid came off after {self.table.round.shakes} shake(s), "
            f"at least {SHAKES_REQUIRED} are required",
            "535.8(a)",
        )

    def _no_roll(self, reason: str, text: str, section: str | None) -> None:
        """Call a no roll: announce it and prompt the reshake (§ 535.12(a),(b), § 535.8(a), § 535.11(i))."""
        table = self.table
        table.round.reveal_fault = reason
        table.round.reshake_reason = reason
        cited = f"(§ {section})"
        table.announce(
            "no_roll", text if not section or cited in text else f"{text} {cited}", reason=reason, section=section
        )
        table.prompt_again()  # every no roll prompts its reshake, even one like the last

    def _shaker_paused(self, event: DeviceEvent) -> bool:
        """While a device is lost or refused its shaker reports are not trusted."""
        table = self.table
        if table.paused:
            table.alert_in_round(
                "table-paused", f"{table.describe(event)}: ignored while {table.paused_text()}", "warning"
            )
        return table.paused
