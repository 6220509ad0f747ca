"""Two-tile hands and settings: § 535.4(a)-(g), § 535.1, § 535.10(a)."""

from __future__ import annotations

import itertools

import pytest

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_tiles.compare import Reason, Side, compare_hands
from firmware_host.rules.paigow_tiles.hands import Hand, Setting, legal_settings
from firmware_host.rules.paigow_tiles.tiles import TILE_KINDS, parse_tiles

# § 535.4(a), copied row by row from the regulation: (ranking, every pairing of that rank).
PAIRS_535_4_A = [
    (1, ["2-4,1-2"]),  # Supreme Pair
    (2, ["6-6,6-6"]),  # matched pairs
    (3, ["1-1,1-1"]),
    (4, ["4-4,4-4"]),
    (5, ["1-3,1-3"]),
    (6, ["5-5,5-5"]),
    (7, ["3-3,3-3"]),
    (8, ["2-2,2-2"]),
    (9, ["5-6,5-6"]),
    (10, ["4-6,4-6"]),
    (11, ["1-6,1-6"]),
    (12, ["1-5,1-5"]),
    (13, ["3-6,4-5"]),  # mixed nines
    (14, ["3-5,2-6"]),  # mixed eights
    (15, ["3-4,2-5"]),  # mixed sevens
    (16, ["1-4,2-3"]),  # mixed fives
    (17, ["6-6,4-5", "6-6,3-6"]),  # Wongs
    (18, ["1-1,4-5", "1-1,3-6"]),
    (19, ["6-6,2-6", "6-6,3-5", "6-6,4-4"]),  # Gongs
    (20, ["1-1,2-6", "1-1,3-5", "1-1,4-4"]),
]
PAIR_HANDS = {hand: rank for rank, hands in PAIRS_535_4_A for hand in hands}


def all_hands() -> list[Hand]:
    """Every two-tile hand one set can deal (221 of them)."""
    hands = []
    for one, other in itertools.combinations_with_replacement(TILE_KINDS, 2):
        if one is not other or one.copies == 2:
            hands.append(Hand(one, other))
    return hands


@pytest.mark.parametrize(("text", "rank"), PAIR_HANDS.items())
def test_535_4_a_permissible_pair_row(text, rank):
    hand = Hand.parse(text)
    assert hand.rank.pair.rank == rank
    reversed_hand = Hand.parse(",".join(reversed(text.split(","))))
    assert reversed_hand == hand and reversed_hand.rank == hand.rank


@pytest.mark.parametrize("rank", range(1, 20))
def test_535_4_a_each_pair_row_outranks_the_next(rank):
    higher = {Hand.parse(text).rank.strength for text in dict(PAIRS_535_4_A)[rank]}
    lower = {Hand.parse(text).rank.strength for text in dict(PAIRS_535_4_A)[rank + 1]}
    assert len(higher) == 1 and len(lower) == 1  # one rank per row: Wongs of a row are copies
    assert higher.pop() > lower.pop()


def test_535_4_a_only_the_listed_pairings_are_pairs_and_every_pair_outranks_every_value_hand():
    hands = all_hands()
    assert len(hands) == 221
    pairs = [hand for hand in hands if hand.rank.pair is not None]
    assert sorted(hand.text for hand in pairs) == sorted(Hand.parse(text).text for text in PAIR_HANDS)
    lowest_pair = min(hand.rank.strength for hand in pairs)
    assert all(hand.rank.strength < lowest_pair for hand in hands if hand.rank.pair is None)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1-1,3-3", 8),  # § 535.4(c)(1): two and six
        ("5-6,1-6", 8),  # § 535.4(c)(2): 18, the left digit discarded
        ("5-5,4-6", 0),  # 20
        ("6-6,5-6", 3),  # 23
        ("4-5,1-4", 4),
        ("6-6,1-6", 9),  # 19: no pair, a plain nine
        ("1-1,2-2", 6),  # two matched tiles of different kinds are no pair
        ("1-5,3-3", 2),  # two Sixes that are not a listed pair
    ],
)
def test_535_4_c_value_is_the_last_digit_of_the_spots(text, value):
    rank = Hand.parse(text).rank
    assert (rank.pair, rank.value) == (None, value)


