"""``load_paigow_rules``: one ``[rules]`` table, two rules modules, unknown keys refused."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from firmware_host.errors import ProfileError
from firmware_host.tables.paigow import load_paigow_rules
from firmware_host.config.profiles import Section

SOURCE = "tables/pai-gow-1.toml"


def test_each_module_gets_its_own_keys() -> None:
    rules = load_paigow_rules({"player_bank_offered": True, "co_banking_offered": True, "dice_warning_minutes": 30,
                               "commission_percent": 4, "commission_rounding": "quarter"}, SOURCE)
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


@pytest.mark.parametrize(("mapping", "key"), [({"dice_max_hours": 30}, "rules.dice_max_hours"),
                                              ({"commission_rounding": "dime"}, "rules.commission_rounding")])
def test_a_bad_value_names_its_key(mapping: dict[str, object], key: str) -> None:
    with pytest.raises(ProfileError) as caught:
        load_paigow_rules(mapping, SOURCE)
    assert caught.value.key == key


def test_not_a_table() -> None:
    with pytest.raises(ProfileError, match="expected a table"):
        load_paigow_rules(["player_bank_offered"], SOURCE)  # type: ignore[arg-type]
