"""Simulated dealers: they read the controller's prompts and act at the simulated table.

A simulated dealer is an output of the service (it sees each step's decisions after they
are journaled) with a thread of its own, so it never blocks the service. It acts as a
person would: it pulls cards from the simulated shoe (whose bytes then travel the real
wire protocol to the real driver), presses GPIO buttons (mock pins, through the real
gpiozero code), keys in what the console asks for, and places the players' wagers.

Its choices are drawn from a random generator seeded by the run's seed *and the round*,
so a run restarted from its journal makes the same choices in the same rounds as an
uninterrupted one.
"""

from __future__ import annotations

import itertools
import logging
import queue
import random
import threading
import time
from typing import Any, Callable, Iterable, Iterator, Mapping, Protocol, Sequence

from drivers.events import DeviceEvent
from firmware_host.tables.baccarat.prompts import Action
from sim.dealers.counter import CardCounter
from firmware_host.tables.events import DealerCommand, WagerPlaced
from firmware_host.tables.decisions import Decision

__all__ = ["SimDealer", "BaccaratDealer", "Press", "Reporting", "decision_key"]

log = logging.getLogger("tablehost.sim.dealer")

#: Device name of what the dealer keys in at the console (not wired to a GPIO button).
CONSOLE = "console"

#: Alert codes by which the table refuses a command that moves the game on.
REFUSED = frozenset(("table-paused", "irregularity-open"))

#: Presses a dealer button by name (a mock GPIO pin, or the console when it has no pin).
Press = Callable[[str], None]
#: How long the dealer waits for a device's reports to reach the host before the next move.
SETTLE_SECONDS = 10.0
#: How often it looks, in seconds.
SETTLE_POLL = 0.002
#: A person's pause between seeing the device's last report on screen and the next move.
REACTION_SECONDS = 0.01
#: How long the dealer waits for the shuffler to lift out the batches the table told it to before
#: loading the shoe (under the kill loop's :data:`bench.soak.killloop.STALL_SECONDS`: the table writes nothing meanwhile).
SHUFFLER_SETTLE_SECONDS = 5.0
#: A person's pause between seeing a batch come out of the shuffler and loading the shoe (the
#: host has read the report; two threads pass it on to the table).
LIFT_REACTION_SECONDS = 0.1


class Reporting(Protocol):
    """A simulated device whose reports the host acknowledges (:attr:`sim.devices.link.SimDevice.pending`)."""

    @property
    def pending(self) -> int:
        """Reports the host has not yet acknowledged."""


class SimDealer:
    """Base of the simulated dealers: a thread that acts on each new prompt once.

    :param emit: the service's event queue (console commands and wagers go there).
    :param press: presses a dealer button by name.
    :param seed: the run's seed.
    :param errors: probability of each kind of dealer error, by name (from ``[sim.dealer]``).
    """

    def __init__(self, emit: Callable[[DeviceEvent], None], press: Press, seed: int,
                 errors: Mapping[str, float] | None = None) -> None:
        self.emit = emit
        self.press = press
        self.seed = seed
        self.errors = dict(errors or {})
        self.round = 1
        #: Seconds to wait before each move (0: as fast as the devices allow; a person watching
        #: the simulated table on the display wants a second or so; keep it under stop's 5 s).
        self.pace = 0.0
        self._prompt: dict[str, Any] | None = None
        self._repeats = 0
        #: The table refused the dealer's last command (paused, an irregularity open): act again.
        self.refused = False
        self._standing: set[tuple[int, str]] = set()
        self._inbox: queue.SimpleQueue[dict[str, Any] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=f"{type(self).__name__}", daemon=True)

    def resume_after(self, rounds_finished: int) -> None:
        """Continue a journal that holds ``rounds_finished`` finished rounds (round numbers from 1)."""
        self.round = rounds_finished + 1

    def resume_wagers(self, standing: Iterable[tuple[int, str]]) -> None:
        """Wagers (seat, kind) the journal already holds for the round being bet on: not placed again."""
        self._standing = set(standing)

    def place_bets(self) -> None:
        """Place the players' wagers of :meth:`bets` at the console, but none the journal already holds."""
        for seat, kind, amount in self.bets():
            if (seat, kind) not in self._standing:
                self.emit(WagerPlaced(device=CONSOLE, seat=seat, kind=kind, amount=amount))
        self._standing = set()

    def bets(self) -> Iterator[tuple[int, str, int]]:
        """The players' wagers this round, ``(seat, kind, cents)``; subclasses implement it."""
        raise NotImplementedError

    def start(self) -> None:
        """Start acting on prompts."""
        self._thread.start()

    def stop(self) -> None:
        """Stop acting; returns once the thread has finished its current action."""
        self._inbox.put(None)
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    #: Decisions after which the current prompt stands but must be carried out again: the
    #: card pulled was the cover card or a face-up card, not the card the prompt asked for.
    REPEAT_AFTER: frozenset[tuple[str, str]] = frozenset()

    def on_decisions(self, decisions: Sequence[Decision]) -> None:
        """Output hook: queue the step's latest prompt (or repeat the current one); note finished rounds."""
        if any(d.type == "alert" and d.data.get("code") in REFUSED for d in decisions):
            self.refused = True
        prompted = False
        for decision in decisions:
            if decision.type == "round_result":
                self.round = int(decision.data["round"]) + 1
            elif decision.type == "prompt":
                self._prompt = dict(decision.data, _round=self.round)
                self._inbox.put(self._prompt)
                prompted = True
        if not prompted and self._prompt is not None and any(decision_key(d) in self.REPEAT_AFTER for d in decisions):
            self._repeats += 1
            self._inbox.put(dict(self._prompt, _repeat=self._repeats))

    def rng(self, purpose: str, *more: object) -> random.Random:
        """A generator for one choice, seeded by the run's seed, the round and the purpose."""
        return random.Random("/".join(map(str, (self.seed, self.round, purpose, *more))))

    def errs(self, kind: str, *more: object) -> bool:
        """Whether the dealer makes error ``kind`` now (seeded, see :meth:`rng`)."""
        chance = self.errors.get(kind, 0.0)
        return chance > 0 and self.rng(kind, *more).random() < chance

    def settle(self, device: Reporting) -> None:
        """Wait until the host has every report of ``device`` (what a person sees on screen)."""
        deadline = time.monotonic() + SETTLE_SECONDS
        while device.pending and time.monotonic() < deadline:
            time.sleep(SETTLE_POLL)
        time.sleep(REACTION_SECONDS)  # the driver acknowledges a report just before passing it on

    def console(self, command: str, **args: Any) -> None:
        """Key a command in at the dealer console."""
        self.emit(DealerCommand(device=CONSOLE, command=command, args=args or None))

    def _run(self) -> None:
        acted: dict[str, Any] | None = None
        while True:
            prompt = self._latest(self._inbox.get())
            if prompt is not None and self.pace:
                time.sleep(self.pace)
                prompt = self._latest(prompt)  # the newest prompt after the pause (or the stop)
            if prompt is None:
                return
            if prompt.get("action") == "wait" or (prompt == acted and not self.refused):
                # Paused, or the same prompt again after a pause: what it asked for is already
                # done (a card pulled during an outage reaches the host once the link is back),
                # unless the table refused the command that carried it out.
                continue
            acted = prompt
            try:
                self.act(prompt)
            except Exception:  # the simulated person must not die silently: log and keep going
                log.exception("simulated dealer failed on prompt %s", prompt)

    def _latest(self, prompt: dict[str, Any] | None) -> dict[str, Any] | None:
        """The newest queued prompt: older ones are superseded (None, the stop signal, wins)."""
        while prompt is not None:
            try:
                newer = self._inbox.get_nowait()
            except queue.Empty:
                break
            if newer is None:
                return None
            prompt = newer
        return prompt

    def act(self, prompt: dict[str, Any]) -> None:
        """Do what the prompt asks; subclasses implement it."""
        raise NotImplementedError


