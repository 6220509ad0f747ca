"""Game protection at the table: the ``odds`` decision before each round, from exposed cards only,
and the ``advantage-window`` alert (docs/protection.md)."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from firmware_host.rules.baccarat.cards import Card, full_shoe, parse_card, parse_cards
from firmware_host.rules.baccarat.exposure import evs_text, expected_values, parse_ev, remaining_ranks
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.tables.decisions import Decision
from tests.support.table_driver import command
from tests.tables.baccarat.table import Driver, cards, follow_prompts, wager

FREE = RulesSubmission(variant="commission-free")
#: A one-deck shoe: the burn card 2C is shown and burns 2 more face down (§ 541.5(g)); every
#: ace, king and queen is left for the end, so the pairs turn positive late in the shoe.
BURN = "2C 3D 4H"
LATE = [f"{rank}{suit}" for rank in "AKQ" for suit in "SHDC"]
EARLY = [str(card) for card in full_shoe(1) if str(card) not in LATE and str(card) not in BURN.split()]


def odds_of(decisions: list[Decision]) -> list[dict[str, object]]:
    return [d.data for d in decisions if d.type == "odds"]


def play_until_late(driver: Driver, stock: list[str], keep: int = len(LATE)) -> list[list[str]]:
    """Play rounds from ``stock`` (cards in shoe order) while six more than its last ``keep`` are
    left; the cards each round took."""
    taken: list[list[str]] = []
    pool: Iterator[str] = iter(stock)
    left = list(stock)
    while len(left) - keep >= 6:
        before = len(driver.results())
        driver.feed(wager(1, "player", 1000))
        assert follow_prompts(driver, pool) is not None
        assert len(driver.results()) == before + 1
        used = driver.results()[-1]["cards"]
        taken.append(used)
        left = left[len(used) :]
    return taken


def test_541_9_c_2_odds_before_round_k_count_exactly_the_cards_exposed_before_it() -> None:
    """Face-down deal: the odds before each round are the EVs of the shoe less the burn card shown
    and the cards of the rounds before; never a card burned face down, nor a card not yet turned up."""
    driver = Driver(FREE, decks=1, initial_cards_face_down=True)
    driver.start(decks=1, burn=BURN)
    taken = play_until_late(driver, EARLY + LATE)
    odds = odds_of(driver.decisions)
    assert [o["round"] for o in odds] == list(range(1, len(taken) + 2))  # one per round, and the next
    exposed = [parse_card("2C")]
    for number, data in enumerate(odds, 1):
        expected = expected_values(FREE, remaining_ranks(1, exposed))
        assert data == {"round": number, "seen": len(exposed), "ev": evs_text(expected)}
        if number <= len(taken):
            exposed += parse_cards(" ".join(taken[number - 1]))


def test_odds_are_decided_before_the_round_s_first_card_and_never_while_cards_are_face_down() -> None:
    driver = Driver(FREE, decks=1, initial_cards_face_down=True)
    opened = driver.start(decks=1, burn=BURN)
    assert [d.round for d in opened if d.type == "odds"] == [1]  # with the burn: betting opens
    driver.feed(wager(1, "banker", 500), command("no_more_bets"))
    face_down = driver.feed(cards("9S 5S KS 3S"))  # player 9, banker 8: naturals, complete at the reveal
    assert driver.prompt()["action"] == "reveal"
    assert not odds_of(face_down)
    finished = driver.feed(command("reveal"))
    assert driver.results()
    types = [d.type for d in finished]
    assert types.index("round_result") < types.index("odds")  # the next round's, once these are listed
    assert odds_of(finished)[0]["seen"] == 1 + driver.results()[-1]["cards_used"]


def test_541_14_a_a_card_held_face_down_is_unseen_until_its_round_is_over() -> None:
    driver = Driver(FREE, decks=1)
    driver.start(decks=1, burn=BURN)
    held = driver.feed(cards("9H"))  # drawn while betting: the first card of the next hand, face down
    assert "card-drawn-in-error" in driver.alerts(held) and not odds_of(held)
    assert odds_of(driver.decisions)[-1]["seen"] == 1


def test_541_14_d_a_card_found_face_up_while_betting_refreshes_the_round_s_odds() -> None:
    from drivers.events.shoe import CardFaceUp

    driver = Driver(FREE, decks=1)
    driver.start(decks=1, burn=BURN)
    found = driver.feed(CardFaceUp(device="shoe", rank="A", suit="S"))  # counts 1: one more face up
    assert [(o["round"], o["seen"]) for o in odds_of(found)] == [(1, 2)]
    more = driver.feed(cards("AH"))
    refreshed = odds_of(more)
    assert [(o["round"], o["seen"]) for o in refreshed] == [(1, 3)]
    assert refreshed[-1]["ev"] == evs_text(expected_values(FREE, remaining_ranks(1, parse_cards("2C AS AH"))))


def test_541_14_c_a_disclosed_card_is_seen_and_the_one_discarded_with_it_face_down_is_not() -> None:
    driver = Driver(FREE, decks=1)
    driver.start(decks=1, burn=BURN)
    driver.feed(cards("9H"), command("card_disclosed"))
    assert odds_of(driver.decisions)[-1]["seen"] == 2
    driver.feed(cards("9D"))  # the one more, face down
    assert odds_of(driver.decisions)[-1]["seen"] == 2


def test_advantage_windows_open_late_in_a_shoe_rich_in_pairs() -> None:
    driver = Driver(FREE, decks=1)
    driver.start(decks=1, burn=BURN)
    play_until_late(driver, EARLY + LATE)
    last = odds_of(driver.decisions)[-1]
    evs = {kind: parse_ev(text) for kind, text in last["ev"].items()}  # type: ignore[union-attr]
    assert evs["player_pair"] > 0 and evs["banker_pair"] > 0
    windows = [d for d in driver.decisions if d.type == "alert" and d.data["code"] == "advantage-window"]
    late = [w for w in windows if w.round == last["round"]]
    assert {w.data["wager"] for w in late} == {kind for kind, ev in evs.items() if ev > 0}
    for window in late:
        assert window.data["ev"] == last["ev"][window.data["wager"]]  # type: ignore[index]
        assert window.data["ev_percent"] == round(float(evs[window.data["wager"]]) * 100, 4)
    assert not [w for w in windows if w.round == 1]  # a fresh shoe offers none


def test_the_threshold_is_the_profile_s_and_a_window_is_alerted_once_per_round() -> None:
    driver = Driver(RulesSubmission(), 8, advantage_threshold=Fraction(-13, 1000))
    driver.start()
    first = [d.data["wager"] for d in driver.decisions if d.type == "alert" and d.data["code"] == "advantage-window"]
    assert first == ["banker", "player"]  # -1.06% and -1.24% are above -1.3%; the tie is not
    from drivers.events.shoe import CardFaceUp

    driver.feed(CardFaceUp(device="shoe", rank="K", suit="S"))  # counts 0: nothing more; refreshed odds
    again = [d for d in driver.decisions if d.type == "alert" and d.data["code"] == "advantage-window"]
    assert len(odds_of(driver.decisions)) == 2 and len(again) == 2


def test_an_impossible_card_is_not_counted_as_one_of_the_shoe_s() -> None:
    driver = Driver(FREE, decks=1)
    driver.start(decks=1, burn="KS")  # 10 more face down
    driver.feed(cards("5S 5H 5D 5C 6S 6H 6D 6C 7S 7H"))
    driver.feed(wager(1, "player", 500))
    follow_prompts(driver, iter(["KS", "KS", "8S", "8H", "9S", "9H"]))  # the second KS cannot be
    assert "impossible-card" in driver.alerts()
    table_shoe = driver.table.shoe
    assert table_shoe is not None and table_shoe.exposed[Card("K", "S")] == 1
