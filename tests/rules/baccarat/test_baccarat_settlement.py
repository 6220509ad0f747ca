"""Settlement in integer cents: § 541.8, § 541.12(b), § 541.13, § 631c.5(d)-(k)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.cards import RANKS, SUITS, Card, parse_cards
from firmware_host.rules.baccarat.deal import Deal, RoundResult, resolve
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.rules.baccarat.settlement import (
    CommissionLedger,
    SettledWager,
    Wager,
    WagerOutcome,
    settle,
    settle_pairs,
    vigorish,
)

STANDARD = RulesSubmission()
COMMISSION_FREE = RulesSubmission(variant="commission-free")
BANKER_WINS = resolve(parse_cards("2H 9S 5C KD"))  # player 2+5=7 stays, banker 9 natural
PLAYER_WINS = resolve(parse_cards("9S 2H KD 5C"))  # player natural 9 over 7
TIE = resolve(parse_cards("7S 7H KD KC"))  # 7-7
BANKER_SIX_TWO_CARDS = resolve(parse_cards("KS 3H KD 3C QS"))  # player 0 draws 0, banker 6 stays
BANKER_SIX_THREE_CARDS = resolve(parse_cards("KS 3H KD KC KH 3D"))  # banker 3 draws 3
SIX_SIX_TIE = resolve(parse_cards("6S 3H KD 3C"))


def only(result: RoundResult, wager: Wager, rules: RulesSubmission = STANDARD) -> SettledWager:
    (line,) = settle(result, [wager], rules).wagers
    return line


# -- Wager validation -------------------------------------------------------------------


@pytest.mark.parametrize("seat", [0, 8, -1, True, "1"])
def test_541_2_a_wager_seat_must_be_1_to_7(seat: object) -> None:
    with pytest.raises(RulesError, match="seat .*1 to 7"):
        Wager(seat, "banker", 100)  # type: ignore[arg-type]


@pytest.mark.parametrize("amount", [0, -100, 1.5, True, "100"])
def test_wager_amount_must_be_positive_whole_cents(amount: object) -> None:
    with pytest.raises(RulesError, match="amount"):
        Wager(1, "banker", amount)  # type: ignore[arg-type]


def test_wager_kind_must_be_known() -> None:
    with pytest.raises(RulesError, match="'dragon'"):
        Wager(1, "dragon", 100)


@pytest.mark.parametrize("kind", ["player_pair", "banker_pair", "lucky_six"])
def test_541_8_a_standard_table_refuses_commission_free_wagers(kind: str) -> None:
    with pytest.raises(RulesError, match=f"'{kind}': not offered"):
        settle(BANKER_WINS, [Wager(1, kind, 100)], STANDARD)


def test_a_seat_has_one_wager_of_each_kind() -> None:
    with pytest.raises(RulesError, match="seat 3: two banker wagers"):
        settle(BANKER_WINS, [Wager(3, "banker", 100), Wager(3, "banker", 200)], STANDARD)


# -- § 541.8 results and § 541.13 payouts -------------------------------------------------


def test_541_8_a_1_banker_wager_wins_loses_and_pushes() -> None:
    assert only(BANKER_WINS, Wager(1, "banker", 1000)).outcome is WagerOutcome.WIN
    assert only(PLAYER_WINS, Wager(1, "banker", 1000)).outcome is WagerOutcome.LOSE
    push = only(TIE, Wager(1, "banker", 1000))
    assert (push.outcome, push.payout, push.commission, push.returned, push.net) == (WagerOutcome.PUSH, 0, 0, 1000, 0)


def test_541_8_a_2_player_wager_wins_loses_and_pushes_and_541_13_a_pays_1_to_1() -> None:
    win = only(PLAYER_WINS, Wager(1, "player", 1000))
    assert (win.outcome, win.payout, win.commission, win.returned, win.net) == (WagerOutcome.WIN, 1000, 0, 1000, 1000)
    lose = only(BANKER_WINS, Wager(1, "player", 1000))
    assert (lose.outcome, lose.returned, lose.net) == (WagerOutcome.LOSE, 0, -1000)
    assert only(TIE, Wager(1, "player", 1000)).outcome is WagerOutcome.PUSH


def test_541_8_a_3_and_541_13_b_tie_pays_8_to_1_or_the_submitted_odds() -> None:
    assert only(TIE, Wager(1, "tie", 500)).payout == 4000
    assert only(TIE, Wager(1, "tie", 500), RulesSubmission(tie_payout=9)).payout == 4500
    assert only(BANKER_WINS, Wager(1, "tie", 500)).outcome is WagerOutcome.LOSE


@pytest.mark.parametrize(("percent", "commission"), [(5, 50), (4, 40)])
def test_541_13_c_banker_win_pays_1_to_1_less_commission(percent: int, commission: int) -> None:
    line = only(BANKER_WINS, Wager(1, "banker", 1000), RulesSubmission(commission_percent=percent))
    assert (line.payout, line.commission, line.commission_deferred) == (1000, commission, False)
    assert line.net == 1000 - commission


@pytest.mark.parametrize(
    ("amount", "percent", "rounded", "expected"),
    [
        (30, 5, True, 5),  # 1.5 cents -> 5 cents
        (30, 5, False, 2),  # 1.5 cents -> 2 cents
        (100, 5, True, 5),  # exactly 5 cents stays 5
        (100, 5, False, 5),
        (101, 5, True, 10),  # 5.05 cents -> 10 cents
        (120, 4, True, 5),  # 4.8 cents -> 5
        (125, 4, True, 5),  # 5 cents exactly
        (130, 4, True, 10),  # 5.2 cents -> 10
        (25, 4, False, 1),
        (1, 5, False, 1),  # 0.05 cent -> 1 cent: the house never collects a fraction
        (1, 5, True, 5),
        (10000, 5, True, 500),
    ],
)
def test_541_13_d_vigorish_rounding(amount: int, percent: int, rounded: bool, expected: int) -> None:
    assert vigorish(amount, percent, round_up_to_5_cents=rounded) == expected


def test_541_13_d_five_percent_of_30_cents_is_charged_as_5_cents_when_rounding() -> None:
    rules = RulesSubmission(round_commission_up_to_5_cents=True)
    assert only(BANKER_WINS, Wager(1, "banker", 30), rules).commission == 5


@given(st.integers(1, 10**8), st.sampled_from([4, 5]), st.booleans())
def test_541_13_d_vigorish_is_the_exact_amount_rounded_up_at_most_to_the_next_5_cents(
    amount: int, percent: int, rounded: bool
) -> None:
    cents = vigorish(amount, percent, round_up_to_5_cents=rounded)
    exact = amount * percent  # hundredths of a cent
    assert cents * 100 >= exact
    step = 5 if rounded else 1
    assert (cents - step) * 100 < exact
    assert cents % step == 0


def test_541_13_e_deferred_commission_is_marked_per_seat_and_accumulates() -> None:
    rules = RulesSubmission(commission_collection="deferred")
    first = settle(BANKER_WINS, [Wager(2, "banker", 1000), Wager(6, "banker", 200)], rules)
    assert first.commission_collected == 0 and first.commission_deferred == 60
    assert all(line.commission_deferred for line in first.wagers)
    assert (first.ledger.owed_by(2), first.ledger.owed_by(6), first.ledger.owed_by(4)) == (50, 10, 0)
    second = settle(BANKER_WINS, [Wager(2, "banker", 400)], rules, deferred=first.ledger)
    assert second.ledger.owed_by(2) == 70 and second.ledger.total == 80
    assert first.ledger.owed_by(2) == 50  # the ledger is a value: the old one is unchanged


def test_541_13_e_outstanding_commission_is_collected_before_the_reshuffle() -> None:
    ledger = CommissionLedger().mark(2, 50).mark(6, 10).mark(4, 5)
    collected, emptied = ledger.collect_all()
    assert collected == ((6, 10), (4, 5), (2, 50))  # highest-numbered seat first
    assert emptied == CommissionLedger() and emptied.total == 0


@pytest.mark.parametrize(("seat", "cents"), [(0, 5), (8, 5), (3, 0), (3, -5), (3, 2.5)])
def test_541_13_e_ledger_refuses_a_bad_seat_or_amount(seat: int, cents: int) -> None:
    with pytest.raises(RulesError, match="vigorish"):
        CommissionLedger().mark(seat, cents)


def test_541_13_e_commission_is_collected_when_the_player_leaves() -> None:
    ledger = CommissionLedger().mark(2, 50).mark(6, 10)
    cents, after = ledger.collect(2)
    assert cents == 50 and after.owed_by(2) == 0 and after.total == 10
    assert ledger.collect(5) == (0, ledger)


def test_losing_and_pushed_banker_wagers_owe_no_commission() -> None:
    rules = RulesSubmission(commission_collection="deferred")
    settlement = settle(TIE, [Wager(1, "banker", 1000)], rules)
    assert settlement.ledger == CommissionLedger()


@pytest.mark.parametrize(("amount", "charged"), [(1000, 250), (30, 8), (10, 3)])
def test_541_13_f_tie_alternative_charges_25_percent_of_banker_wagers_on_a_tie(amount: int, charged: int) -> None:
    rules = RulesSubmission(tie_commission_alternative=True)
    line = only(TIE, Wager(1, "banker", amount), rules)
    assert (line.outcome, line.commission, line.commission_deferred) == (WagerOutcome.PUSH, charged, False)
    assert line.net == -charged
    assert line.section.endswith("541.13(f)")


def test_541_13_f_tie_alternative_vigorish_rounds_up_to_5_cents_when_chosen() -> None:
    rules = RulesSubmission(tie_commission_alternative=True, round_commission_up_to_5_cents=True)
    assert only(TIE, Wager(1, "banker", 30), rules).commission == 10  # 7.5 -> 10


def test_541_13_f_tie_alternative_takes_no_commission_on_banker_wins() -> None:
    rules = RulesSubmission(tie_commission_alternative=True)
    line = only(BANKER_WINS, Wager(1, "banker", 1000), rules)
    assert (line.payout, line.commission) == (1000, 0)
    assert only(TIE, Wager(1, "player", 1000), rules).commission == 0  # only banker wagers pay it


# -- § 541.12(b) order ------------------------------------------------------------------


def test_541_12_b_losers_first_then_winners_from_the_highest_seat_down() -> None:
    wagers = [
        Wager(1, "banker", 100),
        Wager(7, "player", 100),
        Wager(3, "banker", 100),
        Wager(5, "tie", 100),
        Wager(6, "banker", 100),
        Wager(2, "player", 100),
    ]
    order = [(line.outcome.value, line.wager.seat) for line in settle(BANKER_WINS, wagers, STANDARD).wagers]
    assert order == [("lose", 7), ("lose", 5), ("lose", 2), ("win", 6), ("win", 3), ("win", 1)]


def test_541_12_b_pushes_are_returned_after_the_winners() -> None:
    wagers = [Wager(1, "banker", 100), Wager(4, "tie", 100), Wager(2, "player", 100)]
    order = [(line.outcome.value, line.wager.seat) for line in settle(TIE, wagers, STANDARD).wagers]
    assert order == [("win", 4), ("push", 2), ("push", 1)]


@given(
    st.lists(
        st.builds(Wager, st.integers(1, 7), st.sampled_from(["banker", "player", "tie"]), st.integers(1, 10**6)),
        max_size=21,
        unique_by=lambda wager: (wager.seat, wager.kind),
    ),
    st.sampled_from([BANKER_WINS, PLAYER_WINS, TIE]),
)
def test_541_12_b_order_property(wagers: list[Wager], result: RoundResult) -> None:
    lines = settle(result, wagers, STANDARD).wagers
    assert sorted((line.wager for line in lines), key=repr) == sorted(wagers, key=repr)  # each wager exactly once
    outcomes = [line.outcome for line in lines]
    rank = {WagerOutcome.LOSE: 0, WagerOutcome.WIN: 1, WagerOutcome.PUSH: 2}
    assert [rank[o] for o in outcomes] == sorted(rank[o] for o in outcomes)
    for group in (WagerOutcome.LOSE, WagerOutcome.WIN, WagerOutcome.PUSH):
        seats = [line.wager.seat for line in lines if line.outcome is group]
        assert seats == sorted(seats, reverse=True)
    assert all(isinstance(line.payout, int) and isinstance(line.commission, int) for line in lines)


# -- § 631c.5 commission-free -------------------------------------------------------------


def test_631c_5_i_commission_free_banker_wins_pay_1_to_1_without_commission() -> None:
    line = only(BANKER_WINS, Wager(1, "banker", 1000), COMMISSION_FREE)
    assert (line.payout, line.commission) == (1000, 0)


@pytest.mark.parametrize("result", [BANKER_SIX_TWO_CARDS, BANKER_SIX_THREE_CARDS])
def test_631c_5_i_commission_free_banker_win_with_6_pays_1_to_2(result: RoundResult) -> None:
    assert only(result, Wager(1, "banker", 1000), COMMISSION_FREE).payout == 500
    assert only(result, Wager(1, "banker", 25), COMMISSION_FREE).payout == 12  # 12.5 cents, rounded down


def test_631c_5_j_commission_free_tie_pays_8_to_1() -> None:
    assert only(TIE, Wager(1, "tie", 100), COMMISSION_FREE).payout == 800


def test_631c_5_h_commission_free_player_pays_1_to_1() -> None:
    assert only(PLAYER_WINS, Wager(1, "player", 100), COMMISSION_FREE).payout == 100


def test_631c_5_k_1_lucky_six_on_two_cards_pays_12_to_1() -> None:
    assert only(BANKER_SIX_TWO_CARDS, Wager(1, "lucky_six", 100), COMMISSION_FREE).payout == 1200


def test_631c_5_k_2_lucky_six_on_three_cards_pays_20_to_1() -> None:
    assert only(BANKER_SIX_THREE_CARDS, Wager(1, "lucky_six", 100), COMMISSION_FREE).payout == 2000


def test_631c_5_c_3_lucky_six_loses_when_banker_six_loses_or_banker_is_not_six() -> None:
    banker_six_loses = resolve(parse_cards("7S 3H KD 3C"))
    assert only(banker_six_loses, Wager(1, "lucky_six", 100), COMMISSION_FREE).outcome is WagerOutcome.LOSE
    assert only(BANKER_WINS, Wager(1, "lucky_six", 100), COMMISSION_FREE).outcome is WagerOutcome.LOSE


def test_631c_5_c_3_lucky_six_on_a_six_six_tie_follows_the_rules_submission() -> None:
    assert only(SIX_SIX_TIE, Wager(1, "lucky_six", 100), COMMISSION_FREE).outcome is WagerOutcome.LOSE
    pushes = RulesSubmission(variant="commission-free", lucky_six_on_six_six_tie="push")
    line = only(SIX_SIX_TIE, Wager(1, "lucky_six", 100), pushes)
    assert (line.outcome, line.returned) == (WagerOutcome.PUSH, 100)


def test_631c_5_g_pairs_pay_11_to_1_in_the_final_settlement_too() -> None:
    pairs = resolve(parse_cards("KS QH KD QD 2C 3C"))
    assert only(pairs, Wager(1, "player_pair", 100), COMMISSION_FREE).payout == 1100
    assert only(pairs, Wager(1, "banker_pair", 100), COMMISSION_FREE).payout == 1100
    assert only(BANKER_WINS, Wager(1, "player_pair", 100), COMMISSION_FREE).outcome is WagerOutcome.LOSE


def test_631c_5_d_pair_wagers_are_settled_on_the_initial_four_cards() -> None:
    deal = Deal()
    for card in parse_cards("4S 9H 4D 9C"):  # player 4-4 (8, a natural), banker 9-9
        deal = deal.add(card)
    settlement = settle_pairs(deal, [Wager(2, "player_pair", 100), Wager(5, "banker_pair", 50)], COMMISSION_FREE)
    assert [(line.wager.seat, line.outcome.value, line.payout) for line in settlement.wagers] == [
        (5, "win", 550),
        (2, "win", 1100),
    ]
    deal = Deal()
    for card in parse_cards("4S 9H 5D 8C"):
        deal = deal.add(card)
    (line,) = settle_pairs(deal, [Wager(2, "player_pair", 100)], COMMISSION_FREE).wagers
    assert line.outcome is WagerOutcome.LOSE


def test_631c_5_d_only_pair_wagers_settle_before_the_third_cards() -> None:
    deal = Deal()
    for card in parse_cards("4S 9H 4D 9C"):
        deal = deal.add(card)
    with pytest.raises(RulesError, match="only pair wagers"):
        settle_pairs(deal, [Wager(2, "banker", 100)], COMMISSION_FREE)
    with pytest.raises(RulesError, match="initial four cards"):
        settle_pairs(Deal().add(Card("4", "S")), [Wager(2, "player_pair", 100)], COMMISSION_FREE)
    with pytest.raises(RulesError, match="not offered"):
        settle_pairs(deal, [Wager(2, "player_pair", 100)], STANDARD)


@given(st.lists(st.builds(Card, st.sampled_from(RANKS), st.sampled_from(SUITS)), min_size=6, max_size=6))
def test_631c_5_d_early_pair_settlement_equals_the_final_one(cards: list[Card]) -> None:
    wagers = [Wager(1, "player_pair", 100), Wager(2, "banker_pair", 100)]
    deal = Deal()
    for card in cards[:4]:
        deal = deal.add(card)
    early = settle_pairs(deal, wagers, COMMISSION_FREE).wagers
    final = settle(resolve(cards), wagers, COMMISSION_FREE).wagers
    assert early == final
