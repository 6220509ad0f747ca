"""The shaking, the reveal and the reading through the controller (§ 535.8(a),(b), § 535.12(a),(b)),
and bad shaker input: each a clear alert or a no roll, never an exception, never a start."""

from __future__ import annotations

import pytest

from drivers.events.dice import LidChanged, ShakeDetected
from drivers.events.lifecycle import DeviceLost

from .table import SHAKER_UP, Driver, command, lid, reading, roll, shakes, wager


def shaking() -> Driver:
    """A table after no more bets, ready for the shakes."""
    driver = Driver()
    driver.open()
    driver.feed(wager(3), command("no_more_bets"))
    assert driver.table.state == "shaking"
    assert driver.prompt()["action"] == "shake"
    return driver


def assert_no_start(driver: Driver) -> None:
    assert driver.table.state in ("shaking", "reading")
    assert driver.announced("total") == []
    assert driver.table.round.plan is None


def test_535_8_a_three_shakes_then_the_reveal_is_prompted_and_the_roll_accepted() -> None:
    driver = shaking()
    driver.feed(shakes(2))
    assert driver.prompt()["action"] == "shake"
    driver.feed(shakes(1))
    assert driver.prompt()["action"] == "reveal"
    driver.feed(lid(True), reading(3, 5, 1))
    assert driver.announced("total")[-1]["total"] == 9
    assert driver.table.state == "delivering"


@pytest.mark.parametrize("shaken", [0, 1, 2])
def test_535_8_a_lid_off_before_the_third_shake_is_a_no_roll_and_reshake(shaken: int) -> None:
    driver = shaking()
    driver.feed(shakes(shaken), lid(True))
    assert driver.prompt()["action"] == "read_dice"  # judged on the reading, which follows every shake report
    driver.feed(reading(6, 6, 6))  # the sensor reads the dice the lid uncovered: not a roll
    no_roll = driver.announced("no_roll")[-1]
    assert (no_roll["reason"], no_roll["section"]) == ("too_few_shakes", "535.8(a)")
    assert driver.prompt()["action"] == "reshake"
    assert_no_start(driver)
    assert driver.table.round.rolls[-1].reason == "too_few_shakes"
    driver.feed(lid(False), roll(2, 2, 2))
    assert driver.announced("total")[-1]["total"] == 6


def test_535_8_a_a_reed_switch_that_overtakes_the_last_shake_report_costs_no_roll() -> None:
    # The lid is read on GPIO: its edge reaches the host before the shaker's third SHAKE frame.
    driver = shaking()
    driver.feed(
        shakes(2), LidChanged(device="lid", open=True), ShakeDetected(device="shaker", count=3), reading(3, 5, 1)
    )
    assert driver.announced("no_roll") == []
    assert driver.announced("total")[-1]["total"] == 9


def test_535_8_a_the_lid_back_on_before_a_reading_after_too_few_shakes_is_that_no_roll() -> None:
    driver = shaking()
    driver.feed(shakes(1), lid(True), lid(False))
    assert driver.announced("no_roll")[-1]["reason"] == "too_few_shakes"
    assert driver.prompt()["action"] == "reshake"


def test_535_8_b_reveal_by_the_dealer_button_then_the_reading() -> None:
    driver = shaking()
    driver.feed(shakes(3), command("reveal"), reading(4, 4, 4))
    assert driver.announced("total")[-1] == {
        "announce": "total",
        "dice": [4, 4, 4],
        "total": 12,
        "start": "3",
        "text": driver.announced("total")[-1]["text"],
    }


def test_535_8_a_a_reveal_while_shaking_is_a_no_roll_never_a_start() -> None:
    driver = shaking()
    driver.feed(shakes(1), command("reveal"), reading(3, 5, 1))
    assert_no_start(driver)
    assert driver.prompt()["action"] == "reshake"


@pytest.mark.parametrize(
    ("event", "reason", "section"),
    [
        (reading(3, 5, 1, flat=[True, False, True]), "die_not_flat", "535.12(a)"),
        (reading(3, 5, in_shaker=2), "die_out_of_shaker", "535.12(b)"),
        (reading(3, in_shaker=1), "die_out_of_shaker", "535.12(b)"),
    ],
)
def test_535_12_a_b_no_roll_then_reshake_then_a_start(event: object, reason: str, section: str) -> None:
    driver = shaking()
    decided = driver.feed(shakes(3), lid(True), event)
    no_roll = driver.announced("no_roll", decided)[-1]
    assert (no_roll["reason"], no_roll["section"]) == (reason, section)
    assert driver.prompt()["action"] == "reshake" and driver.prompt()["reason"] == reason
    assert_no_start(driver)
    driver.feed(lid(False), shakes(1))
    assert driver.prompt()["action"] == "reshake"  # still short of three shakes
    driver.feed(shakes(2), lid(True), reading(6, 5, 4))
    assert driver.announced("total")[-1]["start"] == "6"  # 15 -> position 6 (§ 535.8(c)(2))
    driver.deal_and_close()
    result = driver.feed(command("round_complete"))
    rolls = driver.of("round_result", result)[0]["rolls"]
    assert [(r["valid"], r["reason"]) for r in rolls] == [(False, reason), (True, None)]
    assert driver.results()[-1]["dice"] == [6, 5, 4]


