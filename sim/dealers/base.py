"""The base of the simulated dealers (:mod:`sim.dealers.baccarat`, :mod:`sim.dealers.paigow`).

A simulated dealer is an output of the service (it sees each step's decisions after they
are journaled) with a thread of its own, so it never blocks the service. It acts as a
person would: it pulls cards from the simulated shoe or shakes the dice (whose bytes then
travel the real wire protocol to the real driver), presses GPIO buttons (mock pins, through
the real gpiozero code), keys in what the console asks for, and places the players' wagers.

Its choices are drawn from a random generator seeded by the run's seed *and the round*,
so a run restarted from its journal makes the same choices in the same rounds as an
uninterrupted one. This module holds no game's rules: each game's dealer imports its own.
"""

from __future__ import annotations

import logging
import queue
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from drivers.events import DeviceEvent
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import DealerCommand, WagerPlaced

__all__ = ["SimDealer", "Press", "Reporting", "decision_key", "CONSOLE"]

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
#: How long the dealer looks for the outcome of its last move on the screen (:meth:`SimDealer.see`):
#: under the kill loop's :data:`bench.soak.killloop.STALL_SECONDS`, as the table writes nothing meanwhile.
SEE_SECONDS = 5.0
#: A person's pause between seeing the device's last report on screen and the next move.
REACTION_SECONDS = 0.01


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

    def __init__(
        self, emit: Callable[[DeviceEvent], None], press: Press, seed: int, errors: Mapping[str, float] | None = None
    ) -> None:
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
        #: Decisions the table has made so far, by :func:`decision_key` (bounded by the keys there are).
        self._seen: Counter[tuple[str, str]] = Counter()
        self._seeing = threading.Condition()
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
        with self._seeing:
            self._seen.update(map(decision_key, decisions))
            self._seeing.notify_all()
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

    def seen(self) -> Counter[tuple[str, str]]:
        """The decisions the table has made so far, by :func:`decision_key` (for :meth:`see`)."""
        with self._seeing:
            return self._seen.copy()

    def see(self, keys: Iterable[tuple[str, str]], seen: Counter[tuple[str, str]]) -> set[tuple[str, str]]:
        """Wait (up to :data:`SEE_SECONDS`) until the table makes a decision of ``keys`` past
        ``seen`` (:meth:`seen`): a person looks at the screen before the next move. A console command
        goes straight to the service while a device's report goes through its driver, so
        :meth:`settle` alone cannot order them on a loaded machine.

        :param keys: the outcomes the dealer's last move may have (one that is not among them, such
            as a card kept behind one awaiting entry, runs the wait out).
        :returns: the keys that came (none: the wait ran out).
        """
        keys = tuple(keys)
        with self._seeing:
            self._seeing.wait_for(lambda: any(self._seen[key] > seen[key] for key in keys), SEE_SECONDS)
            return {key for key in keys if self._seen[key] > seen[key]}

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
