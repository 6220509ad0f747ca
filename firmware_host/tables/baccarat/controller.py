"""The Baccarat table controller: the shoe's life and each round, card by card (ch. 541, § 631c.5).

:class:`BaccaratTable` is a :class:`~firmware_host.tables.base.TableController` whose game is
a ``transitions`` state machine declared as data (:attr:`BaccaratTable.STATES`,
:attr:`BaccaratTable.TRANSITIONS`; the diagram in ``docs/state-baccarat.md`` is generated
from them by ``docs/generate_diagrams.py``)::

    awaiting_shoe --shoe_loaded--> burning --burn_done--> betting --no_more_bets--> dealing
    dealing --hold_for_reveal--> revealing --reveal--> dealing        (§ 541.9(c)(2) only)
    dealing --settle_pairs--> settling_pairs --pairs_settled--> dealing   (§ 631c.5(d))
    betting|dealing|revealing|settling_pairs --round_over--> betting, or awaiting_shoe
        when a reshuffle is due (§ 541.10(e), § 541.14(e)); --shoe_over--> awaiting_shoe
    (with a shuffler, a shoe that did not run out ends in reading_out first:
        --read_out_done--> awaiting_shoe once the shoe reports itself empty)

The rules come from :mod:`firmware_host.rules.baccarat`: each card goes where
:meth:`~firmware_host.rules.baccarat.deal.Deal.next_slot` says, a card that is not due is handled
by :func:`~firmware_host.rules.baccarat.irregularities.card_out_of_turn`, and wagers are settled
by :mod:`~firmware_host.rules.baccarat.settlement`.

Three things run across the states rather than being states of their own, because they can
interrupt any of them and then hand back to where the table was:

- **a card awaiting the dealer's entry** (unreadable, or face up and unread): every later
  shoe event waits in a backlog and is applied in order once ``card_entered`` names the
  card, so no card is ever lost or reordered;
- **discards due** (§ 541.14(c) one card face down, § 541.14(d) cards face up): the next
  cards out of the shoe go to the discard rack;
- **cards drawn in error** (§ 541.14(a)): held aside and dealt as the first cards of the
  next round.

**With an automatic shuffler** (``shuffler=`` a :class:`~firmware_host.rules.shuffler.ShufflerConfig`,
the ``[rules.shuffler]`` of the Rules Submission) the table also keeps the two batches
(§ 541.3(b)) with :mod:`firmware_host.rules.shuffler` and decides what the shuffler is asked
to do — ``device_command`` decisions (``{"device", "command": "start_shuffle" |
"release_batch", "batch", "expected_cards"}``) that an output carries out on the driver once
the step is journaled — and what the dealer does between shoes: put the batch of the shoe
just ended back into the shuffler (new decks instead when its composition was wrong or its
decks are due for a change, § 541.3(c)), wait for the next batch, load the shoe from it
(batches alternate, § 541.3(b)(5)). A shoe from a batch ends with the rest of the shoe read
out through the reader (``reading_out``), so the composition audit
(:func:`~firmware_host.rules.shoe_audit.audit_composition`) sees every card and names an extra or
a missing one; the shuffle-quality watch (:class:`~firmware_host.rules.shoe_audit.ShuffleWatch`)
journals warnings, never blocking. A batch whose shuffle counted the wrong number of cards
or repeated an order is taken out of the shuffler and replaced by new decks. Without a
shuffler none of this happens: the table is exactly as before.

Decisions (all data JSON-plain): ``prompt`` (what the dealer does next, see
:meth:`BaccaratTable.prompt`), ``announce``, ``alert``, ``lamp``, ``round_result``,
``shoe_result`` and, with a shuffler, ``device_command``. A card dealt face down never
appears in a decision or in :meth:`view` before the reveal (only the ``round_result`` of a
round voided before it lists it, once the round is over); a card discarded undisclosed never
appears at all (the journal's input record holds it).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any, Callable, Mapping

from drivers.events import DeviceEvent
from drivers.events.shoe import CardFaceUp, CardRead, CardUnreadable, CutCard, IdentityUnverified, ShoeEmpty, ShoeWarning
from drivers.events.shuffler import (
    BatchLoaded, BatchReleased, BatchStatus, ShuffleCompleted, ShuffleProgress, ShuffleStarted, ShufflerFault,
    ShufflerFaultCleared,
)  # fmt: skip
from drivers.events.lifecycle import DeviceFault, DeviceIdentified, DeviceLost
from firmware_host.tables.events import ClockTick, DealerCommand, WagerPlaced
from firmware_host.rules import shuffler as shuffling
from firmware_host.rules.baccarat.cards import RANK_VALUES, RANKS, Card, parse_card, shoe_composition
from firmware_host.rules.baccarat.deal import INITIAL_ORDER, Deal
from firmware_host.rules.baccarat.irregularities import IrregularityAction, IrregularityOutcome, card_out_of_turn
from firmware_host.rules.baccarat.rules import PAIR_WAGERS, WAGER_KINDS, RulesSubmission
from firmware_host.rules.baccarat.settlement import (
    SEATS,
    CommissionLedger,
    SettledWager,
    Wager,
    WagerOutcome,
    settle,
    settle_pairs,
)
from firmware_host.tables.base import TableController
from firmware_host.tables.decisions import Decision
from firmware_host.errors import RulesError
from firmware_host.rules.devices import ApprovedIdentities
from firmware_host.rules.shoe_audit import ShuffleWatch, audit_composition
from firmware_host.rules.shuffler import BatchRecord, Notice, ShufflerConfig, ShufflerRefusal, ShufflerState

__all__ = ["BaccaratTable", "COMMANDS", "FACE_UP_DISCARD_COUNTS"]

#: § 541.5(g): the first card burned counts its face value, a ten or a face card ten, an ace one.
BURN_COUNT: dict[str, int] = {rank: RANK_VALUES[rank] or 10 for rank in RANKS}
#: § 541.14(d) "the value of the card found face up": our reading is the § 541.6(a) value
#: (tens and faces 0); ``"face_value"`` counts as the burn does (tens and faces 10).
FACE_UP_DISCARD_COUNTS: dict[str, dict[str, int]] = {"point_value": dict(RANK_VALUES), "face_value": BURN_COUNT}
#: The default number of decks in a shoe (§ 541.3(a): six to eight).
DEFAULT_DECKS = 8

#: Dealer commands (``DealerCommand.command``) this controller understands, with their args.
COMMANDS: dict[str, str] = {
    "shoe_loaded": '{"decks": N, "batch": "A"|"B"} (optional; default: the constructor\'s decks, the batch '
                   'the shuffler released): a shuffled shoe is in',
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
#: Commands that move the game on, refused while the table is paused or an irregularity is open.
_ADVANCING = ("shoe_loaded", "no_more_bets", "reveal", "pairs_settled")
#: States in which a round (the one being bet on or dealt) is open.
_IN_ROUND = ["betting", "dealing", "revealing", "settling_pairs"]
_ORDINALS = {1: "first", 2: "second", 3: "third"}


@dataclasses.dataclass
class _Shoe:
    """One shoe's life, from ``shoe_loaded`` to the reshuffle."""

    number: int
    decks: int
    remaining: Counter[Card]
    burned: int = 0
    cards_read: int = 0
    rounds: int = 0
    composition_ok: bool = True
    alerts: list[dict[str, str]] = dataclasses.field(default_factory=list)
    #: None until the first burn card is shown (§ 541.5(g)), then cards still to burn.
    burn_remaining: int | None = None
    #: § 541.10(e): "in_shoe" -> "out" (finish this hand) -> "last_hand" -> "reshuffle".
    cover: str = "in_shoe"
    #: The shoe ran out (§ 541.14(e)).
    emptied: bool = False
    #: The last completed or voided deal of this shoe (what a card drawn in error follows).
    last_deal: Deal | None = None
    #: Cards drawn in error, to be dealt first in the next round (§ 541.14(a)).
    held: list[Card] = dataclasses.field(default_factory=list)
    #: Undisclosed (face-down) and face-up cards still to go to the discard rack.
    discards_down: int = 0
    discards_up: int = 0
    #: The shuffler batch the shoe was loaded from (None without a shuffler).
    batch: str | None = None
    #: Every card identified (read, keyed in), for the composition audit.
    identified: list[Card] = dataclasses.field(default_factory=list)
    #: Every card in the order the shoe read it (None: unreadable), for the shuffle-quality watch.
    seen: list[Card | None] = dataclasses.field(default_factory=list)
    #: Cards read out after the last hand (``reading_out``).
    read_out: int = 0
    #: Why the batch needs new decks before it is dealt again (composition, § 541.3(c)), if it does.
    new_decks: str | None = None