def test_535_12_every_no_roll_prompts_its_reshake_even_the_same_twice() -> None:
    driver = shaking()
    not_flat = reading(1, 1, 1, flat=[False, True, True])
    first = driver.feed(roll(1, 1, 1)[:-1], not_flat)
    second = driver.feed(lid(False), shakes(3), lid(True), not_flat)
    for decided in (first, second):
        assert [p["action"] for p in driver.of("prompt", decided)][-1] == "reshake"


@pytest.mark.parametrize(
    ("event", "why"),
    [
        (reading(7, 2, 3), "face 7"),
        (reading(0, 2, 3), "face 0"),
        (reading(1, 2, 3, 4), "4 dice"),
        (reading(1, 2, 3, in_shaker=4), "4 dice"),
        (reading(1, 2, 3, in_shaker=-1), "not a count"),
        (reading(1, 2, in_shaker=3), "2 dice read but 3"),
    ],
)
def test_bad_reading_is_an_invalid_reading_alert_and_a_reshake_never_a_start(event: object, why: str) -> None:
    driver = shaking()
    decided = driver.feed(shakes(3), lid(True), event)
    alert = next(a for a in driver.of("alert", decided) if a["code"] == "invalid-reading")
    assert why in alert["text"]
    assert driver.prompt()["action"] == "reshake" and driver.prompt()["reason"] == "invalid_reading"
    assert_no_start(driver)
    assert driver.table.round.rolls[-1].valid is False


def test_a_reading_without_shakes_is_a_no_roll_never_a_start() -> None:
    driver = shaking()
    decided = driver.feed(reading(3, 5, 1))
    assert "reading-before-reveal" in driver.alerts(decided)
    assert driver.table.round.rolls[-1].reason == "too_few_shakes"
    assert_no_start(driver)


def test_a_reading_with_the_lid_on_after_three_shakes_is_not_a_roll() -> None:
    driver = shaking()
    driver.feed(shakes(3), reading(3, 5, 1))
    assert driver.table.round.rolls[-1].reason == "not_revealed"
    assert_no_start(driver)


def test_a_reading_between_rounds_is_ignored_with_an_alert() -> None:
    driver = Driver()
    driver.open()
    decided = driver.feed(reading(3, 5, 1))
    assert "reading-ignored" in driver.alerts(decided)
    assert driver.table.state == "betting"


def test_lid_back_on_before_the_reading_means_reshake() -> None:
    driver = shaking()
    driver.feed(shakes(3), lid(True), lid(False))
    assert driver.prompt()["action"] == "reshake"
    assert driver.table.state == "shaking" and driver.table.round.shakes == 0


def test_a_reveal_outside_the_shaking_is_a_wrong_state_alert() -> None:
    driver = Driver()
    driver.open()
    decided = driver.feed(command("reveal"))
    assert driver.alerts(decided) == ["wrong-state"]


def test_shaker_events_from_a_refused_device_are_ignored() -> None:
    driver = shaking()
    driver.feed(shakes(3))
    driver.feed(DeviceLost(device="shaker", reason="unplugged"))
    decided = driver.feed(lid(True), reading(3, 5, 1))
    assert driver.alerts(decided) == ["table-paused", "table-paused"]
    assert driver.announced("total") == []


def test_535_8_b_a_reading_lost_with_the_shaker_is_requested_when_it_is_back() -> None:
    # The lid came off after three shakes; the link went down before the reading reached the host.
    driver = shaking()
    driver.feed(shakes(3), lid(True))
    lost = driver.feed(DeviceLost(device="shaker", reason="unplugged"))
    assert driver.of("device_command", lost) == []  # nobody to ask while it is away
    back = driver.feed(SHAKER_UP)
    assert driver.of("device_command", back) == [{"device": "shaker", "command": "request_reading"}]
    driver.feed(reading(3, 5, 1))
    assert driver.announced("total")[-1]["total"] == 9


@pytest.mark.parametrize("before", ["shaking", "no_roll", "roll_accepted"])
def test_no_reading_is_requested_unless_a_reveal_awaits_one(before: str) -> None:
    driver = shaking()
    if before == "no_roll":
        driver.feed(shakes(1), lid(True), reading(3, 5, 1))  # § 535.8(a): a no roll is reshaken, not read again
    elif before == "roll_accepted":
        driver.feed(roll(3, 5, 1))
    driver.feed(DeviceLost(device="shaker", reason="unplugged"))
    assert driver.of("device_command", driver.feed(SHAKER_UP)) == []
