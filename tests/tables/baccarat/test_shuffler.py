"""A Baccarat table with an automatic shuffler: batches, commands, audit, clocks (§ 541.3(b), (c), § 541.5(h))."""

from __future__ import annotations

import pytest

from drivers.events.lifecycle import DeviceLost
from drivers.events.shoe import ShoeEmpty
from drivers.events.shuffler import ShuffleProgress, ShufflerFault, ShufflerFaultCleared
from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.rules.shuffler import ShufflerConfig
from firmware_host.tables.baccarat.controller import BaccaratTable
from firmware_host.tables.events import ClockTick
from sim.devices.shoe import CUT

from .shuffler_table import (
    APPROVED_WITH_SHUFFLER,
    DECKS,
    FULL,
    SHUFFLER,
    SHUFFLER_UP,
    ShufflerDriver,
    doctored,
    loaded,
    released,
    shoe_cards,
    shuffled,
    status,
)  # fmt: skip
from .table import SHOE_UP, Driver, cards, command


def test_541_3_b_4_each_batch_is_shuffled_one_at_a_time_then_the_first_shoe_is_released() -> None:
    driver = ShufflerDriver()
    driver.feed(SHOE_UP, SHUFFLER_UP, status("A"))
    assert driver.commands() == [], "nothing is asked before the status of every batch came"
    driver.feed(status("B"))
    assert driver.of("device_command") == [
        {"device": SHUFFLER, "command": "start_shuffle", "batch": "A", "expected_cards": FULL}
    ]
    driver.feed(shuffled("A"))
    assert driver.commands()[1:] == [("start_shuffle", "B"), ("release_batch", "A")]
    assert driver.prompt()["action"] == "wait" and driver.prompt()["batch"] == "A"
    driver.feed(released("A"))
    assert driver.prompt() == {
        "action": "load_shoe",
        "batch": "A",
        "decks": DECKS,
        "back_colour": "red",
        "text": "load batch A (red backs) into the shoe, then press shoe loaded",
    }


def test_a_command_is_decided_once_until_the_shuffler_reports_it_done() -> None:
    driver = ShufflerDriver()
    driver.feed(SHOE_UP, SHUFFLER_UP, status("A"), status("B"))
    driver.feed(ClockTick(device="clock"), ShuffleProgress(device=SHUFFLER, batch="B", percent=25))
    assert driver.commands() == [("start_shuffle", "A")]


def test_541_3_b_5_batches_alternate_shoe_by_shoe_and_every_card_is_read() -> None:
    driver = ShufflerDriver()
    driver.open()
    results = []
    for shoe in range(3):
        results.append(driver.play_shoe(shoe_cards(shoe)))
        batch = results[-1]["batch"]
        assert driver.prompt()["action"] == "return_batch" and driver.prompt()["batch"] == batch
        other = "B" if batch == "A" else "A"
        driver.feed(loaded(batch), shuffled(batch), released(other))
    assert [r["batch"] for r in results] == ["A", "B", "A"]
    assert all(r["cards_read"] == FULL and r["composition_ok"] and r["decks"] == DECKS for r in results)
    assert sorted(results[0]) == [
        "alerts",
        "batch",
        "burned",
        "cards_read",
        "composition_ok",
        "decks",
        "rounds",
        "shoe",
    ]


def test_541_3_b_5_the_batch_of_the_previous_shoe_is_refused() -> None:
    driver = ShufflerDriver()
    driver.open()
    driver.play_shoe(shoe_cards(1))
    driver.feed(loaded("A"), shuffled("A"))
    driver.feed(command("shoe_loaded", batch="A"))
    assert driver.table.state == "awaiting_shoe"
    assert "§ 541.3(b)(5)" in driver.of("alert")[-1]["text"]


def test_541_3_b_6_the_next_shoe_waits_until_the_last_batch_is_back_in_the_shuffler() -> None:
    driver = ShufflerDriver()
    driver.open()
    driver.play_shoe(shoe_cards(1))
    assert driver.stage("A") == "discard" and ("release_batch", "B") not in driver.commands()
    driver.feed(command("shoe_loaded", batch="B"))
    assert driver.table.state == "awaiting_shoe"
    assert driver.of("alert")[-1]["code"] == "refused-input" and "§ 541.3(b)(6)" in driver.of("alert")[-1]["text"]
    driver.feed(loaded("A"))
    assert driver.commands()[-2:] == [("start_shuffle", "A"), ("release_batch", "B")]


def test_541_3_b_1_the_audit_names_an_extra_and_a_missing_card_and_the_batch_gets_new_decks() -> None:
    driver = ShufflerDriver()
    driver.open()
    result = driver.play_shoe(doctored(3, extra="9S", missing="KD"))
    assert not result["composition_ok"]
    audit = [a["text"] for a in result["alerts"] if a["code"] == "composition"]
    assert audit == ["shoe 1: batch A: 1 extra card(s): 9S; 1 missing card(s): KD (§ 541.3(b)(1))"]
    assert any(a["code"] == "composition" for a in driver.table.view()["alerts"]), "on the dealer's view"
    assert driver.stage("A") == "absent"
    assert driver.prompt()["action"] == "return_batch" and driver.prompt()["replace"] is True
    out = driver.feed(loaded("A"))
    assert driver.stage("A") == "loaded" and ("start_shuffle", "A") in driver.commands(out)


