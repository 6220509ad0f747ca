"""The face file's filter (:func:`firmware_host.display.face.shown`): nothing early, no protection data.

No record carrying a card not yet exposed at the table passes it (§ 541.9(c)(2) face-down cards
until the reveal, § 541.10(a); a void round's cards, § 541.14(e); cards discarded unseen,
§ 541.14(c)), nor any protection data; and every record the display's view folds passes it with
all the view reads: a real shoe folded from the face file's records looks, after every record,
exactly as folded from the whole journal.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from firmware_host.display.face import ANNOUNCED_FIELDS, EXPOSED_FIELDS, shown
from firmware_host.display.view import view_for
from firmware_host.host.service import HALTED_META
from firmware_host.tables.decisions import (
    ADVANTAGE_PLAY,
    ADVANTAGE_WINDOW,
    DEVICE_BYTES_ALERTS,
    HALTED,
    WITHHELD_TEXT,
    Decision,
)
from firmware_host.tables.round_record import BACCARAT
from tests.display.conftest import Running
from tests.support.nothing_early import CARD


@dataclasses.dataclass(frozen=True)
class R:
    """A journal record as :func:`shown` reads it."""

    kind: str
    type: str
    data: Mapping[str, Any]
    round: int | None = None


ranks, suits = "23456789TJQKA", "CDHS"
cards = st.builds(lambda r, s: r + s, st.sampled_from(ranks), st.sampled_from(suits))
card_lists = st.lists(cards, min_size=1, max_size=6)
#: A field's value that names cards, as a record may hold them (a list, a text, a nested object).
carrying = st.one_of(
    card_lists,
    cards.map(lambda c: f"card {c} was read"),
    st.dictionaries(st.sampled_from(["player", "banker", "cards"]), card_lists, min_size=1),
)
#: Names the face file never keeps of any decision.
secret_names = st.sampled_from(["cards", "held", "settlement", "alerts", "shoe_order", "ev", "odds", "seen", "hash"])


def named_cards(decision: Decision | None) -> set[str]:
    return set() if decision is None else set(CARD.findall(json.dumps(decision.data)))


@given(st.sampled_from(["input", "meta", "checkpoint", "decisionx", ""]), st.text(max_size=20), carrying)
def test_no_input_and_no_meta_but_the_halt_passes(kind: str, type_: str, value: Any) -> None:
    record = R(kind, type_, {"rank": value, "card": value})
    assert shown(record) is None or (kind, type_) == ("meta", HALTED_META)


@given(st.sampled_from(["CardRead", "CardEntered", "ShuffleOrder", "DiceRead", "WagerPlaced"]), carrying)
def test_a_card_read_by_the_shoe_never_passes(type_: str, value: Any) -> None:
    assert shown(R("input", type_, {"card": value, "rank": "9", "suit": "S"})) is None


@given(st.dictionaries(st.text(max_size=8), carrying, max_size=4), st.integers(1, 500))
def test_protection_data_never_passes(data: dict[str, Any], round_: int) -> None:
    assert shown(R("decision", "odds", {"round": round_, "seen": 12, "ev": data}, round_)) is None
    for code in (ADVANTAGE_WINDOW, ADVANTAGE_PLAY):
        alert = {"code": code, "text": "window", "severity": "attention", **data}
        assert shown(R("decision", "alert", alert, round_)) is None


@given(
    st.sampled_from(["prompt", "announce", "alert", "lamp", "device", "clock", "round_result", "shoe_result"]),
    st.dictionaries(secret_names, carrying, min_size=1, max_size=3),
)
def test_a_field_the_display_does_not_show_never_passes(type_: str, secrets: dict[str, Any]) -> None:
    data = {"action": "deal", "announce": "shoe", "code": "x", "game": "baccarat", "status": "void", **secrets}
    passed = shown(R("decision", type_, data, 3))
    assert passed is None or not set(secrets) & set(passed.data)
    assert not named_cards(passed)


@given(st.text(max_size=12).filter(lambda t: t not in ANNOUNCED_FIELDS), carrying)
def test_an_announcement_the_display_does_not_know_passes_only_its_words(what: str, value: Any) -> None:
    passed = shown(R("decision", "announce", {"announce": what, "cards": value, "card": value, "text": "Lucky Six"}))
    assert passed is not None and passed.data == {"announce": what, "text": "Lucky Six"}


@given(st.sampled_from(["wait", "burn", "place_bets", "reveal", "enter_card", "settle_pairs"]), card_lists, card_lists)
def test_hands_pass_only_as_a_deal_prompt_says_they_lie_face_up(
    action: str, player: list[str], banker: list[str]
) -> None:
    # § 541.9(c)(2): face down until the reveal, when the controller's deal prompt says exposed: None.
    face_down = shown(R("decision", "prompt", {"action": "deal", "to": "banker", "exposed": None, "text": "deal"}))
    assert face_down is not None and face_down.data.get("exposed") is None
    other = shown(R("decision", "prompt", {"action": action, "exposed": {"player": player}, "text": "t"}))
    assert other is not None and "exposed" not in other.data and not named_cards(other)
    exposed = {"player": player, "banker": banker, "player_total": 5, "banker_total": 7, "cards": player + banker}
    dealt = shown(R("decision", "prompt", {"action": "deal", "exposed": exposed, "text": "deal"}))
    assert dealt is not None and set(dealt.data["exposed"]) == set(EXPOSED_FIELDS)  # § 541.10(c): face up


@given(card_lists, card_lists, st.sampled_from(["void", "completed"]))
def test_a_round_result_passes_its_public_fields_and_a_void_ones_no_card(
    player: list[str], banker: list[str], status: str
) -> None:
    record = {"round": 4, "game": "baccarat", "status": status, "cards": player + banker, "player": player,
              "banker": banker, "winner": "player", "settlement": [{"theo": 1}], "odds": {"ev": 1}}  # fmt: skip
    passed = shown(R("decision", "round_result", record, 4))
    assert passed is not None and passed.data == BACCARAT.public_of(record)
    if status == "void":  # § 541.14(e): some of its cards may never have been turned up
        assert not named_cards(passed)


@given(card_lists)
def test_a_shoe_result_passes_no_alert_and_device_bytes_no_text(discarded: list[str]) -> None:
    alerts = [{"code": "impossible-card", "text": f"impossible card: {card}"} for card in discarded]
    result = shown(R("decision", "shoe_result", {"shoe": 2, "rounds": 70, "alerts": alerts, "cards_read": 416}))
    assert result is not None and result.data == {"shoe": 2, "rounds": 70}
    for code in DEVICE_BYTES_ALERTS:
        text = "bytes " + " ".join(discarded)
        alert = shown(R("decision", "alert", {"code": code, "text": text, "severity": "fault"}))
        assert alert is not None and alert.data["text"] == WITHHELD_TEXT


@given(st.text(min_size=1, max_size=40).filter(lambda t: not CARD.search(t)))
def test_the_halt_passes_with_its_banner(reason: str) -> None:
    banner = shown(R("meta", HALTED_META, {"reason": reason, "more": "x"}))
    assert banner is not None and banner.type == HALTED and reason in banner.data["text"]
    assert set(banner.data) == {"reason", "text"}
    assert shown(R("decision", HALTED, {"reason": reason, "text": reason})) is None  # never journaled so


def test_every_kind_the_view_folds_passes(run_table: Callable[..., Running], tmp_path: Path) -> None:
    """A face-down Baccarat shoe and a Pai Gow game, each folded record by record from the whole
    journal (as the web face did before the face file) and from what passes the filter: the dealer
    display, the player board and the roads are the same after every record."""
    for game, options in (("baccarat", {"face_down": True}), ("paigow", {})):
        table = run_table(game, rounds=6, journal=tmp_path / f"{game}.sqlite", **options)
        table.thread.join(timeout=120)
        profile = table.table.profile
        whole = view_for(game, profile.table_id, profile.display.limits)
        filtered = view_for(game, profile.table_id, profile.display.limits)
        kinds: set[str] = set()
        for record in table.table.journal.records():
            passed = shown(record)
            if record.kind == "decision":
                whole.apply(record.seq, Decision(record.type, record.data, record.round), record.at)
            if passed is not None:
                filtered.apply(record.seq, passed, record.at)
                kinds.add(passed.type if passed.type != "announce" else "announce:" + passed.data["announce"])
                assert not set(passed.data) & {"cards", "ev", "settlement", "alerts"}
            state, board = whole.state(), whole.scoreboard()
            assert (filtered.state(), filtered.scoreboard()) == ({**state, "seq": filtered.seq}, board), record.seq
        assert {"prompt", "lamp", "device", "round_result"} <= kinds
        assert {
            "announce:point_counts",
            "announce:outcome",
            "announce:burn_card",
            "announce:shoe",
        } <= kinds or game != "baccarat"
        assert {"announce:total"} <= kinds or game != "paigow"
