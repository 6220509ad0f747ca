"""Tiles entered at the table: the dealer's house way, compare, settle, journal (§ 535.10,
§ 535.11(e), (h), (n)-(r), § 535.12(d)-(f)). Money is conserved to the cent in every round."""

from __future__ import annotations

from typing import Any

import pytest

from firmware_host.rules.paigow_tiles import PaiGowTileRules
from firmware_host.tables.paigow import PaiGowTableRules

from .table import BANK_RULES, Driver, command, roll, wager

#: The dealer's tiles, set by the house way as 6-6,4-5 (a Wong) / 1-3,2-2 (value 8) (§ 535.10(d)(2)).
DEALER = ["6-6", "4-5", "1-3", "2-2"]


def to_hands(driver: Driver, wagers: dict[int, int], bank: dict[str, Any] | None = None) -> None:
    """Bet, roll 3+5+1, deliver, cover and shake: the players set their hands."""
    driver.feed([wager(seat, amount) for seat, amount in wagers.items()], command("no_more_bets"))
    if driver.table.state == "bank":
        driver.feed(command("bank", **bank) if bank else command("no_bank"))
    driver.feed(roll(3, 5, 1))
    driver.deal_and_close()
    assert driver.table.state == "hands"


def conserved(settlement: dict[str, Any]) -> None:
    """What leaves one party arrives at another, to the cent (§ 535.10, § 535.11)."""
    assert sum(settlement["nets"].values()) == 0
    balance: dict[str, int] = {}
    for movement in settlement["ledger"]:
        assert movement["amount"] > 0
        balance[movement["source"]] = balance.get(movement["source"], 0) - movement["amount"]
        balance[movement["destination"]] = balance.get(movement["destination"], 0) + movement["amount"]
    assert {party: net for party, net in balance.items() if net} == {p: n for p, n in settlement["nets"].items() if n}
    assert balance.get("pot", 0) == 0  # the centre of the table is empty at the end (§ 535.11(o), (r))


def settled(decided: list[Any], driver: Driver) -> dict[str, Any]:
    result = driver.of("round_result", decided)[0]
    assert result["status"] == "completed"
    conserved(result["settlement"])
    return result["settlement"]


def test_535_10_dealer_house_way_win_lose_tie_surrender_with_the_vigorish() -> None:
    driver = Driver()
    driver.open()
    to_hands(driver, {1: 1000, 3: 2000, 4: 400, 5: 500, 6: 700})
    decided = driver.feed(
        command(
            "tiles",
            dealer=DEALER,
            hands={
                "1": "4-4,4-4/2-3,1-3",  # pair of eights beats the Wong; 9 beats 8: wins (§ 535.10(j))
                "3": "5-5,1-5/2-2,3-4",  # loses both (§ 535.10(g))
                "4": "3-3,5-6,2-6,1-6",  # four tiles: set the house way at the player's request (§ 535.10(b))
                "5": "1-1,1-1/1-4,1-2",  # wins the high hand only: a tie (§ 535.10(h)(1))
                "6": "surrender",  # § 535.10(e)
            },
        )
    )
    settlement = settled(decided, driver)
    assert settlement["dealer"] == {"setting": "6-6,4-5/1-3,2-2", "set_by": "house_way", "reset": None}
    assert settlement["hands"] == {
        "1": "4-4,4-4/1-3,2-3",
        "3": "5-5,1-5/2-2,3-4",
        "4": "3-3,5-6/1-6,2-6",
        "5": "1-1,1-1/1-4,1-2",
        "6": "surrender",
    }
    outcomes = {r["position"]: r["outcome"] for r in settlement["results"]}
    assert outcomes == {1: "win", 3: "lose", 4: "lose", 5: "tie", 6: "surrender"}
    assert settlement["nets"] == {
        "position 1": 950,
        "vigorish": 50,
        "position 3": -2000,
        "position 4": -400,
        "position 6": -700,
        "house": 3100 - 1000,
    }
    assert driver.announced("house_way", decided)[0]["setting"] == "6-6,4-5/1-3,2-2"