def test_541_3_b_1_a_shoe_short_of_a_card_names_it_and_counts_what_was_read() -> None:
    driver = ShufflerDriver()
    driver.open()
    result = driver.play_shoe(doctored(4, missing="2C"))
    assert result["cards_read"] == FULL - 1 and not result["composition_ok"]
    assert any("1 missing card(s): 2C" in a["text"] for a in result["alerts"])


@pytest.mark.parametrize(("count", "why"), [(FULL - 1, "1 missing"), (FULL + 1, "1 extra")])
def test_541_3_b_4_a_wrong_count_is_never_dealt_the_batch_comes_out_for_new_decks(count: int, why: str) -> None:
    driver = ShufflerDriver()
    driver.feed(SHOE_UP, SHUFFLER_UP, status("A"), status("B"), shuffled("A"), released("A"))
    driver.feed(command("shoe_loaded", batch="A"))
    out = driver.feed(shuffled("B", count))
    assert any(a["code"] == "card-count" and why in a["text"] for a in driver.of("alert", out))
    assert driver.commands(out) == [("release_batch", "B")]
    driver.feed(released("B", count))
    assert driver.stage("B") == "absent"
    assert driver.of("alert")[-1]["code"] == "new-decks"
    driver.feed(loaded("B"))
    assert driver.commands()[-1] == ("start_shuffle", "B")


def test_541_5_a_a_shuffle_repeating_a_dealt_order_is_replaced_not_dealt() -> None:
    driver = ShufflerDriver()
    driver.feed(
        SHOE_UP, SHUFFLER_UP, status("A"), status("B"), shuffled("A", digest="d1"), shuffled("B"), released("A")
    )
    driver.play_shoe(shoe_cards(5))
    driver.feed(loaded("A"))
    out = driver.feed(shuffled("A", digest="d1"))
    assert "same-order" in driver.alerts(out) and driver.commands(out) == [("release_batch", "A")]


def test_a_jam_stops_the_shuffler_until_cleared_then_the_shuffle_is_asked_again() -> None:
    driver = ShufflerDriver()
    driver.feed(SHOE_UP, SHUFFLER_UP, status("A"), status("B"), shuffled("A")[:1])
    out = driver.feed(ShufflerFault(device=SHUFFLER, code="jam", text="cards jammed at 75%", batch="A"))
    assert driver.alerts(out) == ["shuffler-fault", "shuffle-abandoned"]
    assert driver.commands(out) == [] and driver.stage("A") == "loaded"
    assert driver.table.lamp_colour() == "red"
    assert "jam" in driver.prompt()["text"]
    out = driver.feed(ShufflerFaultCleared(device=SHUFFLER, code="jam"))
    assert driver.commands(out) == [("start_shuffle", "A")] and driver.table.lamp_colour() == "green"


def test_a_refused_command_is_not_repeated_until_the_shuffler_reports_news() -> None:
    driver = ShufflerDriver()
    driver.feed(SHOE_UP, SHUFFLER_UP, status("A"), status("B"))
    out = driver.feed(
        ShufflerFault(device=SHUFFLER, code="not_ready", text="cannot shuffle batch A now", batch="A"),
        ClockTick(device="clock"),
    )
    assert driver.commands(out) == [] and "refused" in driver.prompt()["text"]
    assert driver.commands(driver.feed(status("A"))) == [("start_shuffle", "A")]


def test_unplugged_mid_shuffle_the_table_pauses_and_the_status_after_the_replug_decides() -> None:
    driver = ShufflerDriver()
    driver.feed(SHOE_UP, SHUFFLER_UP, status("A"), status("B"), shuffled("A")[:1])
    driver.feed(DeviceLost(device=SHUFFLER, reason="unplugged"))
    assert driver.table.paused and driver.prompt()["reason"] == "paused"
    assert driver.commands(driver.feed(SHUFFLER_UP, status("A", "shuffled", FULL, "d"))) == []
    out = driver.feed(status("B"))
    assert driver.stage("A") == "ready" and driver.commands(out) == [("start_shuffle", "B"), ("release_batch", "A")]


def test_541_5_a_an_unshuffled_shoe_is_a_warning_only() -> None:
    driver = ShufflerDriver()
    driver.open()
    in_order = [card for card in shoe_cards(0) if card != CUT]
    in_order.sort(key=lambda c: ("SHDC".index(c[1]), "A23456789TJQK".index(c[0])))
    in_order.insert(len(in_order) - 16, CUT)
    result = driver.play_shoe(in_order)
    warnings = [a for a in driver.of("alert") if a["code"].startswith("shuffle-")]
    assert warnings and all(a["severity"] == "warning" for a in warnings)
    assert result["composition_ok"] and driver.prompt()["action"] == "return_batch"


