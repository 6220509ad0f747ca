"""Drive a :class:`BaccaratTable` with an automatic shuffler, the way the service does.

``ShufflerDriver`` adds the shuffler's events to :class:`~tests.tables.baccarat.table.Driver`
and plays whole shoes from card lists (``play_shoe``), following the prompts like a dealer
who never errs: the burn, no more bets, every card, the read-out after the last hand.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from drivers.events.lifecycle import DeviceIdentified
from drivers.events.shoe import CutCard, ShoeEmpty
from drivers.events.shuffler import BatchLoaded, BatchReleased, BatchStatus, ShuffleCompleted, ShuffleStarted
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.rules.devices import ApprovedIdentities
from firmware_host.rules.shuffler import ShufflerConfig
from firmware_host.tables.baccarat.controller import BaccaratTable
from firmware_host.tables.decisions import Decision
from sim.devices.shoe import CUT, build_shoe, cut_and_cover

from .table import APPROVED, SHOE_UP, Driver, cards, command

SHUFFLER = "shuffler"
APPROVED_WITH_SHUFFLER = {**APPROVED, SHUFFLER: ApprovedIdentities(models=("SH-16",), firmware=("3.2.0",))}
SHUFFLER_UP = DeviceIdentified(device=SHUFFLER, model="SH-16", serial="SH1", firmware="3.2.0")
#: The smallest batch (§ 541.3(a), (b)(1)): shoes of 6 decks keep the tests short.
DECKS = 6
FULL = DECKS * 52


def status(batch: str, state: str = "loaded", cards: int = 0, digest: str = "") -> BatchStatus:
    """The shuffler's status of one batch after a handshake."""
    colour = {"A": "red", "B": "blue"}[batch]
    return BatchStatus(
        device=SHUFFLER,
        batch=batch,
        state=state,
        decks=DECKS,
        back_colour=colour,
        cards=cards,
        percent=100 if state == "shuffled" else 0,
        order_digest=digest,
    )


def shuffled(batch: str, count: int = FULL, digest: str | None = None) -> list[Any]:
    """A shuffle of ``batch`` started and completed with ``count`` cards."""
    return [
        ShuffleStarted(device=SHUFFLER, batch=batch),
        ShuffleCompleted(
            device=SHUFFLER, batch=batch, cards=count, order_digest=digest or f"{batch}-{random.random()}"
        ),
    ]


def released(batch: str, count: int = FULL) -> BatchReleased:
    return BatchReleased(device=SHUFFLER, batch=batch, cards=count)


def loaded(batch: str) -> BatchLoaded:
    return BatchLoaded(device=SHUFFLER, batch=batch, decks=DECKS, back_colour={"A": "red", "B": "blue"}[batch])


def shoe_cards(seed: int) -> list[str]:
    """A whole shoe of :data:`DECKS` decks, cut, with the cover card (§ 541.5(d)-(e))."""
    return build_shoe(DECKS, random.Random(seed))


def doctored(seed: int, extra: str | None = None, missing: str | None = None) -> list[str]:
    """A shoe with one card too many (a copy of ``extra``) and/or one missing (a copy of ``missing``)."""
    deck = [c for c in shoe_cards(seed) if c != CUT]
    if missing is not None:
        deck.remove(missing)
    if extra is not None:
        deck.insert(len(deck) // 2, extra)
    return cut_and_cover(deck, random.Random(seed))


class ShufflerDriver(Driver):
    """A :class:`BaccaratTable` with a shuffler (``[rules.shuffler]`` of 6-deck batches)."""

    def __init__(self, config: ShufflerConfig | None = None, **options: Any) -> None:
        config = config or ShufflerConfig(decks_per_batch=DECKS)
        super(Driver, self).__init__(
            BaccaratTable(
                "T1",
                APPROVED_WITH_SHUFFLER,
                RulesSubmission(),
                config.decks_per_batch,
                shuffler=config,
                shuffler_device=SHUFFLER,
                **options,
            )
        )

    def commands(self, decisions: Iterable[Decision] | None = None) -> list[tuple[str, str]]:
        """The ``(command, batch)`` of every ``device_command`` decided."""
        return [(c["command"], c["batch"]) for c in self.of("device_command", decisions)]

    def open(self) -> None:
        """Both devices found, both batches loaded and shuffled, the first released: ``load_shoe`` A."""
        self.feed(SHOE_UP, SHUFFLER_UP, status("A"), status("B"), shuffled("A"), shuffled("B"), released("A"))

    def stage(self, batch: str) -> str:
        assert self.table.shuffler is not None
        return self.table.shuffler.state.batch(batch).stage

    def play_shoe(self, deck: list[str], max_rounds: int = 200) -> dict[str, Any]:
        """Load the released batch with ``deck`` and play it to its end as prompted; the shoe_result."""
        batch = self.prompt()["batch"]
        self.feed(command("shoe_loaded", batch=batch))
        assert self.table.state == "burning", self.prompt()
        draws = iter(deck)
        for _ in range(len(deck) + 10 * max_rounds):
            action = self.prompt()["action"]
            if self.table.state == "awaiting_shoe":
                return self.of("shoe_result")[-1]
            if action == "place_bets":
                self.feed(command("no_more_bets"))
            elif action == "reveal":
                self.feed(command("reveal"))
            elif action == "settle_pairs":
                self.feed(command("pairs_settled"))
            else:
                assert action in ("burn", "deal", "discard", "read_out"), self.prompt()
                card = next(draws, None)
                burn = action == "burn"
                self.feed(
                    ShoeEmpty(device="shoe")
                    if card is None
                    else CutCard(device="shoe")
                    if card == CUT
                    else cards(card, burn=burn)
                )
        raise AssertionError(f"the shoe did not end: {self.prompt()}")
