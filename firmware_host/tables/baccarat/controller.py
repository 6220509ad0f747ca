"""The Baccarat table controller: the shoe's life and each round, card by card (ch. 541, § 631c.5).

:class:`BaccaratTable` is a :class:`~firmware_host.tables.base.TableController` whose game is
a ``transitions`` state machine declared as data (:attr:`BaccaratTable.STATES`,
:attr:`BaccaratTable.TRANSITIONS`, with :attr:`~.shuffler.ShufflerSide.STATES` and
:attr:`~.shuffler.ShufflerSide.TRANSITIONS` at a shuffler table; the diagram in
``docs/state-baccarat.md`` is generated from them by ``docs/generate_diagrams.py``)::

    awaiting_shoe --shoe_loaded--> burning --burn_done--> betting --no_more_bets--> dealing
    dealing --hold_for_reveal--> revealing --reveal--> dealing        (§ 541.9(c)(2) only)
    dealing --settle_pairs--> settling_pairs --pairs_settled--> dealing   (§ 631c.5(d))
    betting|dealing|revealing|settling_pairs --round_over--> betting, or awaiting_shoe
        when a reshuffle is due (§ 541.10(e), § 541.14(e)); --shoe_over--> awaiting_shoe
    (with a shuffler, a shoe that did not run out ends in reading_out first:
        --read_out_done--> awaiting_shoe once the shoe reports itself empty)

The table is a facade over small collaborators, each in its own module, as the Pai Gow table is:

- :mod:`.shoe` (:class:`~.shoe.ShoeLife`): the shoe's life and where each card goes;
- :mod:`.round` (:class:`~.round.RoundPlay`): wagers, the deal, settlement, ``round_result``;
- :mod:`.irregularities` (:class:`~.irregularities.Irregularities`): § 541.14 and the card
  awaiting the dealer's entry — what interrupts any state and hands back to it, so not drawn:
  a card awaiting entry (every later shoe event waits in a backlog, so no card is lost or
  reordered), discards due (§ 541.14(c), (d)), cards drawn in error held for the next hand
  (§ 541.14(a));
- :mod:`.view`: the prompt, the dealer's view, the open alerts and the lamp;
- :mod:`.supply`: where shoes come from — :class:`~.supply.HandShuffled`, or the
  :class:`~.shuffler.ShufflerSide` (§ 541.3(b)), created only at a table with a shuffler,
  which registers its own handlers, states and transitions.

The rules come from :mod:`firmware_host.rules.baccarat`: each card goes where
:meth:`~firmware_host.rules.baccarat.deal.Deal.next_slot` says, a card that is not due is handled
by :func:`~firmware_host.rules.baccarat.irregularities.card_out_of_turn`, and wagers are settled
by :mod:`~firmware_host.rules.baccarat.settlement`.

Decisions (all data JSON-plain): ``prompt`` (what the dealer does next, see
:meth:`BaccaratTable.prompt`), ``announce``, ``alert``, ``lamp``, ``round_result``,
``shoe_result``, ``odds`` (:mod:`.protection`) and, with a shuffler, ``device_command``. A card dealt face down never
appears in a decision or in :meth:`view` before the reveal (only the ``round_result`` of a
round voided before it lists it, once the round is over); a card discarded undisclosed never
appears at all (the journal's input record holds it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

from transitions import Machine

from drivers.events import DeviceEvent
from drivers.events.lifecycle import DeviceIdentified, DeviceLost
from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.advantage_play import DetectionPolicy
from firmware_host.rules.baccarat.cards import MAX_DECKS, MIN_DECKS, shoe_composition
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.rules.baccarat.settlement import SEATS, CommissionLedger
from firmware_host.rules.devices import ApprovedIdentities
from firmware_host.rules.options import resolved
from firmware_host.rules.shuffler import ShufflerConfig
from firmware_host.tables.arguments import Check, check_command, named, text, whole
from firmware_host.tables.baccarat.advantage_play import AdvantagePlayWatch
from firmware_host.tables.baccarat.irregularities import FACE_UP_DISCARD_COUNTS, Irregularities
from firmware_host.tables.baccarat.prompts import Prompt, prompt
from firmware_host.tables.baccarat.protection import Protection
from firmware_host.tables.baccarat.round import Round, RoundPlay
from firmware_host.tables.baccarat.shoe import BURN_COUNT, IN_ROUND, Shoe, ShoeLife
from firmware_host.tables.baccarat.shuffler import ShufflerSide
from firmware_host.tables.baccarat.supply import HandShuffled, ShoeSupply
from firmware_host.tables.baccarat.view import OpenAlerts, dealer_view
from firmware_host.tables.base import TableController
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import DealerCommand, WagerPlaced

__all__ = ["BURN_COUNT", "BaccaratTable", "COMMANDS", "FACE_UP_DISCARD_COUNTS"]

#: The default number of decks in a shoe (§ 541.3(a): six to eight).
DEFAULT_DECKS = 8

#: Dealer commands (``DealerCommand.command``) this controller understands, with their args.
COMMANDS: dict[str, str] = {
    "shoe_loaded": '{"decks": N, "batch": "A"|"B"} (optional; default: the constructor\'s decks, the batch '
    "the shuffler released): a shuffled shoe is in",
    "no_more_bets": "no more bets (§ 541.8(c), § 541.9(b)); dealing starts",
    "reveal": "the face-down initial cards are turned up (§ 541.9(c)(2), § 541.10(a))",
    "pairs_settled": "the pair wagers are settled; third cards may be dealt (§ 631c.5(d))",
    "void_round": '{"reason": text} (optional): the dealer or supervisor voids the round; wagers returned',
    "card_disclosed": "the card just drawn in error was disclosed (§ 541.14(c))",
    "card_entered": '{"card": "9S"}: the dealer keys in the card the shoe could not read',
    "withdraw_wager": '{"seat": N, "kind": K}: take a wager back before no more bets (§ 541.8(c))',
    "seat_left": '{"seat": N}: the player leaves; marked commission is collected (§ 541.13(e))',
    "acknowledge": "clear the alerts that only needed acknowledging (impossible card, device fault)",
}
#: The longest card text ``card_entered`` takes: a card is at most three characters ("10D",
#: :func:`~firmware_host.rules.baccarat.cards.parse_card`), with a blank either side.
CARD_TEXT_LONGEST = 5
_SEAT = whole(min(SEATS), max(SEATS))
#: The arguments each command takes, checked before any handler runs (issue 20 item 3).
TAKES: dict[str, dict[str, Check]] = {
    "shoe_loaded": {"decks": whole(MIN_DECKS, MAX_DECKS), "batch": text(8)},
    "no_more_bets": {},
    "reveal": {},
    "pairs_settled": {},
    "void_round": {"reason": text(200)},
    "card_disclosed": {},
    "card_entered": {"card": text(CARD_TEXT_LONGEST)},
    "withdraw_wager": {"seat": _SEAT, "kind": text(32)},
    "seat_left": {"seat": _SEAT},
    "acknowledge": {},
}
assert TAKES.keys() == COMMANDS.keys()
#: Commands that move the game on, refused while the table is paused or an irregularity is open.
_ADVANCING = ("shoe_loaded", "no_more_bets", "reveal", "pairs_settled")


class BaccaratTable(TableController):
    """The controller of one Baccarat table.

    :param table_id: the table's id from its profile.
    :param approved: the allow-list of each device at the table, by device name.
    :param rules: the casino's Rules Submission (variant, commission, wagers offered).
    :param decks: decks in a shoe when ``shoe_loaded`` does not say (§ 541.3(a)).
    :param initial_cards_face_down: deal the initial four cards per § 541.9(c)(2) (face
        down until ``reveal``) instead of § 541.9(c)(1) (face up).
    :param face_up_discards: ``"point_value"`` or ``"face_value"``: how many cards follow a
        card found face up in the shoe to the discard rack (§ 541.14(d)).
    :param shuffler: the ``[rules.shuffler]`` of a table with an automatic shuffler
        (§ 541.3(b)); ``None``: no shuffler.
    :param shuffler_device: the shuffler's device name (one of ``approved``).
    :param advantage_threshold: an offered wager's EV above it opens an advantage window
        (``[protection]``, :mod:`.protection`).
    :param detection: how advantage play is looked for (:mod:`.advantage_play`; None: the defaults).
    :raises RulesError: for a deck count ch. 541 does not play, an unknown ``face_up_discards``,
        a shuffler whose batches do not hold ``decks`` decks, or a shuffler device not in ``approved``.
    """

    game = "baccarat"
    game_title = "Baccarat"

    # The machine, as data (see TableController.build_machine); ShufflerSide adds reading_out.
    INITIAL = "awaiting_shoe"
    STATES: ClassVar[list[Any]] = [
        {"name": "awaiting_shoe", "on_enter": "_close_shoe"},
        "burning",
        {"name": "betting", "on_enter": "_open_round"},
        "dealing",
        "revealing",
        "settling_pairs",
    ]
    #: The machine's transitions; dealer-command triggers are the commands' names.
    TRANSITIONS: ClassVar[list[dict[str, Any]]] = [
        {"trigger": "shoe_loaded", "source": "awaiting_shoe", "dest": "burning", "after": "_open_shoe"},
        {"trigger": "burn_done", "source": "burning", "dest": "betting"},
        {"trigger": "no_more_bets", "source": "betting", "dest": "dealing", "after": "_deal_held_cards"},
        {"trigger": "hold_for_reveal", "source": "dealing", "dest": "revealing"},
        {"trigger": "reveal", "source": "revealing", "dest": "dealing", "after": "_initial_cards_exposed"},
        {"trigger": "settle_pairs", "source": "dealing", "dest": "settling_pairs", "after": "_settle_pairs"},
        {"trigger": "pairs_settled", "source": "settling_pairs", "dest": "dealing"},
        {"trigger": "void_round", "source": IN_ROUND, "dest": None, "after": "_void_by_dealer"},
        {"trigger": "round_over", "source": IN_ROUND, "dest": "awaiting_shoe", "conditions": "reshuffle_due"},
        {"trigger": "round_over", "source": IN_ROUND, "dest": "betting"},
        {"trigger": "shoe_over", "source": ["burning", *IN_ROUND], "dest": "awaiting_shoe"},
    ]
    #: A round is open from the betting to its end (its decisions carry its number).
    ROUND_STATES = IN_ROUND
    #: Not state (:mod:`firmware_host.tables.state_tree`): the profile's settings, the handlers and
    #: commands registered by the collaborators, and the supply (the shuffler, kept as such, or
    #: the hand-shuffled supply, which holds nothing).
    NOT_STATE = ("rules", "decks", "initial_cards_face_down", "_face_up_counts", "_registered", "_commands", "supply")

    if TYPE_CHECKING:  # the triggers the machine adds to the table (TRANSITIONS, ShufflerSide.TRANSITIONS)

        def shoe_loaded(self, decks: int, batch: str | None = None) -> bool: ...
        def burn_done(self) -> bool: ...
        def no_more_bets(self) -> bool: ...
        def hold_for_reveal(self) -> bool: ...
        def reveal(self) -> bool: ...
        def settle_pairs(self) -> bool: ...
        def pairs_settled(self) -> bool: ...
        def void_round(self, reason: str) -> bool: ...
        def round_over(self) -> bool: ...
        def shoe_over(self) -> bool: ...
        def read_out_done(self) -> bool: ...

    def __init__(
        self,
        table_id: str,
        approved: Mapping[str, ApprovedIdentities],
        rules: RulesSubmission,
        decks: int = DEFAULT_DECKS,
        *,
        initial_cards_face_down: bool = False,
        face_up_discards: str = "point_value",
        shuffler: ShufflerConfig | None = None,
        shuffler_device: str = "shuffler",
        advantage_threshold: Fraction = Fraction(0),
        detection: DetectionPolicy | None = None,
    ) -> None:
        super().__init__(table_id, approved)
        shoe_composition(decks)  # RulesError for a deck count ch. 541 does not play
        if face_up_discards not in FACE_UP_DISCARD_COUNTS:
            raise RulesError(f"face_up_discards {face_up_discards!r}: not one of {', '.join(FACE_UP_DISCARD_COUNTS)}")
        self.rules = rules
        self.decks = decks
        self.initial_cards_face_down = initial_cards_face_down
        self._face_up_counts = FACE_UP_DISCARD_COUNTS[face_up_discards]
        self.shoes_started = 0
        self.shoe: Shoe | None = None
        self.round = Round()
        self.ledger = CommissionLedger()
        self.last_outcome: dict[str, Any] | None = None
        # The collaborators; each registers the events it handles (TableController.register).
        #: The alerts open on the dealer's view, and every alert recorded in the shoe's result.
        self.open_alerts = OpenAlerts(self)
        #: § 541.14, and the card awaiting the dealer's entry.
        self.irregular = Irregularities(self, self._face_up_counts)
        #: The shoe's events and life.
        self.shoe_life = ShoeLife(self)
        #: Wagers, the deal, settlement, the ``round_result``.
        self.round_play = RoundPlay(self)
        #: The shuffler side, only at a table with a shuffler (None: no shuffler).
        self.shuffler = None if shuffler is None else ShufflerSide(self, shuffler, shuffler_device)
        #: Where shoes come from: the shuffler side, or the dealer shuffling by hand.
        self.supply: ShoeSupply = HandShuffled(self) if self.shuffler is None else self.shuffler
        #: The exposed cards, the ``odds`` before each round and its advantage windows.
        self.protection = Protection(self, advantage_threshold)
        #: Each seat's wagers against the advantage windows (``advantage-play``).
        self.advantage_play = AdvantagePlayWatch(self, detection)
        self._commands: dict[str, Callable[[Mapping[str, Any]], object]] = {
            "shoe_loaded": self.supply.load,
            "void_round": lambda args: self.void_round(str(args.get("reason", "voided by the dealer"))),
            "no_more_bets": lambda args: self.no_more_bets(),
            "reveal": lambda args: self.reveal(),
            "pairs_settled": lambda args: self.pairs_settled(),
            "card_entered": self.irregular.card_entered,
            "card_disclosed": self.irregular.card_disclosed,
            "withdraw_wager": self.round_play.withdraw_wager,
            "seat_left": self.round_play.seat_left,
            "acknowledge": self.open_alerts.acknowledge,
        }
        self.register(DealerCommand, self._on_command)
        self.build_machine(self, shuffler=self.shuffler is not None)

    @classmethod
    def build_machine(
        cls, model: Any, machine_class: type[Machine] = Machine, *, shuffler: bool = True, **options: Any
    ) -> Machine:
        """As :meth:`TableController.build_machine`, with the shuffler side's states and
        transitions unless ``shuffler`` is false (the diagram draws them). A transition of the
        side goes just before the table's first one with the same trigger, so it is tried first.

        :param shuffler: whether the table has a shuffler (:class:`~.shuffler.ShufflerSide`).
        """
        states, transitions = list(cls.STATES), list(cls.TRANSITIONS)
        if shuffler:
            states += ShufflerSide.STATES
            for extra in ShufflerSide.TRANSITIONS:
                same = (i for i, known in enumerate(transitions) if known["trigger"] == extra["trigger"])
                transitions.insert(next(same, len(transitions)), extra)
        return machine_class(
            model=model, states=states, transitions=transitions, initial=cls.INITIAL, auto_transitions=False, **options
        )

    # -- the input contract (events are dispatched by the base class to the registered handlers) --
    def handle(self, event: DeviceEvent, at: float, mono_ns: int | None = None) -> list[Decision]:
        """As :meth:`TableController.handle`; a device found or lost is first the supply's news
        (the shuffler lost or found starts a new session)."""
        if isinstance(event, (DeviceIdentified, DeviceLost)):
            self.supply.on_device(event)
        return super().handle(event, at, mono_ns)

    def after_game_event(self) -> None:
        """After every game event: ask the shuffler (if any) for what is due; the round's odds; watch
        for advantage play (after the odds, which it reads)."""
        self.supply.ask()
        self.protection.after_event()
        self.advantage_play.after_step()

    def on_devices_changed(self) -> None:
        """A device lost, found or approved: ask the shuffler (if any) for what is due, then the prompt."""
        self.supply.ask()
        super().on_devices_changed()

    def describe(self, event: DeviceEvent) -> str:
        """As :meth:`TableController.describe`, a wager with its kind (``wager at seat 3 on banker``)."""
        if isinstance(event, WagerPlaced):
            return f"{super().describe(event)} on {event.kind}"
        return super().describe(event)

    def _on_command(self, event: DealerCommand) -> None:
        """Check the command and its arguments (:data:`TAKES`), then hand it to its collaborator."""
        command = event.command
        if not isinstance(command, str) or command not in COMMANDS:
            self.refuse("unknown-command", f"dealer command {named(command)}: not one of {', '.join(COMMANDS)}")
        args = check_command(command, event.args, TAKES)
        if command in _ADVANCING and self.paused:
            self.refuse("table-paused", f"{command}: {self.paused_text()}")
        if command in _ADVANCING and (self.irregular.awaiting is not None or self.shoe_life.discards_due()):
            self.refuse("irregularity-open", f"{command}: finish the irregularity first ({self.prompt()['text']})")
        self._commands[command](args)

    # -- the machine's conditions and callbacks (named in STATES and TRANSITIONS) -------------
    @property
    def reshuffle_due(self) -> bool:
        """The shoe is finished: the last hand was played (§ 541.10(e)), it ran out (§ 541.14(e))
        or its decks are overdue for a change (§ 541.3(c))."""
        shoe = self.shoe
        return shoe is not None and (shoe.cover == "reshuffle" or shoe.emptied or shoe.new_decks is not None)

    @property
    def reads_out(self) -> bool:
        """The shoe did not run out: at a shuffler table the rest is read out (composition audit)."""
        return self.shoe is not None and not self.shoe.emptied

    def _open_shoe(self, decks: int, batch: str | None = None) -> None:
        self.shoe_life.open(decks, batch)

    def _close_shoe(self) -> None:
        self.shoe_life.close()

    def _start_read_out(self) -> None:
        self.shoe_life.start_read_out()

    def _open_round(self) -> None:
        self.round_play.open_round()

    def _deal_held_cards(self) -> None:
        self.round_play.deal_held_cards()

    def _initial_cards_exposed(self) -> None:
        self.round_play.initial_cards_exposed()

    def _settle_pairs(self) -> None:
        self.round_play.settle_pairs()

    def _void_by_dealer(self, reason: str = "voided by the dealer") -> None:
        self.round_play.void_by_dealer(reason)

    # -- the dealer's prompt and view ------------------------------------------------------
    @property
    def quiet(self) -> bool:
        """Between rounds: also while a round takes its first wagers (its betting opens at once, § 541.8)."""
        return super().quiet or (self.state == "betting" and not self.round.wagers)

    def rules_in_force(self) -> dict[str, Any]:
        """The Rules Submission (ch. 541, § 631c.5), the shoe's decks and the shuffler's part (§ 541.3(b))."""
        shuffler = None if self.shuffler is None else resolved(self.shuffler.state.config)
        return {"game": self.game, "decks": self.decks, "rules": resolved(self.rules), "shuffler": shuffler}

    def prompt(self) -> Prompt:
        """What the dealer must do next (the data of a ``prompt`` decision).

        ``action`` is one of :class:`~.prompts.Action`: ``wait`` (paused; ``problems``; with a
        shuffler also ``reason`` "shuffler" and the ``batch`` awaited), ``read_out`` (``read``:
        cards read out so far), ``enter_card`` (``card``: its number in the shoe, the cover card
        not counted), ``discard`` (``count``, ``face`` "up"/"down"), ``return_batch`` (``batch``,
        ``replace``: new decks instead of the batch's cards), ``load_shoe`` (with a shuffler
        ``batch``, ``decks``, ``back_colour``), ``burn`` (``remaining``: None before the first
        card is shown), ``place_bets`` (``last_hand``, ``held``), ``deal`` (``to``
        "player"/"banker", ``card`` 1-3: the card's place in that hand), ``reveal``,
        ``settle_pairs`` (``settlement``), ``collect_commission`` (``seats``, only as a
        decision); every prompt has a ``text`` for people.
        """
        return prompt(self)

    def view(self) -> dict[str, Any]:
        """The dealer's view: next card for whom, totals, last outcome, last hand, open alerts.

        Cards dealt face down show as ``None`` until the reveal.
        """
        return dealer_view(self)

    def lamp_colour(self) -> str:
        """Red while paused or a fault is open, amber while an irregularity or a card entry waits, else green."""
        return self.open_alerts.lamp_colour()

    def alert_in_round(self, code: str, text: str, severity: str = "attention", record: bool = True) -> None:
        """An ``alert`` decision of the round under way, recorded in the shoe's result unless ``record`` is false."""
        super().alert_in_round(code, text, severity)
        if record:
            self.open_alerts.record(code, text)
