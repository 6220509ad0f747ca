"""The pieces around the shuffler table: Rules Submission keys, wiring, the command output, the
simulated dealer and the simulated shoe loaded with a batch."""

from __future__ import annotations

import random
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any, Iterable

import pytest

from drivers.events import DeviceEvent
from firmware_host.tables.events import DealerCommand
from firmware_host.rules.baccarat.cards import full_shoe
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.tables.decisions import Decision
from firmware_host.errors import ProfileError
from firmware_host.host.outputs import ShufflerCommands
from firmware_host.config.profiles import load_table
from firmware_host.wiring import baccarat as wiring
from firmware_host.wiring.devices import DeviceParts
from sim.dealers.baccarat import BaccaratDealer
from sim.errors import SimError
from sim.devices.shoe import COVER_MIN_FROM_BOTTOM, CUT, CUT_MIN_FROM_END, SimShoe
from tests.support.paths import REPO

PROFILES = REPO / "hardware-profiles"


# -- Rules Submission keys (§ 541.9(c), § 541.14(d)) --------------------------------------------


def test_541_9_c_initial_deal_and_541_14_d_face_up_discards_are_rules_submission_keys() -> None:
    rules = RulesSubmission.from_mapping({"initial_deal": "face_down", "face_up_discards": "face_value"}, "t.toml")
    assert (rules.initial_deal, rules.face_up_discards) == ("face_down", "face_value")
    assert (RulesSubmission().initial_deal, RulesSubmission().face_up_discards) == ("face_up", "point_value")


@pytest.mark.parametrize(("key", "value", "why"), [
    ("initial_deal", "sideways", "541.9(c)"),
    ("face_up_discards", "double", "541.14(d)"),
    ("initial_deal", True, "must be a string"),
])  # fmt: skip
def test_a_wrong_initial_deal_or_face_up_reading_names_the_key(key: str, value: Any, why: str) -> None:
    with pytest.raises(ProfileError, match=f"rules.{key}.*{re.escape(why)}"):
        RulesSubmission.from_mapping({key: value}, "t.toml")


# -- wiring: [rules.shuffler] split off, passed with the two keys ------------------------------


def _profile(tmp_path: Path, rules: str, shuffler: bool = True, decks: int = 8) -> Path:
    shutil.copytree(PROFILES / "devices", tmp_path / "devices")
    (tmp_path / "tables").mkdir()
    path = tmp_path / "tables" / "t.toml"
    device = '[devices.shuffler]\nmodel = "tablehost-sh16-2026"\nport = "sim"\n' if shuffler else ""
    path.write_text(f'[table]\nid = "T"\ngame = "baccarat"\ndecks = {decks}\n[rules]\n{rules}\n'
                    f'[devices.shoe]\nmodel = "tablehost-ts8-2026"\nport = "sim"\n{device}')
    return path


def test_the_shipped_shuffler_profile_builds_a_table_of_two_8_deck_batches() -> None:
    table = wiring.controller(load_table(PROFILES / "tables" / "sim-baccarat-shuffler.toml"))
    assert table.shuffler is not None and table.shuffler.device == "shuffler"
    assert table.shuffler.state.config.decks_per_batch * len(table.shuffler.state.config.batches) == 16


def test_the_rules_keys_reach_the_table_and_rules_shuffler_is_not_a_rules_key(tmp_path: Path) -> None:
    path = _profile(tmp_path, 'initial_deal = "face_down"\nface_up_discards = "face_value"\n'
                              '[rules.shuffler]\nback_colours = ["green", "gold"]')
    table = wiring.controller(load_table(path))
    assert table.initial_cards_face_down and table._face_up_counts["K"] == 10
    assert table.shuffler is not None and table.shuffler.state.config.back_colours == ("green", "gold")
    assert table.shuffler.state.config.decks_per_batch == 8, "defaults to the table's decks"


@pytest.mark.parametrize(("rules", "shuffler", "key", "why"), [
    ("", True, "rules.shuffler", "missing"),
    ("[rules.shuffler]\ndecks_per_batch = 8", False, "rules.shuffler", "no shuffler device"),
    ("[rules.shuffler]\ndecks_per_batch = 7", True, "rules.shuffler.decks_per_batch", "541.3(b)(1)"),
    ("[rules.shuffler]\nback_colours = [\"red\", \"Red\"]", True, "rules.shuffler.back_colours", "541.3(b)(3)"),
    ("[rules.shuffler]\nspeed = 3", True, "rules.shuffler.speed", "unknown key"),
])  # fmt: skip
def test_a_wrong_shuffler_rules_submission_names_the_key(tmp_path: Path, rules: str, shuffler: bool, key: str,
                                                         why: str) -> None:  # fmt: skip
    with pytest.raises(ProfileError, match=f"{re.escape(key)}: .*{re.escape(why)}"):
        wiring.controller(load_table(_profile(tmp_path, rules, shuffler)))


@pytest.mark.parametrize("shuffler", [True, False])
def test_the_shuffler_s_commands_go_to_its_driver_and_a_table_without_one_has_no_shuffler_logic(
    tmp_path: Path, shuffler: bool
) -> None:
    profile = load_table(_profile(tmp_path, "[rules.shuffler]" if shuffler else "", shuffler))
    table = wiring.controller(profile)
    devices = {name: DeviceParts(slot, RecordingShuffler()) for name, slot in profile.devices.items()}
    outputs = wiring.outputs(profile, table, devices)
    assert (table.shuffler is not None) is shuffler
    assert [(type(o).__name__, o.device) for o in outputs] == ([("ShufflerCommands", "shuffler")] if shuffler else [])


