"""Properties over whole shoes and arbitrary input: agreement with resolve, replay, robustness."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.events import DeviceEvent
from drivers.events.lifecycle import DeviceFault, DeviceLost
from drivers.events.shoe import CardFaceUp, CardRead, CardUnreadable, CutCard, ShoeEmpty
from firmware_host.rules.baccarat.cards import RANKS, SUITS, full_shoe, parse_cards
from firmware_host.rules.baccarat.deal import resolve
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.rules.baccarat.variant import Variant
from firmware_host.rules.baccarat.wagers import WAGER_KINDS
from firmware_host.tables.baccarat.controller import BURN_COUNT, COMMANDS
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import ClockTick, DealerCommand, WagerPlaced

from .table import SHOE_UP, Driver, cards, command, follow_prompts, wager

VARIANTS = st.sampled_from([RulesSubmission(), RulesSubmission(variant=Variant.COMMISSION_FREE)])


def _plain(decisions: list[Any]) -> list[dict[str, Any]]:
    """Each decision's fields as they are (not :func:`dataclasses.asdict`'s deep copy, which also
    turns a dataclass inside ``data`` into a dict, so that JSON would take it)."""
    return [{field.name: getattr(decision, field.name) for field in _DECISION_FIELDS} for decision in decisions]


_DECISION_FIELDS = dataclasses.fields(Decision)


@settings(max_examples=40, deadline=None)
@given(shoe=st.permutations([str(card) for card in full_shoe(1)]), rules=VARIANTS, face_down=st.booleans(),
       seats=st.lists(st.tuples(st.integers(1, 7), st.sampled_from(WAGER_KINDS)), max_size=4))  # fmt: skip
def test_541_11_every_completed_round_of_a_random_shoe_equals_resolve_on_its_cards(
    shoe: list[str], rules: RulesSubmission, face_down: bool, seats: list[tuple[int, str]]
) -> None:
    driver = Driver(rules, decks=1, initial_cards_face_down=face_down)
    burn = 1 + BURN_COUNT[shoe[0][0]]
    driver.start(decks=1, burn=" ".join(shoe[:burn]))
    offered = {(seat, kind) for seat, kind in seats if kind in rules.offered_wagers}
    remaining = iter(shoe[burn:])
    while True:
        driver.feed([wager(seat, kind, 100 * seat) for seat, kind in sorted(offered)])
        if follow_prompts(driver, remaining) is None:
            break
    driver.feed(ShoeEmpty(device="shoe"))
    results = driver.results()
    assert results and all(r["round"] == n for n, r in enumerate(results, 1))
    for result in results[:-1]:
        assert result["status"] == "completed"
        assert result == {**result, **resolve(parse_cards(" ".join(result["cards"])), rules.variant).to_json_dict()}
        assert len(result["settlement"]) == len(offered)
    shoe_result = driver.of("shoe_result")[-1]
    dealt = sum(r["cards_used"] for r in results)
    assert (shoe_result["cards_read"], shoe_result["burned"] + dealt) == (52, 52)
    assert shoe_result["composition_ok"] is True
    by_round = {r["round"]: r for r in results}
    for decision in driver.decisions:
        if decision.type == "prompt" and decision.data["action"] == "deal":
            exposed, final = decision.data["exposed"], by_round[decision.round]
            if exposed is None:  # § 541.9(c)(2): only while the initial cards lie face down
                assert face_down
                continue
            # A prompt names only cards of its own round, as dealt so far (§ 541.9(c)(1), § 541.10(c)).
            for side in ("player", "banker"):
                assert exposed[side] == final[side][: len(exposed[side])]


def _scripted_events() -> list[DeviceEvent]:
    """A shoe with a bit of everything: wagers, irregularities, a pause, the cover card."""
    return [
        SHOE_UP, command("shoe_loaded", decks=8), *cards("3D 4D 5D 6D", burn=True),
        wager(3, "banker", 1000), wager(5, "player", 2500), command("no_more_bets"), *cards("9S 2H KD 5C"),
        *cards("8H"), command("card_disclosed"), *cards("QS"),
        wager(1, "tie", 100), command("no_more_bets"), *cards("2S"), CardUnreadable(device="shoe"), *cards("2D"),
        DeviceLost(device="shoe", reason="unplugged"), command("card_entered", card="3C"), SHOE_UP, *cards("4H"),
        CardFaceUp(device="shoe", rank="2", suit="C"), *cards("AC AD"), *cards("KS"),
        CutCard(device="shoe"), command("no_more_bets"), *cards("9C 9H 9D 9S"), ClockTick(device="clock"),
        wager(2, "banker", 500), command("no_more_bets"), *cards("AS"), command("void_round"),
        command("no_more_bets"), *cards("TC TH 8C 8D"), command("shoe_loaded"),
    ]  # fmt: skip


def test_replay_of_the_same_events_gives_identical_decisions_that_survive_json() -> None:
    first, second = Driver(), Driver()
    first.feed(_scripted_events())
    second.feed(_scripted_events())
    assert first.decisions == second.decisions
    plain = _plain(first.decisions)
    assert json.loads(json.dumps(plain)) == plain
    assert {d.type for d in first.decisions} >= {"round_result", "shoe_result", "prompt", "announce", "alert", "lamp"}
    assert [r["status"] for r in first.results()] == ["completed", "completed", "completed", "void", "completed"]


def test_round_results_are_complete_in_the_scripted_shoe() -> None:
    driver = Driver()
    driver.feed(_scripted_events())
    second = driver.results()[1]
    assert second["cards"] == ["2S", "3C", "2D", "4H", "KS"]
    assert [i["section"] for i in second["irregularities"]] == ["541.14(a)", "541.14(c)", "541.14(d)"]
    assert driver.of("shoe_result")[-1]["rounds"] == 5


_CARD_TEXT = st.tuples(st.sampled_from(RANKS), st.sampled_from(SUITS))
#: JSON values of the wrong type, as a console could send them.
_JUNK = st.one_of(st.none(), st.booleans(), st.text(max_size=3), st.lists(st.integers(), max_size=2))
_ARGS = st.one_of(
    st.none(),
    st.fixed_dictionaries({"decks": st.one_of(st.integers(-1, 10), _JUNK)}),
    st.fixed_dictionaries({"card": st.one_of(_CARD_TEXT.map("".join), _JUNK)}),
    st.fixed_dictionaries(
        {"seat": st.one_of(st.integers(0, 8), _JUNK), "kind": st.one_of(st.sampled_from(WAGER_KINDS), _JUNK)}
    ),
    st.fixed_dictionaries({"reason": _JUNK}),
)
_CARD = _CARD_TEXT.map(lambda rs: CardRead(device="shoe", rank=rs[0], suit=rs[1]))
#: Anything else a table can be told, valid or not.
_OTHER = st.one_of(
    _CARD_TEXT.map(lambda rs: CardRead(device="shoe", rank=rs[0], suit=rs[1], burn=True)),
    st.just(CardUnreadable(device="shoe")),
    st.just(CardFaceUp(device="shoe")),
    _CARD_TEXT.map(lambda rs: CardFaceUp(device="shoe", rank=rs[0], suit=rs[1])),
    st.just(CutCard(device="shoe")),
    st.just(ShoeEmpty(device="shoe")),
    st.just(DeviceLost(device="shoe", reason="lost")),
    st.just(DeviceFault(device="shoe", code="E1", text="jam")),
    st.just(ClockTick(device="clock")),
    st.builds(DealerCommand, device=st.just("buttons"), command=st.sampled_from([*COMMANDS, "bogus"]), args=_ARGS),
    st.builds(
        WagerPlaced,
        device=st.just("console"),
        seat=st.integers(0, 8),
        kind=st.sampled_from([*WAGER_KINDS, "x"]),
        amount=st.integers(-5, 5000),
    ),  # fmt: skip
)
#: Events that keep a fuzzed table moving: the shoe back, a shoe loaded, bets closed, a reveal.
_PROGRESS = st.sampled_from(
    [
        SHOE_UP,
        command("shoe_loaded", decks=1),
        command("no_more_bets"),
        command("reveal"),
        command("pairs_settled"),
        command("acknowledge"),
        command("card_entered", card="5H"),
    ]  # fmt: skip
)
#: Mostly cards, so that fuzzed tables play rounds and whole shoes, not only refuse input.
_EVENTS = st.one_of(_CARD, _CARD, _CARD, _CARD, _PROGRESS, _PROGRESS, _OTHER)


@settings(max_examples=150, deadline=None)
@given(events=st.lists(_EVENTS, max_size=200), rules=VARIANTS,
       face_down=st.booleans())  # fmt: skip
def test_no_event_sequence_raises_and_every_decision_is_json_plain(
    events: list[DeviceEvent], rules: RulesSubmission, face_down: bool
) -> None:
    events = [SHOE_UP, command("shoe_loaded", decks=1), *events]
    driver = Driver(rules, decks=1, initial_cards_face_down=face_down)
    driver.feed(events)  # MachineError and RulesError become alerts, never exceptions
    plain = _plain(driver.decisions)
    assert json.loads(json.dumps(plain)) == plain
    assert [r["round"] for r in driver.results()] == list(range(1, len(driver.results()) + 1))
    replayed = Driver(rules, decks=1, initial_cards_face_down=face_down)
    replayed.feed(events)
    assert replayed.decisions == driver.decisions
    json.dumps(driver.table.view())


#: Events an erring dealer feeds per example: several rounds, often a whole one-deck shoe.
STEPS = 300


def _prompted(prompt: dict[str, Any], card: str | None) -> DeviceEvent:
    """What a dealer who does as prompted feeds next (``card``: the shoe's next card, None when empty)."""
    action = prompt["action"]
    if action == "wait":
        return SHOE_UP
    if action == "load_shoe":
        return command("shoe_loaded", decks=1)
    if action in ("place_bets", "reveal"):
        return command("no_more_bets" if action == "place_bets" else "reveal")
    if action == "settle_pairs":
        return command("pairs_settled")
    if card is None:
        return ShoeEmpty(device="shoe")
    if action == "enter_card":
        return command("card_entered", card=card)
    return cards(card)[0]


@settings(max_examples=30, deadline=None)
@given(data=st.data(), rules=VARIANTS, face_down=st.booleans(), errors=st.integers(0, 4))
def test_an_erring_dealer_never_breaks_the_table_and_completed_rounds_still_equal_resolve(
    data: st.DataObject, rules: RulesSubmission, face_down: bool, errors: int
) -> None:
    driver = Driver(rules, decks=1, initial_cards_face_down=face_down)
    driver.feed(SHOE_UP)
    shoe: list[str] = []
    for _ in range(STEPS):
        if not shoe and driver.table.state == "awaiting_shoe":
            shoe = data.draw(st.permutations([str(card) for card in full_shoe(1)]), label="shoe")
        if data.draw(st.integers(0, 9), label="err") < errors:
            driver.feed(data.draw(_OTHER, label="error"))
        else:
            event = _prompted(driver.table.prompt(), shoe[0] if shoe else None)
            if isinstance(event, CardRead) or isinstance(event, DealerCommand) and event.command == "card_entered":
                shoe.pop(0)
            driver.feed(event)
    plain = _plain(driver.decisions)
    assert json.loads(json.dumps(plain)) == plain
    results = driver.results()
    assert [r["round"] for r in results] == list(range(1, len(results) + 1))
    for result in results:
        if result["status"] == "completed":
            assert result == {**result, **resolve(parse_cards(" ".join(result["cards"])), rules.variant).to_json_dict()}
    replayed = Driver(rules, decks=1, initial_cards_face_down=face_down)
    replayed.feed(driver.events)
    assert replayed.decisions == driver.decisions