def decision_key(decision: Decision) -> tuple[str, str]:
    """``(type, code or announcement)`` of a decision, matched against :attr:`SimDealer.REPEAT_AFTER`."""
    return decision.type, str(decision.data.get("code") or decision.data.get("announce") or "")


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


#: Wager kinds the simulated players choose from, with relative weights.
_BACCARAT_KINDS = {"banker": 45, "player": 40, "tie": 8, "player_pair": 3, "banker_pair": 3, "lucky_six": 1}
#: Chip values the simulated players bet, in cents.
_CHIPS = (500, 1000, 2500, 5000, 10000)


class BaccaratDealer(SimDealer):
    """The simulated Baccarat dealer and players (ch. 541; § 631c.5 wagers when offered).

    :param shoe: the simulated shoe.
    :param seats: seats that hold a player (§ 541.2(a): 1-7).
    :param offered: wager kinds the table's Rules Submission offers.
    :param shuffler: the simulated shuffler at a table with one: the shoe is loaded with the
        batch it released, and the batch goes back into it after its shoe.
    :param counters: seats whose players count cards (``[sim.players] counters``): each bets
        ``counter_stake`` on every offered wager whose EV from the exposed cards is positive
        (:class:`~sim.dealers.counter.CardCounter`), and sits the round out otherwise.
    :param counter: what the counters know of the shoe (required with ``counters``).
    :param counter_stake: a counter's wager in cents (10 x the table minimum).
    """

    REPEAT_AFTER = frozenset({("announce", "cover_card"), ("alert", "card-face-up")})

    def __init__(self, emit: Callable[[DeviceEvent], None], press: Press, seed: int, shoe: SimShoe,
                 seats: Sequence[int] = range(1, 8), offered: Sequence[str] = ("banker", "player", "tie"),
                 errors: Mapping[str, float] | None = None, shuffler: SimShuffler | None = None,
                 counters: Sequence[int] = (), counter: CardCounter | None = None,
                 counter_stake: int = 25_000) -> None:
        super().__init__(emit, press, seed, errors)
        if counters and counter is None:
            raise ValueError("counters need a CardCounter")
        self.counters = tuple(counters)
        self.counter = counter
        self.counter_stake = counter_stake
        self.shoe = shoe
        self.shuffler = shuffler
        self.seats = tuple(seats)
        self.offered = [kind for kind in _BACCARAT_KINDS if kind in offered]
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
            self._shoe_pending = False
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
            self._draw()  # one card: the prompt counts up and comes again for the next
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
                # dealer sees where the table put it before going on.
                self._draw()
                self.settle(self.shoe)
                if self.errs("card_disclosed"):
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

    def _draw(self, burn: bool = False) -> None:
        self.shoe.burn_mode = burn  # the shoe's burn button
        self.shoe.draw()

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
        kinds, weights = self.offered, [_BACCARAT_KINDS[k] for k in self.offered]
        for seat in self.seats:
            if seat in self.counters:
                continue
            if rng.random() < 0.2:
                continue  # this player sits the round out
            for kind in dict.fromkeys(rng.choices(kinds, weights, k=rng.randint(1, 2))):
                yield seat, kind, rng.choice(_CHIPS)