@dataclasses.dataclass
class _Shuffler:
    """The table's automatic shuffler: the rules' state of both batches and what was asked of the device.

    :param device: the shuffler's device name in the table profile.
    """

    device: str
    state: ShufflerState
    watch: ShuffleWatch
    #: ``(command, batch)`` decided and not yet seen done (the output sends each once).
    pending: set[tuple[str, str]] = dataclasses.field(default_factory=set)
    #: Faults that stop the shuffler until it reports them cleared (jam, door open).
    latched: set[str] = dataclasses.field(default_factory=set)
    #: Batches whose status is awaited after a handshake; nothing is asked before it came.
    status_due: set[str] = dataclasses.field(default_factory=set)
    #: The device refused a command: nothing more is asked until it reports news.
    refused: bool = False
    #: Batches asked out of the shuffler to be replaced by new decks, and why.
    replacing: dict[str, str] = dataclasses.field(default_factory=dict)
    #: Batches retired (§ 541.3(c), a wrong composition or count): why new decks are due in their slot.
    new_decks_due: dict[str, str] = dataclasses.field(default_factory=dict)
    #: Alerts recorded while no shoe is in play; the next shoe's result lists them.
    between_shoes: list[dict[str, str]] = dataclasses.field(default_factory=list)

    def new_session(self) -> None:
        """The device was lost or found: commands in flight are lost, its status is awaited again."""
        self.pending.clear()
        self.latched.clear()
        self.status_due = set(self.state.config.batches)
        self.refused = False

    def colour(self, batch: str) -> str:
        """The back colour of ``batch`` in the Rules Submission (§ 541.3(b)(3))."""
        return self.state.config.back_colours[shuffling.BATCH_NAMES.index(batch)]


