"""The Pai Gow table's wiring: the simulated dealer's choices, ``[sim.dealer]``, parsed with the profile."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_host.config.profiles import load_table
from firmware_host.errors import ProfileError
from tests.support.paths import REPO

PROFILES = REPO / "hardware-profiles" / "tables"


def test_the_paigow_profiles_load_with_their_dealer_choices() -> None:
    for name, lid_source in (("sim-paigow.toml", "shaker"), ("sim-paigow-gpio-lid.toml", "gpio")):
        profile = load_table(PROFILES / name)
        assert profile.game == "paigow" and profile.simulated and profile.gpio.lid_source == lid_source
        assert profile.dealer["bank"] == 0.15


@pytest.mark.parametrize(
    ("line", "why"), [("bnak = 0.1", "unknown key"), ("bank = 1.5", "probability"), ("bank = true", "probability")]
)
def test_a_bad_dealer_choice_is_a_profile_error_naming_the_key(tmp_path: Path, line: str, why: str) -> None:
    text = (PROFILES / "sim-paigow.toml").read_text().replace("bank = 0.15", line)
    path = tmp_path / "tables" / "bad.toml"
    path.parent.mkdir()
    path.write_text(text)
    with pytest.raises(ProfileError) as error:
        load_table(path, devices_dir=PROFILES.parent / "devices")
    assert f"sim.dealer.{line.split()[0]}" in str(error.value) and why in str(error.value)
