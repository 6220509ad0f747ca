"""``tablehost paigow hand`` and ``tablehost paigow compare``: the tiles rules at the bench.

``hand --tiles 6-6,4-5,1-3,2-2 [--json]``
    every legal setting of four tiles with each hand's rank, and the house way's choice
    (§ 535.10(d)). JSON: ``tiles``, ``settings`` (each ``high`` and ``low`` hand),
    ``house_way`` (``high``, ``low``, ``step``, ``section``, ``why``).
``compare --player H/L --dealer H/L [--json]``
    the player's wager against the dealer's hands: ``result`` (``win``/``lose``/``tie``),
    ``section``, the ``high`` and ``low`` comparisons, and ``why``.

Hands are written as tiles joined by commas, high hand and low hand separated by ``/``:
``6-6,4-5/1-3,2-2``. Both commands use the regulation's rules as printed, unless given a
casino's: ``--profile P`` (a Pai Gow table profile: its ``[rules]``, house way included) or
``--house-way F`` (a house-way document, ``hardware-profiles/house-ways/*.toml``).

Without ``--tiles`` (``hand``) or ``--player`` (``compare``) the command reads one case per
stdin line and writes one JSON object per line (:mod:`firmware_host.cli.stream`): for
``hand`` a line is four tiles; for ``compare`` a line is the player's hands, against
``--dealer``, or, without ``--dealer``, the player's and the dealer's hands separated by
blanks (``6-6,4-5/1-3,2-2 5-5,1-5/2-2,3-4``). A refused line is named by its number on
stderr, the others are still answered, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from firmware_host.cli.paigow import TILE_COMMANDS
from firmware_host.cli.stream import answer_lines
from firmware_host.config.profiles import load_table
from firmware_host.config.rules import HOUSE_WAY_KEY, load_paigow_rules
from firmware_host.errors import ProfileError, RulesError
from firmware_host.rules.paigow_tiles.compare import Comparison, compare_settings
from firmware_host.rules.paigow_tiles.hands import Setting, legal_settings
from firmware_host.rules.paigow_tiles.houseway import house_way
from firmware_host.rules.paigow_tiles.rules import DEFAULT_RULES, PaiGowTileRules
from firmware_host.rules.paigow_tiles.tiles import Tile, parse_tiles

_Parsed = TypeVar("_Parsed")

#: What one stdin line of ``compare`` holds, by whether ``--dealer`` was given.
COMPARE_LINE = {
    True: "the player's hands H/L, e.g. 6-6,4-5/1-3,2-2",
    False: "the player's and the dealer's hands H/L, e.g. 6-6,4-5/1-3,2-2 5-5,1-5/2-2,3-4",
}

#: ``tablehost paigow hand --help``: what the command does.
HAND_DESCRIPTION = (
    "Print every legal high/low setting of four tiles, each hand's rank (§ 535.4), and the setting"
    " the house way chooses (§ 535.10(d)). Without --tiles: one case per stdin line, one JSON object"
    " per line."
)
#: ``tablehost paigow compare --help``: what the command does.
COMPARE_DESCRIPTION = (
    "Compare the player's high and low hands with the dealer's (§ 535.10(f)-(j)). Without --player:"
    " one case per stdin line (the player's hands, and the dealer's unless --dealer is given),"
    " one JSON object per line."
)


def register(subparsers: Any) -> None:
    """Add ``hand`` and ``compare`` to the ``paigow`` group's sub-parsers (eagerly)."""
    registers = {"hand": register_hand, "compare": register_compare}
    for name, help_text, _ in TILE_COMMANDS:
        registers[name](subparsers, name, help_text)


def register_hand(subparsers: Any, name: str, help_text: str) -> None:
    """Add ``hand``."""
    hand = subparsers.add_parser(name, help=help_text, description=HAND_DESCRIPTION)
    hand.add_argument(
        "--tiles", metavar="T,T,T,T", help="four tiles, e.g. 6-6,4-5,1-3,2-2 (left out: four tiles per stdin line)"
    )
    _finish(hand, run_hand)


def register_compare(subparsers: Any, name: str, help_text: str) -> None:
    """Add ``compare``."""
    compare = subparsers.add_parser(name, help=help_text, description=COMPARE_DESCRIPTION)
    compare.add_argument(
        "--player", metavar="H/L", help="player's hands, e.g. 6-6,4-5/1-3,2-2 (left out: one case per stdin line)"
    )
    compare.add_argument(
        "--dealer", metavar="H/L", help="dealer's hands, e.g. 5-5,1-5/2-2,3-4 (required with --player)"
    )
    _finish(compare, run_compare)


def _finish(parser: argparse.ArgumentParser, run: Callable[[argparse.Namespace], int]) -> None:
    """``--json``, the casino's rules and the command's ``func``, alike for both commands."""
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    casino = parser.add_mutually_exclusive_group()
    casino.add_argument(
        "--profile", metavar="P", help="a Pai Gow table profile: play by its [rules] (house way, zero-value rule, ...)"
    )
    casino.add_argument(
        "--house-way", metavar="F", help="a house-way document (hardware-profiles/house-ways/*.toml): set tiles by it"
    )
    parser.set_defaults(func=run)


