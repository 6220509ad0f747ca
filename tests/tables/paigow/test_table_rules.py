"""``load_paigow_rules``: one ``[rules]`` table, two rules modules, unknown keys refused."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from firmware_host.config.profiles import Section
from firmware_host.config.rules import load_paigow_rules
from firmware_host.errors import ProfileError
from tests.support.paths import REPO

SOURCE = "tables/pai-gow-1.toml"


def test_each_module_gets_its_own_keys() -> None:
    rules = load_paigow_rules(
        {
            "player_bank_offered": True,
            "co_banking_offered": True,
            "dice_warning_minutes": 30,
            "commission_percent": 4,
            "commission_rounding": "quarter",
        },
        SOURCE,
    )
    assert rules.dice.player_bank_offered and rules.dice.co_banking_offered
    assert rules.dice.dice_warning_minutes == 30
    assert rules.tiles.commission_percent == Decimal(4)
    assert rules.tiles.commission_rounding == "quarter"


def test_an_empty_table_is_the_regulation_as_printed() -> None:
    rules = load_paigow_rules({}, SOURCE)
    assert not rules.dice.player_bank_offered and rules.tiles.commission_percent == Decimal(5)


def test_a_profile_section_is_accepted() -> None:
    rules = load_paigow_rules(Section(Path(SOURCE), {"delivery_styles": ["chee-yee"]}, "rules"), SOURCE)
    assert rules.dice.delivery_styles == ("standard", "chee-yee")


def test_a_key_neither_module_knows_is_refused() -> None:
    with pytest.raises(ProfileError) as caught:
        load_paigow_rules({"comission_percent": 5}, SOURCE)
    assert (caught.value.path, caught.value.key, caught.value.why) == (SOURCE, "rules.comission_percent", "unknown key")


@pytest.mark.parametrize(
    ("mapping", "key"),
    [({"dice_max_hours": 30}, "rules.dice_max_hours"), ({"commission_rounding": "dime"}, "rules.commission_rounding")],
)
def test_a_bad_value_names_its_key(mapping: dict[str, object], key: str) -> None:
    with pytest.raises(ProfileError) as caught:
        load_paigow_rules(mapping, SOURCE)
    assert caught.value.key == key


def test_not_a_table() -> None:
    with pytest.raises(ProfileError, match="expected a table"):
        load_paigow_rules(["player_bank_offered"], SOURCE)  # type: ignore[arg-type]


HOUSE_WAY = REPO / "hardware-profiles" / "house-ways" / "taj-mahal-two-small-tiles.toml"


def test_535_10_b_the_rules_submission_selects_a_house_way_file(tmp_path: Path) -> None:
    profile = tmp_path / "tables" / "t.toml"
    profile.parent.mkdir()
    (tmp_path / "house-ways").mkdir()
    (tmp_path / "house-ways" / "hw.toml").write_bytes(HOUSE_WAY.read_bytes())
    rules = load_paigow_rules({"house_way": "../house-ways/hw.toml"}, profile)
    table = {",".join(key): setting.text for key, setting in rules.tiles.house_way_table.items()}
    assert len(table) == 36 and table["6-6,1-1,1-3,4-6"] == "6-6,1-1/1-3,4-6"
    # The profile's own entries win for the same tiles.
    refined = load_paigow_rules(
        {"house_way": str(HOUSE_WAY), "house_way_table": {"1-1,6-6,1-3,4-6": "1-1,1-3/6-6,4-6"}}, profile
    )
    assert len(refined.tiles.house_way_table) == 36
    assert {",".join(k): v.text for k, v in refined.tiles.house_way_table.items()}[
        "6-6,1-1,1-3,4-6"
    ] == "1-1,1-3/6-6,4-6"


def test_a_missing_or_broken_house_way_file_names_the_file_and_why(tmp_path: Path) -> None:
    profile = tmp_path / "t.toml"
    with pytest.raises(ProfileError) as caught:
        load_paigow_rules({"house_way": "nowhere.toml"}, profile)
    assert caught.value.key == "rules.house_way" and "cannot read" in caught.value.why
    with pytest.raises(ProfileError, match="rules.house_way: expected the path"):
        load_paigow_rules({"house_way": 3}, profile)
    broken = tmp_path / "broken.toml"
    broken.write_text('[house_way]\nname = "x"\n')
    with pytest.raises(ProfileError) as caught:
        load_paigow_rules({"house_way": "broken.toml"}, profile)
    assert (caught.value.path, caught.value.key) == (str(broken), "house way") and "source" in caught.value.why
    broken.write_text("[house_way\n")
    with pytest.raises(ProfileError, match="not valid TOML"):
        load_paigow_rules({"house_way": "broken.toml"}, profile)
