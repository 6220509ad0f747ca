"""Cards: parsing, values and point counts (§ 541.6), shoes and compositions (§ 541.3)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.cards import (
    RANKS,
    SUITS,
    Card,
    full_shoe,
    parse_card,
    parse_cards,
    point_count,
    remove_seen,
    shoe_composition,
)

every_card = st.builds(Card, st.sampled_from(RANKS), st.sampled_from(SUITS))


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("AS", "A", "S"),
        ("TD", "T", "D"),
        ("10D", "T", "D"),
        ("kh", "K", "H"),
        ("10c", "T", "C"),
        ("H3", "3", "H"),  # suit first, as a shoe on the market emits during burns
        ("s10", "T", "S"),
        (" 9c ", "9", "C"),
    ],
)
def test_parse_card_accepts_every_spelling(text: str, rank: str, suit: str) -> None:
    assert parse_card(text) == Card(rank, suit)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "too short"),
        ("S", "too short"),
        ("AX", "no suit"),
        ("1S", "rank '1'"),
        ("11S", "rank '11'"),
        ("ZH", "rank 'Z'"),
        ("ASS", "rank 'AS'"),
        ("S S", "rank 'S '"),
    ],
)
def test_parse_card_refuses_bad_text_naming_it_and_why(text: str, why: str) -> None:
    with pytest.raises(RulesError) as caught:
        parse_card(text)
    assert repr(text) in str(caught.value)
    assert why in str(caught.value)


def test_card_refuses_unknown_rank_or_suit() -> None:
    with pytest.raises(RulesError, match="rank '1'"):
        Card("1", "S")
    with pytest.raises(RulesError, match="suit 'X'"):
        Card("A", "X")


@given(every_card)
def test_card_round_trips_through_its_canonical_text(card: Card) -> None:
    assert str(card) == card.rank + card.suit
    assert parse_card(str(card)) == card
    assert parse_card(str(card).lower()) == card
    assert parse_card(card.suit + card.rank) == card
    assert hash(parse_card(str(card))) == hash(card)


def test_card_is_frozen() -> None:
    with pytest.raises(AttributeError):
        parse_card("AS").rank = "K"  # type: ignore[misc]


@pytest.mark.parametrize(("rank", "value"), [(str(n), n) for n in range(2, 10)])
def test_541_6_a_1_two_to_nine_count_face_value(rank: str, value: int) -> None:
    assert Card(rank, "H").value == value


@pytest.mark.parametrize("rank", ["T", "J", "Q", "K"])
def test_541_6_a_2_tens_and_faces_count_zero(rank: str) -> None:
    assert Card(rank, "S").value == 0
    assert parse_card("10S").value == 0


def test_541_6_a_3_ace_counts_one() -> None:
    assert parse_card("AC").value == 1


def test_541_6_b_1_ace_two_four_is_seven() -> None:
    assert point_count(parse_cards("AS 2D 4H")) == 7


def test_541_6_b_2_ace_two_nine_is_two_not_twelve() -> None:
    assert point_count(parse_cards("AS 2D 9H")) == 2


@given(st.lists(every_card, max_size=3))
def test_541_6_b_point_count_is_the_units_digit(cards: list[Card]) -> None:
    total = sum(card.value for card in cards)
    assert point_count(cards) == total % 10
    assert 0 <= point_count(cards) <= 9


def test_parse_cards_reads_blank_separated_cards_and_names_the_bad_one() -> None:
    assert [str(card) for card in parse_cards("9S 2h\tKD  10c H3")] == ["9S", "2H", "KD", "TC", "3H"]
    with pytest.raises(RulesError, match="'9Q'"):
        parse_cards("9S 9Q KD")


@pytest.mark.parametrize("decks", [1, 6, 8])
def test_541_3_a_full_shoe_holds_every_card_once_per_deck(decks: int) -> None:
    shoe = full_shoe(decks)
    assert len(shoe) == 52 * decks
    assert set(Counter(shoe).values()) == {decks}
    assert Counter(shoe) == shoe_composition(decks)


@pytest.mark.parametrize("decks", [0, 9, -1, 2.5, True, "8"])
def test_shoe_refuses_a_deck_count_outside_1_to_8(decks: object) -> None:
    with pytest.raises(RulesError, match="decks"):
        full_shoe(decks)  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="decks"):
        shoe_composition(decks)  # type: ignore[arg-type]


def test_remove_seen_leaves_the_rest_of_the_shoe() -> None:
    remaining = remove_seen(shoe_composition(1), parse_cards("AS KD"))
    assert sum(remaining.values()) == 50
    assert parse_card("AS") not in remaining
    assert remaining[parse_card("AH")] == 1


def test_remove_seen_refuses_an_impossible_card_naming_it() -> None:
    with pytest.raises(RulesError, match="card AS: .*held 1"):
        remove_seen(shoe_composition(1), parse_cards("AS KD AS"))


def test_remove_seen_does_not_change_its_input() -> None:
    shoe = shoe_composition(2)
    remove_seen(shoe, parse_cards("AS"))
    assert shoe == shoe_composition(2)
