"""The simulated Baccarat dealer at a shuffler table: the batch it loads and returns, the buttons it presses."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

import pytest

import sim.dealers.base
from drivers.codecs.shoe_messages import Card, CutCard, ShoeEmpty
from drivers.events import DeviceEvent
from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.wagers import WAGER_KINDS, wager_kind
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import DealerCommand
from sim.dealers.baccarat import BaccaratDealer
from sim.devices.shoe import Draw

# -- the simulated dealer at a shuffler table ----------------------------------------------------


class FakeShoe:
    burn_mode = False

    def __init__(self) -> None:
        self.loaded: list[list[str]] = []

    def reload(self) -> None:
        raise AssertionError("a shuffler table loads the batch, not the next seeded shoe")

    def load(self, cards: Iterable[str]) -> None:
        self.loaded.append(list(cards))

    def draw(self) -> Any:
        raise AssertionError("no draw expected")


class FakeShuffler:
    def __init__(self) -> None:
        self.slots: dict[str, list[str] | None] = {}
        self.releases = self.release_unread = 0

    def order(self, batch: str) -> tuple[str, ...]:
        return ("9S", "2H", "KD")

    def load(self, batch: str, cards: Iterable[str] | None = None) -> None:
        self.slots[batch] = None if cards is None else list(cards)


def test_the_simulated_dealer_loads_the_released_batch_and_puts_it_back_or_new_decks() -> None:
    events: list[DeviceEvent] = []
    shoe, shuffler = FakeShoe(), FakeShuffler()
    dealer = BaccaratDealer(events.append, lambda name: None, 1, shoe, shuffler=shuffler)
    dealer.act({"action": "load_shoe", "batch": "B", "_round": 1})
    assert shoe.loaded == [["9S", "2H", "KD"]]
    assert events == [DealerCommand(device="console", command="shoe_loaded", args={"batch": "B"})]
    dealer.act({"action": "return_batch", "batch": "B", "replace": False, "_round": 1})
    dealer.act({"action": "return_batch", "batch": "A", "replace": True, "_round": 1})
    assert shuffler.slots == {"B": ["9S", "2H", "KD"], "A": None}


class LiftingShuffler(FakeShuffler):
    """Takes the release the table decided only after the dealer has looked a few times, then
    its report after a few looks more; ``log`` says when, beside the shoe's loads."""

    def __init__(self, log: list[str]) -> None:
        super().__init__()
        self.log, self.looks = log, 0

    def __getattribute__(self, name: str) -> Any:
        if name == "releases":
            self.looks += 1
            if self.looks == 3:
                self.log.append("released")
                self.__dict__["releases"], self.__dict__["release_unread"] = 1, 40
            elif self.looks == 6:
                self.log.append("report read")
                self.__dict__["release_unread"] = 0
        return super().__getattribute__(name)


def test_541_3_b_4_the_simulated_dealer_sees_a_rejected_batch_come_out_before_loading_the_shoe() -> None:
    # The table told the shuffler to lift out a rejected batch; the shoe is loaded only once the
    # host has the shuffler's report, so the table hears of the rejection first.
    log: list[str] = []
    shoe, shuffler = FakeShoe(), LiftingShuffler(log)
    shoe.load = lambda cards: log.append("shoe loaded")  # type: ignore[method-assign]
    dealer = BaccaratDealer(lambda event: None, lambda name: None, 1, shoe, shuffler=shuffler)
    dealer.on_decisions([Decision("device_command", {"device": "shuffler", "command": "release_batch", "batch": "A"})])
    dealer.act({"action": "load_shoe", "batch": "B", "_round": 1})
    assert log == ["released", "report read", "shoe loaded"]


def test_the_simulated_dealer_presses_no_more_bets_again_after_the_table_refused_it() -> None:
    pressed: list[str] = []
    dealer = BaccaratDealer(lambda event: None, pressed.append, 1, FakeShoe())
    dealer.act({"action": "place_bets", "last_hand": False, "held": 0, "_round": 4})
    dealer.act({"action": "place_bets", "last_hand": False, "held": 1, "_round": 4})
    assert pressed == ["no_more_bets"], "once per round while the table takes it"
    dealer.on_decisions([Decision("alert", {"code": "irregularity-open", "text": "no_more_bets: ...",
                                            "severity": "warning"})])  # fmt: skip
    dealer.act({"action": "place_bets", "last_hand": False, "held": 1, "_round": 4})
    assert pressed == ["no_more_bets", "no_more_bets"]


class ScriptedDraws(FakeShoe):
    """Draws in the order given (the cover card among them), noting each; every report acknowledged."""

    pending = 0

    def __init__(self, *draws: Any) -> None:
        super().__init__()
        self.left, self.drawn = list(draws), []

    def draw(self) -> Any:
        self.drawn.append(self.left.pop(0))
        return Draw(self.drawn[-1], None)


def test_541_3_b_1_the_read_out_of_a_shoe_ended_early_draws_past_the_cover_card() -> None:
    """A shoe ended before its cover card came out (§ 541.3(c) expired decks, § 541.5(h)(2) idle):
    the table counts no card for the cover card (§ 541.5(d)), so its read-out prompt does not
    change; the dealer puts the cover card aside and draws the card behind it."""
    card = Card("4", "S", False)
    shoe = ScriptedDraws(CutCard(), card, ShoeEmpty())
    dealer = BaccaratDealer(lambda event: None, lambda name: None, 1, shoe)
    dealer.act({"action": "read_out", "read": 7, "_round": 1})
    assert shoe.drawn == [CutCard(), card]
    dealer.act({"action": "read_out", "read": 8, "_round": 1})
    assert shoe.drawn[-1] == ShoeEmpty(), "one draw per prompt otherwise"


