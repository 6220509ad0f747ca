"""The delivery through the controller: the plan as prompts (§ 535.8(d), § 535.9), the stacks of
positions without a wager to the Dead Hand (§ 535.8(e)), the shaker covered and shaken once (§ 535.8(f))."""

from __future__ import annotations

import pytest

from firmware_host.rules.paigow_dice.delivery import STYLES, delivery_plan
from firmware_host.rules.paigow_dice.rules import PaiGowRules
from firmware_host.tables.events import DealerCommand
from firmware_host.tables.paigow import PaiGowTableRules

from .table import BANK_RULES, Driver, command, lid, roll, shakes, wager

EVERY_STYLE = PaiGowTableRules(PaiGowRules(delivery_styles=STYLES))


def rolled(
    faces: tuple[int, int, int] = (3, 5, 1),
    wagers: tuple[int, ...] = (2, 5),
    rules: PaiGowTableRules | None = None,
    style: str | None = None,
) -> Driver:
    driver = Driver(rules)
    driver.open()
    driver.feed([wager(seat) for seat in wagers], command("no_more_bets"))
    if style is not None:
        driver.feed(command("style", name=style))
    driver.feed(roll(*faces))
    return driver


def test_535_8_d_the_deliver_prompt_lists_every_stack_from_the_starting_position() -> None:
    driver = rolled((6, 6, 3))  # 15: position 6 first (§ 535.8(c)(2))
    prompt = driver.prompt()
    assert prompt["action"] == "deliver" and prompt["start"] == "6" and prompt["style"] == "standard"
    assert [hand["position"] for hand in prompt["hands"]] == ["6", "dead", "dealer", "1", "2", "3", "4", "5"]
    assert prompt["hands"][0]["tiles"] == ["1.1", "1.2", "1.3", "1.4"]  # the first stack on the dealer's right
    assert prompt["hands"][-1]["tiles"] == ["8.1", "8.2", "8.3", "8.4"]


@pytest.mark.parametrize("style", STYLES)
def test_535_9_every_style_the_prompt_is_the_plan_of_that_style(style: str) -> None:
    driver = rolled(rules=EVERY_STYLE, style=style)
    expected = delivery_plan("dealer", style).to_json_dict()["plan"]
    hands = driver.prompt()["hands"]
    assert [hand["position"] for hand in hands] == [hand["position"] for hand in expected]
    assert hands == [
        {"position": hand["position"], "tiles": [f"{tile['stack']}.{tile['level']}" for tile in hand["tiles"]]}
        for hand in expected
    ]
    driver.deal_and_close()
    driver.feed(command("round_complete"))
    assert driver.results()[-1]["style"] == style


def test_535_9_a_style_not_in_the_rules_submission_is_refused_for_the_dealer() -> None:
    driver = Driver()
    driver.open()
    driver.feed(wager(3), command("no_more_bets"))
    decided = driver.feed(command("style", name="chee-yee"))
    assert "535.9(a)" in driver.of("alert", decided)[0]["text"]
    assert driver.table.round.style == "standard"


@pytest.mark.parametrize("name", ["dragon", "", None, 7, ["standard"]])
def test_an_unknown_style_is_a_clear_alert(name: object) -> None:
    driver = Driver(EVERY_STYLE)
    driver.open()
    driver.feed(wager(3), command("no_more_bets"))
    decided = driver.feed(command("style", name=name))
    assert driver.alerts(decided) == ["refused-input"]
    assert driver.table.round.style == "standard"


def test_the_style_is_chosen_before_the_shaking() -> None:
    driver = Driver(EVERY_STYLE)
    driver.open()
    decided = driver.feed(command("style", name="chee-yee"))  # during the betting
    assert driver.alerts(decided) == ["refused-input"]
    driver.feed(wager(3), command("no_more_bets"), shakes(1))
    decided = driver.feed(command("style", name="chee-yee"))
    assert driver.alerts(decided) == ["refused-input"]


def test_535_8_e_stacks_of_positions_without_a_wager_go_to_the_dead_hand() -> None:
    driver = rolled(wagers=(2, 5))
    driver.feed(command("delivered"))
    prompt = driver.prompt()
    assert prompt["action"] == "collect_and_cover"
    assert prompt["to_dead_hand"] == ["1", "3", "4", "6"]
    assert "535.8(e)" in prompt["text"]


def test_535_11_l_with_a_player_bank_and_no_dealer_wager_the_dealers_stack_goes_too() -> None:
    driver = Driver(BANK_RULES)
    driver.open()
    driver.play_round(wagers={2: 1000, 4: 1000})
    driver.feed(wager(4), command("no_more_bets"), command("bank", seat=2, chips_confirmed=True, dealer_wager=0))
    driver.feed(roll(3, 5, 1), command("delivered"))
    assert driver.prompt()["to_dead_hand"] == ["dealer", "1", "3", "5", "6"]


