"""The Baccarat table's wiring: ``[rules.shuffler]`` split off the Rules Submission, the
shuffler's controller part and its command output built only when a shuffler is configured."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from firmware_host.config.profiles import load_table
from firmware_host.errors import ProfileError
from firmware_host.wiring import baccarat as wiring
from firmware_host.wiring.devices import DeviceParts
from tests.support.fake_drivers import RecordingShuffler
from tests.support.paths import REPO

PROFILES = REPO / "hardware-profiles"


# -- wiring: [rules.shuffler] split off, passed with the two keys ------------------------------


def _profile(tmp_path: Path, rules: str, shuffler: bool = True, decks: int = 8) -> Path:
    shutil.copytree(PROFILES / "devices", tmp_path / "devices")
    (tmp_path / "tables").mkdir()
    path = tmp_path / "tables" / "t.toml"
    device = '[devices.shuffler]\nmodel = "tablehost-sh16-2026"\nport = "sim"\n' if shuffler else ""
    path.write_text(
        f'[table]\nid = "T"\ngame = "baccarat"\ndecks = {decks}\n[rules]\n{rules}\n'
        f'[devices.shoe]\nmodel = "tablehost-ts8-2026"\nport = "sim"\n{device}'
    )
    return path


def test_the_shipped_shuffler_profile_builds_a_table_of_two_8_deck_batches() -> None:
    table = wiring.controller(load_table(PROFILES / "tables" / "sim-baccarat-shuffler.toml"))
    assert table.shuffler is not None and table.shuffler.device == "shuffler"
    assert table.shuffler.state.config.decks_per_batch * len(table.shuffler.state.config.batches) == 16


def test_the_rules_keys_reach_the_table_and_rules_shuffler_is_not_a_rules_key(tmp_path: Path) -> None:
    path = _profile(
        tmp_path,
        'initial_deal = "face_down"\nface_up_discards = "face_value"\n'
        '[rules.shuffler]\nback_colours = ["green", "gold"]',
    )
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
