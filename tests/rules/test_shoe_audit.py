"""The composition audit names extra and missing cards; the shuffle-quality watch flags a
shuffler that does not shuffle and stays quiet on fair shuffles."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_host.rules.baccarat.cards import RANKS, SUITS, full_shoe
from firmware_host.rules.shoe_audit import ShuffleWatch, _longest_run, audit_composition, thresholds

SHOE = [str(card) for card in full_shoe(8)]


def shuffled_shoe(seed: int, decks: int = 8) -> list[str]:
    cards = [str(card) for card in full_shoe(decks)]
    random.Random(seed).shuffle(cards)
    return cards


# -- composition audit (issue 5 item 4) -------------------------------------------------------------------


def test_541_3_b_1_an_inserted_card_is_named() -> None:
    read = shuffled_shoe(1) + ["QH"]
    audit = audit_composition(8, read, batch="A")
    assert not audit.ok and audit.extra == ("QH",) and audit.missing == ()
    assert audit.text == "batch A: 1 extra card(s): QH"
    notice = audit.notice()
    assert notice is not None and notice.severity == "fault" and "QH" in notice.text


def test_541_3_b_1_a_removed_card_is_named() -> None:
    read = shuffled_shoe(2)
    read.remove("7D")
    audit = audit_composition(8, read, batch="B")
    assert audit.missing == ("7D",) and audit.missing_count == 1 and audit.extra == ()
    assert audit.text == "batch B: 1 missing card(s): 7D"


def test_a_card_swapped_for_another_shows_both() -> None:
    read = shuffled_shoe(3)
    read[read.index("AS")] = "KC"
    audit = audit_composition(8, read)
    assert (audit.extra, audit.missing) == (("KC",), ("AS",))


def test_unreadable_cards_leave_the_missing_card_among_candidates() -> None:
    read = shuffled_shoe(4)
    read.remove("2C")  # missing
    read.remove("9H")  # passed the reader unread
    audit = audit_composition(8, read, unreadable=1)
    assert audit.missing == () and audit.missing_count == 1
    assert audit.missing_candidates == ("2C", "9H")
    assert "1 missing card(s), among: 2C 9H" in audit.text
    assert audit_composition(8, read + ["2C"], unreadable=1).ok  # the unreadable one was the 9H


def test_an_incomplete_read_can_name_extras_only() -> None:
    read = shuffled_shoe(5)[:300]
    assert audit_composition(8, read, complete=False).ok
    audit = audit_composition(8, read + ["JS"] * 8, complete=False)
    assert audit.missing_count == 0 and len(audit.extra) >= 1 and set(audit.extra) == {"JS"}


def test_a_correct_shoe_passes_and_says_so() -> None:
    audit = audit_composition(8, shuffled_shoe(6), batch="A")
    assert audit.ok and audit.notice() is None
    assert audit.text == "batch A: composition correct (all: 416 read, 0 unreadable)"


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_any_removals_and_insertions_are_found_exactly(data: st.DataObject) -> None:
    read = list(SHOE)
    removed = sorted(data.draw(st.lists(st.sampled_from(SHOE), max_size=4)))
    for card in removed:
        read.remove(card)
    inserted = sorted(data.draw(st.lists(st.sampled_from(SHOE), max_size=4)))
    audit = audit_composition(8, read + inserted)
    # a card both removed and inserted cancels out; the audit sees the net difference
    net_extra = list(inserted)
    net_missing = []
    for card in removed:
        if card in net_extra:
            net_extra.remove(card)
        else:
            net_missing.append(card)
    assert audit.extra == tuple(sorted(net_extra)) and audit.missing == tuple(sorted(net_missing))
    assert audit.ok == (not net_extra and not net_missing)


# -- shuffle-quality watch (issue 5 item 5) ---------------------------------------------------------------


def test_thresholds_for_8_decks() -> None:
    limits = thresholds(8, 416)
    assert (limits.suit_run, limits.rank_run, limits.repeat_run) == (15, 9, 8)
    stricter = thresholds(8, 416, false_alarm=1e-9)
    assert stricter.suit_run > limits.suit_run and stricter.rank_run > limits.rank_run


def test_541_5_a_the_same_order_as_an_earlier_shoe_is_flagged_whatever_the_cut() -> None:
    watch = ShuffleWatch(8)
    first = shuffled_shoe(7)
    watch, report = watch.observe(1, first[:400])
    assert report.notices == ()
    cut = 137  # § 541.5(e): the cards above the cover card go to the bottom
    again = first[cut:] + first[:cut]
    watch, report = watch.observe(2, again[:390])
    assert report.repeated_from == 1 and report.repeated_run >= 250
    (notice,) = report.notices
    assert notice.code == "shuffle-repeated-order" and notice.severity == "warning"
    assert f"{report.repeated_run} cards in the same order as shoe 1" in notice.text


def test_an_unshuffled_batch_is_flagged_as_new_deck_order() -> None:
    watch = ShuffleWatch(8)
    suit_by_suit = [rank + suit for suit in SUITS for rank in RANKS] * 8
    for shoe, cards in enumerate((SHOE, suit_by_suit, list(reversed(suit_by_suit))), start=1):
        watch, report = watch.observe(shoe, cards[:380])
        assert report.repeated_from == 0, shoe
        assert "new-deck order (not shuffled)" in report.notices[-1].text


def test_a_run_of_one_suit_far_beyond_chance_is_flagged() -> None:
    cards = shuffled_shoe(8)
    spades = [c for c in cards if c.endswith("S")][:16]
    others = [c for c in cards if not c.endswith("S")]
    dealt = others[:100] + spades + others[100:300]
    _, report = ShuffleWatch(8).observe(1, dealt)
    assert report.longest_suit_run >= 16
    assert any(n.code == "shuffle-suit-run" and "from card 101" in n.text for n in report.notices)


def test_a_run_of_one_rank_far_beyond_chance_is_flagged() -> None:
    cards = shuffled_shoe(9)
    nines = [c for c in cards if c.startswith("9")][:10]
    others = [c for c in cards if not c.startswith("9")]
    _, report = ShuffleWatch(8).observe(1, others[:50] + nines + others[50:300])
    assert report.longest_rank_run == 10
    assert [n.code for n in report.notices] == ["shuffle-rank-run"]


def test_an_unreadable_card_breaks_a_run() -> None:
    assert _longest_run([None, *full_shoe(1)[:1], None], "suit") == (1, 1)
    run = [c for c in full_shoe(1) if c.suit == "H"][:6]
    assert _longest_run(run[:3] + [None] + run[3:], "suit")[0] == 3


def test_the_watch_stays_quiet_on_seeded_fair_shuffles_and_keeps_a_bounded_history() -> None:
    watch = ShuffleWatch(8, history=16)
    for shoe in range(1, 121):
        cards = shuffled_shoe(1000 + shoe)
        cut = random.Random(shoe).randrange(10, 400)
        _watch, report = watch.observe(shoe, (cards[cut:] + cards[:cut])[: 330 + shoe % 60])
        watch = _watch
        assert report.notices == (), (shoe, report)
    assert len(watch.shoes) == 16 and watch.shoes[-1][0] == 120


@pytest.mark.parametrize("false_alarm", [0.05, 0.2])
def test_the_false_alarm_rate_of_the_run_tests_is_within_their_bound(false_alarm: float) -> None:
    """At loose bounds the thresholds are low enough for fair shuffles to reach them
    sometimes: the observed rate must stay within the bound (the union bound is conservative)."""
    limits = thresholds(8, 416, false_alarm=false_alarm)
    trials = 400
    suit_alarms = rank_alarms = 0
    for seed in range(trials):
        dealt = [c for c in full_shoe(8)]
        random.Random(seed).shuffle(dealt)
        suit_alarms += _longest_run(dealt, "suit")[0] >= limits.suit_run
        rank_alarms += _longest_run(dealt, "rank")[0] >= limits.rank_run
    # 3 standard deviations above the bound, so a correct bound fails this with tiny probability
    slack = 3 * (false_alarm * (1 - false_alarm) / trials) ** 0.5
    assert suit_alarms / trials <= false_alarm + slack
    assert rank_alarms / trials <= false_alarm + slack
    assert suit_alarms + rank_alarms > 0  # the statistic is live: fair shoes do reach loose thresholds
