"""A normal round and the shoe's life, one test per regulation section (ch. 541)."""

from __future__ import annotations

from drivers.events.shoe import CutCard, ShoeEmpty
from firmware_host.rules.baccarat.cards import parse_cards
from firmware_host.rules.baccarat.deal import resolve
from firmware_host.rules.baccarat.rules import RulesSubmission

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


def test_541_9_c_1_and_541_10_c_each_card_dealt_face_up_shows_in_the_next_deal_prompt() -> None:
    """The dealer display shows the hands as they lie (issue 14): the ``deal`` prompt carries them."""
    driver = Driver()
    driver.start()
    driver.feed(command("no_more_bets"))
    assert driver.prompt()["exposed"] == {"player": [], "banker": [], "player_total": None, "banker_total": None}
    driver.feed(cards("2S"))  # § 541.9(c)(1): turned face up as it is placed
    assert driver.prompt()["exposed"] == {"player": ["2S"], "banker": [], "player_total": None, "banker_total": None}
    driver.feed(cards("3H 2D 2C"))  # player 4, banker 5: the point counts, then the player's third card
    assert driver.prompt()["exposed"] == {"player": ["2S", "2D"], "banker": ["3H", "2C"], "player_total": 4,
                                          "banker_total": 5}  # fmt: skip
    driver.feed(cards("4H"))  # § 541.10(c): dealt face up; the banker's third card is due (Table 1)
    assert driver.prompt() == {
        **driver.prompt(),
        "to": "banker",
        "card": 3,
        "exposed": {"player": ["2S", "2D", "4H"], "banker": ["3H", "2C"], "player_total": 8, "banker_total": 5},
    }


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


def test_541_9_c_2_face_down_cards_stay_out_of_every_decision_and_the_view_until_the_reveal() -> None:
    driver = Driver(initial_cards_face_down=True)
    driver.start()
    driver.feed(command("no_more_bets"), cards("7S 6H 8D"))
    assert driver.prompt()["exposed"] is None  # § 541.9(c)(2): all face down
    driver.feed(cards("4C"))
    assert driver.prompt()["action"] == "reveal"
    assert not any(card in repr([d.data for d in driver.decisions]) for card in ("7S", "6H", "8D", "4C"))
    view = driver.table.view()
    assert (view["player"], view["banker"], view["player_total"]) == ([None, None], [None, None], None)
    revealed = driver.feed(command("reveal"))
    counts = driver.of("announce", revealed)[0]  # § 541.10(a): player's count, then banker's
    assert (counts["announce"], counts["player"], counts["player_total"], counts["banker_total"]) == (
        "point_counts", ["7S", "8D"], 5, 0)  # fmt: skip
    assert driver.prompt()["to"] == "player" and driver.prompt()["card"] == 3
    assert driver.prompt()["exposed"] == {"player": ["7S", "8D"], "banker": ["6H", "4C"], "player_total": 5,
                                          "banker_total": 0}  # fmt: skip


def test_541_9_c_2_reveal_pressed_when_nothing_is_face_down_is_a_wrong_state_alert() -> None:
    driver = Driver()
    driver.start()
    decided = driver.feed(command("reveal"))
    assert driver.alerts(decided) == ["wrong-state"]
    assert driver.table.state == "betting"


def test_541_10_e_cover_card_complete_the_hand_announce_last_hand_play_one_more_then_reshuffle() -> None:
    driver = Driver()
    driver.start()
    driver.feed(command("no_more_bets"), cards("9S 2H"), CutCard(device="shoe"), cards("KD 5C"))
    assert driver.of("announce")[-1]["announce"] == "last_hand"
    assert driver.prompt()["last_hand"] is True
    assert driver.table.state == "betting"
    driver.feed(command("no_more_bets"), cards("8S 2D KC 5H"))
    assert [d.type for d in driver.decisions[-3:]] == ["round_result", "shoe_result", "prompt"]
    assert driver.of("shoe_result")[-1] == {"shoe": 1, "decks": 8, "burned": 2, "cards_read": 10, "rounds": 2,
                                            "composition_ok": True, "alerts": []}  # fmt: skip
    assert driver.prompt()["action"] == "load_shoe"
    driver.feed(command("shoe_loaded"), cards("AD 3D", burn=True), command("no_more_bets"), cards("9C 2C KH 5S"))
    assert [(r["round"], r["shoe"]) for r in driver.results()] == [(1, 1), (2, 1), (3, 2)]  # rounds never reused


def test_541_10_e_cover_card_between_hands_makes_the_next_hand_the_one_to_complete() -> None:
    driver = Driver()
    driver.start()
    driver.feed(CutCard(device="shoe"), command("no_more_bets"), cards("9S 2H KD 5C"))
    assert driver.of("announce")[-1]["announce"] == "last_hand"
    assert driver.table.state == "betting"


