"""The simulators' own tables are parsed with the profile (issue 31 item 5: every profile section
parsed in config/): ``[devices.<name>.sim]``'s options and types, ``[sim.dealer]``'s choices."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_host.config.profiles import load_table
from firmware_host.config.sim import SIM_OPTIONS, dealer_choices, sim_options
from firmware_host.errors import ProfileError
from tests.support.paths import REPO

PROFILES = REPO / "hardware-profiles" / "tables"


def _profile(tmp_path: Path, name: str, old: str, new: str) -> Path:
    text = (PROFILES / name).read_text()
    assert old in text
    path = tmp_path / "tables" / name
    path.parent.mkdir()
    path.write_text(text.replace(old, new, 1) if old else text + new)
    return path


@pytest.mark.parametrize(
    ("old", "new", "key", "why"),
    [
        (
            "[devices.shoe.sim]",
            "[devices.shoe.sim]\nspeed = 2",
            "devices.shoe.sim.speed",
            "unknown key (a simulated shoe takes:",
        ),
        (
            "[devices.shoe.sim]",
            '[devices.shoe.sim]\nsuit_first_burns = "a lot"',
            "devices.shoe.sim.suit_first_burns",
            "expected int or float",
        ),
        ("[devices.shoe.sim]", "[devices.shoe.sim]\nserial = 7", "devices.shoe.sim.serial", "expected str"),
        ("[devices.shoe.sim]", "[devices.shoe.sim]\nendpoint = true", "devices.shoe.sim.endpoint", "expected str"),
        ("card_disclosed = 0.002", "bank = 0.1", "sim.dealer.bank", "unknown key (a Baccarat dealer takes:"),
        ("card_disclosed = 0.002", "card_disclosed = 2", "sim.dealer.card_disclosed", "probability"),
    ],
)
def test_a_bad_simulator_option_fails_the_profile_naming_the_key(
    tmp_path: Path, old: str, new: str, key: str, why: str
) -> None:
    with pytest.raises(ProfileError) as error:
        load_table(_profile(tmp_path, "sim-baccarat.toml", old, new), devices_dir=PROFILES.parent / "devices")
    assert error.value.key == key and why in error.value.why


def test_the_shipped_simulated_tables_load_with_their_options() -> None:
    for name in ("sim-baccarat.toml", "sim-paigow.toml", "sim-paigow-gpio-lid.toml"):
        profile = load_table(PROFILES / name)
        for slot in profile.devices.values():
            assert set(slot.sim) <= set(SIM_OPTIONS[slot.model.kind])
    assert load_table(PROFILES / "sim-paigow.toml").dealer["bank"] == 0.15


@given(
    st.dictionaries(
        st.text(max_size=12), st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5), max_size=4
    )
)
def test_sim_options_pass_only_known_options_of_their_types(options: dict[str, object]) -> None:
    try:
        passed = sim_options("t.toml", "devices.shoe.sim", "shoe", options)
    except ProfileError as exc:
        assert exc.key.startswith("devices.shoe.sim.")
        return
    for key, value in passed.items():
        assert isinstance(value, SIM_OPTIONS["shoe"][key]) and not isinstance(value, bool)


@given(
    st.dictionaries(
        st.sampled_from(["bank", "cut", "nothing"]),
        st.none() | st.booleans() | st.floats() | st.integers(-2, 2),
        max_size=3,
    )
)
def test_dealer_choices_are_probabilities_of_known_choices(choices: dict[str, object]) -> None:
    try:
        checked = dealer_choices("t.toml", "paigow", choices)
    except ProfileError as exc:
        assert exc.key.startswith("sim.dealer.")
        return
    assert set(checked) <= {"bank", "cut"} and all(0 <= value <= 1 for value in checked.values())
