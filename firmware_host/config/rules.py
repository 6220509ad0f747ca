"""The ``[rules]`` table of a Pai Gow table profile parsed into the plain rule objects.

Two rules modules share that table: :class:`~firmware_host.rules.paigow_dice.rules.PaiGowRules`
(dice, delivery styles, player bank, dice clock; parsed here with the profile's
:class:`~firmware_host.config.profiles.Section` getters) and
:class:`~firmware_host.rules.paigow_tiles.rules.PaiGowTileRules` (house way, commission,
settlement). :func:`load_paigow_rules` hands each its own keys and refuses a key neither
knows, so a typo in a profile is an error and not a silently ignored option. The rules and
the controller receive the objects; they never see the profile.

``house_way = "PATH"`` names a house-way document (``hardware-profiles/house-ways/*.toml``,
:mod:`firmware_host.rules.paigow_tiles.house_way_rules`), relative to the profile; its settings
join ``[rules.house_way_table]``, whose own entries win for the same tiles (§ 535.10(b), (d)).
"""

from __future__ import annotations

import tomllib
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from firmware_host.config.profiles import Section, check_text
from firmware_host.errors import ProfileError, RulesError
from firmware_host.rules.paigow_dice.rules import BANK_OFFER_NEXT, OptionError, PaiGowRules
from firmware_host.rules.paigow_tiles.hands import Setting
from firmware_host.rules.paigow_tiles.house_way_rules import compile_house_way
from firmware_host.rules.paigow_tiles.rules import HouseWayKey, PaiGowTileRules, parse_house_way_table
from firmware_host.tables.paigow.rules import PaiGowTableRules

__all__ = ["paigow_dice_rules", "paigow_tile_rules", "load_paigow_rules", "HOUSE_WAY_KEY"]

#: The ``[rules]`` key naming a house-way document.
HOUSE_WAY_KEY = "house_way"


def paigow_dice_rules(mapping: Mapping[str, Any], source: object) -> PaiGowRules:
    """Read the dice, delivery and bank options from a profile's ``[rules]`` table; absent keys
    take the defaults, and keys not in :data:`PaiGowRules.KEYS` are left for the tile rules.

    :param source: the profile file, named in errors.
    :raises ProfileError: ``ProfileError(source, "rules.<key>", why)`` for a bad value.
    """
    section = Section(Path(str(source)), dict(mapping), "rules")
    defaults = PaiGowRules()
    try:
        return PaiGowRules(
            player_bank_offered=section.boolean("player_bank_offered", defaults.player_bank_offered),
            co_banking_offered=section.boolean("co_banking_offered", defaults.co_banking_offered),
            delivery_styles=section.strings("delivery_styles", defaults.delivery_styles),
            bank_may_choose_any_style=section.boolean("bank_may_choose_any_style", defaults.bank_may_choose_any_style),
            bank_offer_next=section.string("bank_offer_next", defaults.bank_offer_next, choices=BANK_OFFER_NEXT),
            bank_offer_returns_to_dealer=section.boolean(
                "bank_offer_returns_to_dealer", defaults.bank_offer_returns_to_dealer
            ),
            dice_max_hours=section.number("dice_max_hours", defaults.dice_max_hours),
            dice_warning_minutes=section.number("dice_warning_minutes", defaults.dice_warning_minutes),
        )
    except OptionError as exc:
        raise section.error(exc.key, exc.why) from None


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
    return PaiGowTableRules(paigow_dice_rules(mapping, source), paigow_tile_rules(mapping, source))


def paigow_tile_rules(
    mapping: object, source: object, *, prefix: str = "rules", other_keys: Collection[str] = PaiGowRules.KEYS
) -> PaiGowTileRules:
    """The tile options (:class:`~firmware_host.rules.paigow_tiles.rules.PaiGowTileRules`) of a
    profile's table (``[rules]``, or a sub-table named by ``prefix``).

    The Pai Gow ``[rules]`` table also holds the dice, delivery and player-bank options of
    :class:`~firmware_host.rules.paigow_dice.rules.PaiGowRules`; those keys (``other_keys``) are
    left to it, and any key neither knows is an error.

    :param mapping: the parsed table, e.g. ``tomllib.load(f)["rules"]``.
    :param source: the profile's path, named in errors.
    :param prefix: the table's dotted name in the profile, for error keys.
    :param other_keys: keys of the same table that other rules modules read.
    :raises ProfileError: ``(source, "rules.<key>", why)`` for an unknown key or a bad value.
    """
    if not isinstance(mapping, Mapping):
        raise ProfileError(source, prefix, f"expected a table of options, got {type(mapping).__name__}")
    values: dict[str, Any] = {}
    for key, raw in mapping.items():
        if key in other_keys:
            continue
        if key not in PaiGowTileRules.KEYS:
            known = ", ".join(sorted(PaiGowTileRules.KEYS))
            raise ProfileError(source, f"{prefix}.{key}", f"unknown option; the tile options are: {known}")
        try:
            PaiGowTileRules(**{key: raw})  # each value on its own, so the error names its key
        except RulesError as exc:
            raise ProfileError(source, f"{prefix}.{key}", str(exc)) from exc
        values[key] = raw
    return PaiGowTileRules(**values)


def _house_way_table(value: object, source: object) -> Mapping[HouseWayKey, Setting]:
    """The entries of the house-way document ``value`` names (a path relative to the profile ``source``)."""
    if not isinstance(value, str) or not value:
        raise ProfileError(source, f"rules.{HOUSE_WAY_KEY}", f"expected the path of a house-way file, got {value!r}")
    path = Path(value)
    if not path.is_absolute():
        path = Path(str(source)).resolve().parent / path
    try:
        with path.open("rb") as handle:
            document = check_text(path, tomllib.load(handle))
    except OSError as exc:
        raise ProfileError(source, f"rules.{HOUSE_WAY_KEY}", f"cannot read {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(path, "(syntax)", f"not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ProfileError(path, "(syntax)", f"not valid TOML: not UTF-8 text (byte {exc.start})") from None
    try:
        return parse_house_way_table(compile_house_way(document).table)
    except RulesError as exc:
        raise ProfileError(path, "house way", str(exc)) from None
