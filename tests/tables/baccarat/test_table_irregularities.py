"""Irregularities (§ 541.14), unreadable and impossible cards, voids, wrong buttons, pauses."""

from __future__ import annotations

from drivers.events.lifecycle import DeviceFault, DeviceLost
from drivers.events.shoe import CardFaceUp, CardUnreadable, CutCard, ShoeEmpty

from .table import SHOE_UP, Driver, cards, command, wager

#: Player 6 stays, banker 7 stays: complete on four cards (§ 541.11(b)(2), (c)(1)).
BOTH_STAY = "3S 3H 3D 4C"


def _texts(driver: Driver) -> str:
    return repr([d.data for d in driver.decisions])


def test_541_14_a_card_drawn_in_error_is_the_first_card_of_the_next_hand_and_not_disclosed() -> None:
    driver = Driver()
    driver.start()
    driver.feed(command("no_more_bets"), cards(BOTH_STAY))
    driver.feed(cards("8H"))  # nothing is due
    assert "8H" not in _texts(driver)
    assert driver.prompt()["held"] == 1
    driver.feed(command("no_more_bets"))
    assert (driver.prompt()["to"], driver.prompt()["card"]) == ("banker", 1)
    driver.feed(cards("2D 9C 5S"))
    second = driver.results()[-1]
    assert second["player"] == ["8H", "9C"] and second["cards"][0] == "8H"
    assert [(i["section"], i["code"]) for i in second["irregularities"]] == [("541.14(a)", "card-drawn-in-error")]


def test_541_14_a_card_drawn_before_the_first_round_of_a_shoe_is_held_too() -> None:
    driver = Driver()
    driver.start()
    driver.feed(cards("8H"), command("no_more_bets"), cards("2D 9C 5S"))
    assert driver.results()[-1]["player"] == ["8H", "9C"]


def test_541_14_b_player_third_in_error_becomes_the_banker_third_when_the_banker_must_draw() -> None:
    driver = Driver()
    driver.start()
    driver.feed(command("no_more_bets"), cards("3S 2H 3D 2C"))  # player 6 stays, banker 4 draws (c)(1)
    assert (driver.prompt()["to"], driver.prompt()["card"]) == ("banker", 3)
    driver.feed(cards("9H"))  # wherever the dealer laid it, the card is the banker's third
    assert driver.results()[-1]["banker"] == ["2H", "2C", "9H"]


def test_541_14_b_player_third_in_error_is_the_next_hand_first_card_when_the_banker_stays() -> None:
    driver = Driver()
    driver.start()
    driver.feed(command("no_more_bets"), cards(BOTH_STAY), cards("5D"))
    assert driver.results()[-1]["player"] == ["3S", "3D"]
    driver.feed(command("no_more_bets"), cards("KH 4D 4S"))
    assert driver.results()[-1]["player"] == ["5D", "4D"]


def test_541_14_c_disclosed_card_and_one_more_face_down_go_to_the_discard_rack_unseen() -> None:
    driver = Driver()
    driver.start()
    driver.feed(command("no_more_bets"), cards(BOTH_STAY), cards("8H"))
    driver.feed(command("card_disclosed"))
    assert driver.prompt() == {"action": "discard", "count": 1, "face": "down",
                               "text": "draw 1 card(s) face down to the discard rack, unseen (§ 541.14(c))"}  # fmt: skip
    assert driver.table.view()["lamp"] == "amber"
    refused = driver.feed(command("no_more_bets"))
    assert driver.alerts(refused) == ["irregularity-open"]
    driver.feed(cards("QS"))
    assert "QS" not in _texts(driver)
    assert driver.prompt()["action"] == "place_bets" and driver.prompt()["held"] == 0
    assert driver.table.view()["lamp"] == "green"
    driver.feed(command("no_more_bets"), cards("9S 2H KD 5C"))
    assert driver.results()[-1]["cards"] == ["9S", "2H", "KD", "5C"]
    assert driver.of("shoe_result") == [] and driver.table.shoe is not None
    assert driver.table.shoe.cards_read == 2 + 4 + 2 + 4


def test_541_14_c_card_disclosed_with_no_card_drawn_in_error_is_a_wrong_state_alert() -> None:
    driver = Driver()
    driver.start()
    assert driver.alerts(driver.feed(command("card_disclosed"))) == ["wrong-state"]


def test_541_14_d_face_up_card_not_used_and_as_many_cards_as_its_value_discarded_face_up() -> None:
    driver = Driver()
    driver.start()
    driver.feed(command("no_more_bets"), cards("9S"), CardFaceUp(device="shoe", rank="7", suit="H"))
    assert driver.prompt()["action"] == "discard" and driver.prompt()["count"] == 7
    driver.feed(cards("AC 2C 3C 4C 5C 6C 7C"))
    assert (driver.prompt()["to"], driver.prompt()["card"]) == ("banker", 1)
    driver.feed(cards("2H KD 5C"))
    result = driver.results()[-1]
    assert result["cards"] == ["9S", "2H", "KD", "5C"]
    assert [i["section"] for i in result["irregularities"]] == ["541.14(d)"]


