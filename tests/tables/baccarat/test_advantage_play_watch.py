"""Advantage-play detection at the table (issue 21, item 3): a seat that bets what the exposed
cards favour is flagged with its evidence, card-blind seats are not, and the alert is for
surveillance only."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from drivers.events.shoe import CutCard
from firmware_host.rules.baccarat.advantage_play import DetectionPolicy
from firmware_host.rules.baccarat.cards import full_shoe
from firmware_host.rules.baccarat.exposure import parse_ev
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.rules.baccarat.variant import Variant
from firmware_host.tables.decisions import ADVANTAGE_PLAY, for_surveillance_only
from sim.dealers.counter import CardCounter
from tests.support.table_driver import command
from tests.tables.baccarat.table import SHOE_UP, Driver, cards, wager

RULES = RulesSubmission(variant=Variant.COMMISSION_FREE)
DECKS = 2
COUNTER = 3
#: § 541.5(e): the cover card 14 cards from the bottom.
COVER = 14


def _play_shoe(driver: Driver, rng: random.Random, counter: CardCounter, bets: list[dict[str, Any]]) -> None:
    """One shoe as prompted: the counter bets 25,000 on what its count favours, seats 1-2 and 4-7
    bet whatever the cards; ``bets`` gets each round's counter wagers and the table's odds."""
    shoe = [str(card) for card in full_shoe(DECKS)]
    rng.shuffle(shoe)
    shoe.insert(len(shoe) - COVER, "CUT")
    draws = iter(shoe)
    seen = len(driver.decisions)
    driver.feed(command("shoe_loaded", decks=DECKS))
    while driver.table.state != "awaiting_shoe":
        counter.on_decisions(driver.decisions[seen:])
        seen = len(driver.decisions)
        action = driver.prompt()["action"]
        if action == "place_bets":
            favoured = counter.positive()
            for kind in favoured:
                driver.feed(wager(COUNTER, kind, 25_000))
            for seat in (1, 2, 4, 5, 6, 7):
                if rng.random() < 0.8:
                    driver.feed(wager(seat, rng.choice(sorted(RULES.offered_wagers)), rng.choice((500, 2500, 10_000))))
            odds = driver.of("odds")[-1]
            bets.append(
                {
                    "round": odds["round"],
                    "favoured": set(favoured),
                    "positive": {kind for kind, ev in odds["ev"].items() if parse_ev(ev) > 0},
                }
            )
            driver.feed(command("no_more_bets"))
        elif action in ("reveal", "pairs_settled", "settle_pairs"):
            driver.feed(command("reveal" if action == "reveal" else "pairs_settled"))
        else:
            assert action in ("burn", "deal"), driver.prompt()
            card = next(draws)
            driver.feed(CutCard(device="shoe") if card == "CUT" else cards(card, burn=action == "burn"))


def _day(seed: int, shoes: int) -> tuple[Driver, list[dict[str, Any]]]:
    driver, rng, counter, bets = Driver(RULES, decks=DECKS), random.Random(seed), CardCounter(RULES, DECKS), []
    driver.feed(SHOE_UP)
    for _ in range(shoes):
        _play_shoe(driver, rng, counter, bets)
    return driver, bets


def _advantage_play(driver: Driver) -> list[dict[str, Any]]:
    return [d.data for d in driver.decisions if d.type == "alert" and d.data["code"] == ADVANTAGE_PLAY]


def test_the_counting_seat_is_flagged_with_its_evidence_and_no_other_seat_is() -> None:
    driver, bets = _day(seed=3, shoes=2)  # flagged in its second shoe
    alerts = _advantage_play(driver)
    assert alerts, "the counter was not flagged"
    assert {alert["seat"] for alert in alerts} == {COUNTER}
    first = alerts[0]
    assert first["bets_outside"] == 0 and first["bets_in_windows"] >= 3
    assert first["windows"] >= first["bets_in_windows"] and first["rounds_outside"] > 0
    assert first["statistic"] == "e-value" and first["log10_e_value"] >= first["log10_threshold"]
    assert first["level"] == str(DetectionPolicy().level(len(RULES.offered_wagers)))
    assert f"seat {COUNTER}" in first["text"]
    # Surveillance only: the feed carries it, the display and the dealer's view do not.
    assert all(for_surveillance_only(d) for d in driver.decisions if d.type == "alert"
               and d.data["code"] == ADVANTAGE_PLAY)  # fmt: skip
    assert not any(a.get("code") == ADVANTAGE_PLAY for a in driver.table.view().get("alerts", []))
    # The simulated counter bet exactly the wagers the table's own odds from the exposed cards favoured.
    assert all(entry["favoured"] == entry["positive"] for entry in bets)
    assert sum(bool(entry["favoured"]) for entry in bets) >= 3


def test_card_blind_seats_are_not_flagged_in_a_seeded_day() -> None:
    driver, _ = _day(seed=11, shoes=3)
    assert [alert for alert in _advantage_play(driver) if alert["seat"] != COUNTER] == []


def test_a_round_void_before_no_more_bets_is_not_observed() -> None:
    driver = Driver(RULES, decks=DECKS)
    driver.feed(SHOE_UP, command("shoe_loaded", decks=DECKS), cards("AH 2C", burn=True))
    driver.feed(wager(5, "tie", 500), command("void_round"))
    assert driver.table.advantage_play.watch.rounds == 0
    driver.feed(wager(5, "tie", 500), command("no_more_bets"))
    watch = driver.table.advantage_play.watch
    assert watch.rounds == 1 and watch.tally(5, "tie", "presence").bets == 1


def test_the_policy_reaches_the_table() -> None:
    policy = DetectionPolicy(alpha=Fraction(1, 100))
    driver = Driver(RULES, decks=DECKS, detection=policy)
    assert driver.table.advantage_play.policy is policy
