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

The table is a facade over small collaborators, each in its own module, as the Baccarat table is;
each takes its events with :meth:`~firmware_host.tables.base.TableController.register`, and the
facade hands each dealer command (:mod:`.commands`) to the one that applies it:

- :mod:`.bank` (:class:`~.bank.PlayerBank`): the wagers (§ 535.7), no more bets, the bank's
  offer and the player who banks (§ 535.11(b)-(h)), the rotation from round to round;
- :mod:`.roll` (:class:`~.roll.RollReader`): the shakes, the lid and the dice reading, every no
  roll and its reshake (§ 535.8(a),(b), § 535.11(i), § 535.12(a),(b));
- :mod:`.delivery` (:class:`~.delivery.Delivery`): the style and the cut (§ 535.9, § 535.11(g)),
  the starting position and the delivery plan (§ 535.8(c), § 535.11(j));
- :mod:`.settlement` (:class:`~.settlement.Settlement`): the tiles entered and settled
  (:mod:`.tiles_entry`, § 535.10), exposed tiles (§ 535.12(d), (e)), a void round, the ``round_result``;
- :mod:`.dice_set` (:class:`~.dice_set.DiceSet`): the dice set and its clock (§ 535.5(c));
- :mod:`.prompts` and :mod:`.view`: the prompt and the dealer's view.

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
``alert``, ``lamp``, ``round_result`` (see :meth:`~.round.RoundState.result`) and
``device_command``. Any input the state or the rules refuse becomes an ``alert``, never an exception.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from firmware_host.errors import RulesError
from firmware_host.rules.devices import ApprovedIdentities
from firmware_host.rules.options import resolved
from firmware_host.rules.paigow_dice.dice import DiceClock
from firmware_host.tables.arguments import check_command
from firmware_host.tables.base import TableController
from firmware_host.tables.events import DealerCommand
from firmware_host.tables.paigow.bank import PlayerBank
from firmware_host.tables.paigow.commands import ADVANCING, TAKES
from firmware_host.tables.paigow.delivery import Delivery
from firmware_host.tables.paigow.dice_set import DiceSet
from firmware_host.tables.paigow.prompts import prompt
from firmware_host.tables.paigow.roll import RollReader
from firmware_host.tables.paigow.round import RoundState
from firmware_host.tables.paigow.rules import PaiGowTableRules
from firmware_host.tables.paigow.settlement import Settlement
from firmware_host.tables.paigow.view import dealer_view

__all__ = ["PaiGowTable"]