# -- the output that carries device commands to the driver ---------------------------------------


class RecordingShuffler:
    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def start_shuffle(self, batch: str, expected_cards: int) -> None:
        self.calls.append(("start_shuffle", (batch, expected_cards)))

    def release_batch(self, batch: str) -> None:
        self.calls.append(("release_batch", (batch,)))


def test_device_commands_are_sent_to_their_shuffler_only() -> None:
    driver = RecordingShuffler()
    ShufflerCommands("shuffler", driver).on_decisions([
        Decision("device_command", {"device": "shuffler", "command": "start_shuffle", "batch": "B", "expected_cards": 416}),
        Decision("device_command", {"device": "other", "command": "release_batch", "batch": "A"}),
        Decision("prompt", {"action": "wait"}),
        Decision("device_command", {"device": "shuffler", "command": "release_batch", "batch": "A"}),
        Decision("device_command", {"device": "shuffler", "command": "self_destruct", "batch": "A"}),
    ])  # fmt: skip
    assert driver.calls == [("start_shuffle", ("B", 416)), ("release_batch", ("A",))]


# -- the simulated shoe loaded with a batch (§ 541.5(d)-(e)) -----------------------------------


def _shoe(**options: Any) -> SimShoe:
    return SimShoe(seed=5, **options)


def test_541_5_d_e_a_loaded_batch_is_cut_and_covered_and_keeps_every_card() -> None:
    batch = [str(card) for card in full_shoe(6)]
    random.Random(1).shuffle(batch)
    batch.append("9S")  # an extra card stays in: the audit must see it
    shoe = _shoe()
    try:
        shoe.load(batch)
        drawn = [card for card in shoe._cards]
        assert Counter(c for c in drawn if c != CUT) == Counter(batch)
        cover = drawn.index(CUT)
        assert len(drawn) - 1 - cover >= COVER_MIN_FROM_BOTTOM
        cut = next(i for i in range(len(batch)) if batch[i:] + batch[:i] == [c for c in drawn if c != CUT])
        assert CUT_MIN_FROM_END <= cut <= len(batch) - CUT_MIN_FROM_END
        assert shoe.position == 0 and shoe.remaining() == len(batch)
    finally:
        shoe.stop()


def test_a_card_that_cannot_be_is_not_loaded() -> None:
    shoe = _shoe()
    try:
        with pytest.raises(SimError, match="'1X'"):
            shoe.load(["1X"] * 40)
    finally:
        shoe.stop()


# -- the simulated dealer at a shuffler table ----------------------------------------------------


class FakeShoe:
    burn_mode = False

    def __init__(self) -> None:
        self.loaded: list[list[str]] = []

    def reload(self) -> None:
        raise AssertionError("a shuffler table loads the batch, not the next seeded shoe")

    def load(self, cards: Iterable[str]) -> None:
        self.loaded.append(list(cards))

    def draw(self) -> Any:
        raise AssertionError("no draw expected")


class FakeShuffler:
    def __init__(self) -> None:
        self.slots: dict[str, list[str] | None] = {}

    def order(self, batch: str) -> tuple[str, ...]:
        return ("9S", "2H", "KD")

    def load(self, batch: str, cards: Iterable[str] | None = None) -> None:
        self.slots[batch] = None if cards is None else list(cards)


def test_the_simulated_dealer_loads_the_released_batch_and_puts_it_back_or_new_decks() -> None:
    events: list[DeviceEvent] = []
    shoe, shuffler = FakeShoe(), FakeShuffler()
    dealer = BaccaratDealer(events.append, lambda name: None, 1, shoe, shuffler=shuffler)
    dealer.act({"action": "load_shoe", "batch": "B", "_round": 1})
    assert shoe.loaded == [["9S", "2H", "KD"]]
    assert events == [DealerCommand(device="console", command="shoe_loaded", args={"batch": "B"})]
    dealer.act({"action": "return_batch", "batch": "B", "replace": False, "_round": 1})
    dealer.act({"action": "return_batch", "batch": "A", "replace": True, "_round": 1})
    assert shuffler.slots == {"B": ["9S", "2H", "KD"], "A": None}


def test_the_simulated_dealer_presses_no_more_bets_again_after_the_table_refused_it() -> None:
    pressed: list[str] = []
    dealer = BaccaratDealer(lambda event: None, pressed.append, 1, FakeShoe())
    dealer.act({"action": "place_bets", "last_hand": False, "held": 0, "_round": 4})
    dealer.act({"action": "place_bets", "last_hand": False, "held": 1, "_round": 4})
    assert pressed == ["no_more_bets"], "once per round while the table takes it"
    dealer.on_decisions([Decision("alert", {"code": "irregularity-open", "text": "no_more_bets: ...",
                                            "severity": "warning"})])  # fmt: skip
    dealer.act({"action": "place_bets", "last_hand": False, "held": 1, "_round": 4})
    assert pressed == ["no_more_bets", "no_more_bets"]
