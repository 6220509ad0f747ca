"""The player bank through the controller (§ 535.11(b)-(j), § 621a.9(b)-(j))."""

from __future__ import annotations

import pytest

from firmware_host.rules.paigow_dice.rules import PaiGowRules
from firmware_host.tables.paigow import PaiGowTableRules

from .table import BANK_RULES, Driver, after_first_round, command, lid, reading, roll, shakes, to_bank_offer, wager


def test_535_11_b_no_player_bank_in_the_first_round_of_the_game() -> None:
    driver = Driver(BANK_RULES)
    driver.open()
    driver.feed(wager(3), command("no_more_bets"))
    assert driver.table.state == "shaking"  # no offer of the bank at all
    decided = driver.feed(command("bank", seat=3, chips_confirmed=True))
    assert driver.alerts(decided) == ["wrong-state"]


def test_535_11_b_a_new_game_has_no_player_bank_in_its_first_round() -> None:
    driver = after_first_round()
    driver.feed(command("new_game"))
    driver.feed(wager(3), command("no_more_bets"))
    assert driver.table.state == "shaking"


def test_535_11_a_no_offer_when_the_rules_submission_offers_no_player_bank() -> None:
    driver = after_first_round(PaiGowTableRules())
    driver.feed(wager(3), command("no_more_bets"))
    assert driver.table.state == "shaking"


def test_535_11_c_the_offer_is_a_prompt_in_counterclockwise_order_from_the_first_seat() -> None:
    driver = after_first_round()
    to_bank_offer(driver)
    assert driver.table.state == "bank"
    prompt = driver.prompt()
    assert prompt["action"] == "offer_bank" and prompt["order"] == [1, 2, 3, 4, 5, 6]


def test_535_11_c_the_first_offer_rotates_and_nobody_banks_two_consecutive_rounds() -> None:
    driver = after_first_round()
    to_bank_offer(driver)
    driver.feed(command("bank", seat=1, chips_confirmed=True), roll(3, 5, 1))
    driver.deal_and_close()
    driver.feed(command("round_complete"))
    to_bank_offer(driver)
    # The next offer starts with the seat to the right of the one first offered (§ 535.11(c)),
    # and seat 1, which banked, is left out.
    assert driver.prompt()["order"] == [2, 3, 4, 5, 6]
    decided = driver.feed(command("bank", seat=1, chips_confirmed=True))
    alert = driver.of("alert", decided)[0]
    assert alert["code"] == "refused-input" and "two consecutive rounds" in alert["text"]
    assert driver.table.state == "bank"


def test_535_11_c_no_player_accepts_and_the_dealer_banks() -> None:
    driver = after_first_round()
    to_bank_offer(driver)
    driver.feed(command("no_bank"))
    assert driver.table.state == "shaking" and driver.table.round.bank is None
    assert driver.prompt()["by"] == "dealer"


def test_535_11_d_1_a_player_who_did_not_wager_against_the_dealer_may_not_bank() -> None:
    driver = after_first_round(wagers={2: 1000})
    to_bank_offer(driver)
    assert driver.prompt()["order"] == [2]
    decided = driver.feed(command("bank", seat=5, chips_confirmed=True))
    assert "535.11(d)(1)" in driver.of("alert", decided)[0]["text"]


def test_535_11_d_2_the_dealer_confirms_the_chips_or_the_bank_is_refused() -> None:
    driver = after_first_round()
    to_bank_offer(driver)
    decided = driver.feed(command("bank", seat=2))
    assert "535.11(d)(2)" in driver.of("alert", decided)[0]["text"]
    assert driver.table.state == "bank"


def test_535_11_e_co_banking_only_when_the_rules_submission_offers_it() -> None:
    rules = PaiGowTableRules(PaiGowRules(player_bank_offered=True))
    driver = after_first_round(rules)
    to_bank_offer(driver)
    decided = driver.feed(command("bank", seat=2, co_bank=True, chips_confirmed=True))
    assert "535.11(e)" in driver.of("alert", decided)[0]["text"]
    driver.feed(command("bank", seat=2, chips_confirmed=True))
    assert driver.table.round.bank is not None and driver.table.round.bank.co_bank is False


def test_535_11_e_a_co_bank_and_no_dealer_wager() -> None:
    driver = after_first_round()
    to_bank_offer(driver)
    decided = driver.feed(command("bank", seat=2, co_bank=True, chips_confirmed=True))
    bank = driver.announced("bank", decided)[0]
    assert (bank["seat"], bank["co_bank"], bank["dealer_wager"]) == (2, True, 0)


def test_535_11_f_the_bank_wagers_on_its_own_area_only() -> None:
    driver = after_first_round()
    to_bank_offer(driver)
    decided = driver.feed(command("bank", seat=2, chips_confirmed=True, areas=[2, 3]))
    assert "535.11(f)" in driver.of("alert", decided)[0]["text"]
    assert driver.table.round.bank is None