@dataclasses.dataclass
class _Round:
    """The open round's cards, wagers and irregularities."""

    deal: Deal = Deal()
    wagers: dict[tuple[int, str], Wager] = dataclasses.field(default_factory=dict)
    #: Pair wagers settled after the initial four cards (§ 631c.5(d)).
    pair_lines: tuple[SettledWager, ...] = ()
    irregularities: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    #: Whether the initial cards are face up (always, unless dealt per § 541.9(c)(2)).
    revealed: bool = True


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
    :raises RulesError: for a deck count ch. 541 does not play, an unknown ``face_up_discards``,
        a shuffler whose batches do not hold ``decks`` decks, or a shuffler device not in ``approved``.
    """

    game = "baccarat"
    game_title = "Baccarat"

    # The machine, as data (see TableController.build_machine).
    INITIAL = "awaiting_shoe"
    STATES: list[Any] = [
        {"name": "awaiting_shoe", "on_enter": "_close_shoe"},
        "burning",
        {"name": "betting", "on_enter": "_open_round"},
        "dealing",
        "revealing",
        "settling_pairs",
        {"name": "reading_out", "on_enter": "_start_read_out"},
    ]
    #: The machine's transitions; dealer-command triggers are the commands' names.
    TRANSITIONS: list[dict[str, Any]] = [
        {"trigger": "shoe_loaded", "source": "awaiting_shoe", "dest": "burning", "after": "_open_shoe"},
        {"trigger": "burn_done", "source": "burning", "dest": "betting"},
        {"trigger": "no_more_bets", "source": "betting", "dest": "dealing", "after": "_deal_held_cards"},
        {"trigger": "hold_for_reveal", "source": "dealing", "dest": "revealing"},
        {"trigger": "reveal", "source": "revealing", "dest": "dealing", "after": "_initial_cards_exposed"},
        {"trigger": "settle_pairs", "source": "dealing", "dest": "settling_pairs", "after": "_settle_pairs"},
        {"trigger": "pairs_settled", "source": "settling_pairs", "dest": "dealing"},
        {"trigger": "void_round", "source": _IN_ROUND, "dest": None, "after": "_void_by_dealer"},
        {"trigger": "round_over", "source": _IN_ROUND, "dest": "reading_out", "conditions": ["reshuffle_due", "reads_out"]},
        {"trigger": "round_over", "source": _IN_ROUND, "dest": "awaiting_shoe", "conditions": "reshuffle_due"},
        {"trigger": "round_over", "source": _IN_ROUND, "dest": "betting"},
        {"trigger": "shoe_over", "source": ["burning", *_IN_ROUND], "dest": "reading_out", "conditions": "reads_out"},
        {"trigger": "shoe_over", "source": ["burning", *_IN_ROUND], "dest": "awaiting_shoe"},
        {"trigger": "read_out_done", "source": "reading_out", "dest": "awaiting_shoe"},
    ]
    #: A round is open from the betting to its end (its decisions carry its number).
    ROUND_STATES = _IN_ROUND
    NOT_STATE = ("rules", "decks", "initial_cards_face_down", "_face_up_counts", "_HANDLERS")

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
    ) -> None:
        super().__init__(table_id, approved)
        shoe_composition(decks)  # RulesError for a deck count ch. 541 does not play
        if face_up_discards not in FACE_UP_DISCARD_COUNTS:
            raise RulesError(f"face_up_discards {face_up_discards!r}: not one of {', '.join(FACE_UP_DISCARD_COUNTS)}")
        self.shuffler: _Shuffler | None = None
        if shuffler is not None:
            if shuffler.decks_per_batch != decks:
                raise RulesError(f"shuffler: batches of {shuffler.decks_per_batch} decks, but shoes of {decks} "
                                 "(§ 541.3(b)(1): each batch is one shoe)")  # fmt: skip
            if shuffler_device not in approved:
                raise RulesError(f"shuffler device {shuffler_device!r}: not a device of table {table_id}")
            self.shuffler = _Shuffler(shuffler_device, shuffling.new_state(shuffler), ShuffleWatch(decks))
            self.shuffler.new_session()
            # The shuffler's events mean something only at a table that has one.
            self._HANDLERS = {**BaccaratTable._HANDLERS, **_SHUFFLER_HANDLERS}
        self.rules = rules
        self.decks = decks
        self.initial_cards_face_down = initial_cards_face_down
        self._face_up_counts = FACE_UP_DISCARD_COUNTS[face_up_discards]
        self.shoes_started = 0
        self.shoe: _Shoe | None = None
        self.round = _Round()
        self.ledger = CommissionLedger()
        self.last_outcome: dict[str, Any] | None = None
        #: ``"unreadable"`` or ``"face_up"`` while a card waits for ``card_entered``.
        self._awaiting_entry: str | None = None
        #: The card awaiting entry: its number in the shoe (1 for the first card out; the cover card is not one).
        self._awaiting_card: int | None = None
        #: Shoe events that came while a card awaits entry, with their card numbers, applied in shoe order after it.
        self._backlog: list[tuple[DeviceEvent, int | None]] = []
        self._open_alerts: dict[str, dict[str, str]] = {}
        self.build_machine(self)

    # -- the input contract (events are dispatched by the base class through _HANDLERS) ---
    def describe(self, event: DeviceEvent) -> str:
        """As :meth:`TableController.describe`, a wager with its kind (``wager at seat 3 on banker``)."""
        if isinstance(event, WagerPlaced):
            return f"{super().describe(event)} on {event.kind}"
        return super().describe(event)

    @property
    def reshuffle_due(self) -> bool:
        """The shoe is finished: the last hand was played (§ 541.10(e)), it ran out (§ 541.14(e))
        or its decks are overdue for a change (§ 541.3(c))."""
        shoe = self.shoe
        return shoe is not None and (shoe.cover == "reshuffle" or shoe.emptied or shoe.new_decks is not None)

    @property
    def reads_out(self) -> bool:
        """A shoe from a shuffler batch that did not run out ends with the rest read out (composition audit)."""
        return self.shuffler is not None and self.shoe is not None and not self.shoe.emptied

    # -- shoe events ----------------------------------------------------------------------
    def _on_shoe_event(self, event: DeviceEvent) -> None:
        """A card, the cover card or the shoe running out: applied now, or after the card
        awaiting the dealer's entry so that shoe order is kept."""
        card = _card_of(event)  # RulesError for a card that cannot be, before anything is counted
        number = None
        if isinstance(event, (CardRead, CardUnreadable, CardFaceUp)) and self.shoe is not None:
            self.shoe.cards_read += 1
            self.shoe.seen.append(card)
            number = self.shoe.cards_read
        if isinstance(event, CardRead) and event.burn and self.state != "burning" and not self._discards_due():
            text = "the shoe flagged a burn card outside the burn; it is dealt as the table's state says"
            self._alert("burn-flag", text, "warning")
        if self._awaiting_entry is not None:
            self._backlog.append((event, number))
        else:
            self._apply_shoe_event(event, number)

    def _apply_shoe_event(self, event: DeviceEvent, number: int | None) -> None:
        card = _card_of(event)
        if self.state == "reading_out":
            self._read_out(event, card)
        elif isinstance(event, CardRead):
            self._apply_card(card)  # type: ignore[arg-type]
        elif isinstance(event, (CardUnreadable, CardFaceUp)) and card is None:
            self._apply_unknown(isinstance(event, CardFaceUp), number)
        elif isinstance(event, CardFaceUp):
            self._apply_face_up(card)  # type: ignore[arg-type]
        elif isinstance(event, CutCard):
            self._apply_cut_card()
        else:
            self._apply_shoe_empty()

    def _drain_backlog(self) -> None:
        while self._backlog and self._awaiting_entry is None:
            self._apply_shoe_event(*self._backlog.pop(0))

    def _on_shoe_warning(self, event: ShoeWarning) -> None:
        self._alert("shoe-warning", f"{event.device}: warning code 0x{event.code:02X}", "warning")

    def _on_identity_unverified(self, event: IdentityUnverified) -> None:
        self._alert("identity-unverified", f"{event.device}: identity not read from the device: {event.why}", "warning")

    def _on_fault(self, event: DeviceFault) -> None:
        # The base class has already decided the alert; it stays open (red) until acknowledged.
        self._track(f"{event.device}-fault", f"{event.device}: fault {event.code}: {event.text}", "fault", "acknowledge")

    def _on_tick(self, event: ClockTick) -> None:
        """§ 541.5(h)(2): with a shuffler, a shoe with no gaming activity for ``idle_after_s`` ends
        (its cards go into the shuffler, the other batch comes out); otherwise a tick changes nothing."""
        side = self.shuffler
        if side is None or self.state != "betting" or self.round.wagers or not shuffling.idle_due(side.state, self.now):
            return
        self._apply_step(shuffling.idle_table(side.state, self.now))
        self.shoe_over()

    # -- where a card goes ----------------------------------------------------------------
    def _apply_unknown(self, face_up: bool, number: int | None) -> None:
        """A card the shoe could not read (card ``number`` of the shoe): count it where its
        identity does not matter, otherwise wait for the dealer to key it in."""
        if self.shoe is None:
            self._no_shoe("a card came out")
        elif not face_up and (self._discards_due() or (self.state == "burning" and self.shoe.burn_remaining is not None)):
            self._discard_or_burn(None)
        else:
            self._awaiting_entry, self._awaiting_card = "face_up" if face_up else "unreadable", number
            what = "a card came out face up but the shoe could not read it" if face_up else "the shoe could not read a card"
            self._open("card-unreadable", f"{what}: key it in (card entered)", "attention", "card_entered")

    def _apply_card(self, card: Card) -> None:
        if self.shoe is not None and not self._discards_due() and self.state in ("revealing", "settling_pairs"):
            self._skip_to_third_cards()  # may finish the round, or the shoe
        if self.shoe is None:
            self._no_shoe("a card came out")
            return
        self._audit(card, self._exposed_if_drawn_now())
        if self._discards_due() or self.state == "burning":
            self._discard_or_burn(card)
        elif self.state == "betting":
            self._hold_drawn_in_error(card)
        else:
            self._deal_card(card)

    def _exposed_if_drawn_now(self) -> bool:
        """Whether the next card out of the shoe is seen at the table."""
        assert self.shoe is not None
        if self.shoe.discards_down:
            return False  # § 541.14(c): drawn face down and not disclosed
        if self.shoe.discards_up:
            return True  # § 541.14(d): drawn face up
        if self.state == "burning":
            return self.shoe.burn_remaining is None  # § 541.5(g): the first card is shown
        if self.state == "betting":
            return False  # held face down for the next hand (§ 541.14(a))
        return self.round.revealed or self.state != "dealing" or self.round.deal.cards_used >= len(INITIAL_ORDER)

    def _audit(self, card: Card, exposed: bool) -> None:
        """Count the card out of the shoe's composition; flag a card the shoe cannot hold."""
        assert self.shoe is not None
        self.shoe.identified.append(card)
        if self.shoe.remaining[card] > 0:
            self.shoe.remaining[card] -= 1
            return
        self.shoe.composition_ok = False
        named = f"{card} is one more than {self.shoe.decks} decks hold"
        self.shoe.alerts.append({"code": "impossible-card", "text": f"impossible card: {named} (§ 541.3)"})
        if not exposed:  # face down at the table: named in the shoe's result only
            named = f"card {self.shoe.cards_read} of the shoe is one more than the decks hold (named in the shoe result)"
        text = f"impossible card: {named}; shoe composition flagged (§ 541.3)"
        self._open("impossible-card", text, "attention", "acknowledge", record=False)

    def _no_shoe(self, what: str) -> None:
        self._alert("no-shoe", f"{what} but no shoe is in play: load a shuffled shoe and press shoe loaded", "warning")

    def _discards_due(self) -> int:
        return 0 if self.shoe is None else self.shoe.discards_down + self.shoe.discards_up

    def _discard_or_burn(self, card: Card | None) -> None:
        """The card goes to the discard rack: a § 541.14(c)/(d) discard or a § 541.5(g) burn card."""
        shoe = self.shoe
        assert shoe is not None
        if shoe.discards_down:
            shoe.discards_down -= 1
        elif shoe.discards_up:
            shoe.discards_up -= 1
        elif shoe.burn_remaining is None:
            assert card is not None  # the first burn card is always identified
            shoe.burn_remaining = BURN_COUNT[card.rank]
            shoe.burned += 1
            text = f"burn card {card}: burn {shoe.burn_remaining} more"
            self._announce("burn_card", text, card=str(card), burn=shoe.burn_remaining)
        else:
            shoe.burn_remaining -= 1
            shoe.burned += 1
        if not self._discards_due():
            self._close_discard_alerts()
        if self.state == "burning" and not self._discards_due() and shoe.burn_remaining == 0:
            self.burn_done()

    def _hold_drawn_in_error(self, card: Card) -> None:
        """§ 541.14(a): a card drawn when none is due is dealt first in the next round."""
        assert self.shoe is not None
        outcome = self._out_of_turn(card, disclosed=False)
        self.shoe.held.append(outcome.card)
        self._irregularity(outcome.section, "card-drawn-in-error",
                           "a card was drawn when none was due: it is the first card of the next hand")  # fmt: skip

    def _out_of_turn(self, card: Card, *, disclosed: bool) -> IrregularityOutcome:
        assert self.shoe is not None
        if self.shoe.last_deal is None:
            # No round finished yet in this shoe, so no deal to hand card_out_of_turn; § 541.14
            # applies the same way between the burn and the first round.
            action = IrregularityAction.DISCARD_WITH_ONE_MORE if disclosed else IrregularityAction.NEXT_HAND_FIRST_CARD
            return IrregularityOutcome(action, card, Deal(), int(disclosed), "541.14(c)" if disclosed else "541.14(a)")
        return card_out_of_turn(self.shoe.last_deal, card, to_player_third_in_error=False, disclosed=disclosed)

    def _apply_face_up(self, card: Card) -> None:
        """§ 541.14(d): the card is not used; it and as many cards as its value, drawn face up, are discarded."""
        if self.shoe is None:
            self._no_shoe(f"card {card} came out face up")
            return
        self._audit(card, exposed=True)
        more = self._face_up_counts[card.rank]
        self.shoe.discards_up += more
        text = f"card {card} was face up in the shoe: discard it and {more} more drawn face up"
        self._irregularity("541.14(d)", "card-face-up", text, open_until="discard" if more else None)

    def _apply_cut_card(self) -> None:
        """§ 541.10(e): the cover card is out: this hand is completed, then one more is played."""
        shoe = self.shoe
        if shoe is None:
            self._no_shoe("the cover card came out")
        elif shoe.cover != "in_shoe":
            self._alert("cover-card", "a second cover card came out; the first already set the last hand", "warning")
        else:
            shoe.cover = "out"
            self._announce("cover_card", "cover card: this hand is completed, then one more hand")

    def _apply_shoe_empty(self) -> None:
        """§ 541.14(e): too few cards to complete a round: it is void, wagers returned, reshuffle."""
        if self.shoe is None:
            self._no_shoe("the shoe reports empty")
            return
        self.shoe.emptied = True
        round_started = self.state in _IN_ROUND and (self.state != "betting" or self.round.wagers)
        if round_started:
            self._end_round_void("541.14(e)", "shoe-empty", "too few cards remaining in the shoe to complete the round")
        else:
            self._alert("shoe-empty", "the shoe is empty: reshuffle", "warning")
            self.shoe_over()

    # -- the deal -------------------------------------------------------------------------
    def _deal_held_cards(self) -> None:
        """After no more bets: cards drawn in error are dealt first (§ 541.14(a))."""
        assert self.shoe is not None
        held, self.shoe.held = self.shoe.held, []
        for card in held:
            if self.state == "dealing":
                self._deal_card(card)

    def _skip_to_third_cards(self) -> None:
        """A card came out before the reveal or the pair settlement: that step is taken as done."""
        if self.state == "revealing":
            self._alert("procedure", "a card was drawn before the reveal: hands taken as revealed (§ 541.10(a))", "warning")
            self.reveal()
        if self.state == "settling_pairs":
            self._alert("procedure", "a card was drawn before the pair wagers were settled (§ 631c.5(d))", "warning")
            self.pairs_settled()

    def _deal_card(self, card: Card) -> None:
        """Place ``card`` where the rules say (§ 541.9(c), § 541.10(c), § 541.11)."""
        self.round.deal = self.round.deal.add(card)
        if self.round.deal.cards_used == len(INITIAL_ORDER):
            if self.round.revealed:
                self._initial_cards_exposed()
            else:
                self.hold_for_reveal()
        elif self.round.deal.after_initial:
            self._complete_round()  # a third card was the last due, or the banker's follows

    def _initial_cards_exposed(self) -> None:
        """§ 541.10(a): announce the player's then the banker's count; then pairs or third cards."""
        self.round.revealed = True
        deal = self.round.deal
        self._announce("point_counts", f"player {deal.player_total}, banker {deal.banker_total}",
                       player=_texts(deal.player), banker=_texts(deal.banker),
                       player_total=deal.player_total, banker_total=deal.banker_total)  # fmt: skip
        if not deal.is_complete and any(kind in PAIR_WAGERS for _, kind in self.round.wagers):
            self.settle_pairs()
        else:
            self._complete_round()

    def _settle_pairs(self) -> None:
        """§ 631c.5(d): pair wagers are settled before any third card."""
        pairs = [wager for (_, kind), wager in self.round.wagers.items() if kind in PAIR_WAGERS]
        self.round.pair_lines = settle_pairs(self.round.deal, pairs, self.rules).wagers

    def _complete_round(self) -> None:
        """If every card is out: announce (§ 541.12(a), § 631c.5(e)), settle (§ 541.12(b)), record."""
        deal = self.round.deal
        if not deal.is_complete:
            return
        result = deal.result(self.rules.variant)
        verdict = "Tie Hand" if result.winner == "tie" else f"{result.winner} wins"
        self._announce("outcome", f"player {result.player_total}, banker {result.banker_total}: {verdict}",
                       winner=result.winner, player_total=result.player_total, banker_total=result.banker_total)  # fmt: skip
        if result.lucky_six is not None:
            self._announce("lucky_six", "Lucky Six", cards=result.lucky_six)
        settlement = settle(result, self._unsettled_wagers(), self.rules, self.ledger)
        self.ledger = settlement.ledger
        lines = self.round.pair_lines + settlement.wagers
        self.last_outcome = {"round": self.current_round, "winner": result.winner,
                             "player_total": result.player_total, "banker_total": result.banker_total,
                             "lucky_six": result.lucky_six}  # fmt: skip
        self._finish_round("completed", result.to_json_dict(), lines)

    def _unsettled_wagers(self) -> list[Wager]:
        """The open round's wagers, less pair wagers already settled (§ 631c.5(d))."""
        settled = bool(self.round.pair_lines)
        return [wager for (_, kind), wager in self.round.wagers.items() if not (settled and kind in PAIR_WAGERS)]

    def _void_by_dealer(self, reason: str = "voided by the dealer") -> None:
        if self._awaiting_entry == "unreadable":
            self._awaiting_entry = None  # the unread card goes to the discard rack with the round's cards
            self._close("card-unreadable")
        self._end_round_void(None, "round-void", reason)  # no section: the dealer's or supervisor's call
        self._drain_backlog()

    def _end_round_void(self, section: str | None, code: str, reason: str) -> None:
        """A void round: every wager not yet settled is returned (§ 541.14(e))."""
        deal = self.round.deal
        returned = tuple(
            SettledWager(wager, WagerOutcome.PUSH, 0, 0, False, section or "void round")
            for wager in sorted(self._unsettled_wagers(), key=lambda w: (-w.seat, WAGER_KINDS.index(w.kind)))
        )  # § 541.12(b): from the highest-numbered seat down
        initial = deal.after_initial
        outcome = {
            "player": _texts(deal.player), "banker": _texts(deal.banker),
            "player_total": deal.player_total, "banker_total": deal.banker_total, "winner": None,
            "natural": deal.natural if initial else None,
            "player_pair": deal.player_pair if initial else None,
            "banker_pair": deal.banker_pair if initial else None,
            "lucky_six": None, "cards_used": deal.cards_used,
        }  # fmt: skip
        self._irregularity(section, code, reason, alert=f"round {self.current_round} is void: {reason}; wagers are returned")
        self._finish_round("void", outcome, self.round.pair_lines + returned)

    def _finish_round(self, status: str, outcome: dict[str, Any], lines: tuple[SettledWager, ...]) -> None:
        """Journal the ``round_result``, move the cover card on (§ 541.10(e)), open the next round."""
        shoe = self.shoe
        assert shoe is not None
        number = self.current_round
        data = {"round": number, "shoe": shoe.number, "game": self.game, "status": status,
                "cards": _texts(self.round.deal.cards), **outcome,
                "settlement": [_line(line) for line in lines], "irregularities": list(self.round.irregularities)}  # fmt: skip
        self.decide("round_result", data, number)
        self.rounds_finished += 1
        shoe.rounds += 1
        if status == "completed":
            shoe.last_deal = self.round.deal
        if status == "completed" and shoe.cover == "out":
            shoe.cover = "last_hand"
            self._announce("last_hand", "last hand")
        elif status == "completed" and shoe.cover == "last_hand":
            shoe.cover = "reshuffle"
        if self.shuffler is not None:
            self._check_deck_clock(shoe)
        self.round_over()

    # -- dealer commands and wagers --------------------------------------------------------
    def _on_command(self, event: DealerCommand) -> None:
        command, args = event.command, event.args or {}
        if command not in COMMANDS:
            self._alert("unknown-command", f"dealer command {command!r}: not one of {', '.join(COMMANDS)}", "warning")
        elif command in _ADVANCING and self.paused:
            self._alert("table-paused", f"{command}: {self.paused_text()}", "warning")
        elif command in _ADVANCING and (self._awaiting_entry is not None or self._discards_due()):
            self._alert("irregularity-open", f"{command}: finish the irregularity first ({self.prompt()['text']})", "warning")
        elif command == "shoe_loaded" and self.shuffler is not None:
            self._load_from_batch(args)
        elif command == "shoe_loaded":
            decks = args.get("decks", self.decks)
            shoe_composition(decks)  # RulesError for a deck count ch. 541 does not play
            self.shoe_loaded(decks)
        elif command == "void_round":
            self.void_round(str(args.get("reason", "voided by the dealer")))
        elif command in ("no_more_bets", "reveal", "pairs_settled"):
            getattr(self, command)()
        else:
            self._COMMAND_HANDLERS[command](self, args)

    def _card_entered(self, args: Mapping[str, Any]) -> None:
        awaiting = self._awaiting_entry
        if awaiting is None:
            self._alert("wrong-state", "card entered: no card is waiting to be keyed in", "warning")
            return
        card = parse_card(str(args.get("card", "")))
        self._awaiting_entry = None
        self._close("card-unreadable")
        if awaiting == "face_up":
            self._apply_face_up(card)
        else:
            self._apply_card(card)
        self._drain_backlog()

    def _card_disclosed(self, args: Mapping[str, Any]) -> None:
        """§ 541.14(c): the card drawn in error was disclosed: it and one more card, face down, are discarded."""
        if self.shoe is None or not self.shoe.held:
            self._alert("wrong-state", "card disclosed: no card drawn in error is waiting for the next hand", "warning")
            return
        outcome = self._out_of_turn(self.shoe.held.pop(), disclosed=True)
        self.shoe.discards_down += outcome.extra_discards
        text = f"card {outcome.card} drawn in error was disclosed: discard it and {outcome.extra_discards} more face down"
        self._irregularity(outcome.section, "card-disclosed", text, open_until="discard")

    def _withdraw_wager(self, args: Mapping[str, Any]) -> None:
        if self.state != "betting":
            self._alert("wager-refused", "a wager may not be withdrawn after no more bets (§ 541.8(c))", "warning")
            return
        seat, kind = _seat_of(args), str(args.get("kind"))
        if self.round.wagers.pop((seat, kind), None) is None:
            self._alert("wager-refused", f"withdraw: no {kind} wager at seat {seat}", "warning")

    def _seat_left(self, args: Mapping[str, Any]) -> None:
        """§ 541.13(e): marked commission is collected when the player leaves."""
        seat = _seat_of(args)
        owed, self.ledger = self.ledger.collect(seat)
        if owed:
            self._collect_commission(((seat, owed),))

    def _acknowledge(self, args: Mapping[str, Any]) -> None:
        codes = [code for code, alert in self._open_alerts.items() if alert["awaiting"] == "acknowledge"]
        if not codes:
            self._alert("wrong-state", "acknowledge: no alert is waiting for acknowledgement", "warning")
        for code in codes:
            self._close(code)

    def _on_wager(self, event: WagerPlaced) -> None:
        """§ 541.8: a wager is made or increased before no more bets."""
        placed = Wager(event.seat, event.kind, event.amount)
        self.rules.require_offered(placed.kind)
        if self.state != "betting":
            reason = "no more bets was announced (§ 541.8(c))" if self.state in _IN_ROUND else "no round is open for betting"
            self._alert("wager-refused", f"wager at seat {placed.seat} on {placed.kind}: refused, {reason}", "warning")
        elif self.paused:
            self._alert("wager-refused", f"wager at seat {placed.seat}: refused, the table is paused", "warning")
        else:
            key = (placed.seat, placed.kind)
            before = self.round.wagers.get(key)
            self.round.wagers[key] = Wager(placed.seat, placed.kind, placed.amount + (before.amount if before else 0))

    # -- the shoe's life -------------------------------------------------------------------
    def _open_shoe(self, decks: int, batch: str | None = None) -> None:
        self.shoes_started += 1
        self.shoe = _Shoe(number=self.shoes_started, decks=decks, remaining=shoe_composition(decks), batch=batch)
        fields: dict[str, Any] = {"shoe": self.shoe.number, "decks": decks}
        where = f"{decks} decks"
        if self.shuffler is not None:
            self.shoe.alerts, self.shuffler.between_shoes = self.shuffler.between_shoes, []
            fields["batch"] = batch
            where = f"batch {batch}, {self.shuffler.colour(str(batch))} backs, {where}"
        self._announce("shoe", f"shoe {self.shoe.number} ({where}): burn (§ 541.5(g))", **fields)

    def _open_round(self) -> None:
        self.round = _Round(revealed=not self.initial_cards_face_down)

    def _close_shoe(self) -> None:
        """The shoe is done: collect marked commission (§ 541.13(e)), report the shoe, await the next."""
        shoe = self.shoe
        assert shoe is not None
        collected, self.ledger = self.ledger.collect_all()
        if collected:
            self._collect_commission(collected)
        data: dict[str, Any] = {"shoe": shoe.number}
        if self.shuffler is not None:
            self._audit_shoe(shoe)
            data["batch"] = shoe.batch
        data.update(decks=shoe.decks, burned=shoe.burned, cards_read=shoe.cards_read, rounds=shoe.rounds,
                    composition_ok=shoe.composition_ok, alerts=shoe.alerts)  # fmt: skip
        self.decide("shoe_result", data)
        self.shoe = None  # held cards and pending discards go with the shoe's cards
        self._close_discard_alerts()
        self._open_round()

    def _close_discard_alerts(self) -> None:
        """Discards still due go with the shoe's cards: their alerts are over."""
        self._close("card-disclosed")
        self._close("card-face-up")

    def _collect_commission(self, owed: tuple[tuple[int, int], ...]) -> None:
        seats = [{"seat": seat, "amount": cents} for seat, cents in owed]
        text = "collect marked commission: " + ", ".join(f"seat {seat} {cents} cents" for seat, cents in owed)
        # The state's own prompt follows it again at the end of this step.
        self._say_prompt({"action": "collect_commission", "seats": seats, "text": text})

    # -- the dealer's prompt and view ------------------------------------------------------
    def prompt(self) -> dict[str, Any]:
        """What the dealer must do next (the data of a ``prompt`` decision).

        ``action`` is one of: ``wait`` (paused; ``problems``; with a shuffler also
        ``reason`` "shuffler" and the ``batch`` awaited), ``read_out`` (``read``: cards read
        out so far), ``enter_card`` (``card``: its number in the shoe, the cover card not
        counted), ``discard`` (``count``, ``face`` "up"/"down"),
        ``return_batch`` (``batch``, ``replace``: new decks instead of the batch's cards),
        ``load_shoe`` (with a shuffler ``batch``, ``decks``, ``back_colour``), ``burn``
        (``remaining``: None before the first card is shown), ``place_bets`` (``last_hand``,
        ``held``), ``deal``
        (``to`` "player"/"banker", ``card`` 1-3: the card's place in that hand),
        ``reveal``, ``settle_pairs`` (``settlement``), ``collect_commission`` (``seats``,
        only as a decision); every prompt has a ``text`` for people.
        """
        shoe = self.shoe
        if (waiting := self.paused_prompt()) is not None:
            return waiting
        if self.state == "reading_out":
            assert shoe is not None
            text = (f"draw the rest of the shoe through the reader to the discard rack ({shoe.read_out} read; "
                    "composition audit, § 541.3(b)(1))")  # fmt: skip
            return {"action": "read_out", "read": shoe.read_out, "text": text}
        if self._awaiting_entry is not None:
            # Which card: more than one may be out unread (a card drawn in error behind it).
            return {"action": "enter_card", "card": self._awaiting_card,
                    "text": f"key in card {self._awaiting_card} of the shoe, which the shoe could not read"}
        if shoe is not None and shoe.discards_down:
            text = f"draw {shoe.discards_down} card(s) face down to the discard rack, unseen (§ 541.14(c))"
            return {"action": "discard", "count": shoe.discards_down, "face": "down", "text": text}
        if shoe is not None and shoe.discards_up:
            text = f"draw {shoe.discards_up} card(s) face up to the discard rack (§ 541.14(d))"
            return {"action": "discard", "count": shoe.discards_up, "face": "up", "text": text}
        if self.state == "awaiting_shoe" and self.shuffler is not None:
            return self._between_shoes_prompt(self.shuffler)
        if self.state == "awaiting_shoe":
            return {"action": "load_shoe", "text": "load a shuffled shoe, then press shoe loaded"}
        assert shoe is not None
        if self.state == "burning":
            remaining = shoe.burn_remaining
            text = "burn: draw the first card and show it" if remaining is None else f"burn {remaining} more card(s)"
            return {"action": "burn", "remaining": remaining, "text": text}
        if self.state == "betting":
            last = shoe.cover == "last_hand"
            return {"action": "place_bets", "last_hand": last, "held": len(shoe.held),
                    "text": ("last hand: " if last else "") + "place your bets, then no more bets"}  # fmt: skip
        if self.state == "revealing":
            return {"action": "reveal", "text": "turn up the player's hand, then the banker's"}
        if self.state == "settling_pairs":
            return {"action": "settle_pairs", "settlement": [_line(line) for line in self.round.pair_lines],
                    "text": "settle the pair wagers, then press pairs settled"}  # fmt: skip
        slot = self.round.deal.next_slot()
        assert slot is not None  # a complete deal has already left the dealing state
        return {"action": "deal", "to": slot.hand, "card": slot.position,
                "text": f"deal the {slot.hand}'s {_ORDINALS[slot.position]} card"}  # fmt: skip

    def view(self) -> dict[str, Any]:
        """The dealer's view: next card for whom, totals, last outcome, last hand, open alerts.

        Cards dealt face down show as ``None`` until the reveal.
        """
        deal, shoe = self.round.deal, self.shoe
        shown = self.round.revealed or deal.cards_used > len(INITIAL_ORDER)
        slot = deal.next_slot() if self.state == "dealing" else None
        return {
            "table": self.table_id,
            "state": self.state,
            "paused": self.paused,
            "shoe": shoe.number if shoe else None,
            "round": self.current_round,
            "prompt": self.prompt(),
            "next": {"to": slot.hand, "card": slot.position} if slot else None,
            "player": _texts(deal.player) if shown else [None] * len(deal.player),
            "banker": _texts(deal.banker) if shown else [None] * len(deal.banker),
            "player_total": deal.player_total if shown and deal.player else None,
            "banker_total": deal.banker_total if shown and deal.banker else None,
            "wagers": [{"seat": w.seat, "kind": w.kind, "amount": w.amount} for w in self.round.wagers.values()],
            "last_outcome": self.last_outcome,
            "last_hand": shoe is not None and shoe.cover == "last_hand",
            "commission_owed": [{"seat": seat, "amount": cents} for seat, cents in self.ledger.owed],
            "alerts": [dict(alert) for alert in self._open_alerts.values()],
            "lamp": self.lamp_colour(),
            **({} if self.shuffler is None else {"batches": [
                {"batch": b.name, "stage": b.stage, "problem": b.problem} for b in self.shuffler.state.batches
            ]}),
        }

    # -- alerts and the lamp ---------------------------------------------------------------
    def _alert(self, code: str, text: str, severity: str = "attention", record: bool = True) -> None:
        """An ``alert`` decision of the round under way, recorded in the shoe's result unless ``record`` is false."""
        super()._alert(code, text, severity)
        if record:
            self._record(code, text)

    def _record(self, code: str, text: str) -> None:
        """Record an alert in the shoe's result (``shoe_result`` lists them); with a shuffler, an
        alert between shoes goes into the next shoe's result."""
        if self.shoe is not None:
            self.shoe.alerts.append({"code": code, "text": text})
        elif self.shuffler is not None:
            self.shuffler.between_shoes.append({"code": code, "text": text})

    def _open(self, code: str, text: str, severity: str, awaiting: str, record: bool = True) -> None:
        """An alert that stays on the dealer's view (amber or red lamp) until ``awaiting`` happens."""
        self._alert(code, text, severity, record=False)
        self._track(code, text, severity, awaiting, record)

    def _track(self, code: str, text: str, severity: str, awaiting: str, record: bool = True) -> None:
        """Keep an alert open on the dealer's view and record it in the shoe's result."""
        self._open_alerts[code] = {"code": code, "text": text, "severity": severity, "awaiting": awaiting}
        if record:
            self._record(code, text)

    def _close(self, code: str) -> None:
        self._open_alerts.pop(code, None)

    def _irregularity(
        self, section: str | None, code: str, text: str, open_until: str | None = None, alert: str | None = None
    ) -> None:
        """Record an irregularity of the open round (§ 541.14) and alert the dealer.

        :param open_until: what closes the alert (it stays on the view, amber, until then).
        :param alert: the alert's text when it is not ``text``.
        """
        self.round.irregularities.append({"section": section, "code": code, "text": text})
        shown = f"{alert or text} (§ {section})" if section else alert or text
        if open_until is None:
            self._alert(code, shown, "attention" if code != "card-drawn-in-error" else "warning")
        else:
            self._open(code, shown, "attention", open_until)

    def lamp_colour(self) -> str:
        """Red while paused or a fault is open, amber while an irregularity or a card entry waits, else green."""
        if self.paused or any(alert["severity"] == "fault" for alert in self._open_alerts.values()):
            return "red"
        if self._open_alerts or self._awaiting_entry is not None or self._discards_due():
            return "amber"
        return "green"

    # -- the end of a shoe from a shuffler batch: read-out and audit --------------------------
    def _start_read_out(self) -> None:
        """The shoe is over: discards still due go with its cards; the rest of it is read out."""
        assert self.shoe is not None
        self.shoe.discards_down = self.shoe.discards_up = 0
        self._close_discard_alerts()

    def _read_out(self, event: DeviceEvent, card: Card | None) -> None:
        """A card read out after the shoe ended: counted for the audit, dealt to no one."""
        shoe = self.shoe
        assert shoe is not None
        if isinstance(event, ShoeEmpty):
            shoe.emptied = True  # every card has passed the reader
            self.read_out_done()
        elif not isinstance(event, CutCard):  # the cover card comes out with the rest
            if card is not None:
                self._audit(card, exposed=False)
            shoe.read_out += 1

    def _audit_shoe(self, shoe: _Shoe) -> None:
        """At the shoe's end: reconcile its cards with the batch (§ 541.3(b)(1)), watch the
        shuffle (§ 541.5(a), warnings only), send the batch to the discard rack (§ 541.3(b)(6)),
        and retire it if its decks must be replaced."""
        side = self.shuffler
        assert side is not None
        unreadable = max(0, shoe.cards_read - len(shoe.identified))
        audit = audit_composition(shoe.decks, shoe.identified, unreadable, complete=shoe.emptied, batch=shoe.batch)
        notice = audit.notice()
        if notice is not None:
            shoe.composition_ok = False
            self._open(notice.code, f"shoe {shoe.number}: {_notice_text(notice)}", notice.severity, "acknowledge")
            shoe.new_decks = shoe.new_decks or f"shoe {shoe.number} did not hold exactly its decks"
        side.watch, report = side.watch.observe(shoe.number, shoe.seen)
        self._notices(report.notices)
        if side.state.in_play is not None:  # § 541.5(h)(2) has already ended it
            self._apply_step(shuffling.end_shoe(side.state, self.now))
        if shoe.new_decks is not None and shoe.batch is not None:
            self._retire(shoe.batch, shoe.new_decks)

    def _check_deck_clock(self, shoe: _Shoe) -> None:
        """After a round: the table is active (§ 541.5(h)); the next round may start only while
        the decks in play are within their life (§ 541.3(c)), with one warning before."""
        side = self.shuffler
        assert side is not None
        side.state = shuffling.record_activity(side.state, self.now)
        if self.reshuffle_due:
            return
        try:
            self._apply_step(shuffling.check_round_start(side.state, self.now))
        except ShufflerRefusal as refusal:
            self._alert(refusal.code, str(refusal), "fault")
            shoe.new_decks = "its decks are overdue for a change (§ 541.3(c))"

    # -- the shuffler: batches, commands, the dealer's part between shoes ---------------------
    def _load_from_batch(self, args: Mapping[str, Any]) -> None:
        """``shoe_loaded`` at a shuffler table: the shoe holds ``batch`` (default: the one the
        shuffler released), if the rules allow it (§ 541.3(b)(4)-(6), (c))."""
        side = self.shuffler
        assert side is not None
        self._require_state("shoe_loaded", "awaiting_shoe")
        decks = args.get("decks", self.decks)
        if decks != self.decks:
            raise RulesError(f"shoe of {decks!r} decks: each batch holds {self.decks} (§ 541.3(b)(1))")
        batch = args.get("batch", self._next_shoe_batch(side.state))
        try:
            step = shuffling.load_shoe(side.state, batch, self.now)
        except ShufflerRefusal as refusal:
            if refusal.code == "deck-clock-expired":
                self._retire(batch, "its decks are overdue for a change (§ 541.3(c))")
            raise
        side.state = step.state
        self.shoe_loaded(decks, batch)
        self._notices(step.notices)

    @staticmethod
    def _next_shoe_batch(state: ShufflerState) -> str:
        """The batch the next shoe comes from: the other one (§ 541.3(b)(5)), or for the first
        shoe the one nearest to being dealt."""
        wanted = shuffling.next_batch(state)
        if wanted is not None:
            return wanted
        for stage in ("released", "ready", "shuffling", "loaded"):
            for record in state.batches:
                if record.stage == stage:
                    return record.name
        return state.config.batches[0]

    def _between_shoes_prompt(self, side: _Shuffler) -> dict[str, Any]:
        """Between shoes: put the last shoe's batch back (or new decks), then load the next batch."""
        state = side.state
        discarded = next((b.name for b in state.batches if b.stage == "discard"), None)
        if discarded is not None:
            text = (f"put batch {discarded} ({side.colour(discarded)} backs) from the shoe and the discard rack "
                    "into the shuffler (§ 541.3(b)(6))")  # fmt: skip
            return {"action": "return_batch", "batch": discarded, "replace": False, "text": text}
        for batch, why in side.new_decks_due.items():
            text = (f"put new decks ({self.decks} decks, {side.colour(batch)} backs) into the shuffler as batch "
                    f"{batch}: {why}")  # fmt: skip
            return {"action": "return_batch", "batch": batch, "replace": True, "text": text}
        batch = self._next_shoe_batch(state)
        colour = side.colour(batch)
        record = state.batch(batch)
        if record.stage == "released":
            return {"action": "load_shoe", "batch": batch, "decks": self.decks, "back_colour": colour,
                    "text": f"load batch {batch} ({colour} backs) into the shoe, then press shoe loaded"}  # fmt: skip
        return {"action": "wait", "reason": "shuffler", "batch": batch,
                "text": f"waiting for batch {batch} ({colour} backs): {self._batch_waits_for(side, record)}"}  # fmt: skip

    @staticmethod
    def _batch_waits_for(side: _Shuffler, record: BatchRecord) -> str:
        if record.name in side.replacing:
            return "it comes out of the shuffler to be replaced by new decks"
        if side.latched:
            return "the shuffler reports " + ", ".join(sorted(side.latched)).replace("_", " ")
        if side.refused:
            return "the shuffler refused the last command (see the alert); waiting for it to report"
        return record.problem or _BATCH_WAITS.get(record.stage, record.stage.replace("_", " "))

    def _on_shuffler_event(self, event: DeviceEvent) -> None:
        """A shuffler event: the rules judge it; then what the controller asked is done, or not."""
        side = self.shuffler
        assert side is not None
        batch = getattr(event, "batch", None)
        if isinstance(event, BatchStatus):
            side.status_due.discard(event.batch)
            if event.state not in ("empty", "released") and side.state.batch(event.batch).stage == "discard":
                # Put back while the host was not listening: the device is the physical truth.
                self._apply_step(shuffling.on_batch_loaded(side.state, event.batch, event.decks, event.back_colour,
                                                           self.now))  # fmt: skip
        out = isinstance(event, BatchReleased) or (isinstance(event, BatchStatus) and event.state == "released")
        if not isinstance(event, ShuffleProgress):
            side.refused = False
        if out and batch in side.replacing:
            side.pending.discard(("release_batch", batch))
            self._retire(batch, side.replacing.pop(batch))
            return
        self._apply_step(shuffling.on_event(side.state, event, self.now))
        if isinstance(event, ShuffleStarted):
            side.pending.discard(("start_shuffle", event.batch))
        elif isinstance(event, BatchReleased):
            side.pending.discard(("release_batch", event.batch))
        for retired in [b for b in side.new_decks_due if side.state.batch(b).stage != "absent"]:
            del side.new_decks_due[retired]  # its new decks are in (also when seen in a status after a replug)

    def _on_shuffler_fault(self, event: ShufflerFault) -> None:
        """A shuffler fault (the base class has alerted): a jam or an open door stops the
        shuffler (and abandons the shuffle it names) until cleared; any other fault naming a
        batch something was asked for is the device refusing it."""
        side = self.shuffler
        assert side is not None
        self._apply_step(shuffling.on_event(side.state, event, self.now))
        code, text = f"{event.device}-{event.code}", f"{event.device}: fault {event.code}: {event.text}"
        if event.code in shuffling.ABANDONING_FAULTS:
            side.latched.add(event.code)
            self._track(code, text, "fault", "cleared")
        else:
            self._record(code, text)
        asked = {(command, batch) for command, batch in side.pending if batch == event.batch}
        if asked and event.code != "card_count":  # a count comes with a completed shuffle, not a refusal
            side.pending -= asked
            side.refused = True

    def _on_shuffler_fault_cleared(self, event: ShufflerFaultCleared) -> None:
        side = self.shuffler
        assert side is not None
        side.latched.discard(event.code)
        side.refused = False
        self._close(f"{event.device}-{event.code}")

    def handle(self, event: DeviceEvent, at: float) -> list[Decision]:
        """As :meth:`TableController.handle`; the shuffler lost or found starts a new session
        (commands in flight are lost, its status and faults are reported again)."""
        side = self.shuffler
        if side is not None and isinstance(event, (DeviceIdentified, DeviceLost)) and event.device == side.device:
            side.new_session()
            for fault in shuffling.ABANDONING_FAULTS:
                self._close(f"{side.device}-{fault}")
            if isinstance(event, DeviceLost):
                self._record("device-lost", f"{side.device}: lost ({event.reason}); table paused")
        return super().handle(event, at)

    def after_game_event(self) -> None:
        """After every game event: ask the shuffler for what is due."""
        self._ask_shuffler()

    def on_devices_changed(self) -> None:
        """A device lost, found or approved: ask the shuffler for what is due, then the prompt."""
        self._ask_shuffler()
        super().on_devices_changed()

    def _ask_shuffler(self) -> None:
        """Decide the ``device_command`` s due: take out a batch to be replaced, shuffle a batch
        waiting for it (§ 541.3(b)(4)), release the next shoe's batch between shoes."""
        side = self.shuffler
        if side is None or not self.devices[side.device].usable or side.latched or side.status_due or side.refused:
            return
        state = side.state
        for record in state.batches:
            why = self._why_new_decks(state, record)
            if why is not None:
                side.replacing.setdefault(record.name, why)
            if record.name in side.replacing:
                self._ask(side, "release_batch", record.name)
        batch = shuffling.to_shuffle(state)
        if batch is not None:
            self._ask(side, "start_shuffle", batch, expected_cards=shuffling.expected_cards(state, batch))
        prompt = self.prompt()
        if prompt["action"] == "wait" and prompt.get("reason") == "shuffler" and state.batch(prompt["batch"]).stage == "ready":
            self._ask(side, "release_batch", prompt["batch"])

    def _why_new_decks(self, state: ShufflerState, record: BatchRecord) -> str | None:
        """Why a batch in the shuffler must be replaced by new decks: its shuffle was judged
        wrong (count, repeated order) or its decks are overdue (§ 541.3(c)); else None."""
        if record.stage == "rejected" and record.cards is not None:
            return f"rejected, {record.problem}"
        expired = any(c.batch == record.name and c.status == "expired" for c in shuffling.deck_clock(state, self.now))
        if record.stage == "ready" and expired:
            return "its decks are overdue for a change (§ 541.3(c))"
        return None

    def _ask(self, side: _Shuffler, command: str, batch: str, **args: Any) -> None:
        """Decide a ``device_command`` for the shuffler, once until it is seen done or lost."""
        if (command, batch) not in side.pending:
            side.pending.add((command, batch))
            self.decide("device_command", {"device": side.device, "command": command, "batch": batch, **args})

    def _retire(self, batch: str, why: str) -> None:
        """The decks of ``batch`` leave the table; new decks are due in its slot (§ 541.3(b)(1), (c))."""
        side = self.shuffler
        assert side is not None
        self._apply_step(shuffling.retire_batch(side.state, batch, self.now))
        side.new_decks_due[batch] = why
        self._alert("new-decks", f"batch {batch}: {why}: replace it with new decks", "attention")

    def _apply_step(self, step: shuffling.Step) -> None:
        """Take the rules' new state and journal their notices as alerts."""
        assert self.shuffler is not None
        self.shuffler.state = step.state
        self._notices(step.notices)

    def _notices(self, notices: tuple[Notice, ...]) -> None:
        for notice in notices:
            self._alert(notice.code, _notice_text(notice), notice.severity)

    _HANDLERS: dict[type, Callable[[BaccaratTable, Any], None]] = {
        CardRead: _on_shoe_event,
        CardUnreadable: _on_shoe_event,
        CardFaceUp: _on_shoe_event,
        CutCard: _on_shoe_event,
        ShoeEmpty: _on_shoe_event,
        ShoeWarning: _on_shoe_warning,
        IdentityUnverified: _on_identity_unverified,
        DeviceFault: _on_fault,
        ClockTick: _on_tick,
        DealerCommand: _on_command,
        WagerPlaced: _on_wager,
    }
    _COMMAND_HANDLERS: dict[str, Callable[[BaccaratTable, Mapping[str, Any]], None]] = {
        "card_entered": _card_entered,
        "card_disclosed": _card_disclosed,
        "withdraw_wager": _withdraw_wager,
        "seat_left": _seat_left,
        "acknowledge": _acknowledge,
    }


