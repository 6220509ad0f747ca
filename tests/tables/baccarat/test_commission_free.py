"""Commission-free Baccarat at the table (§ 631c.5): pairs before third cards, Lucky Six."""

from __future__ import annotations

from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.rules.baccarat.variant import Variant

from .table import Driver, cards, command, wager

FREE = RulesSubmission(variant=Variant.COMMISSION_FREE)


def test_631c_5_d_pair_wagers_settled_after_the_initial_four_cards_before_any_third_card() -> None:
    driver = Driver(FREE)
    driver.start()
    driver.feed(wager(2, "player_pair", 100), wager(6, "banker_pair", 200), wager(2, "player", 1000))
    driver.feed(command("no_more_bets"), cards("4S 2H 4D 3C"))  # player 4 + 4 = 8: a natural
    assert driver.table.state == "betting"  # a natural: no third card, pairs settled with the rest
    driver.feed(wager(2, "player_pair", 100), wager(6, "banker_pair", 200), wager(2, "player", 1000))
    driver.feed(command("no_more_bets"), cards("2S 3H 2D 4C"))  # player 4 (a pair), banker 7: the player draws
    prompt = driver.prompt()
    assert prompt["action"] == "settle_pairs"
    assert [(line["seat"], line["kind"], line["outcome"], line["payout"]) for line in prompt["settlement"]] == [
        (6, "banker_pair", "lose", 0), (2, "player_pair", "win", 1100)]  # fmt: skip
    driver.feed(command("pairs_settled"))
    assert (driver.prompt()["to"], driver.prompt()["card"]) == ("player", 3)
    driver.feed(cards("KS"))  # player 4 + 0 = 4; banker 7 stays (§ 541.11(c)(2)(ii))
    result = driver.results()[-1]
    assert [line["kind"] for line in result["settlement"]] == ["banker_pair", "player_pair", "player"]
    assert result["settlement"][-1]["outcome"] == "lose"


def test_631c_5_d_a_third_card_drawn_before_the_pairs_are_settled_is_dealt_with_a_warning() -> None:
    driver = Driver(FREE)
    driver.start()
    driver.feed(wager(2, "player_pair", 100), command("no_more_bets"), cards("2S 3H 2D 3C"))
    decided = driver.feed(cards("KS"))
    assert driver.alerts(decided) == ["procedure"]
    assert driver.results()[-1]["cards"] == ["2S", "3H", "2D", "3C", "KS"]
    assert [line["kind"] for line in driver.results()[-1]["settlement"]] == ["player_pair"]


def test_631c_5_d_no_pair_wagers_no_pause_before_third_cards() -> None:
    driver = Driver(FREE)
    driver.start()
    driver.feed(wager(2, "player", 100), command("no_more_bets"), cards("2S 3H 2D 3C"))
    assert driver.prompt()["action"] == "deal"


def test_631c_5_e_lucky_six_announced_when_the_banker_wins_with_six() -> None:
    driver = Driver(FREE)
    driver.start()
    driver.feed(wager(4, "lucky_six", 100), wager(4, "banker", 1000), command("no_more_bets"))
    driver.feed(cards("2S 3H 3D 3C KS"))  # player 5 + 0; banker 6 stays on a player third of 0 and wins
    announced = [a["announce"] for a in driver.of("announce")]
    assert announced[-2:] == ["outcome", "lucky_six"]
    assert driver.of("announce")[-1]["text"] == "Lucky Six"
    result = driver.results()[-1]
    assert result["lucky_six"] == 2
    assert [(line["kind"], line["payout"]) for line in result["settlement"]] == [("banker", 500), ("lucky_six", 1200)]


def test_631c_5_e_no_lucky_six_announcement_in_standard_minibaccarat() -> None:
    driver = Driver()
    driver.start()
    driver.feed(command("no_more_bets"), cards("2S 3H 3D 3C KS"))
    assert "lucky_six" not in [a["announce"] for a in driver.of("announce")]
    assert driver.results()[-1]["lucky_six"] is None


def test_631c_5_d_face_down_deal_settles_pairs_after_the_reveal() -> None:
    driver = Driver(FREE, initial_cards_face_down=True)
    driver.start()
    driver.feed(wager(1, "banker_pair", 100), command("no_more_bets"), cards("2S 3H 2D 3C"))
    assert driver.prompt()["action"] == "reveal"
    driver.feed(command("reveal"))
    assert driver.prompt()["action"] == "settle_pairs"
    assert driver.prompt()["settlement"][0]["outcome"] == "win"


def test_a_wager_kind_no_registry_declares_is_refused_at_the_console_naming_it() -> None:
    driver = Driver(RulesSubmission(variant=Variant.COMMISSION_FREE))
    driver.start()
    decided = driver.feed(wager(2, "dragon_bonus", 500))
    assert driver.alerts(decided) == ["refused-input"]
    assert "'dragon_bonus'" in driver.of("alert", decided)[0]["text"]
    assert driver.table.view()["wagers"] == []
