"""The Pai Gow table controller: no more bets, the bank, the dice, the delivery, the tiles (ch. 535, § 621a.9).

:class:`PaiGowTable` is a :class:`~firmware_host.tables.base.TableController` whose round is a
``transitions`` state machine declared as data (:attr:`PaiGowTable.STATES`,
:attr:`PaiGowTable.TRANSITIONS`; ``docs/state-paigow.md`` is generated from them by
``docs/generate_diagrams.py``)::

    betting --no_more_bets--> bank (a player may bank) --bank_settled--> shaking
    betting --no_more_bets--> shaking                     (no player may bank this round)
    shaking --reveal--> reading --roll_accepted--> delivering --delivered--> closing
    reading|shaking|delivering --reshake--> shaking        (no roll, § 535.12(a),(b), § 535.11(i))
    closing --shaker_closed--> hands --round_over--> betting   (§ 535.8(f); tiles or round complete)
    any state of a round --round_over--> betting               (void round)

The rules are those of :mod:`firmware_host.rules.paigow_dice` (readings, starting position, delivery
plans, player bank) and :mod:`firmware_host.rules.paigow_tiles` (house way, compare, settle),
through :mod:`.tiles_entry`. A reading that is not a valid roll never yields a starting
position. Two things run across the states:

- **the dice clock** (§ 535.5(c)): ``new_dice`` registers a set at the event's time; every
  event checks the clock, warns once inside the Rules Submission's lead and once at the
  limit, and ``no_more_bets`` is refused while no set is registered or the limit is reached;
- **the player-bank rotation** (§ 535.11(b)-(d)): a :class:`~firmware_host.rules.paigow_dice.bank.BankState`
  moved on after every round, rebuilt (like everything here) by replaying the journal.

Decisions (data JSON-plain): ``prompt`` (see :meth:`PaiGowTable.prompt`), ``announce``,
``alert``, ``lamp`` and ``round_result`` (see :meth:`~.round.RoundState.result`). Any input
the state or the rules refuse becomes an ``alert``, never an exception.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from drivers.events import DeviceEvent
from drivers.events.dice import DiceRead, LidChanged, ShakeDetected
from drivers.events.lifecycle import DeviceFault
from firmware_host.tables.events import ClockTick, DealerCommand, WagerPlaced
from firmware_host.tables.base import TableController
from firmware_host.errors import RulesError
from firmware_host.rules.paigow_dice.bank import (
    BankState,
    after_round,
    bank_offer_order,
    check_bank_areas,
    check_cut,
    new_game,
    take_bank,
)
from firmware_host.rules.paigow_dice.delivery import Cut, delivery_plan
from firmware_host.rules.paigow_dice.dice import DiceClock, validate_reading
from firmware_host.rules.paigow_dice.position import SEATS, check_seat, label, starting_position
from firmware_host.tables.paigow.round import (
    LID_REMOVED_BY_BANK,
    NOT_REVEALED,
    SHAKES_REQUIRED,
    TOO_FEW_SHAKES,
    Roll,
    RoundState,
    die_reading,
)
from firmware_host.tables.paigow.rules import PaiGowTableRules
from firmware_host.tables.paigow.tiles_entry import settle_entered_tiles
from firmware_host.rules.paigow_tiles import TileHolder, exposed_tile
from firmware_host.rules.paigow_tiles.bank_settlement import dealer_wager_against_bank
from firmware_host.rules.devices import ApprovedIdentities
from firmware_host.rules.options import resolved

__all__ = ["PaiGowTable", "COMMANDS", "WAGER_KIND"]

#: The one wager of the game (``WagerPlaced.kind``): the betting area's wager against the
#: dealer or the player bank (§ 535.7, § 535.10).
WAGER_KIND = "paigow"

#: Dealer commands (``DealerCommand.command``) this controller understands, with their args.
COMMANDS: dict[str, str] = {
    "no_more_bets": "no more bets (§ 535.7(c), § 535.8(a)); refused without a registered, unexpired dice set",
    "bank": '{"seat": K, "co_bank": bool, "chips_confirmed": true, "dealer_wager": cents (optional: the bank '
            'directs less, § 535.11(h)), "areas": [K] (optional: every area the player wagers on, § 535.11(f))}: '
            "the player at K accepts the bank (§ 535.11(c)-(f))",
    "no_bank": "no player accepts the bank: the dealer banks the round (§ 535.11(c))",
    "style": '{"name": STYLE}: delivery style (§ 535.9, § 535.11(i)); before the first shake',
    "cut": '{"to_right_end": [stacks], "to_left_end": [stacks]} or {"stacks": N}: the player bank\'s cut '
           "(§ 535.11(g)); before the first shake",
    "reveal": "the dealer removes the lid (§ 535.8(b)); a reveal before the third shake is a no roll",
    "lid_removed_by_bank": "the player bank lifted the lid: no roll, cover and reshake (§ 535.11(i))",
    "delivered": "every stack is delivered as prompted (§ 535.8(d), § 535.11(k))",
    "tiles": '{"dealer": [4 tiles] or "H/L", "hands": {"K": "H/L" | "a,b,c,d" | "surrender"}}: '
             "the tiles at the table; house way, compare, settle (§ 535.10, § 535.11(n)-(r))",
    "round_complete": "the round is settled by hand without entering the tiles",
    "tile_exposed": '{"holder": "player"|"dealer"|"dead_hand"|"unwagered"|"bank", "seat": K, "void": bool}: '
                    "a dealt tile was exposed (§ 535.12(d), (e))",
    "void_round": '{"reason": text} (optional): void the round, wagers returned (e.g. § 535.12(c))',
    "new_dice": "a new dice set is in the shaker: the 24-hour clock restarts (§ 535.5(c))",
    "new_game": "the tiles were restacked (§ 535.6): a new game, the first round has no player bank (§ 535.11(b))",
    "withdraw_wager": '{"seat": K}: take a wager back before no more bets (§ 535.7(c))',
    "acknowledge": "acknowledge a device whose serial number changed (otherwise nothing waits for it)",
}
#: Commands that move a round on: refused while the table is paused.
_ADVANCING = ("no_more_bets", "bank", "no_bank", "reveal", "delivered", "tiles", "round_complete")
#: The machine's states in which a round is under way (after no more bets).
_IN_ROUND = ["bank", "shaking", "reading", "delivering", "closing", "hands"]
#: States after a valid roll in which a dealt tile can be exposed.
_DEALT = ["delivering", "closing", "hands"]
#: Seconds in an hour and a minute, for the dice clock's messages.
_HOUR, _MINUTE = 3600, 60


class PaiGowTable(TableController):
    """The controller of one Pai Gow table.

    :param table_id: the table's id from its profile.
    :param approved: the allow-list of each device at the table, by device name.
    :param rules: the casino's Rules Submission (:func:`firmware_host.config.rules.load_paigow_rules`).
    :param shaker_device: the shaker's device name, to which ``device_command`` decisions go.
    """

    game = "paigow"
    game_title = "Pai Gow"

    # The machine, as data (see TableController.build_machine).
    INITIAL = "betting"
    STATES: list[Any] = [
        {"name": "betting", "on_enter": "_open_round"},
        "bank",
        "shaking",
        "reading",
        "delivering",
        "closing",
        "hands",
    ]
    #: The machine's transitions; triggers are called by the event handlers below.
    TRANSITIONS: list[dict[str, Any]] = [
        {"trigger": "no_more_bets", "source": "betting", "dest": "bank", "conditions": "bank_on_offer"},
        {"trigger": "no_more_bets", "source": "betting", "dest": "shaking"},
        {"trigger": "bank_settled", "source": "bank", "dest": "shaking"},
        {"trigger": "reveal", "source": "shaking", "dest": "reading"},
        {"trigger": "reshake", "source": ["shaking", "reading", "delivering"], "dest": "shaking",
         "after": "_cover_for_reshake"},
        {"trigger": "roll_accepted", "source": "reading", "dest": "delivering"},
        {"trigger": "delivered", "source": "delivering", "dest": "closing"},
        {"trigger": "shaker_closed", "source": "closing", "dest": "hands"},
        {"trigger": "round_over", "source": _IN_ROUND, "dest": "betting"},
    ]
    #: A round is under way from no more bets to its end (its decisions carry its number).
    ROUND_STATES = _IN_ROUND
    NOT_STATE = ("rules", "shaker_device")

    def __init__(self, table_id: str, approved: Mapping[str, ApprovedIdentities], rules: PaiGowTableRules,
                 shaker_device: str = "shaker") -> None:
        super().__init__(table_id, approved)
        self.rules = rules
        self.shaker_device = shaker_device
        self.round = RoundState()
        self.bank_state: BankState = new_game()
        #: Each seat's wager in the last round without a player bank (§ 535.11(h)).
        self.last_wagers_against_dealer: dict[int, int] = {}
        self.dice_registered_at: float | None = None
        self.lid_open = False
        self.last_result: dict[str, Any] | None = None
        self._clock_alerted = "unregistered"
        self.build_machine(self)

    # -- the input contract (events are dispatched by the base class through _HANDLERS) ---
    def after_game_event(self) -> None:
        """Every event checks the dice clock (§ 535.5(c))."""
        self._check_dice_clock()

    @property
    def bank_on_offer(self) -> bool:
        """Whether some player may be offered the bank this round (§ 535.11(b)-(d))."""
        return bool(self.round.offer)

    def dice_clock(self) -> DiceClock:
        """The dice set against the 24-hour limit (§ 535.5(c)) at the latest event's time."""
        return self.rules.dice.dice_clock(self.dice_registered_at, self.now)

    # -- wagers and the bank --------------------------------------------------------------
    def _on_wager(self, event: WagerPlaced) -> None:
        """§ 535.7: a wager is made or increased on a betting area before no more bets."""
        seat = check_seat(event.seat, "wager seat")
        if event.kind != WAGER_KIND:
            raise RulesError(f"wager kind {event.kind!r}: Pai Gow has one wager, {WAGER_KIND!r}")
        if isinstance(event.amount, bool) or not isinstance(event.amount, int) or event.amount <= 0:
            raise RulesError(f"wager amount {event.amount!r}: a whole number of cents over 0")
        if self.state != "betting":
            raise RulesError("no wager may be made or increased after no more bets (§ 535.7(c))")
        if self.paused:
            raise RulesError("the table is paused")
        self.round.wagers[seat] = self.round.wagers.get(seat, 0) + event.amount

    def _withdraw_wager(self, args: Mapping[str, Any]) -> None:
        if self.state != "betting":
            raise RulesError("no wager may be withdrawn after no more bets (§ 535.7(c))")
        seat = check_seat(args.get("seat"), "withdraw seat")
        if self.round.wagers.pop(seat, None) is None:
            raise RulesError(f"no wager at seat {seat}")

    def _no_more_bets(self, args: Mapping[str, Any]) -> None:
        self._require_state("no_more_bets", "betting")
        clock = self.dice_clock()
        if not clock.may_start_round:
            self._alert("dice-" + clock.state, f"no more bets refused: {_clock_text(clock)} (§ 535.5(c))")
            self._prompt_again()  # say again what to do
            return
        self.round.offer = bank_offer_order(self.bank_state, SEATS, self.rules.dice)
        self.no_more_bets()
        if self.state == "bank":
            self._announce("bank_offer", "offer the bank in this order: " + ", ".join(map(str, self.round.offer)),
                           order=list(self.round.offer))

    def _take_bank(self, args: Mapping[str, Any]) -> None:
        """§ 535.11(c)-(f), (h): the player at ``seat`` accepts the bank."""
        self._require_state("bank", "bank")
        seat = check_seat(args.get("seat"))
        co_bank = _flag(args, "co_bank")
        bank = take_bank(self.bank_state, seat, self.rules.dice, covers_wagers=_flag(args, "chips_confirmed"),
                         co_bank=co_bank)
        check_bank_areas(bank, _seats(args.get("areas", [seat]), "bank areas"))
        directs = args.get("dealer_wager")
        self.round.dealer_wager = dealer_wager_against_bank(
            self.rules.tiles, last_wager_against_dealer=self.last_wagers_against_dealer.get(seat, 0),
            bank_directs=directs, co_banking=co_bank)
        self.round.bank = bank
        own = self.round.wagers.get(seat)
        chips = f"; the {own} cents on area {seat} are the bank's, not a wager" if own else ""
        self._announce("bank", f"seat {seat} {'co-banks with the house' if co_bank else 'banks'}; the dealer "
                       f"wagers {self.round.dealer_wager} cents against the bank{chips}",
                       seat=seat, co_bank=co_bank, dealer_wager=self.round.dealer_wager)
        self.bank_settled()

    def _no_bank(self, args: Mapping[str, Any]) -> None:
        self._require_state("no_bank", "bank")
        self._announce("bank", "no player banks: the dealer banks the round", seat=None, co_bank=False, dealer_wager=0)
        self.bank_settled()

    def _choose_style(self, args: Mapping[str, Any]) -> None:
        """§ 535.9, § 535.11(i): the style of delivery, before the shaking starts."""
        self._before_the_roll("style")
        name = args.get("name")
        if not isinstance(name, str):
            raise RulesError(f"style name {name!r}: give one of the delivery style names")
        self.round.style = self.rules.dice.check_style_for(name, self.round.bank_seat)
        self._announce("style", f"delivery style: {name}", style=name)

    def _cut(self, args: Mapping[str, Any]) -> None:
        """§ 535.11(g): the player bank cuts the stacks once."""
        self._before_the_roll("cut")
        if self.round.cut is not None:
            raise RulesError("the bank cuts the tiles one time only (§ 535.11(g))")
        if "stacks" in args:
            cut = Cut.rotation(args["stacks"])
        else:
            cut = Cut(tuple(_seats(args.get("to_right_end", []), "cut to_right_end", check=False)),
                      tuple(_seats(args.get("to_left_end", []), "cut to_left_end", check=False)))
        check_cut(self.round.bank, cut)
        self.round.cut = cut
        self._announce("cut", f"the bank cuts: {cut.describe()}", cut=cut.to_json_dict())

    def _before_the_roll(self, what: str) -> None:
        if self.state not in ("bank", "shaking") or self.round.shakes or self.round.rolls:
            raise RulesError(f"the {what} is chosen after no more bets and before the shaking starts (§ 535.11(i))")

    # -- the shaker -------------------------------------------------------------------------
    def _on_shake(self, event: ShakeDetected) -> None:
        if self._shaker_paused(event):
            return
        if self.state == "reading" and self.round.reveal_fault is not None:
            self.reshake()  # the no roll is being reshaken before its reading came
        if self.state == "shaking" or (self.state == "reading" and self.round.reveal_fault is None):
            # In the reading, before the reading came: a shake felt before the lid came off,
            # reported after a reed switch on GPIO (another path to the host) saw the lid open.
            self.round.shakes += 1
        elif self.state == "closing" and not self.lid_open:
            self._announce("shaker_closed", "the shaker is covered and shaken once (§ 535.8(f), § 535.11(m))")
            self.shaker_closed()
        elif self.state == "closing":
            self._alert("procedure", "cover the shaker before shaking it once (§ 535.8(f))", "warning")
        else:
            self._alert("shake-ignored", f"{event.device}: a shake while {self.state.replace('_', ' ')} is not counted "
                        "(§ 535.8(a): no more bets, then at least three shakes)", "warning")

    def _on_lid(self, event: LidChanged) -> None:
        if self._shaker_paused(event):
            return
        self.lid_open = event.open
        if event.open and self.state == "shaking":
            self._reveal_now()
        elif not event.open and self.state == "reading":
            if self.round.reveal_fault is None and self.round.shakes < SHAKES_REQUIRED:
                self._too_few_shakes()
            elif self.round.reveal_fault is None:
                self._no_roll(NOT_REVEALED, "no roll: the lid went back on before the dice were read", None)
            self.reshake()

    def _reveal_command(self, args: Mapping[str, Any]) -> None:
        self._require_state("reveal", "shaking")
        self.lid_open = True
        self._reveal_now()

    def _reveal_now(self) -> None:
        """§ 535.8(b): the lid comes off and the dice are read.

        Whether three shakes came first (§ 535.8(a)) is judged when the reading arrives: the
        shaker sends every shake report before its reading, on the same link, whereas a lid
        read by a reed switch on GPIO reaches the host by another path and may overtake the
        last shake reports.
        """
        self.reveal()

    def _too_few_shakes(self) -> None:
        """§ 535.8(a): the lid came off before the third shake: a no roll."""
        self._no_roll(TOO_FEW_SHAKES, f"no roll: the lid came off after {self.round.shakes} shake(s), "
                      f"at least {SHAKES_REQUIRED} are required", "535.8(a)")

    def _lid_removed_by_bank(self, args: Mapping[str, Any]) -> None:
        """§ 535.11(i): only the dealer removes the lid; if the bank did, cover and reshake."""
        if self.round.bank is None:
            raise RulesError("no player banks this round")
        text = "no roll: the bank removed the lid; the bank covers and reshakes"
        if self.state == "shaking":
            self.lid_open = True
            self.reveal()
            self._no_roll(LID_REMOVED_BY_BANK, text, "535.11(i)")
        elif self.state == "reading" and self.round.reveal_fault is None:
            self._no_roll(LID_REMOVED_BY_BANK, text, "535.11(i)")
        elif self.state == "reading":
            raise RulesError("a no roll is already called: cover the shaker and reshake")
        elif self.state == "delivering":
            # The reading came with the lid the bank lifted: that roll is not a roll.
            accepted = self.round.rolls[-1]
            self.round.rolls[-1] = Roll(accepted.dice, accepted.flat, accepted.dice_in_shaker, False,
                                        LID_REMOVED_BY_BANK)
            self.round.total, self.round.plan = None, None
            self._no_roll(LID_REMOVED_BY_BANK, text + "; the total and starting position are withdrawn", "535.11(i)")
            self.reshake()
        else:
            self._require_state("lid_removed_by_bank", "shaking", "reading", "delivering")

    def _on_reading(self, event: DiceRead) -> None:
        if self._shaker_paused(event):
            return
        if self.state not in ("shaking", "reading"):
            self._alert("reading-ignored", f"{event.device}: a dice reading while {self.state.replace('_', ' ')} "
                        "is not a roll; ignored", "warning")
            return
        verdict = validate_reading([die_reading(die) for die in event.dice], event.dice_in_shaker)  # type: ignore[misc]
        round_ = self.round
        if self.state == "shaking":
            reason = TOO_FEW_SHAKES if round_.shakes < SHAKES_REQUIRED else NOT_REVEALED
            round_.rolls.append(Roll.of(event, False, reason))
            self._alert("reading-before-reveal", f"a reading came after {round_.shakes} shake(s) without the lid "
                        "coming off: not a roll", "warning")
            section = "535.8(a)" if reason == TOO_FEW_SHAKES else None
            self._no_roll(reason, "no roll: reshake, then remove the lid", section)
            self.reshake()
        elif round_.reveal_fault is not None:
            round_.rolls.append(Roll.of(event, False, round_.reveal_fault))
            self.reshake()
        elif round_.shakes < SHAKES_REQUIRED:
            round_.rolls.append(Roll.of(event, False, TOO_FEW_SHAKES))
            self._too_few_shakes()
            self.reshake()
        elif verdict.valid:
            round_.rolls.append(Roll.of(event, True, None))
            self._accept_roll(verdict.total, verdict.text)  # type: ignore[arg-type]
        else:
            round_.rolls.append(Roll.of(event, False, verdict.reason))
            if verdict.no_roll:
                self._no_roll(verdict.reason, verdict.text, verdict.section)  # type: ignore[arg-type]
            else:
                self._alert("invalid-reading", f"{event.device}: {verdict.text}; reshake", "attention")
                round_.reshake_reason = verdict.reason
                self._prompt_again()
            self.reshake()

    def _no_roll(self, reason: str, text: str, section: str | None) -> None:
        """Call a no roll: announce it and prompt the reshake (§ 535.12(a),(b), § 535.8(a), § 535.11(i))."""
        self.round.reveal_fault = reason
        self.round.reshake_reason = reason
        cited = f"(§ {section})"
        self._announce("no_roll", text if not section or cited in text else f"{text} {cited}", reason=reason,
                       section=section)
        self._prompt_again()  # every no roll prompts its reshake, even one like the last

    def _cover_for_reshake(self) -> None:
        self.round.shakes = 0
        self.round.reveal_fault = None

    def _accept_roll(self, total: int, text: str) -> None:
        """§ 535.8(b),(c), § 535.11(j): total, starting position and the delivery plan."""
        round_ = self.round
        start = starting_position(total, round_.bank_seat)
        round_.total = total
        round_.plan = delivery_plan(start, round_.style, round_.cut)
        round_.reshake_reason = None
        self.roll_accepted()
        counted = "the dealer" if round_.bank is None else f"the bank at position {round_.bank_seat}"
        section = "535.8(c)" if round_.bank is None else "535.11(j)"
        self._announce("total", f"{text}: counting from {counted} as one, {_spoken(label(start))} receives the "
                       f"first tiles (§ {section})", dice=list(round_.rolls[-1].dice), total=total, start=label(start))

    def _delivered(self, args: Mapping[str, Any]) -> None:
        self.delivered()

    def on_devices_changed(self) -> None:
        """As the base class; then, when the table resumes with the lid off and no reading yet,
        ask the shaker to read the dice (§ 535.8(b)): the reading may have been lost with the
        link or the host (an unplugged cable, a restarted Pi), or ignored while paused, and the
        dice lie as they fell until the lid goes back on."""
        super().on_devices_changed()
        if not self.paused and self.state == "reading" and self.round.reveal_fault is None:
            self.decide("device_command", {"device": self.shaker_device, "command": "request_reading"},
                        self._round_number())

    def _shaker_paused(self, event: DeviceEvent) -> bool:
        """While a device is lost or refused its shaker reports are not trusted."""
        if self.paused:
            self._alert("table-paused", f"{self.describe(event)}: ignored while {self.paused_text()}", "warning")
        return self.paused

    # -- tiles, irregularities, the end of the round --------------------------------------
    def _tiles(self, args: Mapping[str, Any]) -> None:
        self._require_state("tiles", "hands")
        round_ = self.round
        entered = settle_entered_tiles(args, round_.playing, self.rules.tiles, bank=round_.bank,
                                       dealer_wager=round_.dealer_wager, void_seats=round_.void_seats)
        for reset in entered.resets:
            self._alert("house-way-reset", f"{reset.text} (§ {reset.section})", "attention")
        if entered.dealer is not None:
            self._announce("house_way", f"dealer's hands: {entered.dealer.setting.text}",
                           setting=entered.dealer.setting.text)
        results = entered.settlement["results"]
        self._announce("results", "; ".join(f"position {r['position']}: {r['outcome']}" for r in results),
                       results=[{"position": r["position"], "outcome": r["outcome"]} for r in results])
        self._finish("completed", entered.to_json())

    def _round_complete(self, args: Mapping[str, Any]) -> None:
        self._require_state("round_complete", "hands")
        self._finish("completed", None)

    def _tile_exposed(self, args: Mapping[str, Any]) -> None:
        """§ 535.12(d), (e): a dealt tile was exposed."""
        self._require_state("tile_exposed", *_DEALT)
        try:
            holder = TileHolder(args.get("holder"))
        except ValueError:
            holders = ", ".join(holder.value for holder in TileHolder)
            raise RulesError(f"holder {args.get('holder')!r}: one of {holders}") from None
        seat = args.get("seat")
        if holder is TileHolder.PLAYER:
            seat = check_seat(seat, "exposed tile seat")
            if seat == self.round.bank_seat:
                holder = TileHolder.BANK
            elif seat not in self.round.wagers:
                holder = TileHolder.UNWAGERED  # § 535.12(e): a position without a wager
        ruling = exposed_tile(holder, self.rules.tiles, position=seat if holder is TileHolder.PLAYER else None,
                              elects_void=_flag(args, "void"))
        self._alert("tile-exposed", f"{ruling.text} (§ {ruling.section})", "attention")
        if ruling.void_round:
            self._finish("void", None)
        else:
            self.round.void_seats.update(ruling.void_positions)

    def _void_round(self, args: Mapping[str, Any]) -> None:
        self._require_state("void_round", *_IN_ROUND)
        reason = str(args.get("reason", "voided by the dealer"))
        self._alert("round-void", f"round {self.current_round} void: {reason}; all wagers are returned",
                    "attention")
        self._finish("void", None)

    def _finish(self, status: str, settlement: dict[str, Any] | None) -> None:
        """Decide the ``round_result``, move the bank rotation on, open the next round."""
        round_ = self.round
        number = self.current_round
        data = round_.result(number, status, settlement)
        self.decide("round_result", data, number)
        self.rounds_finished += 1
        if round_.bank is None:
            self.last_wagers_against_dealer = dict(round_.wagers)
        self.bank_state = after_round(self.bank_state, round_.bank, round_.playing, self.rules.dice)
        self.last_result = {"round": number, "status": status, "total": data["total"], "start": data["start"],
                            "bank_seat": data["bank_seat"]}
        self.round_over()

    def _open_round(self) -> None:
        self.round = RoundState()

    # -- dice set and game ------------------------------------------------------------------
    def _new_dice(self, args: Mapping[str, Any]) -> None:
        """§ 535.5(c): a new dice set; the clock restarts at this event's time."""
        if self.state != "betting":
            raise RulesError("change the dice between rounds (no more bets has been called)")
        self.dice_registered_at = self.now
        self._clock_alerted = "ok"
        expires = self.now + self.rules.dice.dice_max_hours * _HOUR
        self._announce("new_dice", f"new dice registered; they leave the table within "
                       f"{self.rules.dice.dice_max_hours:g} hours (§ 535.5(c))",
                       registered_at=self.now, expires_at=expires)

    def _new_game(self, args: Mapping[str, Any]) -> None:
        """§ 535.6, § 535.11(b): the tiles were restacked; the first round has no player bank."""
        if self.state != "betting":
            raise RulesError("a new game starts between rounds")
        self.bank_state = new_game()
        self._announce("new_game", "new game: no player may bank the first round (§ 535.11(b))")

    def _acknowledge(self, args: Mapping[str, Any]) -> None:
        raise RulesError("nothing is waiting to be acknowledged")

    def _check_dice_clock(self) -> None:
        """Warn once inside the lead and once at the limit (§ 535.5(c))."""
        clock = self.dice_clock()
        if clock.state == self._clock_alerted or clock.state == "ok":
            return
        self._clock_alerted = clock.state
        severity = "warning" if clock.state == "warn" else "attention"
        self._alert("dice-" + clock.state, f"{_clock_text(clock)} (§ 535.5(c))", severity)
        self._prompt_again()

    # -- dealer commands --------------------------------------------------------------------
    def _on_command(self, event: DealerCommand) -> None:
        command, args = event.command, event.args if event.args is not None else {}
        handler = self._COMMAND_HANDLERS.get(command)
        if handler is None:
            raise RulesError(f"unknown command: use one of {', '.join(COMMANDS)}")
        if not isinstance(args, Mapping):
            raise RulesError(f"arguments must be a JSON object, not {args!r}")
        if command in _ADVANCING and self.paused:
            raise RulesError(self.paused_text())
        handler(self, args)

    def _on_tick(self, event: ClockTick) -> None:
        """Time passed: the dice clock is checked after every event (see :meth:`on_game_event`)."""

    def _on_fault(self, event: DeviceFault) -> None:
        """The base class has alerted; a reveal without a reading is left to the dealer's reshake."""

    # -- the dealer's prompt and view ----------------------------------------------------------
    def rules_in_force(self) -> dict[str, Any]:
        """The dice, delivery and bank options (§ 535.5, § 535.8-§ 535.11) and the tiles' (house
        way, commission: § 535.10-§ 535.12), the latter as a profile's ``[rules]`` would give them."""
        return {"game": self.game, "dice": resolved(self.rules.dice), "tiles": self.rules.tiles.to_mapping()}

    def prompt(self) -> dict[str, Any]:
        """What the dealer must do next (the data of a ``prompt`` decision).

        ``action`` is one of: ``wait`` (paused; ``problems``), ``replace_dice`` (``clock``:
        ``unregistered``/``expired``), ``place_bets`` (``round``), ``offer_bank`` (``order``:
        seats in offer order), ``shake`` (``by``: ``dealer``/``bank``, ``at_least``),
        ``reshake`` (``by``, ``at_least``, ``reason``), ``reveal``, ``read_dice``,
        ``deliver`` (``start``, ``style``, ``cut``, ``hands``: ``[{"position", "tiles":
        ["stack.level", ...]}]`` in delivery order), ``collect_and_cover`` (``to_dead_hand``:
        positions), ``set_hands`` (``positions``: wagered areas as strings, ``dealer``: bool,
        ``bank``: seat or None). Every prompt has a ``text`` for people.
        """
        round_ = self.round
        if (waiting := self.paused_prompt()) is not None:
            return waiting
        if self.state == "betting":
            clock = self.dice_clock()
            if not clock.may_start_round:
                return {"action": "replace_dice", "clock": clock.state,
                        "text": f"{_clock_text(clock)}: put a new dice set in the shaker and press new dice"}
            return {"action": "place_bets", "round": self.current_round, "text": "place your bets, then no more bets"}
        if self.state == "bank":
            order = list(round_.offer)
            return {"action": "offer_bank", "order": order,
                    "text": "offer the bank to seats " + ", ".join(map(str, order)) + " in turn; confirm the chips "
                    "of the player who accepts (§ 535.11(c), (d)), or no bank"}
        if self.state == "shaking" and round_.shakes >= SHAKES_REQUIRED:
            return {"action": "reveal", "text": "the dealer removes the lid (§ 535.8(b), § 535.11(i))"}
        if self.state == "shaking" or (self.state == "reading" and round_.reveal_fault is not None):
            who = "the bank" if round_.bank is not None else "the dealer"
            if round_.reshake_reason is not None:
                return {"action": "reshake", "by": round_.shaken_by, "at_least": SHAKES_REQUIRED,
                        "reason": round_.reshake_reason,
                        "text": f"no roll ({round_.reshake_reason.replace('_', ' ')}): cover the shaker; {who} "
                        f"shakes it at least {SHAKES_REQUIRED} times"}
            return {"action": "shake", "by": round_.shaken_by, "at_least": SHAKES_REQUIRED,
                    "text": f"{who} shakes the shaker at least {SHAKES_REQUIRED} times (§ 535.8(a), § 535.11(i))"}
        if self.state == "reading":
            return {"action": "read_dice", "text": "the dice sensor reads the dice"}
        if self.state == "delivering":
            return self._deliver_prompt()
        if self.state == "closing":
            dead = round_.to_dead_hand()
            collect = (f"collect the stacks of {', '.join(dead)} to the Dead Hand without exposing them "
                       "(§ 535.8(e)); then " if dead else "")
            return {"action": "collect_and_cover", "to_dead_hand": dead,
                    "text": collect + "cover the shaker and shake it once (§ 535.8(f))"}
        positions = [str(seat) for seat in round_.playing]
        dealer = round_.bank is None or round_.dealer_wager > 0
        return {"action": "set_hands", "positions": positions, "dealer": dealer, "bank": round_.bank_seat,
                "text": "players set their hands; enter the tiles to settle, or round complete"}

    def _deliver_prompt(self) -> dict[str, Any]:
        round_ = self.round
        plan = round_.plan
        assert plan is not None
        hands = round_.plan_summary()
        assert hands is not None
        steps = "; ".join(f"{hand['position']} <- {' '.join(hand['tiles'])}" for hand in hands)
        return {"action": "deliver", "start": label(plan.start), "style": plan.style,
                "cut": None if plan.cut is None else plan.cut.to_json_dict(), "hands": hands,
                "text": f"deliver {plan.style} from {label(plan.start)} (stack.level, stacks from the dealer's right "
                f"as stacked, level 1 on top): {steps}"}

    def view(self) -> dict[str, Any]:
        """The dealer's terminal view: state, round, wagers, bank, dice, roll, plan, clock, alerts."""
        round_, clock = self.round, self.dice_clock()
        return {
            "table": self.table_id,
            "state": self.state,
            "paused": self.paused,
            "round": self.current_round,
            "prompt": self.prompt(),
            "wagers": [{"seat": seat, "amount": amount} for seat, amount in sorted(round_.wagers.items())],
            "bank": None if round_.bank is None else {"seat": round_.bank.seat, "co_bank": round_.bank.co_bank,
                                                     "dealer_wager": round_.dealer_wager},
            "bank_offer": list(round_.offer),
            "style": round_.style,
            "cut": None if round_.cut is None else round_.cut.to_json_dict(),
            "shakes": round_.shakes,
            "lid_open": self.lid_open,
            "rolls": [roll.to_json() for roll in round_.rolls],
            "total": round_.total,
            "start": None if round_.plan is None else label(round_.plan.start),
            "plan": round_.plan_summary(),
            "dice_clock": {"state": clock.state, "seconds_left": clock.seconds_left,
                           "registered_at": self.dice_registered_at},
            "last_result": self.last_result,
            "lamp": self.lamp_colour(),
        }

    # -- the lamp ---------------------------------------------------------------------------------
    def lamp_colour(self) -> str:
        """Red while paused, amber while the dice must be replaced soon or now (§ 535.5(c)), else green."""
        if self.paused:
            return "red"
        return "green" if self.dice_clock().state == "ok" else "amber"

    _HANDLERS: dict[type, Callable[[PaiGowTable, Any], None]] = {
        ShakeDetected: _on_shake,
        LidChanged: _on_lid,
        DiceRead: _on_reading,
        DealerCommand: _on_command,
        WagerPlaced: _on_wager,
        ClockTick: _on_tick,
        DeviceFault: _on_fault,
    }
    _COMMAND_HANDLERS: dict[str, Callable[[PaiGowTable, Mapping[str, Any]], None]] = {
        "no_more_bets": _no_more_bets,
        "bank": _take_bank,
        "no_bank": _no_bank,
        "style": _choose_style,
        "cut": _cut,
        "reveal": _reveal_command,
        "lid_removed_by_bank": _lid_removed_by_bank,
        "delivered": _delivered,
        "tiles": _tiles,
        "round_complete": _round_complete,
        "tile_exposed": _tile_exposed,
        "void_round": _void_round,
        "new_dice": _new_dice,
        "new_game": _new_game,
        "withdraw_wager": _withdraw_wager,
        "acknowledge": _acknowledge,
    }


def _flag(args: Mapping[str, Any], name: str) -> bool:
    """A true/false argument (absent: false)."""
    value = args.get(name, False)
    if not isinstance(value, bool):
        raise RulesError(f"{name} must be true or false, not {value!r}")
    return value


def _seats(value: object, what: str, *, check: bool = True) -> list[int]:
    """A list of whole numbers (betting positions 1..6 when ``check``)."""
    if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, int) for v in value):
        raise RulesError(f"{what} must be a list of whole numbers, not {value!r}")
    return [check_seat(v, what) for v in value] if check else list(value)


def _clock_text(clock: DiceClock) -> str:
    if clock.state == "unregistered":
        return "no dice set is registered"
    if clock.state == "expired":
        return "the dice have been on the table for the longest time allowed"
    left = clock.seconds_left or 0.0
    return f"the dice must leave the table in {int(left // _HOUR)} h {int(left % _HOUR // _MINUTE)} min"


def _spoken(position: str) -> str:
    """``"dealer"`` -> "the dealer", ``"dead"`` -> "the Dead Hand", ``"3"`` -> "position 3"."""
    return {"dealer": "the dealer", "dead": "the Dead Hand"}.get(position, f"position {position}")