#: The shuffler's events, handled only at a table that has one (see BaccaratTable.__init__).
_SHUFFLER_HANDLERS: dict[type, Callable[[BaccaratTable, Any], None]] = {
    BatchLoaded: BaccaratTable._on_shuffler_event,
    ShuffleStarted: BaccaratTable._on_shuffler_event,
    ShuffleProgress: BaccaratTable._on_shuffler_event,
    ShuffleCompleted: BaccaratTable._on_shuffler_event,
    BatchReleased: BaccaratTable._on_shuffler_event,
    BatchStatus: BaccaratTable._on_shuffler_event,
    ShufflerFault: BaccaratTable._on_shuffler_fault,
    ShufflerFaultCleared: BaccaratTable._on_shuffler_fault_cleared,
}
#: What the next shoe waits for while its batch is at each stage (see _batch_waits_for).
_BATCH_WAITS: dict[str, str] = {
    "absent": "it is not in the shuffler", "loaded": "it is to be shuffled", "shuffling": "it is being shuffled",
    "ready": "it is coming out of the shuffler", "rejected": "it was rejected",
}  # fmt: skip


def _notice_text(notice: Notice) -> str:
    """A shuffler-rules notice as an alert's text, with its section."""
    return f"{notice.text} (§ {notice.section})" if notice.section else notice.text


def _card_of(event: DeviceEvent) -> Card | None:
    """The card a shoe event names (None for an unread card or a non-card event)."""
    if isinstance(event, (CardRead, CardFaceUp)) and event.rank is not None and event.suit is not None:
        return parse_card(event.rank + event.suit)
    return None


def _seat_of(args: Mapping[str, Any]) -> int:
    """The ``seat`` argument of a dealer command.

    :raises RulesError: unless it is a seat number 1-7 (§ 541.2(a)).
    """
    seat = args.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int) or seat not in SEATS:
        raise RulesError(f"seat {seat!r}: seats are numbered 1 to 7 (§ 541.2(a))")
    return seat


def _texts(cards: Any) -> list[str]:
    return [str(card) for card in cards]


def _line(line: SettledWager) -> dict[str, Any]:
    """One settled wager as JSON-plain data."""
    return {
        "seat": line.wager.seat,
        "kind": line.wager.kind,
        "amount": line.wager.amount,
        "outcome": line.outcome.value,
        "payout": line.payout,
        "commission": line.commission,
        "commission_deferred": line.commission_deferred,
        "section": line.section,
    }

