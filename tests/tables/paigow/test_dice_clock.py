"""The dice clock through the controller (§ 535.5(c)): dice at most 24 hours on the table.

Time reaches the controller only as the events' receive times, so a replay of the journal
rebuilds the clock exactly.
"""

from __future__ import annotations

from firmware_host.rules.paigow_dice.rules import PaiGowRules
from firmware_host.tables.events import ClockTick
from firmware_host.tables.paigow import PaiGowTableRules

from .table import SHAKER_UP, Driver, command, roll, wager

HOUR = 3600.0
TICK = ClockTick(device="clock")


def registered_at_zero(rules: PaiGowTableRules | None = None) -> Driver:
    """A table whose dice set was registered at t = 1 s."""
    driver = Driver(rules)
    driver.feed(SHAKER_UP, gap=0.0)
    driver.feed(command("new_dice"))
    return driver


def test_535_5_c_no_dice_registered_refuses_no_more_bets_with_an_alert_and_a_prompt() -> None:
    driver = Driver()
    driver.feed(SHAKER_UP, wager(3))
    assert driver.prompt() == {"action": "replace_dice", "clock": "unregistered", "text": driver.prompt()["text"]}
    decided = driver.feed(command("no_more_bets"))
    assert driver.alerts(decided) == ["dice-unregistered"]
    assert driver.of("prompt", decided)[-1]["action"] == "replace_dice"
    assert driver.table.state == "betting"
    driver.feed(command("new_dice"), command("no_more_bets"))
    assert driver.table.state == "shaking"
    assert driver.alerts(driver.feed(command("no_more_bets"))) == ["wrong-state"]


def test_535_5_c_warning_ahead_once_on_a_clock_tick() -> None:
    driver = registered_at_zero()
    assert driver.alerts(driver.feed(TICK, gap=23 * HOUR - 10)) == []
    decided = driver.feed(TICK, gap=20)  # inside the 60-minute lead of the default rules
    warning = driver.of("alert", decided)
    assert [a["code"] for a in warning] == ["dice-warn"] and warning[0]["severity"] == "warning"
    assert driver.of("lamp", decided) == [{"colour": "amber"}]
    assert driver.alerts(driver.feed(TICK, gap=60)) == []  # said once
    driver.feed(wager(3), command("no_more_bets"))
    assert driver.table.state == "shaking"  # a round may still start while warned


def test_535_5_c_refuses_a_round_once_24_hours_have_passed_then_new_dice_reopen() -> None:
    driver = registered_at_zero()
    decided = driver.feed(TICK, gap=24 * HOUR)  # exactly the limit: expired (docs/rules-interpretations)
    assert driver.alerts(decided)[-1] == "dice-expired"
    decided = driver.feed(wager(3), command("no_more_bets"))
    assert driver.alerts(decided) == ["dice-expired"]
    assert driver.table.state == "betting"
    assert driver.prompt()["action"] == "replace_dice" and driver.prompt()["clock"] == "expired"
    driver.feed(command("new_dice"))
    assert driver.prompt()["action"] == "place_bets"
    driver.feed(command("no_more_bets"))
    assert driver.table.state == "shaking"


def test_535_5_c_the_casinos_shorter_limit_and_lead() -> None:
    rules = PaiGowTableRules(PaiGowRules(dice_max_hours=8, dice_warning_minutes=15))
    driver = registered_at_zero(rules)
    assert driver.alerts(driver.feed(TICK, gap=8 * HOUR - 16 * 60)) == []
    assert driver.alerts(driver.feed(TICK, gap=2 * 60)) == ["dice-warn"]
    assert driver.alerts(driver.feed(TICK, gap=14 * 60)) == ["dice-expired"]


def test_535_5_c_the_clock_is_checked_on_any_event_not_only_ticks() -> None:
    driver = registered_at_zero()
    decided = driver.feed(wager(2), gap=24 * HOUR + 5)
    assert "dice-expired" in driver.alerts(decided)


def test_535_5_c_a_round_under_way_finishes_when_the_limit_passes() -> None:
    driver = registered_at_zero()
    driver.feed(wager(3), gap=24 * HOUR - 60)
    driver.feed(command("no_more_bets"))
    driver.feed(TICK, gap=120)
    assert driver.table.state == "shaking"
    driver.feed(roll(3, 5, 1))
    driver.deal_and_close()
    driver.feed(command("round_complete"))
    assert driver.results()[-1]["status"] == "completed"
    driver.feed(command("no_more_bets"))
    assert driver.table.state == "betting"


def test_535_5_c_the_clock_state_survives_a_restart_by_replay() -> None:
    driver = registered_at_zero()
    driver.feed(TICK, gap=24 * HOUR)
    fresh = Driver()
    for at, event in driver.steps:
        fresh.table.handle(event, at)
    fresh.clock = driver.clock
    decided = fresh.feed(command("no_more_bets"))
    assert fresh.alerts(decided) == ["dice-expired"]
    assert fresh.table.dice.registered_at == driver.table.dice.registered_at


def test_new_dice_between_rounds_only() -> None:
    driver = registered_at_zero()
    driver.feed(wager(3), command("no_more_bets"))
    decided = driver.feed(command("new_dice"))
    assert driver.alerts(decided) == ["refused-input"]