def test_541_14_d_face_up_ten_counts_zero_by_default_and_ten_with_the_face_value_option() -> None:
    default = Driver()
    default.start()
    default.feed(CardFaceUp(device="shoe", rank="K", suit="H"))
    assert default.prompt()["action"] == "place_bets"
    counted = Driver(face_up_discards="face_value")
    counted.start()
    counted.feed(CardFaceUp(device="shoe", rank="K", suit="H"))
    assert counted.prompt()["count"] == 10


def test_541_14_d_face_up_card_the_shoe_could_not_read_is_keyed_in() -> None:
    driver = Driver()
    driver.start()
    driver.feed(CardFaceUp(device="shoe"), cards("4C"))  # 4C waits behind the unread card
    assert driver.prompt()["action"] == "enter_card"
    driver.feed(command("card_entered", card="2S"))
    assert driver.prompt() == {**driver.prompt(), "action": "discard", "count": 1, "face": "up"}
    driver.feed(cards("5C"))
    assert driver.prompt()["action"] == "place_bets" and driver.prompt()["held"] == 0


def test_541_14_e_shoe_empty_mid_round_voids_it_returns_every_wager_and_ends_the_shoe() -> None:
    driver = Driver()
    driver.start()
    driver.feed(wager(3, "banker", 1000), wager(5, "tie", 100), command("no_more_bets"), cards("9S 2H"))
    driver.feed(ShoeEmpty(device="shoe"))
    result = driver.results()[-1]
    assert (result["status"], result["cards"], result["winner"]) == ("void", ["9S", "2H"], None)
    assert [(line["seat"], line["outcome"], line["payout"], line["section"]) for line in result["settlement"]] == [
        (5, "push", 0, "541.14(e)"), (3, "push", 0, "541.14(e)")]  # fmt: skip
    assert driver.of("shoe_result")[-1]["rounds"] == 1
    assert driver.table.state == "awaiting_shoe" and driver.prompt()["action"] == "load_shoe"
    driver.feed(command("shoe_loaded"), cards("AD 3D", burn=True), command("no_more_bets"), cards("9C 2C KH 5S"))
    assert [r["round"] for r in driver.results()] == [1, 2]


def test_void_round_by_the_dealer_returns_wagers_and_the_next_round_is_numbered_after_it() -> None:
    driver = Driver()
    driver.start()
    driver.feed(wager(1, "player", 500), command("no_more_bets"), cards("9S"))
    driver.feed(command("void_round", reason="misdeal seen by the supervisor"))
    void = driver.results()[-1]
    assert (void["round"], void["status"], void["settlement"][0]["outcome"]) == (1, "void", "push")
    assert void["irregularities"][-1]["text"] == "misdeal seen by the supervisor"
    assert driver.table.state == "betting"
    driver.feed(command("no_more_bets"), cards("9C 2C KH 5S"))
    assert driver.results()[-1]["round"] == 2


def test_void_round_pressed_with_no_round_open_is_a_wrong_state_alert() -> None:
    driver = Driver()
    driver.feed(SHOE_UP)
    assert driver.alerts(driver.feed(command("void_round"))) == ["wrong-state"]


def test_void_round_does_not_count_as_the_last_hand() -> None:
    driver = Driver()
    driver.start()
    driver.feed(CutCard(device="shoe"), command("no_more_bets"), cards("9S 2H KD 5C"))  # then the last hand
    driver.feed(command("no_more_bets"), cards("9S"), command("void_round"))
    assert driver.table.state == "betting" and driver.prompt()["last_hand"] is True


def test_unreadable_card_is_keyed_in_and_later_cards_wait_in_shoe_order() -> None:
    driver = Driver()
    driver.start()
    driver.feed(command("no_more_bets"), cards("9S"), CardUnreadable(device="shoe"), cards("KD 5C"))
    assert driver.prompt()["action"] == "enter_card"
    assert driver.table.view()["lamp"] == "amber"
    assert driver.alerts(driver.feed(command("card_entered", card="XX"))) == ["refused-input"]
    driver.feed(command("card_entered", card="2H"))
    assert driver.results()[-1]["cards"] == ["9S", "2H", "KD", "5C"]
    assert driver.table.view()["lamp"] == "green"