#: The machine's states in which a round is under way (after no more bets).
_IN_ROUND = ["bank", "shaking", "reading", "delivering", "closing", "hands"]


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
    STATES: ClassVar[list[Any]] = [
        {"name": "betting", "on_enter": "_open_round"},
        "bank",
        "shaking",
        "reading",
        "delivering",
        "closing",
        "hands",
    ]
    #: The machine's transitions; triggers are called by the collaborators' handlers.
    TRANSITIONS: ClassVar[list[dict[str, Any]]] = [
        {"trigger": "no_more_bets", "source": "betting", "dest": "bank", "conditions": "bank_on_offer"},
        {"trigger": "no_more_bets", "source": "betting", "dest": "shaking"},
        {"trigger": "bank_settled", "source": "bank", "dest": "shaking"},
        {"trigger": "reveal", "source": "shaking", "dest": "reading"},
        {
            "trigger": "reshake",
            "source": ["shaking", "reading", "delivering"],
            "dest": "shaking",
            "after": "_cover_for_reshake",
        },
        {"trigger": "roll_accepted", "source": "reading", "dest": "delivering"},
        {"trigger": "delivered", "source": "delivering", "dest": "closing"},
        {"trigger": "shaker_closed", "source": "closing", "dest": "hands"},
        {"trigger": "round_over", "source": _IN_ROUND, "dest": "betting"},
    ]
    #: A round is under way from no more bets to its end (its decisions carry its number).
    ROUND_STATES = _IN_ROUND
    #: Not state (:mod:`firmware_host.tables.state_tree`): the profile's settings, and the handlers
    #: and commands the collaborators registered.
    NOT_STATE = ("rules", "shaker_device", "_registered", "_commands")

    if TYPE_CHECKING:  # the triggers the machine adds to the table (TRANSITIONS)

        def no_more_bets(self) -> bool: ...
        def bank_settled(self) -> bool: ...
        def reveal(self) -> bool: ...
        def reshake(self) -> bool: ...
        def roll_accepted(self) -> bool: ...
        def delivered(self) -> bool: ...
        def shaker_closed(self) -> bool: ...
        def round_over(self) -> bool: ...

    def __init__(
        self,
        table_id: str,
        approved: Mapping[str, ApprovedIdentities],
        rules: PaiGowTableRules,
        shaker_device: str = "shaker",
    ) -> None:
        super().__init__(table_id, approved)
        self.rules = rules
        self.shaker_device = shaker_device
        self.round = RoundState()
        self.last_result: dict[str, Any] | None = None
        # The collaborators; each registers the events it handles (TableController.register).
        #: The dice set and its clock (§ 535.5(c)).
        self.dice = DiceSet(self)
        #: The wagers, the bank's offer, the player bank and its rotation (§ 535.7, § 535.11).
        self.player_bank = PlayerBank(self)
        #: The shakes, the lid, the dice reading and the no rolls (§ 535.8, § 535.12).
        self.roll = RollReader(self)
        #: The style, the cut, the starting position and the delivery (§ 535.8(c), § 535.9, § 535.11(g)).
        self.delivery = Delivery(self)
        #: The tiles, exposed tiles, a void round and the round's result (§ 535.10, § 535.12).
        self.settlement = Settlement(self)
        self._commands: dict[str, Callable[[Mapping[str, Any]], None]] = {
            "no_more_bets": self.player_bank.no_more_bets,
            "bank": self.player_bank.take_bank,
            "no_bank": self.player_bank.no_bank,
            "style": self.delivery.choose_style,
            "cut": self.delivery.cut,
            "reveal": self.roll.reveal,
            "lid_removed_by_bank": self.roll.lid_removed_by_bank,
            "delivered": self.delivery.delivered,
            "tiles": self.settlement.tiles,
            "round_complete": self.settlement.round_complete,
            "tile_exposed": self.settlement.tile_exposed,
            "void_round": self.settlement.void_round,
            "new_dice": self.dice.new_dice,
            "new_game": self.player_bank.new_game,
            "withdraw_wager": self.player_bank.withdraw_wager,
            "acknowledge": self._acknowledge,
        }
        self.register(DealerCommand, self._on_command)
        self.build_machine(self)

    # -- the input contract (events are dispatched by the base class to the registered handlers) --
    def after_game_event(self) -> None:
        """Every event checks the dice clock (§ 535.5(c))."""
        self.dice.check()

    def on_devices_changed(self) -> None:
        """As the base class; then, when the table resumes with the lid off and no reading yet,
        ask the shaker to read the dice (§ 535.8(b), :meth:`~.roll.RollReader.request_reading`)."""
        super().on_devices_changed()
        self.roll.request_reading()

    def _on_command(self, event: DealerCommand) -> None:
        """Check the command and its arguments (:data:`~.commands.TAKES`), then hand it to its collaborator."""
        args = check_command(event.command, event.args, TAKES)
        if event.command in ADVANCING and self.paused:
            raise RulesError(self.paused_text())
        self._commands[event.command](args)

    def _acknowledge(self, args: Mapping[str, Any]) -> None:
        raise RulesError("nothing is waiting to be acknowledged")

    # -- the machine's conditions and callbacks (named in STATES and TRANSITIONS) -------------
    @property
    def bank_on_offer(self) -> bool:
        """Whether some player may be offered the bank this round (§ 535.11(b)-(d))."""
        return bool(self.round.offer)

    def _open_round(self) -> None:
        self.round = RoundState()

    def _cover_for_reshake(self) -> None:
        self.roll.cover_for_reshake()

    # -- what the wiring, the display and the simulated dealer read ---------------------------
    @property
    def lid_open(self) -> bool:
        """Whether the shaker's lid is off, as last reported or commanded."""
        return self.roll.lid_open

    def dice_clock(self) -> DiceClock:
        """The dice set against the 24-hour limit (§ 535.5(c)) at the latest event's time."""
        return self.dice.clock()

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
        return prompt(self)

    def view(self) -> dict[str, Any]:
        """The dealer's terminal view: state, round, wagers, bank, dice, roll, plan, clock, alerts."""
        return dealer_view(self)

    def lamp_colour(self) -> str:
        """Red while paused, amber while the dice must be replaced soon or now (§ 535.5(c)), else green."""
        if self.paused:
            return "red"
        return "green" if self.dice_clock().state == "ok" else "amber"
