"""A normal round and the shoe's life, one test per regulation section (ch. 541)."""

from __future__ import annotations

from firmware_host.baccarat.deal import resolve
from firmware_host.baccarat.cards import parse_cards
from firmware_host.baccarat.rules import RulesSubmission
from .table import Driver, cards, command, wager


def test_541_5_g_burn_first_card_shown_then_its_face_value_burned_ten_for_a_king() -> None:
    driver = Driver()
    driver.start(burn="KH")
    assert driver.prompt() == {"action": "burn", "remaining": 10, "text": "burn 10 more card(s)"}
    shown = driver.of("announce")[-1]
    assert (shown["announce"], shown["card"], shown["burn"]) == ("burn_card", "KH", 10)
    driver.feed(cards("2C 3C 4C 5C 6C 7C 8C 9C TC", burn=True))
    assert driver.table.state == "burning"
    driver.feed(cards("JC", burn=True))
    assert driver.table.state == "betting"
    assert driver.prompt()["action"] == "place_bets"


def test_541_5_g_burned_cards_other_than_the_first_are_never_shown() -> None:
    driver = Driver()
    driver.start(burn="3D 7S 8S QH")
    texts = repr([d.data for d in driver.decisions])
    assert "3D" in texts and not any(card in texts for card in ("7S", "8S", "QH"))


def test_541_9_c_initial_four_cards_player_banker_player_banker_then_third_cards() -> None:
    driver = Driver()
    driver.start()
    driver.feed(command("no_more_bets"))
    asked = [(driver.prompt()["to"], driver.prompt()["card"])]
    for card in cards("2S 3H 4D 5C"):  # banker 8: a natural, no third card
        if driver.table.state != "dealing":
            break
        driver.feed(card)
        if driver.table.state == "dealing":
            asked.append((driver.prompt()["to"], driver.prompt()["card"]))
    assert asked == [("player", 1), ("banker", 1), ("player", 2), ("banker", 2)]
    result = driver.results()[-1]
    assert (result["player"], result["banker"]) == (["2S", "4D"], ["3H", "5C"])


def test_541_10_c_third_card_to_the_player_first_then_the_banker() -> None:
    driver = Driver()
    driver.start()
    driver.feed(command("no_more_bets"), cards("2S 3H 2D 2C"))  # player 4, banker 5: both may draw
    assert (driver.prompt()["to"], driver.prompt()["card"]) == ("player", 3)
    driver.feed(cards("4H"))  # player's third is a 4: banker on 5 draws (Table 1)
    assert (driver.prompt()["to"], driver.prompt()["card"]) == ("banker", 3)
    driver.feed(cards("KS"))
    result = driver.results()[-1]
    assert result["cards"] == ["2S", "3H", "2D", "2C", "4H", "KS"]
    assert result == {**result, **resolve(parse_cards("2S 3H 2D 2C 4H KS")).to_json_dict()}


def test_541_12_a_outcome_announced_with_both_counts_and_tie_hand() -> None:
    driver = Driver()
    driver.start()
    driver.feed(command("no_more_bets"), cards("9S 9H KD KC"))
    outcome = driver.of("announce")[-1]
    assert outcome == {"announce": "outcome", "winner": "tie", "player_total": 9, "banker_total": 9,
                       "text": "player 9, banker 9: Tie Hand"}  # fmt: skip


def test_541_12_b_losing_wagers_collected_first_then_winners_paid_from_the_highest_seat_down() -> None:
    driver = Driver()
    driver.start()
    driver.feed(wager(1, "player", 1000), wager(2, "banker", 2000), wager(6, "player", 500), wager(4, "tie", 100))
    driver.feed(command("no_more_bets"), cards("9S 2H KD 5C"))  # player 9 wins
    lines = [(line["seat"], line["kind"], line["outcome"]) for line in driver.results()[-1]["settlement"]]
    assert lines == [(4, "tie", "lose"), (2, "banker", "lose"), (6, "player", "win"), (1, "player", "win")]


def test_round_result_has_exactly_the_export_fields() -> None:
    driver = Driver(RulesSubmission())
    driver.start()
    driver.feed(command("no_more_bets"), cards("9S 2H KD 5C"))
    assert list(driver.results()[-1]) == [
        "round", "shoe", "game", "status", "cards", "player", "banker", "player_total", "banker_total",
        "winner", "natural", "player_pair", "banker_pair", "lucky_six", "cards_used", "settlement", "irregularities",
    ]  # fmt: skip
