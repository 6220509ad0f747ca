"""The simulated card counter (issue 21, item 4): it bets 10 x the table minimum on exactly the
wagers whose EV from the exposed cards is positive, sits out otherwise, and never reads the shoe."""

from __future__ import annotations

from typing import Any

from firmware_host.rules.baccarat.cards import full_shoe, parse_card
from firmware_host.rules.baccarat.exposure import expected_values, remaining_ranks
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.rules.baccarat.variant import Variant
from firmware_host.tables.decisions import Decision
from sim.dealers.baccarat import BaccaratDealer
from sim.dealers.counter import CardCounter

RULES = RulesSubmission(variant=Variant.COMMISSION_FREE)


class BlindShoe:
    """A shoe the counter must never look into."""

    burn_mode = False

    def card_at(self, index: int) -> str | None:
        raise AssertionError("the counter read the shoe's hidden order")

    def reload(self) -> None: ...

    def load(self, cards: Any) -> None: ...

    def draw(self) -> Any:
        raise AssertionError("no draw expected")


def _dealer(decks: int = 1) -> BaccaratDealer:
    return BaccaratDealer(
        lambda event: None,
        lambda name: None,
        5,
        BlindShoe(),
        offered=RULES.offered_wagers,
        counters=(3,),
        counter=CardCounter(RULES, decks),
        counter_stake=25_000,
    )


def _shown(dealer: BaccaratDealer, burn: str, rounds: list[list[str]], status: str = "completed") -> None:
    decisions = [
        Decision("announce", {"announce": "shoe", "shoe": 1, "text": "shoe 1"}),
        Decision("announce", {"announce": "burn_card", "card": burn, "burn": 1, "text": "burn"}),
    ]
    decisions += [
        Decision("round_result", {"round": n, "status": status, "cards": cards}, n) for n, cards in enumerate(rounds, 1)
    ]
    dealer.on_decisions(decisions)


def _seat_bets(dealer: BaccaratDealer, seat: int) -> dict[str, int]:
    return {kind: amount for s, kind, amount in dealer.bets() if s == seat}


def test_the_counter_sits_out_a_fresh_shoe() -> None:
    dealer = _dealer(decks=8)
    _shown(dealer, "AH", [])
    assert _seat_bets(dealer, 3) == {}
    assert any(s != 3 for s, _, _ in dealer.bets())  # the other seats play as before


def test_the_counter_bets_exactly_the_wagers_the_exposed_cards_favour() -> None:
    # One deck, every ace to nine shown: 16 cards of four ranks left, so the pairs pay.
    shown = [str(card) for card in full_shoe(1) if card.rank not in "TJQK"]
    dealer = _dealer()
    _shown(dealer, shown[0], [shown[1:20], shown[20:]])
    evs = expected_values(RULES, remaining_ranks(1, map(parse_card, shown)))
    favoured = {kind for kind, ev in evs.items() if ev > 0}
    assert {"player_pair", "banker_pair"} <= favoured
    assert _seat_bets(dealer, 3) == {kind: 25_000 for kind in favoured}


def test_the_counter_counts_no_card_of_a_void_round_and_starts_again_with_each_shoe() -> None:
    shown = [str(card) for card in full_shoe(1) if card.rank not in "TJQK"]
    dealer = _dealer()
    _shown(dealer, shown[0], [shown[1:]], status="void")
    assert [str(card) for card in dealer.counter.seen] == [shown[0]]
    assert _seat_bets(dealer, 3) == {}
    _shown(dealer, shown[0], [shown[1:]])
    _shown(dealer, "KS", [])  # a new shoe
    assert [str(card) for card in dealer.counter.seen] == ["KS"]


def test_an_impossible_card_or_too_few_cards_left_and_the_counter_sits_out() -> None:
    dealer = _dealer()
    _shown(dealer, "AH", [["AH"]])  # a second ace of hearts in one deck
    assert dealer.counter.evs() == {} and _seat_bets(dealer, 3) == {}
    every = [str(card) for card in full_shoe(1)]
    _shown(dealer, every[0], [every[1:48]])  # four cards left: no round can be dealt
    assert _seat_bets(dealer, 3) == {}