def test_535_10_k_the_quarter_rounding_of_the_rules_submission() -> None:
    driver = Driver(PaiGowTableRules(tiles=PaiGowTileRules(commission_rounding="quarter")))
    driver.open()
    to_hands(driver, {1: 1010})
    decided = driver.feed(command("tiles", dealer=DEALER, hands={"1": "4-4,4-4/2-3,1-3"}))
    assert settled(decided, driver)["nets"]["vigorish"] == 75  # 5% of 10.10 = 0.505, up to 0.75


def bank_round(co_bank: bool = False, **bank: Any) -> Driver:
    """Round 1 every seat wagers 2000 against the dealer; round 2 seat 2 banks."""
    driver = Driver(BANK_RULES)
    driver.open()
    driver.play_round(wagers={seat: 2000 for seat in range(1, 7)})
    to_hands(driver, {1: 1000, 4: 3000}, bank={"seat": 2, "chips_confirmed": True, "co_bank": co_bank, **bank})
    return driver


def test_535_11_n_o_p_q_the_dealers_wager_then_each_player_against_the_bank() -> None:
    driver = bank_round()
    decided = driver.feed(
        command(
            "tiles",
            dealer=["1-1", "4-4", "2-2", "3-3"],
            hands={
                "2": "5-5,5-5,3-5,1-6",  # the bank's tiles, set the house way at its request
                "1": "6-6,6-6/4-5,3-6",  # pair of twelves; mixed nines: beats the bank
                "4": "1-1,2-4/1-5,2-5",  # loses to the bank
            },
        )
    )
    settlement = settled(decided, driver)
    assert settlement["bank"]["setting"] == "5-5,5-5/1-6,3-5"
    assert settlement["bank_position"] == 2 and settlement["co_banking"] is False
    assert settlement["dealer_wager"]["amount"] == 2000  # the bank's last wager against the dealer (§ 535.11(h))
    outcomes = {r["position"]: r["outcome"] for r in settlement["results"]}
    assert outcomes == {1: "win", 4: "lose"}
    nets = settlement["nets"]
    assert nets["position 1"] == 950 and nets["position 4"] == -3000
    assert driver.results()[-1]["bank_seat"] == 2


def test_535_11_e_r_co_bank_hands_set_by_the_house_way_and_the_house_half() -> None:
    driver = bank_round(co_bank=True)
    decided = driver.feed(
        command(
            "tiles",
            hands={
                "2": "5-5,3-5/5-5,1-6",  # not the house way: the dealer resets it (§ 535.11(e), § 535.12(f))
                "1": "6-6,6-6/4-5,3-6",
                "4": "1-1,2-4/1-5,2-5",
            },
        )
    )
    settlement = settled(decided, driver)
    assert settlement["bank"]["setting"] == "5-5,5-5/1-6,3-5"
    assert settlement["bank"]["reset"]["section"] == "535.12(f)"
    assert "house-way-reset" in driver.alerts(decided)
    assert settlement["co_banking"] is True and settlement["dealer_wager"] is None
    # 3000 lost to the pot, 1000 paid out: the house takes half the 2000 surplus (§ 535.11(r)).
    assert settlement["surplus"] == 2000
    assert settlement["nets"]["house"] == 1000


def test_535_11_l_the_dealers_tiles_are_refused_when_the_dealer_does_not_wager() -> None:
    driver = bank_round(dealer_wager=0)
    decided = driver.feed(
        command("tiles", dealer=DEALER, hands={"2": "5-5,5-5,3-5,1-6", "1": "6-6,6-6/4-5,3-6", "4": "1-1,2-4/1-5,2-5"})
    )
    assert driver.alerts(decided) == ["refused-input"]
    assert driver.table.state == "hands"


def test_535_12_d_a_player_voids_his_exposed_hand_and_the_wager_is_returned() -> None:
    driver = Driver()
    driver.open()
    to_hands(driver, {1: 1000, 3: 2000})
    decided = driver.feed(command("tile_exposed", holder="player", seat=3, void=True))
    assert "535.12(d)" in driver.of("alert", decided)[0]["text"]
    decided = driver.feed(command("tiles", dealer=DEALER, hands={"1": "4-4,4-4/2-3,1-3"}))
    settlement = settled(decided, driver)
    assert settlement["hands"]["3"] == "void"
    assert {r["position"]: r["outcome"] for r in settlement["results"]} == {1: "win", 3: "void"}
    assert "position 3" not in settlement["nets"]