def tile_rules(args: argparse.Namespace) -> PaiGowTileRules:
    """The tiles rules ``--profile`` or ``--house-way`` name, else the regulation's as printed.

    :raises ProfileError: the file is missing, broken, or not a Pai Gow table's (named, with why).
    """
    if args.profile is not None:
        profile = load_table(args.profile)
        if profile.game != "paigow":
            raise ProfileError(profile.path, "table.game", f"{profile.game!r}: --profile needs a Pai Gow table")
        return load_paigow_rules(profile.rules, profile.path).tiles
    if args.house_way is not None:
        return load_paigow_rules({HOUSE_WAY_KEY: str(Path(args.house_way).resolve())}, "--house-way").tiles
    return DEFAULT_RULES


def hand_json(tiles: tuple[Tile, ...], rules: PaiGowTileRules = DEFAULT_RULES) -> dict[str, Any]:
    """The JSON object of ``paigow hand``: the tiles, every legal setting and the house way's."""
    return {
        "tiles": [tile.text for tile in tiles],
        "settings": [setting.to_json() for setting in legal_settings(tiles)],
        "house_way": house_way(tiles, rules).to_json(),
    }


def run_hand(args: argparse.Namespace) -> int:
    """``paigow hand``: print the settings and the house way (of each stdin line without ``--tiles``)."""
    rules = tile_rules(args)
    if args.tiles is None:
        return answer_lines("paigow hand", lambda line: hand_json(parse_tiles(line.strip(), count=4), rules))
    tiles = _named("--tiles", lambda: parse_tiles(args.tiles, count=4))
    if args.json:
        _print_json(hand_json(tiles, rules))
        return 0
    settings = legal_settings(tiles)
    chosen = house_way(tiles, rules)
    print(f"tiles: {' '.join(tile.text for tile in tiles)}")
    print("settings (high / low):")
    for setting in settings:
        mark = "   <- house way" if setting == chosen.setting else ""
        print(f"  {setting.high.text} / {setting.low.text}{mark}")
        print(f"      high: {setting.high.rank.describe()}")
        print(f"      low:  {setting.low.rank.describe()}")
    print(
        f"house way: {chosen.setting.high.text} / {chosen.setting.low.text}"
        f" (§ {chosen.step.section}: {chosen.step.explanation})"
    )
    return 0


def run_compare(args: argparse.Namespace) -> int:
    """``paigow compare``: print the result and why (of each stdin line without ``--player``)."""
    rules = tile_rules(args)
    if args.player is None:
        return _compare_lines(args.dealer, rules)
    if args.dealer is None:
        raise RulesError("--dealer H/L is required with --player (without --player: one case per stdin line)")
    comparison = _compare(
        _setting("--player", args.player), _setting("--dealer", args.dealer), "--player/--dealer", rules
    )
    if args.json:
        _print_json(comparison.to_json())
        return 0
    print(f"result: {comparison.outcome.value} (§ {comparison.section})")
    for label, hands in (("high:", comparison.high), ("low: ", comparison.low)):
        print(f"{label} player {hands.player.text}  {hands.player.rank.describe()}")
        print(f"      dealer {hands.banker.text}  {hands.banker.rank.describe()}")
        print(f"      {hands.describe()}")
    return 0


def _compare_lines(dealer_text: str | None, rules: PaiGowTileRules) -> int:
    """``compare`` of each stdin line: the player's hands against ``--dealer``, or both hands without it."""
    dealer = None if dealer_text is None else _setting("--dealer", dealer_text)

    def answer(line: str) -> dict[str, Any]:
        fields = line.split()
        if len(fields) != (1 if dealer is not None else 2):
            raise RulesError(f"expected {COMPARE_LINE[dealer is not None]}, got {line.strip()!r}")
        if dealer is not None:
            return _compare(_setting("player", fields[0]), dealer, "player/--dealer", rules).to_json()
        return _compare(_setting("player", fields[0]), _setting("dealer", fields[1]), "player/dealer", rules).to_json()

    return answer_lines("paigow compare", answer)


def _setting(name: str, text: str) -> Setting:
    """The setting written ``text``; a rules error names the input (``name``) it is about."""
    return _named(name, lambda: Setting.parse(text))


def _compare(player: Setting, dealer: Setting, names: str, rules: PaiGowTileRules) -> Comparison:
    """:func:`compare_settings`; a rules error (tiles one set cannot hold) names both inputs."""
    return _named(names, lambda: compare_settings(player, dealer, rules))


def _named(option: str, parse: Callable[[], _Parsed]) -> _Parsed:
    """Run ``parse``, naming ``option`` in any rules error so the one-line message says which input."""
    try:
        return parse()
    except RulesError as exc:
        raise RulesError(f"{option}: {exc}") from exc


def _print_json(document: dict[str, Any]) -> None:
    print(json.dumps(document, ensure_ascii=False))