def test_535_8_f_shaker_covered_then_shaken_once_completes_the_deal() -> None:
    driver = rolled()
    driver.feed(command("delivered"))
    decided = driver.feed(shakes(1))  # the lid is still off
    assert driver.alerts(decided) == ["procedure"]
    assert driver.table.state == "closing"
    decided = driver.feed(lid(False), shakes(1))
    assert driver.announced("shaker_closed", decided)
    assert driver.table.state == "hands"
    assert driver.prompt() == {
        "action": "set_hands",
        "positions": ["2", "5"],
        "dealer": True,
        "bank": None,
        "text": driver.prompt()["text"],
    }


def test_535_8_f_a_shaker_covered_before_delivered_needs_only_the_shake() -> None:
    driver = rolled()
    driver.feed(lid(False), command("delivered"), shakes(1))
    assert driver.table.state == "hands"


def test_delivered_before_the_roll_is_a_wrong_state_alert() -> None:
    driver = Driver()
    driver.open()
    driver.feed(wager(3), command("no_more_bets"))
    decided = driver.feed(command("delivered"))
    assert driver.alerts(decided) == ["wrong-state"]
    assert driver.table.state == "shaking"


def test_the_round_result_has_exactly_the_export_fields_cut_plan_and_settlement() -> None:
    driver = rolled(rules=EVERY_STYLE, style="pin-say-from-the-left")
    driver.deal_and_close()
    driver.feed(command("round_complete"))
    result = driver.results()[-1]
    assert list(result) == [
        "round",
        "game",
        "status",
        "dice",
        "total",
        "bank_seat",
        "start",
        "style",
        "rolls",
        "cut",
        "plan",
        "settlement",
    ]
    assert result["round"] == 1 and result["game"] == "paigow" and result["status"] == "completed"
    assert result["rolls"] == [
        {"dice": [3, 5, 1], "flat": [True, True, True], "dice_in_shaker": 3, "valid": True, "reason": None}
    ]
    assert (result["bank_seat"], result["cut"], result["settlement"]) == (None, None, None)
    assert len(result["plan"]) == 8


def test_void_round_returns_wagers_and_numbers_go_on() -> None:
    driver = rolled()
    decided = driver.feed(command("void_round", reason="dice miscounted (§ 535.12(c))"))
    result = driver.of("round_result", decided)[0]
    assert result["status"] == "void" and result["total"] == 9
    assert "round-void" in driver.alerts(decided)
    driver.feed(wager(1), command("no_more_bets"), roll(1, 1, 1))
    driver.deal_and_close()
    driver.feed(command("round_complete"))
    assert [r["round"] for r in driver.results()] == [1, 2]


def test_wagers_after_no_more_bets_are_refused() -> None:
    driver = rolled()
    decided = driver.feed(wager(4))
    assert "535.7(c)" in driver.of("alert", decided)[0]["text"]


@pytest.mark.parametrize(
    ("seat", "kind", "amount"),
    [(0, "paigow", 100), (7, "paigow", 100), (3, "banker", 100), (3, "paigow", 0), (3, "paigow", -5)],
)
def test_bad_wagers_are_clear_alerts(seat: int, kind: str, amount: int) -> None:
    driver = Driver()
    driver.open()
    decided = driver.feed(wager(seat, amount, kind))
    assert driver.alerts(decided) == ["refused-input"]
    assert driver.table.round.wagers == {}


def test_unknown_commands_and_bad_arguments_are_clear_alerts() -> None:
    driver = Driver()
    driver.open()
    for event in (command("shuffle"), command("withdraw_wager", seat=4), command("tile_exposed", holder="dealer")):
        assert driver.alerts(driver.feed(event)) in (["refused-input"], ["wrong-state"])
    decided = driver.feed(DealerCommand(device="console", command="style", args=["x"]))  # type: ignore[arg-type]
    assert driver.alerts(decided) == ["refused-input"]


def test_the_dealers_view_shows_the_round_the_roll_and_the_plan() -> None:
    driver = rolled((6, 6, 3), wagers=(2,))
    view = driver.table.view()
    assert (view["state"], view["round"], view["total"], view["start"]) == ("delivering", 1, 15, "6")
    assert view["prompt"] == driver.prompt() and view["plan"] == driver.prompt()["hands"]
    assert view["wagers"] == [{"seat": 2, "amount": 1000}] and view["bank"] is None
    assert view["dice_clock"]["state"] == "ok" and view["lamp"] == "green"
    assert [roll["valid"] for roll in view["rolls"]] == [True]
