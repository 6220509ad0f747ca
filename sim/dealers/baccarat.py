"""The simulated Baccarat dealer and players: they read the controller's prompts and act at the
simulated shoe (and shuffler). The base they share with the Pai Gow dealer is :mod:`sim.dealers.base`.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from drivers.codecs.shoe_messages import CutCard
from drivers.events import DeviceEvent
from firmware_host.rules.baccarat.wagers import in_wager_order, wager_kind
from firmware_host.tables.baccarat.prompts import Action
from firmware_host.tables.decisions import Decision
from sim.dealers.base import SETTLE_POLL, Press, Reporting, SimDealer
from sim.dealers.counter import CardCounter

__all__ = ["BaccaratDealer", "SimShoe", "SimShuffler", "ERRORS"]

#: The errors the simulated Baccarat dealer can make (``[sim.dealer]``: each one's chance), as
#: § 541.14 foresees them: a card drawn in error, and a card disclosed (turned up) in error.
ERRORS = ("card_drawn_in_error", "card_disclosed")
#: The table's alert for a card drawn when none was due, held for the next hand (§ 541.14(a)).
DRAWN_IN_ERROR = ("alert", "card-drawn-in-error")
#: What the table makes of a card drawn when none was due: held for the next hand, or the card
#: was unread, face up (§ 541.14(d)), the cover card, or the shoe was empty.
DRAWN_WHEN_NONE_DUE = (
    DRAWN_IN_ERROR,
    ("alert", "card-unreadable"),
    ("alert", "card-face-up"),
    ("announce", "cover_card"),
    ("alert", "shoe-empty"),
)

#: How long the dealer waits for the shuffler to lift out the batches the table told it to before
#: loading the shoe (under the kill loop's :data:`bench.soak.killloop.STALL_SECONDS`: the table writes nothing meanwhile).
SHUFFLER_SETTLE_SECONDS = 5.0
#: A person's pause between seeing a batch come out of the shuffler and loading the shoe (the
#: host has read the report; two threads pass it on to the table).
LIFT_REACTION_SECONDS = 0.1


class SimShoe(Reporting, Protocol):
    """What the Baccarat dealer uses of the simulated shoe (:class:`sim.devices.shoe.SimShoe`)."""

    burn_mode: bool

    def card_at(self, index: int) -> str | None:
        """The card of draw ``index`` of the shoe in play (``None``: the cover card)."""

    def reload(self) -> None:
        """Put the next freshly shuffled shoe of the seeded sequence in."""

    def load(self, cards: Sequence[str]) -> None:
        """Put ``cards`` (a shuffler's batch, in the order released) in; the shoe cuts them."""

    def draw(self) -> Any:
        """Pull the next card out; the result's ``card`` is what the dealer sees (None: none)."""


class SimShuffler(Protocol):
    """What the Baccarat dealer uses of the simulated shuffler (:class:`sim.devices.shuffler.SimulatedShuffler`)."""

    @property
    def releases(self) -> int:
        """Release commands the device has carried out (or refused)."""

    @property
    def release_unread(self) -> int:
        """Bytes up to the report of the latest release that the host has not read yet."""

    def order(self, batch: str) -> tuple[str, ...]:
        """The cards of ``batch`` in the order its last shuffle released them."""

    def load(self, batch: str, cards: Iterable[str] | None = None) -> None:
        """Put ``cards`` (``None``: new decks) into the slot of ``batch``."""

    def state(self, batch: str) -> str:
        """The slot's state (``released`` or ``empty``: the batch is out of the shuffler)."""


#: Chip values the simulated players bet, in cents.
_CHIPS = (500, 1000, 2500, 5000, 10000)


class BaccaratDealer(SimDealer):
    """The simulated Baccarat dealer and players (ch. 541; § 631c.5 wagers when offered).

    :param shoe: the simulated shoe.
    :param seats: seats that hold a player (§ 541.2(a): 1-7).
    :param offered: wager kinds the table's Rules Submission offers; the players bet those the
        registry gives a weight (:attr:`~firmware_host.rules.baccarat.wagers.WagerKind.sim_weight`).
    :param shuffler: the simulated shuffler at a table with one: the shoe is loaded with the
        batch it released, and the batch goes back into it after its shoe.
    :param counters: seats whose players count cards (``[sim.players] counters``): each bets
        ``counter_stake`` on every offered wager whose EV from the exposed cards is positive
        (:class:`~sim.dealers.counter.CardCounter`), and sits the round out otherwise.
    :param counter: what the counters know of the shoe (required with ``counters``).
    :param counter_stake: a counter's wager in cents (10 x the table minimum).
    """

    REPEAT_AFTER = frozenset({("announce", "cover_card"), ("alert", "card-face-up")})

    def __init__(
        self,
        emit: Callable[[DeviceEvent], None],
        press: Press,
        seed: int,
        shoe: SimShoe,
        seats: Sequence[int] = range(1, 8),
        offered: Sequence[str] = ("banker", "player", "tie"),
        errors: Mapping[str, float] | None = None,
        shuffler: SimShuffler | None = None,
        counters: Sequence[int] = (),
        counter: CardCounter | None = None,
        counter_stake: int = 25_000,
    ) -> None:
        super().__init__(emit, press, seed, errors)
        if errors and not set(errors) <= set(ERRORS):
            raise ValueError(f"a Baccarat dealer makes only these errors: {', '.join(ERRORS)}")
        if counters and counter is None:
            raise ValueError("counters need a CardCounter")
        self.counters = tuple(counters)
        self.counter = counter
        self.counter_stake = counter_stake
        self.shoe = shoe
        self.shuffler = shuffler
        self.seats = tuple(seats)
        self.offered = [kind for kind in in_wager_order(offered) if wager_kind(kind).sim_weight]  # raises: unknown
        self.shoes_loaded = 0
        self._bets_taken: int | None = None
        #: The table refused a button press that moves the game on (set from the service thread).
        self._shoe_pending = False
        #: The batch loaded into the shoe while a shoe is pending (a shoe the table refused stays in).
        self._batch_in_shoe: str | None = None
        #: Batch releases the table decided that the shuffler is to have carried out (set from the service thread).
        self._releases = 0

    def on_decisions(self, decisions: Sequence[Decision]) -> None:
        """As :meth:`SimDealer.on_decisions`; also notes that a shoe was accepted, and the counters
        count the cards shown before the next prompt is acted on."""
        if self.counter is not None:
            self.counter.on_decisions(decisions)
        if any(d.type == "announce" and d.data.get("announce") == "shoe" for d in decisions):
            # A new shoe: its betting is new too, even in the round a shoe ended with no wagers
            # (§ 541.5(h)(2)) left unfinished, whose wagers the table refused in the read-out.
            self._shoe_pending, self._bets_taken = False, None
        if any(self._batch_out(d) for d in decisions):
            self.refused = True  # the same prompt again (new decks rejected in turn): the batch is out again
        if self.shuffler is not None:
            for decision in decisions:
                if decision.type == "device_command" and decision.data.get("command") == "release_batch":
                    self._releases += 1
                elif decision.type == "alert" and decision.data.get("code") == "device-lost":
                    self._releases = self.shuffler.releases  # what was in flight is lost with the session
        super().on_decisions(decisions)

    def settle_shuffler(self, shuffler: SimShuffler) -> None:
        """Wait until the shuffler has lifted out every batch the table told it to (a rejected
        one) and the host has its report: a person sees a batch come out of the shuffler before
        loading the shoe, as a real shuffler lifts it out in moments. A shuffle is not waited
        for: it takes longer than loading a shoe."""

        def lifting() -> bool:
            return shuffler.releases < self._releases or shuffler.release_unread > 0

        if not lifting():
            return
        deadline = time.monotonic() + SHUFFLER_SETTLE_SECONDS
        while lifting() and time.monotonic() < deadline:
            time.sleep(SETTLE_POLL)
        time.sleep(LIFT_REACTION_SECONDS)

    def _batch_out(self, decision: Decision) -> bool:
        """Whether ``decision`` asks to put back a batch that is out of the shuffler."""
        data = decision.data
        return (self.shuffler is not None and decision.type == "prompt"
                and data.get("action") == Action.RETURN_BATCH
                and self.shuffler.state(data["batch"]) in ("empty", "released"))  # fmt: skip

    def _press_no_more_bets(self) -> None:
        self.refused = False
        self.press("no_more_bets")

    def resume_shoe(self, shoe_number: int) -> None:
        """Continue counting shoes from ``shoe_number`` (the one in play when the run stopped)."""
        self.shoes_loaded = shoe_number

    def act(self, prompt: dict[str, Any]) -> None:
        """Act on one prompt of :meth:`firmware_host.tables.baccarat.controller.BaccaratTable.prompt`."""
        action = prompt["action"]
        if action == Action.LOAD_SHOE and prompt.get("batch") is not None and self.shuffler is not None:
            batch = prompt["batch"]
            self.settle_shuffler(self.shuffler)
            if not (self._shoe_pending and self._batch_in_shoe == batch):  # refused: the batch is in already
                # Exactly the batch's cards, as the shuffler released them (an extra or missing one too).
                self.shoe.load(self.shuffler.order(batch))
                self.shoes_loaded += 1
                self._shoe_pending, self._batch_in_shoe = True, batch
            self.refused = False
            self.console("shoe_loaded", batch=batch)
        elif action == Action.LOAD_SHOE:
            if not (self.refused and self._shoe_pending):  # refused: the new shoe is in already
                if self.shoes_loaded:
                    self.shoe.reload()  # the first shoe is in the simulator from the start
                self.shoes_loaded += 1
                self._shoe_pending = True
            self.refused = False
            self.console("shoe_loaded")
        elif action == Action.RETURN_BATCH and self.shuffler is not None:
            # The batch's own cards go back (every one the shoe held), or new decks replace them.
            batch = prompt["batch"]
            self.refused = False
            self.shuffler.load(batch, None if prompt["replace"] else self.shuffler.order(batch))
        elif action == Action.READ_OUT:
            self._read_out()
        elif action == Action.BURN:
            self._draw(burn=True)
        elif action == Action.PLACE_BETS and prompt["_round"] != self._bets_taken:
            # Once per round: the prompt changes within a round (a card held, § 541.14(a)).
            self._bets_taken = prompt["_round"]
            self.place_bets()
            self._press_no_more_bets()
        elif action == Action.PLACE_BETS and self.refused:
            self._press_no_more_bets()  # the table refused it (paused, a card to key in first): again
        elif action == Action.DEAL:
            self._draw()
            if prompt["to"] == "banker" and prompt["card"] == 2 and self.errs("card_drawn_in_error", "initial"):
                # § 541.14(a): a card drawn when none is due, right after the initial four; the
                # dealer sees where the table put it before going on (a card face up or unread
                # instead is not held for the next hand, and nothing is disclosed).
                seen = self.seen()
                self._draw()
                self.settle(self.shoe)
                if self.errs("card_disclosed") and DRAWN_IN_ERROR in self.see(DRAWN_WHEN_NONE_DUE, seen):
                    self.press("card_disclosed")  # § 541.14(c)
        elif action == Action.DISCARD:
            self._draw()  # one card: the prompt counts down and comes again for the next
        elif action == Action.ENTER_CARD:
            self.console("card_entered", card=self.card_numbered(prompt["card"]))
        elif action == Action.REVEAL:
            self.press("reveal")
        elif action == Action.SETTLE_PAIRS:
            self.console("pairs_settled")
        # Action.WAIT (paused) and Action.COLLECT_COMMISSION need nothing from the simulated dealer.

    def _draw(self, burn: bool = False) -> Any:
        self.shoe.burn_mode = burn  # the shoe's burn button
        return self.shoe.draw()

    def _read_out(self) -> None:
        """Draw one card of the read-out (§ 541.3(b)(1)): the prompt counts the cards read and
        comes again for the next. A shoe that ended early (its decks expired, § 541.3(c); no
        gaming activity, § 541.5(h)(2)) still holds the cover card, which is no card (§ 541.5(d)):
        the table counts nothing for it and the prompt stays as it was, so the dealer puts it
        aside and draws the card behind it."""
        while isinstance(self._draw().message, CutCard):
            pass

    def card_numbered(self, number: int) -> str:
        """Card ``number`` of the shoe in play (1: the first out; the cover card is not a card):
        the card the table asks to be keyed in, which the dealer still holds."""
        drawn = (self.shoe.card_at(index) for index in itertools.count())
        return next(itertools.islice((card for card in drawn if card is not None), number - 1, None))

    def bets(self) -> Iterator[tuple[int, str, int]]:
        """Each seated player's one or two wagers of the kinds offered (a fifth sit the round out);
        a counter's wager on each kind the exposed cards favour."""
        favoured = self.counter.positive() if self.counters and self.counter is not None else ()
        for seat in self.counters:
            for kind in favoured:
                yield seat, kind, self.counter_stake
        rng = self.rng("bets")
        kinds, weights = self.offered, [wager_kind(k).sim_weight for k in self.offered]
        for seat in self.seats:
            if seat in self.counters:
                continue
            if rng.random() < 0.2:
                continue  # this player sits the round out
            for kind in dict.fromkeys(rng.choices(kinds, weights, k=rng.randint(1, 2))):
                yield seat, kind, rng.choice(_CHIPS)