def test_535_11_g_the_bank_cuts_once_and_the_plan_follows_the_cut() -> None:
    driver = after_first_round()
    to_bank_offer(driver)
    driver.feed(command("bank", seat=2, chips_confirmed=True), command("cut", stacks=2))
    decided = driver.feed(command("cut", stacks=3))
    assert "one time" in driver.of("alert", decided)[0]["text"]
    driver.feed(roll(3, 5, 1))
    deliver = driver.prompt()
    assert deliver["cut"] == {"to_right_end": [], "to_left_end": [1, 2]}
    assert deliver["hands"][0]["tiles"] == ["3.1", "3.2", "3.3", "3.4"]  # stack 3 is now on the right


def test_535_11_g_only_a_player_bank_may_cut() -> None:
    driver = Driver()
    driver.open()
    driver.feed(wager(3), command("no_more_bets"))
    decided = driver.feed(command("cut", to_right_end=[7, 8]))
    assert "535.11(g)" in driver.of("alert", decided)[0]["text"]


def test_535_11_h_the_dealer_wagers_the_banks_last_wager_against_the_dealer_or_less() -> None:
    driver = after_first_round(wagers={2: 2500, 4: 1000})
    to_bank_offer(driver)
    decided = driver.feed(command("bank", seat=2, chips_confirmed=True))
    assert driver.announced("bank", decided)[0]["dealer_wager"] == 2500

    lower = after_first_round(wagers={2: 2500, 4: 1000})
    to_bank_offer(lower)
    decided = lower.feed(command("bank", seat=2, chips_confirmed=True, dealer_wager=500))
    assert lower.announced("bank", decided)[0]["dealer_wager"] == 500
    more = after_first_round(wagers={2: 2500, 4: 1000})
    to_bank_offer(more)
    decided = more.feed(command("bank", seat=2, chips_confirmed=True, dealer_wager=9000))
    assert "535.11(h)" in more.of("alert", decided)[0]["text"]


def test_535_11_i_any_style_for_the_bank_the_listed_ones_for_the_dealer() -> None:
    driver = after_first_round()
    to_bank_offer(driver)
    decided = driver.feed(command("style", name="jung-quat"))  # before the bank: the dealer's styles
    assert driver.alerts(decided) == ["refused-input"]
    driver.feed(command("bank", seat=2, chips_confirmed=True), command("style", name="jung-quat"))
    assert driver.table.round.style == "jung-quat"
    assert driver.prompt()["by"] == "bank"  # § 535.11(i): the bank shakes


def test_535_11_i_lid_removed_by_bank_before_the_reveal_is_a_no_roll() -> None:
    driver = after_first_round()
    to_bank_offer(driver)
    decided = driver.feed(
        command("bank", seat=2, chips_confirmed=True), shakes(3), command("lid_removed_by_bank"), reading(3, 5, 1)
    )
    assert driver.announced("no_roll", decided)[-1]["section"] == "535.11(i)"
    assert driver.prompt()["action"] == "reshake" and driver.prompt()["by"] == "bank"
    assert driver.announced("total", decided) == []
    driver.feed(lid(False), roll(2, 2, 2))
    driver.deal_and_close()
    driver.feed(command("round_complete"))
    rolls = driver.results()[-1]["rolls"]
    assert [(r["valid"], r["reason"]) for r in rolls] == [(False, "lid_removed_by_bank"), (True, None)]


def test_535_11_i_lid_removed_by_bank_noticed_after_the_reading_withdraws_the_start() -> None:
    driver = after_first_round()
    to_bank_offer(driver)
    driver.feed(command("bank", seat=2, chips_confirmed=True), roll(3, 5, 1))
    assert driver.table.state == "delivering"
    driver.feed(command("lid_removed_by_bank"))
    assert driver.table.state == "shaking" and driver.table.round.plan is None
    assert driver.prompt()["action"] == "reshake"
    driver.feed(lid(False), roll(1, 1, 1))
    assert driver.table.round.total == 3


def test_535_11_i_without_a_player_bank_the_button_is_refused() -> None:
    driver = Driver()
    driver.open()
    driver.feed(wager(3), command("no_more_bets"), shakes(3))
    decided = driver.feed(command("lid_removed_by_bank"))
    assert driver.alerts(decided) == ["refused-input"]
    assert driver.table.round.shakes == 3


@pytest.mark.parametrize("seat", [0, 7, -1, "3", None, True])
def test_a_bank_seat_outside_1_to_6_is_a_clear_alert(seat: object) -> None:
    driver = after_first_round()
    to_bank_offer(driver)
    decided = driver.feed(command("bank", seat=seat, chips_confirmed=True))
    alert = driver.of("alert", decided)[0]
    assert alert["code"] == "refused-input" and "1 to 6" in alert["text"]
    assert driver.table.state == "bank"
