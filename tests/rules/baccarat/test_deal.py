"""The deal card by card and the outcome: §§ 541.9-541.12, § 631c.5(c), (e), (k)."""

from __future__ import annotations

import json

import pytest

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.cards import Card, parse_cards
from firmware_host.rules.baccarat.deal import Deal, RoundResult, Slot, resolve

#: A card of each § 541.6(a) value, for building hands with chosen point counts.
CARD_OF_VALUE = {0: Card("K", "C"), **{v: Card("A" if v == 1 else str(v), "D") for v in range(1, 10)}}


def deal_of(player: str, banker: str) -> Deal:
    return Deal(player=tuple(parse_cards(player)), banker=tuple(parse_cards(banker)))


def initial_deal(player_total: int, banker_total: int) -> Deal:
    """The four initial cards with the given two-card point counts (a ten-value card first)."""
    deal = Deal()
    for value in (0, 0, player_total, banker_total):
        deal = deal.add(CARD_OF_VALUE[value])
    return deal


def test_541_9_c_initial_cards_go_player_banker_player_banker() -> None:
    deal = Deal()
    slots = []
    for card in parse_cards("2S 3H 4D 5C"):
        slots.append(deal.next_slot())
        deal = deal.add(card)
    assert slots == [Slot.PLAYER_1, Slot.BANKER_1, Slot.PLAYER_2, Slot.BANKER_2]
    assert [str(c) for c in deal.player] == ["2S", "4D"]
    assert [str(c) for c in deal.banker] == ["3H", "5C"]
    assert deal.after_initial


def test_slot_names_its_hand_and_position() -> None:
    assert (Slot.BANKER_3.hand, Slot.BANKER_3.position) == ("banker", 3)
    assert (Slot.PLAYER_1.hand, Slot.PLAYER_1.position) == ("player", 1)


def test_deal_is_immutable_and_add_returns_a_new_state() -> None:
    empty = Deal()
    one = empty.add(Card("A", "S"))
    assert empty.cards_used == 0 and one.cards_used == 1
    with pytest.raises(AttributeError):
        one.player = ()  # type: ignore[misc]


@pytest.mark.parametrize("player_total", range(10))
@pytest.mark.parametrize("banker_total", [8, 9])
def test_541_11_a_banker_natural_ends_the_round(player_total: int, banker_total: int) -> None:
    deal = initial_deal(player_total, banker_total)
    assert deal.natural
    assert deal.next_slot() is None and deal.is_complete


@pytest.mark.parametrize("banker_total", range(10))
@pytest.mark.parametrize("player_total", [8, 9])
def test_541_11_a_player_natural_ends_the_round(player_total: int, banker_total: int) -> None:
    deal = initial_deal(player_total, banker_total)
    assert deal.natural
    assert deal.is_complete


def test_541_1_natural_is_on_the_first_two_cards_only() -> None:
    # player 2+3 = 5 draws a 3: 8 on three cards is not a natural
    deal = deal_of("2S 3S 3C", "KD 7H")
    assert deal.player_total == 8 and not deal.natural


@pytest.mark.parametrize("player_total", range(6))
@pytest.mark.parametrize("banker_total", range(8))
def test_541_11_b_1_player_draws_on_0_to_5(player_total: int, banker_total: int) -> None:
    assert initial_deal(player_total, banker_total).next_slot() is Slot.PLAYER_3


@pytest.mark.parametrize("player_total", [6, 7])
@pytest.mark.parametrize("banker_total", range(6))
def test_541_11_c_1_player_stays_on_6_or_7_and_banker_draws_on_0_to_5(player_total: int, banker_total: int) -> None:
    assert initial_deal(player_total, banker_total).next_slot() is Slot.BANKER_3


@pytest.mark.parametrize("player_total", [6, 7])
@pytest.mark.parametrize("banker_total", [6, 7])
def test_541_11_c_1_player_stays_and_banker_stays_on_6_or_7(player_total: int, banker_total: int) -> None:
    deal = initial_deal(player_total, banker_total)
    assert deal.next_slot() is None
    assert deal.result().cards_used == 4


