"""The Pai Gow table's Rules Submission: the dice/delivery/bank options and the tile options.

Both rules modules read the same ``[rules]`` table of a Pai Gow table profile:
:class:`~firmware_host.rules.paigow_dice.rules.PaiGowRules` (dice, delivery styles, player bank, dice
clock) and :class:`~firmware_host.rules.paigow_tiles.rules.PaiGowTileRules` (house way, commission,
settlement). :func:`load_paigow_rules` hands each its own keys and refuses a key neither
knows, so a typo in a profile is an error and not a silently ignored option.

``house_way = "PATH"`` names a house-way document (``hardware-profiles/house-ways/*.toml``,
:mod:`firmware_host.rules.paigow_tiles.house_way_rules`), relative to the profile; its settings
join ``[rules.house_way_table]``, whose own entries win for the same tiles (§ 535.10(b), (d)).
"""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path
from typing import Any, Mapping

from firmware_host.errors import ProfileError
from firmware_host.errors import RulesError
from firmware_host.rules.paigow_dice.rules import PaiGowRules
from firmware_host.rules.paigow_tiles.house_way_rules import compile_house_way
from firmware_host.rules.paigow_tiles.hands import Setting
from firmware_host.rules.paigow_tiles.rules import DEFAULT_RULES, HouseWayKey, PaiGowTileRules, parse_house_way_table
from firmware_host.config.profiles import Section

__all__ = ["PaiGowTableRules", "load_paigow_rules", "HOUSE_WAY_KEY"]

#: The ``[rules]`` key naming a house-way document.
HOUSE_WAY_KEY = "house_way"


@dataclasses.dataclass(frozen=True)
class PaiGowTableRules:
    """Everything the Pai Gow controller needs from the casino's Rules Submission.

    :param dice: dice, delivery styles, player bank and dice clock (§ 535.5, § 535.8-§ 535.11).
    :param tiles: house way, comparison, commission and settlement (§ 535.4, § 535.10-§ 535.12).
    """

    dice: PaiGowRules = PaiGowRules()
    tiles: PaiGowTileRules = DEFAULT_RULES


def load_paigow_rules(section_mapping: Mapping[str, Any] | Section, source: object) -> PaiGowTableRules:
    """Read a Pai Gow table profile's ``[rules]`` table.

    :param section_mapping: the parsed table (a mapping, or the profile's :class:`Section`).
    :param source: the profile file, named in errors.
    :raises ProfileError: ``(source, "rules.<key>", "unknown key")`` for a key no rules module
        reads, the rules module's error for a bad value, or ``(house-way file, key, why)``.
    """
    mapping = section_mapping.data if isinstance(section_mapping, Section) else section_mapping
    if not isinstance(mapping, Mapping):
        raise ProfileError(source, "rules", f"expected a table of options, got {type(mapping).__name__}")
    for key in mapping:
        if key not in PaiGowRules.KEYS and key not in PaiGowTileRules.KEYS and key != HOUSE_WAY_KEY:
            raise ProfileError(source, f"rules.{key}", "unknown key")
    if HOUSE_WAY_KEY in mapping:
        mapping = dict(mapping)
        own = mapping.pop(HOUSE_WAY_KEY)
        try:
            listed = parse_house_way_table(mapping.get("house_way_table", {}))
        except RulesError as exc:
            raise ProfileError(source, "rules.house_way_table", str(exc)) from exc
        mapping["house_way_table"] = {**_house_way_table(own, source), **listed}
    return PaiGowTableRules(PaiGowRules.from_mapping(mapping, source), PaiGowTileRules.from_mapping(mapping, source))


def _house_way_table(value: object, source: object) -> Mapping[HouseWayKey, Setting]:
    """The entries of the house-way document ``value`` names (a path relative to the profile ``source``)."""
    if not isinstance(value, str) or not value:
        raise ProfileError(source, f"rules.{HOUSE_WAY_KEY}", f"expected the path of a house-way file, got {value!r}")
    path = Path(value)
    if not path.is_absolute():
        path = Path(str(source)).resolve().parent / path
    try:
        with path.open("rb") as handle:
            document = tomllib.load(handle)
    except OSError as exc:
        raise ProfileError(source, f"rules.{HOUSE_WAY_KEY}", f"cannot read {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(path, "(syntax)", f"not valid TOML: {exc}") from None
    try:
        return parse_house_way_table(compile_house_way(document).table)
    except RulesError as exc:
        raise ProfileError(path, "house way", str(exc)) from None
