"""A casino's house way written as data (§ 535.10(b), (d), § 535.12(f)), compiled into a house-way table.

A house-way document (``hardware-profiles/house-ways/*.toml``) names where the house way is
published and sets tiles in two ways, both turned into the entries of
:attr:`~firmware_host.rules.paigow_tiles.rules.PaiGowTileRules.house_way_table`:

- ``[settings]``: ``"TILES" = "HIGH/LOW"`` for given four tiles, as in ``[rules.house_way_table]``;
- ``[[rule]]``: in order, first match wins, the rule form published house ways use ("play
  2 and 12 together with 4 and 10")::

      [[rule]]
      name = "Two small tiles A: 2 and 12 together with a 4 and a 10"
      tiles = ["1-1", "6-6", "4", "10"]   # a tile, any tile (not 1-2, 2-4) with that many spots,
                                          # or a list of those
      together = [1, 2]                   # the two places played as one hand

  or, with ``play``, keep or split a pair, combine tiles, or choose among settings
  (:mod:`.house_way_plays`, with the document's ``[choose]`` table).

A ``[settings]`` entry wins over a rule for the same tiles. Tiles neither sets follow the
steps of § 535.10(d) (``complete = false``); a document that says ``complete = true`` must set
every four tiles a set can deal.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from collections.abc import Mapping
from typing import Any

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_tiles.hands import Hand, legal_settings
from firmware_host.rules.paigow_tiles.house_way_plays import (
    Chooser,
    FourTiles,
    Play,
    parse_chooser,
    parse_pattern,
    parse_play,
    reject_unknown,
)
from firmware_host.rules.paigow_tiles.rules import HouseWayKey, house_way_key, parse_house_way_table
from firmware_host.rules.paigow_tiles.tiles import TILE_KINDS, Tile

__all__ = ["HouseWayDocument", "compile_house_way", "every_four_tiles"]

#: Tables and keys a house-way document may hold.
_TOP_KEYS = frozenset({"house_way", "settings", "rule", "choose"})
#: Where ``chosen_by`` names a ``[settings]`` entry.
SETTINGS_ENTRY = "[settings]"
_HEADER_KEYS = frozenset({"name", "source", "complete", "note"})
_RULE_KEYS = frozenset({"name", "tiles", "together"})


@dataclasses.dataclass(frozen=True)
class HouseWayDocument:
    """A compiled house-way document.

    :param name: the house way's name (``"Taj Mahal"``).
    :param source: where it is published, as the document cites it.
    :param complete: whether it sets every four tiles (else the § 535.10(d) steps fill in).
    :param table: ``"TILES" = "HIGH/LOW"`` entries for ``house_way_table``.
    :param chosen_by: for each entry of ``table``, the name of the rule that set it
        (:data:`SETTINGS_ENTRY` for a ``[settings]`` entry).
    """

    name: str
    source: str
    complete: bool
    table: dict[str, str]
    chosen_by: dict[str, str] = dataclasses.field(default_factory=dict)


def every_four_tiles() -> list[tuple[Tile, ...]]:
    """Every four tile kinds one set can deal together (8,130), in § 535.4(f) order."""
    return [
        kinds
        for kinds in itertools.combinations_with_replacement(TILE_KINDS, 4)
        if all(count <= tile.copies for tile, count in Counter(kinds).items())
    ]


def compile_house_way(document: object) -> HouseWayDocument:
    """Check a parsed house-way document and turn it into house-way table entries.

    :raises RulesError: naming the table, key or rule that is wrong and why.
    """
    if not isinstance(document, Mapping):
        raise RulesError(f"expected a TOML document, got {type(document).__name__}")
    reject_unknown(document, _TOP_KEYS, "")
    header = _table(document, "house_way")
    reject_unknown(header, _HEADER_KEYS, "house_way.")
    name, source = _text(header, "name"), _text(header, "source")
    complete = header.get("complete", False)
    if not isinstance(complete, bool):
        raise RulesError(f"house_way.complete: expected true or false, got {complete!r}")
    table: dict[HouseWayKey, tuple[str, str]] = {}
    for raw_tiles, setting in _table(document, "settings", required=False).items():
        table[_settings_key(raw_tiles, setting)] = (setting, SETTINGS_ENTRY)
    rules = document.get("rule", [])
    if not isinstance(rules, list):
        raise RulesError(f"rule: expected [[rule]] tables, got {type(rules).__name__}")
    compiled = [_compile_rule(rule, f"rule {number}") for number, rule in enumerate(rules, start=1)]
    chooser = parse_chooser(document.get("choose"))
    for kinds in every_four_tiles():
        key = house_way_key(kinds)
        if key not in table:
            chosen = _first_rule_setting(compiled, kinds, key, chooser)
            if chosen is not None:
                table[key] = chosen
    if complete:
        missing = [kinds for kinds in every_four_tiles() if house_way_key(kinds) not in table]
        if missing:
            example = ",".join(tile.text for tile in missing[0])
            raise RulesError(
                f"house_way.complete is true but {len(missing)} four-tile hands are not set, e.g. {example}"
            )
    return HouseWayDocument(
        name,
        source,
        complete,
        {",".join(key): text for key, (text, _) in table.items()},
        {",".join(key): rule for key, (_, rule) in table.items()},
    )


#: A compiled ``[[rule]]``: its name, and either its fixed entries (``together``) or its play.
_Rule = tuple[str, "dict[HouseWayKey, str] | Play"]


def _compile_rule(rule: object, where: str) -> _Rule:
    if isinstance(rule, Mapping) and "play" in rule:
        play = parse_play(rule, where)
        return (play.name, play)
    entries = _rule_entries(rule, where)
    assert isinstance(rule, Mapping)
    return (str(rule["name"]), entries)


def _first_rule_setting(
    rules: list[_Rule], kinds: tuple[Tile, ...], key: HouseWayKey, chooser: Chooser
) -> tuple[str, str] | None:
    """(setting text, rule name) of the first rule that applies to ``kinds``, else ``None``."""
    four: FourTiles | None = None
    for name, rule in rules:
        if isinstance(rule, Play):
            four = four or FourTiles.of(kinds)
            settings = rule.settings(four)
            if settings:
                return (chooser.choose(settings, kinds).text, name)
        elif key in rule:
            return (rule[key], name)
    return None


def _rule_entries(rule: object, where: str) -> dict[HouseWayKey, str]:
    """The settings one rule gives: every set of four tiles its patterns match."""
    if not isinstance(rule, Mapping):
        raise RulesError(f"{where}: expected a table, got {type(rule).__name__}")
    reject_unknown(rule, _RULE_KEYS, f"{where}: ")
    where = f"{where} ({_text(rule, 'name')!r})"
    patterns = rule.get("tiles")
    if not isinstance(patterns, list) or len(patterns) != 4:
        raise RulesError(f"{where}: tiles: expected four tiles or spot counts, got {patterns!r}")
    choices = [parse_pattern(pattern, where) for pattern in patterns]
    together = rule.get("together")
    if (
        not isinstance(together, list)
        or len(together) != 2
        or len(set(together)) != 2
        or not all(isinstance(place, int) and not isinstance(place, bool) and 1 <= place <= 4 for place in together)
    ):
        raise RulesError(f"{where}: together: expected two different places 1-4, got {together!r}")
    entries: dict[HouseWayKey, str] = {}
    for tiles in itertools.product(*choices):
        if any(count > tile.copies for tile, count in Counter(tiles).items()):
            continue  # more of a tile than a set holds
        one = Hand(tiles[together[0] - 1], tiles[together[1] - 1])
        other = Hand(*(tile for place, tile in enumerate(tiles, start=1) if place not in together))
        setting = next(
            setting
            for setting in legal_settings(tiles)
            if one in (setting.high, setting.low) and other in (setting.high, setting.low)
        )
        entries.setdefault(house_way_key(tiles), setting.text)
    if not entries:
        raise RulesError(f"{where}: no four tiles of one set match {patterns!r}")
    return entries


def _settings_key(raw_tiles: str, setting: object) -> HouseWayKey:
    try:  # the same checks as a profile's [rules.house_way_table]
        return next(iter(parse_house_way_table({raw_tiles: setting})))
    except RulesError as exc:
        raise RulesError(f"settings: {exc}") from exc


def _table(mapping: Mapping[str, Any], key: str, *, required: bool = True) -> Mapping[str, Any]:
    value = mapping.get(key)
    if value is None and not required:
        return {}
    if not isinstance(value, Mapping):
        raise RulesError(f"[{key}]: expected a table, got {'nothing' if value is None else type(value).__name__}")
    return value


def _text(mapping: Mapping[str, Any], key: str) -> str:
    value = mapping.get(key)
    if not isinstance(value, str) or not value.strip():
        raise RulesError(f"{key}: expected text, got {value!r}")
    return value