def test_535_4_c_higher_value_outranks_lower_whatever_the_tiles():
    assert Hand.parse("1-2,1-4").rank.strength > Hand.parse("6-6,1-1").rank.strength  # 8 over 4


def test_535_4_e_equal_value_goes_to_the_highest_ranking_tile():
    six_six = Hand.parse("6-6,1-5")  # 8, Twelve ranks first
    one_one = Hand.parse("1-1,3-3")  # 8, Two ranks second
    result = compare_hands(six_six, one_one)
    assert (result.winner, result.reason, result.section) == (Side.PLAYER, Reason.HIGHEST_TILE, "535.4(e)")
    assert compare_hands(one_one, six_six).winner is Side.BANKER


def test_535_4_e_only_the_highest_tile_counts_not_the_second():
    # both 9 with highest tile 5-6 (rank 8); the second tiles differ (4-4 rank 3 vs 2-6 rank 13)
    # but § 535.4(e) looks at the highest only, so the hands are copies (§ 535.4(g)).
    first, second = Hand.parse("5-6,2-6"), Hand.parse("5-6,3-5")
    assert first.rank.value == second.rank.value == 9
    result = compare_hands(first, second)
    assert (result.winner, result.reason, result.section) == (Side.BANKER, Reason.COPY, "535.4(g)")


def test_535_4_b_copy_pair_goes_to_the_dealer_or_bank():
    result = compare_hands(Hand.parse("6-6,4-5"), Hand.parse("6-6,3-6"))  # both Wongs, ranking 17
    assert (result.winner, result.reason, result.section) == (Side.BANKER, Reason.COPY, "535.4(b)")
    result = compare_hands(Hand.parse("1-1,4-4"), Hand.parse("1-1,2-6"))  # both Gongs, ranking 20
    assert (result.winner, result.reason) == (Side.BANKER, Reason.COPY)


def test_535_4_g_copy_value_hand_goes_to_the_dealer_or_bank():
    player, dealer = Hand.parse("5-6,1-6"), Hand.parse("5-6,3-4")  # both 8, highest tile 5-6
    result = compare_hands(player, dealer)
    assert (result.winner, result.reason, result.section) == (Side.BANKER, Reason.COPY, "535.4(g)")
    # the same hands the other way round: still the banker's
    assert compare_hands(dealer, player).winner is Side.BANKER
    # equal-ranking tiles of different kinds are copies too (4-5 and 3-6 both rank twelfth)
    assert compare_hands(Hand.parse("4-5,5-5"), Hand.parse("3-6,5-5")).reason is Reason.COPY


@pytest.mark.parametrize(
    ("text", "value", "counted_as", "high_tile", "high_tile_rank"),
    [
        ("1-2,6-6", 8, 6, "6-6", 1),  # 12+3=15 -> 5, 12+6=18 -> 8
        ("2-4,6-6", 8, 6, "6-6", 1),
        ("2-4,5-5", 6, 6, "5-5", 5),  # 10+3 -> 3, 10+6 -> 6
        ("1-2,1-4", 8, 3, "1-4", 16),  # 3+5 -> 8, 6+5 -> 1
        ("2-4,3-3", 9, 3, "3-3", 6),  # 6+3 -> 9, 6+6 -> 2
        ("2-4,1-3", 7, 3, "1-3", 4),  # 4+3 -> 7, 4+6 -> 0
        ("1-2,4-4", 4, 6, "4-4", 3),  # 8+3 -> 1, 8+6 -> 4
        ("1-2,5-6", 7, 6, "5-6", 8),  # 11+3 -> 4, 11+6 -> 7
        ("2-4,2-3", 8, 3, "2-3", 16),  # counted as 3 the 2-4 ranks seventeenth: the Five is the highest tile
    ],
)
def test_535_4_d_supreme_pair_tile_used_apart_counts_3_or_6(text, value, counted_as, high_tile, high_tile_rank):
    rank = Hand.parse(text).rank
    assert (rank.value, rank.supreme_count, rank.high_tile.text, rank.high_tile_rank) == (
        value,
        counted_as,
        high_tile,
        high_tile_rank,
    )