def test_541_11_every_round_result_agrees_with_resolve() -> None:
    driver = Driver()
    driver.start()
    for text in ("2S 3H 2D 2C 4H KS", "5S 5H KD KC 6D 7C", "TS 6H QD KC 9D", "3S 2H 3D 2C 9H"):
        driver.feed(command("no_more_bets"), cards(text))
        result = driver.results()[-1]
        assert result == {**result, **resolve(parse_cards(text)).to_json_dict()}
        assert result["cards"] == text.split()


def test_541_8_c_no_wager_made_increased_or_withdrawn_after_no_more_bets() -> None:
    driver = Driver()
    driver.start()
    driver.feed(wager(3, "banker", 500), wager(3, "banker", 500), wager(4, "player", 100))
    driver.feed(command("withdraw_wager", seat=4, kind="player"))
    driver.feed(command("no_more_bets"))
    late = driver.feed(wager(3, "banker", 500), command("withdraw_wager", seat=3, kind="banker"))
    assert driver.alerts(late) == ["wager-refused", "wager-refused"]
    driver.feed(cards("2S 3H 2D 2C 4H KS"))
    assert [(line["seat"], line["amount"]) for line in driver.results()[-1]["settlement"]] == [(3, 1000)]


def test_wager_the_table_does_not_offer_is_refused_with_an_alert() -> None:
    driver = Driver()
    driver.start()
    decided = driver.feed(wager(2, "player_pair", 500), wager(9, "player", 500), wager(2, "player", 0))
    assert driver.alerts(decided) == ["refused-input"] * 3
    assert "not offered" in driver.of("alert", decided)[0]["text"]
    assert driver.table.view()["wagers"] == []


def test_541_13_c_d_banker_win_pays_even_money_less_5_percent_rounded_up_to_5_cents() -> None:
    driver = Driver(RulesSubmission(commission_percent=5, round_commission_up_to_5_cents=True))
    driver.start()
    driver.feed(wager(2, "banker", 1010), command("no_more_bets"), cards("2S 9H KD KC 5D"))
    (line,) = driver.results()[-1]["settlement"]
    assert (line["outcome"], line["payout"], line["commission"], line["commission_deferred"]) == (
        "win",
        1010,
        55,
        False,
    )


def test_541_13_e_deferred_commission_is_marked_per_seat_and_collected_before_the_reshuffle() -> None:
    driver = Driver(RulesSubmission(commission_collection="deferred"))
    driver.start()
    for _ in range(2):
        driver.feed(
            wager(2, "banker", 1000), wager(5, "banker", 2000), command("no_more_bets"), cards("2S 9H KD KC 5D")
        )
    assert driver.table.view()["commission_owed"] == [{"seat": 2, "amount": 100}, {"seat": 5, "amount": 200}]
    driver.feed(command("seat_left", seat=2))  # § 541.13(e): or when the player leaves
    assert driver.prompt()["action"] != "collect_commission"
    assert driver.of("prompt")[-2]["seats"] == [{"seat": 2, "amount": 100}]
    ended = driver.feed(ShoeEmpty(device="shoe"))
    assert [d.type for d in ended][:3] == ["alert", "prompt", "shoe_result"]
    assert driver.of("prompt", ended)[0]["seats"] == [{"seat": 5, "amount": 200}]
    assert driver.table.view()["commission_owed"] == []


def test_541_13_f_tie_alternative_charges_25_percent_of_banker_wagers_on_a_tie() -> None:
    driver = Driver(RulesSubmission(tie_commission_alternative=True))
    driver.start()
    driver.feed(wager(1, "banker", 1000), command("no_more_bets"), cards("9S 9H KD KC"))
    (line,) = driver.results()[-1]["settlement"]
    assert (line["outcome"], line["commission"]) == ("push", 250)


def test_view_gives_the_next_card_totals_last_outcome_and_last_hand() -> None:
    driver = Driver()
    driver.start()
    driver.feed(wager(2, "player", 500), command("no_more_bets"), cards("9S 2H KD"))
    view = driver.table.view()
    assert (view["state"], view["round"], view["shoe"], view["next"]) == ("dealing", 1, 1, {"to": "banker", "card": 2})
    assert (view["player"], view["banker"], view["player_total"], view["banker_total"]) == (["9S", "KD"], ["2H"], 9, 2)
    assert view["wagers"] == [{"seat": 2, "kind": "player", "amount": 500}]
    driver.feed(cards("5C"), CutCard(device="shoe"))
    view = driver.table.view()
    assert view["last_outcome"] == {
        "round": 1,
        "winner": "player",
        "player_total": 9,
        "banker_total": 7,
        "lucky_six": None,
    }
    assert (view["next"], view["last_hand"], view["lamp"]) == (None, False, "green")


def test_shoe_empty_while_betting_with_no_wager_ends_the_shoe_without_a_round() -> None:
    driver = Driver()
    driver.start()
    driver.feed(ShoeEmpty(device="shoe"))
    assert driver.results() == [] and driver.of("shoe_result")[-1]["rounds"] == 0
    refused = driver.feed(cards("9S"), wager(1, "player", 100))
    assert driver.alerts(refused) == ["no-shoe", "wager-refused"]
