"""``tablehost paigow hand`` and ``tablehost paigow compare``: the tiles rules at the bench.

``hand --tiles 6-6,4-5,1-3,2-2 [--json]``
    every legal setting of four tiles with each hand's rank, and the house way's choice
    (§ 535.10(d)). JSON: ``tiles``, ``settings`` (each ``high`` and ``low`` hand),
    ``house_way`` (``high``, ``low``, ``step``, ``section``, ``why``).
``compare --player H/L --dealer H/L [--json]``
    the player's wager against the dealer's hands: ``result`` (``win``/``lose``/``tie``),
    ``section``, the ``high`` and ``low`` comparisons, and ``why``.

Hands are written as tiles joined by commas, high hand and low hand separated by ``/``:
``6-6,4-5/1-3,2-2``. Both commands use the regulation's rules (no casino options).
"""

from __future__ import annotations

import argparse
import json
from typing import Any, Callable, TypeVar

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_tiles.compare import compare_settings
from firmware_host.rules.paigow_tiles.hands import Setting, legal_settings
from firmware_host.rules.paigow_tiles.houseway import house_way
from firmware_host.rules.paigow_tiles.tiles import parse_tiles

_Parsed = TypeVar("_Parsed")


def register(subparsers: Any) -> None:
    """Add ``hand`` and ``compare`` to the ``paigow`` group's sub-parsers."""
    hand = subparsers.add_parser(
        "hand",
        help="every way to set four tiles and the house way's choice (§ 535.10(d))",
        description="Print every legal high/low setting of four tiles, each hand's rank (§ 535.4),"
        " and the setting the house way chooses (§ 535.10(d)).",
    )
    hand.add_argument("--tiles", required=True, metavar="T,T,T,T", help="four tiles, e.g. 6-6,4-5,1-3,2-2")
    hand.add_argument("--json", action="store_true", help="print one JSON object")
    hand.set_defaults(func=run_hand)

    compare = subparsers.add_parser(
        "compare",
        help="a player's set hands against the dealer's: win, lose or tie and why (§ 535.10(f)-(j))",
        description="Compare the player's high and low hands with the dealer's (§ 535.10(f)-(j)).",
    )
    compare.add_argument("--player", required=True, metavar="H/L", help="player's hands, e.g. 6-6,4-5/1-3,2-2")
    compare.add_argument("--dealer", required=True, metavar="H/L", help="dealer's hands, e.g. 5-5,1-5/2-2,3-4")
    compare.add_argument("--json", action="store_true", help="print one JSON object")
    compare.set_defaults(func=run_compare)


def run_hand(args: argparse.Namespace) -> int:
    """``paigow hand``: print the settings and the house way."""
    tiles = _named("--tiles", lambda: parse_tiles(args.tiles, count=4))
    settings = legal_settings(tiles)
    chosen = house_way(tiles)
    if args.json:
        _print_json(
            {
                "tiles": [tile.text for tile in tiles],
                "settings": [setting.to_json() for setting in settings],
                "house_way": chosen.to_json(),
            }
        )
        return 0
    print(f"tiles: {' '.join(tile.text for tile in tiles)}")
    print("settings (high / low):")
    for setting in settings:
        mark = "   <- house way" if setting == chosen.setting else ""
        print(f"  {setting.high.text} / {setting.low.text}{mark}")
        print(f"      high: {setting.high.rank.describe()}")
        print(f"      low:  {setting.low.rank.describe()}")
    print(f"house way: {chosen.setting.high.text} / {chosen.setting.low.text}"
          f" (§ {chosen.step.section}: {chosen.step.explanation})")
    return 0


def run_compare(args: argparse.Namespace) -> int:
    """``paigow compare``: print the result and why."""
    player = _named("--player", lambda: Setting.parse(args.player))
    dealer = _named("--dealer", lambda: Setting.parse(args.dealer))
    comparison = _named("--player/--dealer", lambda: compare_settings(player, dealer))
    if args.json:
        _print_json(comparison.to_json())
        return 0
    print(f"result: {comparison.outcome.value} (§ {comparison.section})")
    for label, hands in (("high:", comparison.high), ("low: ", comparison.low)):
        print(f"{label} player {hands.player.text}  {hands.player.rank.describe()}")
        print(f"      dealer {hands.banker.text}  {hands.banker.rank.describe()}")
        print(f"      {hands.describe()}")
    return 0


def _named(option: str, parse: Callable[[], _Parsed]) -> _Parsed:
    """Run ``parse``, naming ``option`` in any rules error so the one-line message says which input."""
    try:
        return parse()
    except RulesError as exc:
        raise RulesError(f"{option}: {exc}") from exc


def _print_json(document: dict[str, Any]) -> None:
    print(json.dumps(document, ensure_ascii=False))