def test_541_5_h_2_the_players_bet_in_the_next_shoe_after_an_idle_shoe_ended_their_round() -> None:
    """An idle shoe ends in the round being bet on, which never finishes; the next shoe's betting
    is new, and the dealer takes its wagers and presses no more bets again."""
    pressed: list[str] = []
    dealer = BaccaratDealer(lambda event: None, pressed.append, 1, FakeShoe())
    dealer.act({"action": "place_bets", "last_hand": False, "held": 0, "_round": 4})
    dealer.on_decisions([Decision("announce", {"announce": "shoe", "shoe": 2, "text": "shoe 2"})])
    dealer.act({"action": "place_bets", "last_hand": False, "held": 0, "_round": 4})
    assert pressed == ["no_more_bets", "no_more_bets"]


def test_the_simulated_players_bet_the_kinds_the_registry_gives_a_weight_and_refuse_an_unknown_kind() -> None:
    dealer = BaccaratDealer(lambda event: None, lambda name: None, 1, FakeShoe(), offered=tuple(reversed(WAGER_KINDS)))
    assert dealer.offered == [kind for kind in WAGER_KINDS if wager_kind(kind).sim_weight]
    with pytest.raises(RulesError, match="'dragon_bonus': not a Baccarat wager kind"):
        BaccaratDealer(lambda event: None, lambda name: None, 1, FakeShoe(), offered=("banker", "dragon_bonus"))


DRAWN_IN_ERROR_AND_DISCLOSED = {"card_drawn_in_error": 1.0, "card_disclosed": 1.0}
BANKER_SECOND_CARD = {"action": "deal", "to": "banker", "card": 2, "_round": 3}


def _drawing_in_error(pressed: list[str]) -> tuple[BaccaratDealer, threading.Thread]:
    """A dealer acting on the banker's second card in a thread of its own, certain to draw a card in
    error and disclose it; returned once it has drawn that card."""
    shoe = ScriptedDraws(Card("4", "S", False), Card("9", "H", False))
    drew_in_error = threading.Event()
    draw = shoe.draw

    def draw_and_tell() -> Any:
        drawn = draw()
        if len(shoe.drawn) == 2:
            drew_in_error.set()
        return drawn

    shoe.draw = draw_and_tell  # type: ignore[method-assign]
    dealer = BaccaratDealer(lambda event: None, pressed.append, 1, shoe, errors=DRAWN_IN_ERROR_AND_DISCLOSED)
    acting = threading.Thread(target=dealer.act, args=(BANKER_SECOND_CARD,))
    acting.start()
    assert drew_in_error.wait(30)
    acting.join(0.1)  # settle() and the look at the screen: still no press
    assert acting.is_alive() and pressed == [], "no press before the table has the card"
    return dealer, acting


def test_541_14_c_the_dealer_discloses_a_card_drawn_in_error_only_once_the_table_holds_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The card's report goes through the shoe's driver and the press straight to the service: on a
    loaded machine the press came first, the table refused it (no card held) and the run's
    § 541.14(a) alert went missing (a CI failure of ``test_whole_shoes_with_every_fault_injected``).
    The dealer now waits to see the table's alert before pressing."""
    monkeypatch.setattr(sim.dealers.base, "SEE_SECONDS", 120.0)  # however loaded the machine
    pressed: list[str] = []
    dealer, acting = _drawing_in_error(pressed)
    dealer.on_decisions([Decision("alert", {"code": "card-drawn-in-error", "text": "...", "severity": "warning"})])
    acting.join(30)
    assert not acting.is_alive() and pressed == ["card_disclosed"]


def test_541_14_d_a_card_drawn_in_error_that_came_out_face_up_is_not_disclosed_and_ends_the_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The card drawn in error came out face up (or unread, or was the cover card): nothing is held
    for the next hand, nothing disclosed, and the dealer goes on at once (it waited its whole
    10 s before, past the kill loop's 8 s stall limit: test_541_12_c_hundred_kills_over_several_shoes)."""
    monkeypatch.setattr(sim.dealers.base, "SEE_SECONDS", 120.0)
    pressed: list[str] = []
    dealer, acting = _drawing_in_error(pressed)
    dealer.on_decisions([Decision("alert", {"code": "card-face-up", "text": "...", "severity": "attention"})])
    acting.join(30)
    assert not acting.is_alive() and pressed == []


def test_541_14_a_a_card_drawn_in_error_the_table_says_nothing_of_is_not_disclosed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A card kept behind one awaiting entry makes no decision: the look runs out, nothing disclosed."""
    monkeypatch.setattr(sim.dealers.base, "SEE_SECONDS", 0.05)
    pressed: list[str] = []
    shoe = ScriptedDraws(Card("4", "S", False), Card("9", "H", False))
    dealer = BaccaratDealer(lambda event: None, pressed.append, 1, shoe, errors=DRAWN_IN_ERROR_AND_DISCLOSED)
    dealer.on_decisions([Decision("alert", {"code": "card-drawn-in-error", "text": "...", "severity": "warning"})])
    dealer.act(BANKER_SECOND_CARD)  # that alert came before the card was drawn: not its outcome
    assert pressed == [] and len(shoe.drawn) == 2
