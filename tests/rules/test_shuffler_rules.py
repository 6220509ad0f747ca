"""The shuffler rules, section by section (58 Pa. Code § 541.3(b), (c), § 541.5(h)(2), § 541.15)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.events.shuffler import (
    BatchLoaded,
    BatchReleased,
    BatchStatus,
    ShuffleCompleted,
    ShufflerFault,
    ShuffleStarted,
)  # fmt: skip
from firmware_host.errors import RulesError
from firmware_host.rules.clock import Instant
from firmware_host.rules.shuffler import (
    ShufflerConfig,
    ShufflerRefusal,
    ShufflerState,
    Step,
    check_round_start,
    deck_clock,
    end_shoe,
    expected_cards,
    idle_due,
    idle_table,
    load_shoe,
    new_state,
    next_batch,
    on_batch_loaded,
    on_batch_released,
    on_batch_status,
    on_event,
    on_shuffle_abandoned,
    on_shuffle_completed,
    on_shuffle_started,
    record_activity,
    retire_batch,
    to_shuffle,
)  # fmt: skip
from firmware_host.tables.events import ClockTick

HOUR = 3600.0
FULL = 8 * 52


def loaded(config: ShufflerConfig = ShufflerConfig(), at: float = 0.0) -> ShufflerState:
    """Both batches in the shuffler as the Rules Submission wants them."""
    state = new_state(config)
    for batch, colour in zip(config.batches, config.back_colours):
        state = on_batch_loaded(state, batch, config.decks_per_batch, colour, at).state
    return state


def shuffled(
    state: ShufflerState, batch: str, at: float = 0.0, cards: int | None = None, digest: str | None = None
) -> Step:
    state = on_shuffle_started(state, batch, at).state
    return on_shuffle_completed(state, batch, expected_cards(state, batch) if cards is None else cards,
                                digest or f"{batch}-{at}", at)  # fmt: skip


def ready_table(at: float = 0.0) -> ShufflerState:
    """Both batches shuffled and verified."""
    return shuffled(shuffled(loaded(at=at), "A", at).state, "B", at).state


def refusal(section: str, call: object, *args: object) -> ShufflerRefusal:
    with pytest.raises(ShufflerRefusal) as info:
        call(*args)  # type: ignore[operator]
    assert info.value.section == section, str(info.value)
    assert f"§ {section}" in str(info.value)
    return info.value


# -- § 541.3(b): 12 to 16 decks, equal batches, different colours ---------------------------------------


@pytest.mark.parametrize("decks", [6, 7, 8])
def test_541_3_b_12_to_16_decks_in_all(decks: int) -> None:
    config = ShufflerConfig(decks_per_batch=decks)
    assert 2 * decks in range(12, 17)
    assert expected_cards(new_state(config), "B") == 52 * decks


@pytest.mark.parametrize("decks", [5, 9])
def test_541_3_b_fewer_than_12_or_more_than_16_decks_are_refused(decks: int) -> None:
    with pytest.raises(RulesError, match=r"decks_per_batch: .*12 to 16 in all \(§ 541.3\(b\)\)"):
        ShufflerConfig(decks_per_batch=decks)


def test_541_3_b_2_a_batch_set_up_for_other_decks_may_not_be_dealt() -> None:
    state = new_state(ShufflerConfig())
    step = on_batch_loaded(state, "A", 7, "red", 0)
    assert step.notices[0].section == "541.3(b)(2)" and "7 decks" in step.notices[0].text
    state = on_batch_loaded(step.state, "B", 8, "blue", 0).state
    state = shuffled(state, "A").state  # counted right, but the slot is wrong
    assert state.batch("A").stage == "rejected"
    refusal("541.3(b)(4)", load_shoe, state, "A", 1)


def test_541_3_b_3_the_batches_backs_must_differ_in_colour() -> None:
    with pytest.raises(RulesError, match=r"back_colours: .*must differ in colour \(§ 541.3\(b\)\(3\)\)"):
        ShufflerConfig(back_colours=("Red", "red "))
    step = on_batch_loaded(new_state(ShufflerConfig()), "B", 8, "red", 0)
    assert step.state.batch("B").stage == "rejected"
    assert step.notices[0].section == "541.3(b)(3)" and "'red'" in step.notices[0].text


# -- § 541.3(b)(4): shuffled in the device while the other is in play; only a verified batch --------------


def test_541_3_b_4_only_a_batch_whose_shuffle_completed_with_the_right_count_may_be_loaded() -> None:
    state = loaded()
    assert "not been shuffled" in str(refusal("541.3(b)(4)", load_shoe, state, "A", 1))
    state = on_shuffle_started(state, "A", 1).state
    assert "not completed" in str(refusal("541.3(b)(4)", load_shoe, state, "A", 2))
    step = on_shuffle_completed(state, "A", FULL - 1, "x", 3)
    assert step.notices[0].code == "card-count" and "415 cards, expected 416 (1 missing)" in step.notices[0].text
    assert "415 cards" in str(refusal("541.3(b)(4)", load_shoe, step.state, "A", 4))
    state = shuffled(shuffled(step.state, "A", 5).state, "B", 5).state
    assert load_shoe(state, "A", 6).state.in_play == "A"


def test_541_3_b_4_one_batch_is_shuffled_while_the_other_is_in_play() -> None:
    state = shuffled(loaded(), "A").state
    assert to_shuffle(state) == "B"
    state = load_shoe(state, "A", 1).state
    assert to_shuffle(state) == "B"
    state = on_shuffle_started(state, "B", 2).state
    assert to_shuffle(state) is None  # one shuffle at a time
    no_b = on_batch_loaded(new_state(ShufflerConfig()), "A", 8, "red", 0).state
    assert "not in the shuffler" in str(refusal("541.3(b)(4)", load_shoe, shuffled(no_b, "A").state, "A", 1))


def test_541_3_b_4_an_abandoned_shuffle_must_be_repeated() -> None:
    state = on_shuffle_started(loaded(), "A", 0).state
    step = on_shuffle_abandoned(state, "A", "jam", 1)
    assert step.state.batch("A").stage == "loaded" and "jam" in step.notices[0].text
    assert "abandoned (jam)" in str(refusal("541.3(b)(4)", load_shoe, step.state, "A", 2))
    assert to_shuffle(step.state) == "A"


def test_541_3_b_4_a_batch_released_without_verification_is_a_fault() -> None:
    state = shuffled(loaded(), "A", cards=FULL + 1).state
    step = on_batch_released(state, "A", FULL + 1, 1)
    assert step.notices[0].severity == "fault" and "417 cards" in step.notices[0].text
    good = shuffled(loaded(), "A").state
    assert on_batch_released(good, "A", FULL, 1).state.batch("A").stage == "released"


# -- § 541.3(b)(5): alternation; § 541.3(b)(6): one batch in the discard rack -----------------------------


def play_shoe(state: ShufflerState, batch: str, at: float) -> ShufflerState:
    """Load a shoe from ``batch``, end it, put the batch back and shuffle it."""
    state = end_shoe(load_shoe(state, batch, at).state, at + 1).state
    state = on_batch_loaded(state, batch, 8, ("red", "blue")[batch == "B"], at + 2).state
    return shuffled(state, batch, at + 3).state


def test_541_3_b_5_the_batches_alternate_every_shoe() -> None:
    state = ready_table()
    assert next_batch(state) is None
    state = play_shoe(state, "A", 10)
    assert next_batch(state) == "B"
    assert "previous shoe" in str(refusal("541.3(b)(5)", load_shoe, state, "A", 20))
    state = play_shoe(state, "B", 30)
    assert next_batch(state) == "A"
    assert load_shoe(state, "A", 40).state.shoes == 3


def test_541_3_b_6_only_one_batch_in_the_discard_rack() -> None:
    state = end_shoe(load_shoe(ready_table(), "A", 1).state, 2).state
    assert state.batch("A").stage == "discard"
    assert "discard rack" in str(refusal("541.3(b)(6)", load_shoe, state, "B", 3))
    state = on_batch_loaded(state, "A", 8, "red", 4).state
    assert load_shoe(state, "B", 5).state.in_play == "B"


def test_541_3_b_6_a_second_shoe_while_one_is_in_play_is_refused() -> None:
    state = load_shoe(ready_table(), "A", 1).state
    assert "still in play" in str(refusal("541.3(b)(6)", load_shoe, state, "B", 2))
    with pytest.raises(RulesError, match="no shoe is in play"):
        end_shoe(end_shoe(state, 3).state, 4)


# -- § 541.3(c): decks changed at least every 4 hours -------------------------------------------------------


def test_541_3_c_deck_clock_warns_once_before_and_refuses_after_4_hours() -> None:
    state = load_shoe(ready_table(at=0), "A", 60).state
    assert check_round_start(state, 3 * HOUR).notices == ()
    step = check_round_start(state, 4 * HOUR - 600)
    (warning,) = step.notices
    assert warning.severity == "warning" and warning.section == "541.3(c)" and "within 10 min" in warning.text
    assert check_round_start(step.state, 4 * HOUR - 300).notices == ()  # given once
    expired = refusal("541.3(c)", check_round_start, step.state, 4 * HOUR)
    assert expired.code == "deck-clock-expired"
    assert [c.status for c in deck_clock(step.state, 4 * HOUR + 1)] == ["expired", "expired"]


def test_541_3_c_a_batch_past_its_life_may_not_start_a_shoe_until_its_decks_are_changed() -> None:
    state = ready_table(at=0)
    refusal("541.3(c)", load_shoe, state, "B", 4 * HOUR + 1)
    state = retire_batch(state, "B", 4 * HOUR + 1).state
    assert state.batch("B").stage == "absent" and state.batch("B").opened_at is None
    state = on_batch_loaded(state, "B", 8, "blue", 4 * HOUR + 2).state  # new decks: a new clock
    state = shuffled(state, "B", 4 * HOUR + 3).state
    assert load_shoe(state, "B", 4 * HOUR + 4).state.in_play == "B"


def test_541_3_c_a_batch_coming_back_after_its_shoe_keeps_its_clock() -> None:
    state = play_shoe(ready_table(at=0), "A", HOUR)
    assert state.batch("A").opened_at == Instant(0.0)


def test_541_3_c_the_deck_life_may_be_shorter_but_not_longer() -> None:
    with pytest.raises(RulesError, match=r"deck_life_s: .*at least every 4 hours"):
        ShufflerConfig(deck_life_s=5 * 3600)
    config = ShufflerConfig(deck_life_s=2 * 3600, deck_warning_s=60)
    state = load_shoe(ready_table(), "A", 0).state
    state = dataclasses.replace(state, config=config)
    refusal("541.3(c)", check_round_start, state, 2 * HOUR)


def test_541_3_c_decks_in_play_cannot_be_retired() -> None:
    state = load_shoe(ready_table(), "A", 1).state
    with pytest.raises(ShufflerRefusal, match="end its shoe"):
        retire_batch(state, "A", 2)


# -- § 541.5(h)(2): an idle table -----------------------------------------------------------------------


def test_541_5_h_2_idle_table_sends_the_cards_in_play_to_the_shuffler_and_the_other_batch_comes_out() -> None:
    state = load_shoe(ready_table(), "A", 0).state
    state = record_activity(state, 100)
    assert not idle_due(state, 100 + 899)
    assert idle_due(state, 100 + 900)
    step = idle_table(state, 1000)
    assert step.state.in_play is None and step.state.batch("A").stage == "discard"
    assert [n.section for n in step.notices] == ["541.5(h)(2)"]
    state = on_batch_loaded(step.state, "A", 8, "red", 1001).state
    assert next_batch(state) == "B"
    assert load_shoe(state, "B", 1002).state.in_play == "B"  # not reshuffled: no player asked


def test_541_5_h_2_a_player_may_ask_for_the_removed_batch_to_be_reshuffled() -> None:
    state = load_shoe(ready_table(), "A", 0).state
    step = idle_table(state, 1000, player_requests_reshuffle=True)
    assert step.state.batch("B").stage == "loaded"
    assert "a player asked" in step.notices[-1].text
    state = on_batch_loaded(step.state, "A", 8, "red", 1001).state
    refusal("541.3(b)(4)", load_shoe, state, "B", 1002)
    assert to_shuffle(state) in ("A", "B")


# -- § 541.15: a continuous shuffling device ------------------------------------------------------------


def test_541_15_continuous_mode_uses_one_batch_without_alternation() -> None:
    config = ShufflerConfig(continuous=True, decks_per_batch=6, back_colours=("red", "red"))
    state = loaded(config)
    assert [b.name for b in state.batches] == ["A"] and next_batch(state) == "A"
    state = shuffled(state, "A").state
    state = end_shoe(load_shoe(state, "A", 1).state, 2).state
    assert state.batch("A").stage == "loaded"  # the device takes its cards back itself
    state = shuffled(state, "A", 3).state
    assert load_shoe(state, "A", 4).state.shoes == 2  # the same batch again
    with pytest.raises(RulesError, match="this table uses batch A"):
        state.batch("B")
    refusal(
        "541.3(c)", load_shoe, shuffled(end_shoe(load_shoe(state, "A", 5).state, 6).state, "A", 7).state, "A", 4 * HOUR
    )


# -- the shuffler's own evidence: repeated orders, status after a reconnection --------------------------


def test_a_shuffle_repeating_a_dealt_order_rejects_the_batch() -> None:
    state = load_shoe(ready_table(), "A", 0).state
    (dealt,) = state.batch("A").dealt_digests
    state = on_batch_loaded(end_shoe(state, 1).state, "A", 8, "red", 2).state
    state = on_shuffle_started(state, "A", 3).state
    step = on_shuffle_completed(state, "A", FULL, dealt, 4)  # the order of the shoe just dealt, again
    assert step.state.batch("A").stage == "rejected" and step.notices[0].code == "same-order"
    assert "did not shuffle" in str(refusal("541.3(b)(4)", load_shoe, step.state, "A", 5))
    lenient = dataclasses.replace(state, config=ShufflerConfig(repeated_order_blocks=False))
    step = on_shuffle_completed(lenient, "A", FULL, dealt, 4)
    assert step.state.batch("A").stage == "ready" and step.notices[0].severity == "warning"


def test_status_after_a_reconnection_judges_a_shuffle_completed_while_unplugged() -> None:
    state = on_shuffle_started(loaded(), "A", 0).state
    step = on_batch_status(state, "A", "shuffled", 8, "red", FULL - 1, "d", 5)
    assert step.state.batch("A").stage == "rejected" and step.notices[0].code == "card-count"
    step = on_batch_status(state, "A", "loaded", 8, "red", 0, "", 5)
    assert step.state.batch("A").stage == "loaded" and step.notices[0].code == "shuffle-abandoned"
    ready = shuffled(loaded(), "A", digest="d").state
    assert on_batch_status(ready, "A", "shuffled", 8, "red", FULL, "d", 5).state == ready  # nothing new
    first = on_batch_status(new_state(ShufflerConfig()), "B", "shuffled", 8, "blue", FULL, "e", 5).state
    assert first.batch("B").stage == "ready" and first.batch("B").opened_at == Instant(5.0)


# -- properties: whatever happens, the rules hold ---------------------------------------------------------

ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(["load", "start", "complete", "complete_bad", "abandon", "shoe", "end", "idle", "release"]),
        st.sampled_from(["A", "B"]),
    ),
    max_size=60,
)


@settings(max_examples=200, deadline=None)
@given(ACTIONS)
def test_any_sequence_keeps_alternation_one_batch_in_play_and_only_verified_shoes(
    actions: list[tuple[str, str]],
) -> None:
    state = new_state(ShufflerConfig())
    shoes: list[str] = []
    for at, (action, batch) in enumerate(actions):
        colour = "red" if batch == "A" else "blue"
        try:
            if action == "load":
                state = on_batch_loaded(state, batch, 8, colour, at).state
            elif action == "start":
                state = on_shuffle_started(state, batch, at).state
            elif action in ("complete", "complete_bad"):
                cards = FULL if action == "complete" else FULL + 1
                state = on_shuffle_completed(state, batch, cards, f"{batch}{at}", at).state
            elif action == "abandon":
                state = on_shuffle_abandoned(state, batch, "jam", at).state
            elif action == "release":
                state = on_batch_released(state, batch, FULL, at).state
            elif action == "shoe":
                before = state.batch(batch)
                state = load_shoe(state, batch, at).state
                assert before.stage in ("ready", "released") and before.cards == FULL  # § 541.3(b)(4)
                shoes.append(batch)
            elif action == "end":
                state = end_shoe(state, at).state
            elif action == "idle" and state.in_play:
                state = idle_table(state, at).state
        except RulesError:
            pass
        in_play = [b.name for b in state.batches if b.stage == "in_play"]
        out = [b.name for b in state.batches if b.stage in ("in_play", "discard")]
        assert len(in_play) <= 1 and len(out) <= 1  # § 541.3(b)(6)
        assert state.in_play == (in_play[0] if in_play else None)
    assert all(a != b for a, b in zip(shoes, shoes[1:]))  # § 541.3(b)(5)


# -- the driver's events, through on_event ----------------------------------------------------------------


def test_on_event_applies_the_drivers_events() -> None:
    state = new_state(ShufflerConfig())
    for ev in (BatchLoaded("shuffler", "A", 8, "red"), BatchStatus("shuffler", "B", "loaded", 8, "blue", 0, 0, ""),
               ShuffleStarted("shuffler", "A")):  # fmt: skip
        state = on_event(state, ev, 1).state
    assert [b.stage for b in state.batches] == ["shuffling", "loaded"]
    step = on_event(state, ShufflerFault("shuffler", "jam", "cards jammed", "A"), 2)
    assert step.state.batch("A").stage == "loaded" and "abandoned (jam)" in step.notices[0].text
    assert on_event(state, ShufflerFault("shuffler", "door_open", "door open"), 2).state == state  # no batch named
    state = on_event(state, ShuffleCompleted("shuffler", "A", FULL, "ab12"), 3).state
    state = on_event(state, BatchReleased("shuffler", "A", FULL), 4).state
    assert state.batch("A").stage == "released"
    assert on_event(state, ClockTick("clock"), 5).state == state