def test_535_4_d_2_4_counted_as_3_loses_its_fifteenth_rank():
    # Both 8 with a Five as highest tile: copies, won by the banker either way round. Had
    # 2-4 kept its fifteenth rank, 2-4,1-4 would outrank 1-2,2-3.
    with_six, with_three = Hand.parse("2-4,1-4"), Hand.parse("1-2,2-3")
    for player, banker in ((with_six, with_three), (with_three, with_six)):
        result = compare_hands(player, banker)
        assert (result.winner, result.reason) == (Side.BANKER, Reason.COPY)


def test_535_4_d_together_the_tiles_are_the_supreme_pair_not_a_value():
    rank = Hand.parse("1-2,2-4").rank
    assert (rank.pair.rank, rank.value, rank.supreme_count) == (1, None, None)


def test_hand_parse_refuses_three_tiles_and_impossible_pairs():
    with pytest.raises(RulesError, match="expected 2 tiles"):
        Hand.parse("6-6,4-5,1-1")
    with pytest.raises(RulesError, match="appears 2 times"):
        Hand.parse("4-5,5-4")


def test_535_1_high_hand_must_not_rank_below_low_hand():
    assert Setting.parse("6-6,4-5/1-3,2-2").text == "6-6,4-5/1-3,2-2"
    with pytest.raises(RulesError, match=r"setting 1-3,2-2/6-6,4-5: the high hand .* ranks below the low hand"):
        Setting.parse("1-3,2-2/6-6,4-5")


def test_535_1_hands_of_identical_rank_may_be_named_either_way():
    one = Setting.parse("6-6,4-5/6-6,3-6")
    other = Setting.parse("6-6,3-6/6-6,4-5")
    assert one.strengths == other.strengths


@pytest.mark.parametrize("text", ["6-6,4-5", "6-6,4-5/1-3/2-2", "6-6,4-5/1-3,2-2,1-1", "6-6,6-6/6-6,1-1"])
def test_setting_parse_refuses_malformed_text(text):
    with pytest.raises(RulesError):
        Setting.parse(text)


def test_535_10_a_three_settings_of_four_different_tiles():
    settings = legal_settings(parse_tiles("6-6,4-5,1-3,2-2"))
    assert [setting.text for setting in settings] == ["6-6,4-5/1-3,2-2", "6-6,2-2/1-3,4-5", "6-6,1-3/2-2,4-5"]


def test_535_10_a_repeated_tiles_give_fewer_distinct_settings():
    assert [s.text for s in legal_settings(parse_tiles("6-6,6-6,1-1,1-1"))] == ["6-6,6-6/1-1,1-1", "6-6,1-1/6-6,1-1"]


def test_legal_settings_needs_four_tiles_from_one_set():
    with pytest.raises(RulesError, match="setting needs 4 tiles, got 3"):
        legal_settings(parse_tiles("6-6,4-5,1-3"))
    with pytest.raises(RulesError, match="appears 3 times"):
        legal_settings(parse_tiles("6-6,6-6,1-1") + parse_tiles("6-6"))


def test_hand_json_describes_rank():
    data = Hand.parse("1-2,1-4").to_json()
    assert data == {
        "tiles": ["1-4", "1-2"],
        "pair": None,
        "pair_rank": None,
        "value": 8,
        "highest_tile": "1-4",
        "highest_tile_rank": 16,
        "supreme_tile_counted_as": 3,
        "rank": "value 8 (Supreme Pair tile counted as 3), highest tile Five (1-4), tile rank 16",
    }