def test_535_12_d_the_player_plays_the_exposed_hand_out() -> None:
    driver = Driver()
    driver.open()
    to_hands(driver, {3: 2000})
    driver.feed(command("tile_exposed", holder="player", seat=3, void=False))
    decided = driver.feed(command("tiles", dealer=DEALER, hands={"3": "5-5,1-5/2-2,3-4"}))
    assert settled(decided, driver)["nets"]["position 3"] == -2000


@pytest.mark.parametrize(
    ("holder", "seat"), [("dealer", None), ("dead_hand", None), ("unwagered", None), ("player", 6)]
)
def test_535_12_e_an_exposed_tile_of_the_dealer_dead_hand_or_unwagered_position_voids_all(
    holder: str, seat: int | None
) -> None:
    driver = Driver()
    driver.open()
    to_hands(driver, {1: 1000, 3: 2000})
    args = {"holder": holder} if seat is None else {"holder": holder, "seat": seat}
    decided = driver.feed(command("tile_exposed", **args))
    result = driver.of("round_result", decided)[0]
    assert result["status"] == "void" and result["settlement"] is None
    assert "535.12(e)" in driver.of("alert", decided)[0]["text"]
    assert driver.table.state == "betting"


def test_535_12_f_the_dealers_hands_not_set_the_house_way_are_reset() -> None:
    driver = Driver()
    driver.open()
    to_hands(driver, {3: 2000})
    decided = driver.feed(command("tiles", dealer="6-6,1-3/4-5,2-2", hands={"3": "5-5,1-5/2-2,3-4"}))
    settlement = settled(decided, driver)
    assert settlement["dealer"]["setting"] == "6-6,4-5/1-3,2-2"
    assert settlement["dealer"]["reset"]["section"] == "535.12(f)"
    assert "house-way-reset" in driver.alerts(decided)


@pytest.mark.parametrize(
    ("args", "why"),
    [
        ({"dealer": DEALER, "hands": {}}, "no hands entered"),
        ({"hands": {"3": "5-5,1-5/2-2,3-4"}}, "dealer's four tiles"),
        ({"dealer": DEALER, "hands": {"3": "5-5,1-5/2-2,3-4", "4": "1-1,1-1/1-4,1-2"}}, "no wager"),
        ({"dealer": DEALER, "hands": {"3": "6-6,6-6/2-2,2-2"}}, "appears"),
        ({"dealer": DEALER, "hands": {"3": "7-7,1-5/2-2,3-4"}}, "7-7"),
        ({"dealer": ["6-6", "4-5"], "hands": {"3": "5-5,1-5/2-2,3-4"}}, "expected 4 tiles"),
        ({"dealer": DEALER, "hands": {"9": "5-5,1-5/2-2,3-4"}}, "1 to 6"),
        ({"dealer": DEALER, "hands": ["5-5"]}, "hands must be a JSON object"),
        ({"dealer": DEALER, "hands": {"3": 42}}, "HIGH/LOW"),
        ({"dealer": DEALER, "hands": {"3": "5-5,1-5/2-2,3-4"}, "bank": 1}, "unknown argument"),
    ],
)
def test_bad_tiles_are_a_clear_alert_and_the_round_waits(args: dict[str, Any], why: str) -> None:
    driver = Driver()
    driver.open()
    to_hands(driver, {3: 2000})
    decided = driver.feed(command("tiles", **args))
    alert = driver.of("alert", decided)[0]
    assert alert["code"] == "refused-input" and why in alert["text"], alert
    assert driver.table.state == "hands" and driver.results() == []


def test_tiles_before_the_deal_are_a_wrong_state_alert() -> None:
    driver = Driver()
    driver.open()
    driver.feed(wager(3), command("no_more_bets"))
    decided = driver.feed(command("tiles", dealer=DEALER, hands={"3": "5-5,1-5/2-2,3-4"}))
    assert driver.alerts(decided) == ["wrong-state"]