def after_player_third(banker_total: int, third_value: int) -> Deal:
    """Player 0 on two cards draws a card of ``third_value``; banker holds ``banker_total``."""
    return initial_deal(0, banker_total).add(CARD_OF_VALUE[third_value])


@pytest.mark.parametrize("third_value", range(10))
@pytest.mark.parametrize("banker_total", [0, 1, 2])
def test_541_11_c_2_i_banker_draws_on_0_to_2_whatever_the_player_third(banker_total: int, third_value: int) -> None:
    assert after_player_third(banker_total, third_value).next_slot() is Slot.BANKER_3


@pytest.mark.parametrize("third_value", range(10))
def test_541_11_c_2_ii_banker_stays_on_7_whatever_the_player_third(third_value: int) -> None:
    assert after_player_third(7, third_value).next_slot() is None


#: Table 1 of § 541.11(c)(2)(iii), restated independently: the player third-card values on
#: which the banker draws, for each banker two-card count. Every other cell is S.
TABLE_1_DRAWS = {3: set(range(10)) - {8}, 4: set(range(2, 8)), 5: set(range(4, 8)), 6: {6, 7}}


@pytest.mark.parametrize("third_value", range(10))
@pytest.mark.parametrize("banker_total", [3, 4, 5, 6])
def test_541_11_c_2_iii_table_1_every_cell(banker_total: int, third_value: int) -> None:
    deal = after_player_third(banker_total, third_value)
    expected = Slot.BANKER_3 if third_value in TABLE_1_DRAWS[banker_total] else None
    assert deal.next_slot() is expected


def test_541_11_g_example_banker_5_draws_on_player_third_4() -> None:
    assert after_player_third(5, 4).next_slot() is Slot.BANKER_3


def test_541_11_c_2_banker_draws_on_3_unless_player_third_is_8() -> None:
    assert after_player_third(3, 8).next_slot() is None
    assert after_player_third(3, 9).next_slot() is Slot.BANKER_3


def test_541_11_e_table_uses_the_third_card_value_not_the_player_count() -> None:
    # player 4 + 4 = 8 on three cards; the third card's value 4 (not 8) decides: banker 5 draws
    deal = initial_deal(4, 5).add(CARD_OF_VALUE[4])
    assert deal.player_total == 8
    assert deal.next_slot() is Slot.BANKER_3


def test_541_10_c_player_third_card_comes_before_banker_third() -> None:
    deal = initial_deal(1, 1)
    assert deal.next_slot() is Slot.PLAYER_3
    deal = deal.add(CARD_OF_VALUE[5])
    assert deal.next_slot() is Slot.BANKER_3


def test_541_10_d_never_more_than_one_extra_card_per_hand() -> None:
    deal = initial_deal(0, 0).add(CARD_OF_VALUE[0]).add(CARD_OF_VALUE[0])
    assert (len(deal.player), len(deal.banker)) == (3, 3)
    assert deal.next_slot() is None
    with pytest.raises(RulesError, match="no card is due"):
        deal.add(CARD_OF_VALUE[1])


def test_deal_cards_lists_shoe_order() -> None:
    shoe = parse_cards("2S 3H AD 2C 6S 7H")  # player 3 draws 6, banker 5 draws
    deal = Deal()
    for card in shoe:
        deal = deal.add(card)
        assert list(deal.cards) == shoe[: deal.cards_used]


def test_deal_built_from_hands_must_be_a_legal_deal() -> None:
    assert deal_of("2S 2D", "3H 4C").next_slot() is Slot.PLAYER_3
    with pytest.raises(RulesError, match="not a deal"):
        deal_of("2S 4D 9C", "3H")  # cards missing in between
    with pytest.raises(RulesError, match="not a deal"):
        deal_of("9S KD 2C", "3H 4C")  # a third card after a natural
    with pytest.raises(RulesError, match="not a deal"):
        deal_of("3S 3D", "3H 4C 5C")  # banker third before the player's


def test_541_12_a_winner_is_the_higher_point_count() -> None:
    assert resolve(parse_cards("9S 2H KD 5C")).winner == "player"
    assert resolve(parse_cards("2H 9S 5C KD")).winner == "banker"
    tie = resolve(parse_cards("7S 7H KD KC"))
    assert (tie.winner, tie.player_total, tie.banker_total) == ("tie", 7, 7)


