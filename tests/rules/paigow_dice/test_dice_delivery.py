"""Delivery plans: § 535.8(d), the nine styles of § 535.9(a), after the bank's cut (§ 535.11(g))."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_dice.delivery import (
    ALTERNATIVE_STYLES,
    STYLES,
    Cut,
    check_style,
    delivery_plan,
)
from firmware_host.rules.paigow_dice.position import TABLE_ORDER, following
from tests.support.paths import REPO

# Worked by hand from the text of § 535.8(d) and § 535.9(a), start at the dealer, no cut.
# Stacks are numbered 1..8 from the dealer's right; "5.2" is stack 5, second tile from the top.
# One line per hand in delivery order: dealer, 1, 2, 3, 4, 5, 6, dead.
HAND_WORKED = {
    # § 535.8(d): whole stacks, starting from the right side of the eight stacks.
    "standard": """1.1 1.2 1.3 1.4 | 2.1 2.2 2.3 2.4 | 3.1 3.2 3.3 3.4 | 4.1 4.2 4.3 4.4 |
                   5.1 5.2 5.3 5.4 | 6.1 6.2 6.3 6.4 | 7.1 7.2 7.3 7.4 | 8.1 8.2 8.3 8.4""",
    # (1): the first stack on the dealer's left first, then left to right.
    "house-way-from-the-left": """8.1 8.2 8.3 8.4 | 7.1 7.2 7.3 7.4 | 6.1 6.2 6.3 6.4 | 5.1 5.2 5.3 5.4 |
                                  4.1 4.2 4.3 4.4 | 3.1 3.2 3.3 3.4 | 2.1 2.2 2.3 2.4 | 1.1 1.2 1.3 1.4""",
    # (2): first two stacks on the right: top two of each, then the four remaining; right to left.
    "cup-say-from-the-right": """1.1 1.2 2.1 2.2 | 1.3 1.4 2.3 2.4 | 3.1 3.2 4.1 4.2 | 3.3 3.4 4.3 4.4 |
                                 5.1 5.2 6.1 6.2 | 5.3 5.4 6.3 6.4 | 7.1 7.2 8.1 8.2 | 7.3 7.4 8.3 8.4""",
    # (3): the same from the left.
    "cup-say-from-the-left": """8.1 8.2 7.1 7.2 | 8.3 8.4 7.3 7.4 | 6.1 6.2 5.1 5.2 | 6.3 6.4 5.3 5.4 |
                                4.1 4.2 3.1 3.2 | 4.3 4.4 3.3 3.4 | 2.1 2.2 1.1 1.2 | 2.3 2.4 1.3 1.4""",
    # (4): the two centre stacks (4th from each side), pushed together, new centre: 3 and 6, ...
    "jung-quat": """4.1 4.2 5.1 5.2 | 4.3 4.4 5.3 5.4 | 3.1 3.2 6.1 6.2 | 3.3 3.4 6.3 6.4 |
                    2.1 2.2 7.1 7.2 | 2.3 2.4 7.3 7.4 | 1.1 1.2 8.1 8.2 | 1.3 1.4 8.3 8.4""",
    # (5): the first stack on the right and the first on the left, centred; then the next ones.
    "chee-yee": """1.1 1.2 8.1 8.2 | 1.3 1.4 8.3 8.4 | 2.1 2.2 7.1 7.2 | 2.3 2.4 7.3 7.4 |
                   3.1 3.2 6.1 6.2 | 3.3 3.4 6.3 6.4 | 4.1 4.2 5.1 5.2 | 4.3 4.4 5.3 5.4""",
    # (6): the diagonal tile (top of stack 1) plus the tops of 2, 3, 4; then the tops of the
    # four on the left; then the next tile down on the right, on the left, and so on.
    "pin-say-from-the-right": """1.1 2.1 3.1 4.1 | 5.1 6.1 7.1 8.1 | 1.2 2.2 3.2 4.2 | 5.2 6.2 7.2 8.2 |
                                 1.3 2.3 3.3 4.3 | 5.3 6.3 7.3 8.3 | 1.4 2.4 3.4 4.4 | 5.4 6.4 7.4 8.4""",
    # (7): the same from the left.
    "pin-say-from-the-left": """8.1 7.1 6.1 5.1 | 4.1 3.1 2.1 1.1 | 8.2 7.2 6.2 5.2 | 4.2 3.2 2.2 1.2 |
                                8.3 7.3 6.3 5.3 | 4.3 3.3 2.3 1.3 | 8.4 7.4 6.4 5.4 | 4.4 3.4 2.4 1.4""",
    # (8): stack 1 set on stack 3 and stack 2 on stack 4 (two stacks of eight); the dragon head is
    # the top two of each tall stack, the phoenix tail the top tile of each of stacks 5-8.
    "dragon-head-phoenix-tail-from-the-right": """1.1 1.2 2.1 2.2 | 5.1 6.1 7.1 8.1 | 1.3 1.4 2.3 2.4 | 5.2 6.2 7.2 8.2 |
                                                  3.1 3.2 4.1 4.2 | 5.3 6.3 7.3 8.3 | 3.3 3.4 4.3 4.4 | 5.4 6.4 7.4 8.4""",
    # (9): stack 8 on stack 6 and stack 7 on stack 5; the phoenix tail is stacks 4..1.
    "dragon-head-phoenix-tail-from-the-left": """8.1 8.2 7.1 7.2 | 4.1 3.1 2.1 1.1 | 8.3 8.4 7.3 7.4 | 4.2 3.2 2.2 1.2 |
                                                 6.1 6.2 5.1 5.2 | 4.3 3.3 2.3 1.3 | 6.3 6.4 5.3 5.4 | 4.4 3.4 2.4 1.4""",
}


def _hands(text: str) -> list[list[tuple[int, int]]]:
    return [[tuple(map(int, tile.split("."))) for tile in hand.split()] for hand in text.split("|")]


def _as_spots(plan) -> list[list[tuple[int, int]]]:
    return [[(t.stack, t.level) for t in hand.tiles] for hand in plan.hands]


def test_the_ten_styles_are_named_as_the_regulation_orders_them():
    assert STYLES == (
        "standard",
        "house-way-from-the-left",
        "cup-say-from-the-right",
        "cup-say-from-the-left",
        "jung-quat",
        "chee-yee",
        "pin-say-from-the-right",
        "pin-say-from-the-left",
        "dragon-head-phoenix-tail-from-the-right",
        "dragon-head-phoenix-tail-from-the-left",
    )
    assert STYLES[1:] == ALTERNATIVE_STYLES
    assert set(HAND_WORKED) == set(STYLES)


@pytest.mark.parametrize("style", STYLES)
def test_535_8_d_and_535_9_a_plan_matches_the_hand_worked_example(style):
    plan = delivery_plan("dealer", style)
    assert [hand.position for hand in plan.hands] == list(TABLE_ORDER)
    assert _as_spots(plan) == _hands(HAND_WORKED[style])


def test_535_8_d_first_stack_from_the_right_goes_to_the_start_then_counterclockwise():
    plan = delivery_plan(5, "standard")
    assert [hand.position for hand in plan.hands] == [5, 6, "dead", "dealer", 1, 2, 3, 4]
    assert [hand.tiles[0].stack for hand in plan.hands] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert plan.tiles_for("dealer")[0].stack == 4


def test_535_9_a_6_pin_say_starting_at_position_3_worked_example():
    # The diagonal tile and the three it covers go to position 3, the tops on the left to 4.
    plan = delivery_plan(3, "pin-say-from-the-right")
    assert [(t.stack, t.level) for t in plan.tiles_for(3)] == [(1, 1), (2, 1), (3, 1), (4, 1)]
    assert [(t.stack, t.level) for t in plan.tiles_for(4)] == [(5, 1), (6, 1), (7, 1), (8, 1)]
    assert [(t.stack, t.level) for t in plan.tiles_for(2)] == [(5, 4), (6, 4), (7, 4), (8, 4)]


def test_535_11_g_cut_then_standard_delivery_starts_from_the_new_right_end():
    # Bank cuts two stacks: stacks 1 and 2 go to the left end, so stack 3 is now on the right.
    plan = delivery_plan(3, "standard", cut=2)
    assert plan.arrangement == (3, 4, 5, 6, 7, 8, 1, 2)
    assert [(hand.position, hand.tiles[0].stack, hand.tiles[0].place) for hand in plan.hands] == [
        (3, 3, 1),
        (4, 4, 2),
        (5, 5, 3),
        (6, 6, 4),
        ("dead", 7, 5),
        ("dealer", 8, 6),
        (1, 1, 7),
        (2, 2, 8),
    ]


def test_535_11_g_cut_then_chee_yee_takes_the_ends_of_the_cut_stacks():
    plan = delivery_plan("dealer", "chee-yee", cut=Cut(to_right_end=(4, 5)))
    assert plan.arrangement == (4, 5, 1, 2, 3, 6, 7, 8)
    assert [(t.stack, t.level, t.place) for t in plan.tiles_for("dealer")] == [
        (4, 1, 1),
        (4, 2, 1),
        (8, 1, 8),
        (8, 2, 8),
    ]


@pytest.mark.parametrize(
    ("cut", "arrangement"),
    [
        (Cut.rotation(2), (3, 4, 5, 6, 7, 8, 1, 2)),  # (g)(1) two on the right to the left end
        (Cut(to_right_end=(4, 5)), (4, 5, 1, 2, 3, 6, 7, 8)),  # (g)(1) middle stacks to the right end
        (Cut(to_left_end=(3,)), (1, 2, 4, 5, 6, 7, 8, 3)),  # (g)(1) one stack to the left end
        (Cut(to_right_end=(8,)), (8, 1, 2, 3, 4, 5, 6, 7)),  # (g)(1) left end stack to the right end
        (Cut((4,), (5, 6)), (4, 1, 2, 3, 7, 8, 5, 6)),  # (g)(2) split between the two ends
        (Cut((6, 7), (5,)), (6, 7, 1, 2, 3, 4, 8, 5)),  # (g)(2)
        (Cut((1,), (2,)), (1, 3, 4, 5, 6, 7, 8, 2)),  # (g)(2) stack 1 stays at its end
    ],
)
def test_535_11_g_cut_arrangements(cut, arrangement):
    assert cut.arrangement() == arrangement
    assert Cut.parse(cut.describe()) == cut


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (lambda: Cut(), "at least one stack"),
        (lambda: Cut((2, 4)), "adjacent"),
        (lambda: Cut((2,), (5,)), "adjacent"),
        (lambda: Cut((3,), (3,)), "named twice"),
        (lambda: Cut((9,)), "9 is not a stack"),
        (lambda: Cut((0,)), "0 is not a stack"),
        (lambda: Cut((True,)), "True is not a stack"),
        (lambda: Cut((1, 2)), "leaves every stack"),
        (lambda: Cut(to_left_end=(7, 8)), "leaves every stack"),
        (lambda: Cut((1, 2, 3, 4, 5, 6, 7, 8)), "leaves every stack"),
        (lambda: Cut.rotation(0), "move 1 to 7"),
        (lambda: Cut.rotation(8), "move 1 to 7"),
    ],
)
def test_535_11_g_bad_cuts_are_rules_errors(make, why):
    with pytest.raises(RulesError, match=why):
        make()


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        ("3", Cut.rotation(3)),
        ("right=4-5", Cut((4, 5))),
        ("left=3", Cut((), (3,))),
        ("right=4, left=5-6", Cut((4,), (5, 6))),
        ("left=5+6,right=4", Cut((4,), (5, 6))),
    ],
)
def test_cut_parse(text, cut):
    assert Cut.parse(text) == cut


@pytest.mark.parametrize("text", ["", "x", "up=3", "right=", "right=5-3", "right=a", "right=1,right=2", "-2", "3.5"])
def test_cut_parse_rejects_nonsense(text):
    with pytest.raises(RulesError, match="cut"):
        Cut.parse(text)


def test_unknown_style_lists_the_valid_names():
    with pytest.raises(RulesError) as caught:
        delivery_plan("dealer", "pai-gow-way")
    assert "'pai-gow-way'" in str(caught.value)
    assert all(name in str(caught.value) for name in STYLES)
    assert check_style("jung-quat") == "jung-quat"


@pytest.mark.parametrize("start", [0, 7, "Dealer", None, True, 1.0, "1"])
def test_start_that_is_not_a_position_is_a_rules_error(start):
    with pytest.raises(RulesError, match="not one of dealer"):
        delivery_plan(start)


def test_plan_json():
    data = delivery_plan(6, "jung-quat", cut=1).to_json_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["start"] == "6" and data["style"] == "jung-quat"
    assert data["cut"] == {"to_right_end": [], "to_left_end": [1]}
    assert data["arrangement"] == [2, 3, 4, 5, 6, 7, 8, 1]
    assert data["plan"][0] == {
        "position": "6",
        "tiles": [
            {"stack": 5, "level": 1, "place": 4},
            {"stack": 5, "level": 2, "place": 4},
            {"stack": 6, "level": 1, "place": 5},
            {"stack": 6, "level": 2, "place": 5},
        ],
    }
    assert [hand["position"] for hand in data["plan"]] == ["6", "dead", "dealer", "1", "2", "3", "4", "5"]


@st.composite
def cuts(draw) -> Cut | None:
    if draw(st.booleans()):
        return None
    first = draw(st.integers(1, 8))
    last = draw(st.integers(first, 8))
    block = list(range(first, last + 1))
    to_right = draw(st.lists(st.sampled_from(block), unique=True))
    cut_args = (tuple(sorted(to_right)), tuple(s for s in block if s not in to_right))
    try:
        return Cut(*cut_args)
    except RulesError:
        assume(False)


@given(st.sampled_from(TABLE_ORDER), st.sampled_from(STYLES), cuts())
def test_every_plan_delivers_all_32_tiles_once_four_to_each_of_the_8_positions(start, style, cut):
    plan = delivery_plan(start, style, cut)
    tiles = [(t.stack, t.level) for hand in plan.hands for t in hand.tiles]
    assert sorted(tiles) == [(s, lane) for s in range(1, 9) for lane in range(1, 5)]
    assert all(len(hand.tiles) == 4 for hand in plan.hands)
    assert [hand.position for hand in plan.hands] == [following(start, n) for n in range(8)]
    assert all(plan.arrangement[t.place - 1] == t.stack for hand in plan.hands for t in hand.tiles)


@given(st.sampled_from(TABLE_ORDER), st.sampled_from([s for s in STYLES if s.endswith("-from-the-right")]))
def test_535_9_a_from_the_left_is_the_mirror_of_from_the_right(start, right_style):
    left = delivery_plan(start, right_style.replace("-from-the-right", "-from-the-left"))
    right = delivery_plan(start, right_style)
    mirrored = [[(9 - t.place, t.level) for t in hand.tiles] for hand in right.hands]
    assert [[(t.place, t.level) for t in hand.tiles] for hand in left.hands] == mirrored


def test_docs_worked_examples_match_the_plans():
    """docs/paigow-delivery.md: every style's worked example (start at 3) is what the code plans."""
    text = (REPO / "docs" / "paigow-delivery.md").read_text()
    found = 0
    for style in STYLES:
        section = text.split(f"Style name `{style}`.", 1)[1]
        rows = [line for line in section.splitlines() if line.startswith("| ") and line[2].isdigit()][:8]
        documented = [(row.split("|")[2].strip(), row.split("|")[3].split()) for row in rows]
        plan = delivery_plan(3, style)
        assert documented == [(str(h.position), [f"{t.stack}.{t.level}" for t in h.tiles]) for h in plan.hands], style
        found += 1
    assert found == 10