def test_541_3_c_the_deck_clock_warns_then_ends_the_shoe_and_the_batch_gets_new_decks() -> None:
    config = ShufflerConfig(decks_per_batch=DECKS, deck_life_s=200, deck_warning_s=100)
    driver = ShufflerDriver(config)
    driver.open()
    driver.feed(command("shoe_loaded", batch="A"), cards("AH 2C", burn=True))
    for _ in range(60):
        driver.feed(command("no_more_bets"), cards("3S 3H 3D 4C"), gap=2.0)
        if driver.table.state != "betting":
            break
    codes = driver.alerts()
    assert codes.index("deck-clock") < codes.index("deck-clock-expired")
    assert driver.table.state == "reading_out"
    driver.feed(cards("5S 6S"), ShoeEmpty(device="shoe"))
    assert driver.prompt()["action"] == "return_batch" and driver.prompt()["replace"] is True
    assert "§ 541.3(c)" in driver.prompt()["text"]


def test_541_5_h_2_a_table_without_activity_ends_its_shoe_into_the_shuffler() -> None:
    config = ShufflerConfig(decks_per_batch=DECKS, idle_after_s=300)
    driver = ShufflerDriver(config)
    driver.open()
    driver.feed(command("shoe_loaded", batch="A"), cards("AH 2C", burn=True))
    assert driver.feed(ClockTick(device="clock"), gap=100) == []
    out = driver.feed(ClockTick(device="clock"), gap=300)
    assert "idle-table" in driver.alerts(out) and driver.table.state == "reading_out"


def test_an_alert_between_shoes_goes_into_the_next_shoe_result() -> None:
    driver = ShufflerDriver()
    driver.feed(SHOE_UP, SHUFFLER_UP, status("A"), status("B"), shuffled("A")[:1])
    driver.feed(
        ShufflerFault(device=SHUFFLER, code="jam", text="jammed", batch="A"),
        ShufflerFaultCleared(device=SHUFFLER, code="jam"),
        shuffled("A"),
        shuffled("B"),
        released("A"),
    )
    result = driver.play_shoe(shoe_cards(7))
    assert {"shuffler-jam", "shuffle-abandoned"} <= {a["code"] for a in result["alerts"]}


def test_replaying_the_events_reproduces_every_decision() -> None:
    driver = ShufflerDriver()
    driver.open()
    driver.play_shoe(doctored(8, extra="QH"))
    driver.feed(loaded("A"), shuffled("A", FULL - 1), released("A"))
    replayed = ShufflerDriver()
    decisions = [d for at, event in driver.steps for d in replayed.table.handle(event, at)]
    assert decisions == driver.decisions


def test_without_a_shuffler_its_events_mean_nothing_and_the_shoe_result_has_no_batch() -> None:
    driver = Driver()
    driver.start()
    out = driver.feed(status("A"))
    assert driver.alerts(out) == ["unknown-event"]
    assert "batches" not in driver.table.view()


def test_a_shuffler_must_hold_shoes_of_the_table_s_decks_and_be_one_of_its_devices() -> None:
    with pytest.raises(RulesError, match="541.3"):
        BaccaratTable("T1", APPROVED_WITH_SHUFFLER, RulesSubmission(), 8, shuffler=ShufflerConfig(decks_per_batch=6))
    with pytest.raises(RulesError, match="not a device"):
        BaccaratTable(
            "T1",
            APPROVED_WITH_SHUFFLER,
            RulesSubmission(),
            6,
            shuffler=ShufflerConfig(decks_per_batch=6),
            shuffler_device="usb-shuffler",
        )


def test_a_card_read_out_after_the_last_hand_is_dealt_to_no_one() -> None:
    driver = ShufflerDriver()
    driver.open()
    deck = shoe_cards(9)
    driver.play_shoe(deck)
    rounds = driver.results()
    dealt = sum(len(r["cards"]) for r in rounds)
    shoe = driver.of("shoe_result")[-1]
    assert dealt + shoe["burned"] < shoe["cards_read"] == FULL
    assert driver.announced("outcome")[-1]["winner"] == rounds[-1]["winner"], "no round after the last hand"


def test_new_decks_put_in_while_the_shuffler_was_unplugged_are_seen_in_its_status() -> None:
    driver = ShufflerDriver()
    driver.open()
    driver.play_shoe(doctored(10, extra="5H", missing="6H"))
    assert driver.prompt()["action"] == "return_batch" and driver.prompt()["replace"]
    driver.feed(DeviceLost(device=SHUFFLER, reason="unplugged"))  # the BatchLoaded is lost with the cable
    out = driver.feed(SHUFFLER_UP, status("A"), status("B", "shuffled", FULL, "d"))
    assert driver.stage("A") == "loaded" and driver.commands(out) == [("start_shuffle", "A"), ("release_batch", "B")]
    assert driver.prompt()["action"] == "wait" and driver.prompt()["batch"] == "B"