def test_resolve_reports_every_field_of_the_cli_json() -> None:
    result = resolve(parse_cards("9S 2H KD 5C 3D"))
    assert result.to_json_dict() == {
        "player": ["9S", "KD"],
        "banker": ["2H", "5C"],
        "player_total": 9,
        "banker_total": 7,
        "winner": "player",
        "natural": True,
        "player_pair": False,
        "banker_pair": False,
        "lucky_six": None,
        "cards_used": 4,
    }
    json.dumps(result.to_json_dict())  # JSON-ready


def test_resolve_uses_only_the_cards_the_round_needs() -> None:
    result = resolve(parse_cards("2S 3H 4D 5C 6S 7H 8D 9C"))
    # player 6 stays; banker 8 is a natural
    assert result.cards_used == 4
    assert result.natural


def test_resolve_reads_no_more_cards_than_needed_from_an_iterator() -> None:
    cards = iter(parse_cards("9S 2H KD 5C 3D"))
    resolve(cards)
    assert [str(card) for card in cards] == ["3D"]


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        ("", "player's card 1"),
        ("2S 3H 2D", "banker's card 2"),
        ("2S 3H 2D 2C", "player's card 3"),
        ("2S 3H 2D 2C 6S", "banker's card 3"),
    ],
)
def test_541_14_e_resolve_refuses_too_few_cards(text: str, missing: str) -> None:
    with pytest.raises(RulesError, match=f"too few cards.*{missing}"):
        resolve(parse_cards(text))


def test_631c_5_c_pairs_are_two_cards_of_one_rank() -> None:
    result = resolve(parse_cards("KS QH KD QD 2C 3C"))  # player K-K, banker Q-Q
    assert result.player_pair and result.banker_pair
    result = resolve(parse_cards("KS TH QD JD 5C 5D"))  # K-Q and T-J: all worth 0, no pair
    assert not result.player_pair and not result.banker_pair
    assert resolve(parse_cards("TS 2H 10D 3C 5C 5D")).player_pair  # 10 is T


def test_deal_pairs_are_known_after_the_initial_four_cards() -> None:
    deal = deal_of("4S 4D", "3H 9C")
    assert deal.player_pair and not deal.banker_pair
    with pytest.raises(RulesError, match="initial four cards"):
        _ = Deal().add(Card("4", "S")).player_pair


def test_631c_5_k_1_lucky_six_on_two_cards() -> None:
    # player 0 draws a 0; banker 6 stays on a player third of 0 (Table 1) and wins on two cards
    cards = parse_cards("KS 3H KD 3C QS")
    assert resolve(cards, variant="commission-free").lucky_six == 2
    assert resolve(cards, variant="standard").lucky_six is None


def test_631c_5_k_2_lucky_six_on_three_cards() -> None:
    # player 0 draws 0; banker 3 draws 3 -> 6 beats 0
    result = resolve(parse_cards("KS 3H KD KC KH 3D"), variant="commission-free")
    assert (result.winner, result.banker_total, result.lucky_six) == ("banker", 6, 3)


def test_631c_5_c_3_banker_six_that_ties_or_loses_is_no_lucky_six() -> None:
    assert resolve(parse_cards("6S 3H KD 3C"), variant="commission-free").lucky_six is None  # tie 6-6
    assert resolve(parse_cards("7S 3H KD 3C"), variant="commission-free").lucky_six is None  # 6 loses to 7
    assert resolve(parse_cards("7S 3H KD 2C 9D"), variant="commission-free").lucky_six is None  # 5 draws 9: 4


def test_resolve_refuses_an_unknown_variant() -> None:
    with pytest.raises(RulesError, match="variant 'mini'"):
        resolve(parse_cards("9S 2H KD 5C"), variant="mini")


def test_round_result_is_hashable_value() -> None:
    result = resolve(parse_cards("9S 2H KD 5C"))
    assert isinstance(result, RoundResult)
    assert hash(result) == hash(resolve(parse_cards("9S 2H KD 5C")))


def test_result_of_an_incomplete_deal_is_refused() -> None:
    with pytest.raises(RulesError, match="too few cards"):
        initial_deal(0, 0).result()