def test_541_14_a_the_prompt_names_which_unread_card_to_key_in_when_two_are_out() -> None:
    # The banker's second card comes out unread, then a card drawn in error, unread too: the
    # dealer holds two unread cards and must key in the one the table asks for, by its number.
    driver = Driver()
    driver.start(burn="3D")
    before = driver.table.shoe.cards_read if driver.table.shoe else 0
    driver.feed(
        command("no_more_bets"), cards("9S 2H KD"), CardUnreadable(device="shoe"), CardUnreadable(device="shoe")
    )
    assert driver.prompt()["card"] == before + 4
    assert driver.prompt()["text"].startswith(f"key in card {before + 4} of the shoe")
    driver.feed(command("card_entered", card="TC"))  # player 9 against banker 2: a natural, the round is over
    assert driver.table.state == "betting"
    assert driver.prompt()["card"] == before + 5  # the card drawn in error, behind it in shoe order
    driver.feed(command("card_entered", card="5H"))
    assert driver.prompt()["action"] == "place_bets"


def test_unreadable_burn_card_after_the_first_is_counted_without_entry() -> None:
    driver = Driver()
    driver.start(burn="3D")
    driver.feed(CardUnreadable(device="shoe", burn=True), cards("4D 5D", burn=True))
    assert driver.table.state == "betting"
    assert driver.table.shoe is not None and driver.table.shoe.burned == 4


def test_card_entered_with_nothing_unreadable_is_a_wrong_state_alert() -> None:
    driver = Driver()
    driver.start()
    assert driver.alerts(driver.feed(command("card_entered", card="9S"))) == ["wrong-state"]


def test_impossible_card_flags_the_composition_amber_until_acknowledged() -> None:
    driver = Driver(decks=1)
    driver.start(burn="AH 2C")
    flagged = driver.feed(command("no_more_bets"), cards("AH"))  # a second ace of hearts in one deck
    assert driver.alerts(flagged) == ["impossible-card"]
    assert "AH is one more than 1 decks hold" in driver.of("alert", flagged)[0]["text"]
    assert driver.table.view()["lamp"] == "amber"
    driver.feed(command("acknowledge"))
    assert driver.table.view()["lamp"] == "green"
    driver.feed(cards("2H KD 5C"), ShoeEmpty(device="shoe"))
    shoe = driver.of("shoe_result")[-1]
    assert shoe["composition_ok"] is False
    assert [a["code"] for a in shoe["alerts"]] == ["impossible-card", "shoe-empty"]


def test_impossible_card_dealt_face_down_is_named_only_in_the_shoe_result() -> None:
    driver = Driver(decks=1, initial_cards_face_down=True)
    driver.start(burn="AH 2C")
    driver.feed(command("no_more_bets"), cards("AH"))
    assert "AH is one more" not in _texts(driver)
    driver.feed(ShoeEmpty(device="shoe"))
    assert "AH is one more" in driver.of("shoe_result")[-1]["alerts"][0]["text"]


def test_dealer_button_in_the_wrong_state_is_an_alert_never_an_exception() -> None:
    driver = Driver()
    driver.start()
    driver.feed(command("no_more_bets"), cards("9S"))
    decided = driver.feed(
        command("no_more_bets"), command("pairs_settled"), command("shoe_loaded"), command("nonsense")
    )
    assert driver.alerts(decided) == ["wrong-state", "wrong-state", "wrong-state", "unknown-command"]
    assert driver.table.state == "dealing" and driver.prompt()["to"] == "banker"


def test_paused_table_keeps_every_card_read_refuses_advancing_and_resumes_when_the_shoe_is_back() -> None:
    driver = Driver()
    driver.start()
    driver.feed(command("no_more_bets"), cards("9S"))
    driver.feed(DeviceLost(device="shoe", reason="heartbeat lost"))
    assert driver.prompt()["action"] == "wait" and driver.table.view()["lamp"] == "red"
    driver.feed(cards("2H KD"))  # read while paused: kept
    driver.feed(SHOE_UP)
    assert (driver.prompt()["to"], driver.prompt()["card"]) == ("banker", 2)
    assert driver.table.view()["lamp"] == "green"
    driver.feed(cards("5C"))
    assert driver.results()[-1]["cards"] == ["9S", "2H", "KD", "5C"]
    driver.feed(DeviceLost(device="shoe", reason="unplugged"))
    assert driver.alerts(driver.feed(command("no_more_bets"), wager(1, "player", 100))) == [
        "table-paused",
        "wager-refused",
    ]


def test_device_fault_lights_red_until_acknowledged() -> None:
    driver = Driver()
    driver.start()
    driver.feed(DeviceFault(device="shoe", code="E3", text="Card Not Read"))
    assert driver.table.view()["lamp"] == "red"
    assert [a["code"] for a in driver.table.view()["alerts"]] == ["shoe-fault"]
    lamps = driver.of("lamp", driver.feed(command("acknowledge")))
    assert lamps == [{"colour": "green"}]


def test_commands_with_a_bad_seat_are_refused_with_an_alert() -> None:
    driver = Driver()
    driver.start()
    decided = driver.feed(command("seat_left", seat=[1]), command("withdraw_wager", seat=9, kind="player"))
    assert driver.alerts(decided) == ["refused-input", "refused-input"]
