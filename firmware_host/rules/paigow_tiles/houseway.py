"""The house way: how the dealer sets his four tiles (§ 535.10(d)), or the casino's own table.

The steps of § 535.10(d), tried in order:

1. the Supreme Pair is played as the Supreme Pair;
2. else, if possible, a pair, Wong or Gong (§ 535.4(a)) is played;
3. else two tiles worth nine, eight or seven are played together;
4. else the highest-ranking tile is played with the lowest-ranking tile (§ 535.4(f)).

Where more than one setting meets step 2 or 3, :attr:`PaiGowTileRules.house_way_tie_break`
chooses. A casino whose Rules Submission sets some hands otherwise lists them in
:attr:`PaiGowTileRules.house_way_table`, which is consulted first.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
from collections.abc import Callable, Iterable
from typing import Any

from firmware_host.rules.paigow_tiles.hands import Hand, Setting, legal_settings
from firmware_host.rules.paigow_tiles.rules import DEFAULT_RULES, HouseWayTieBreak, PaiGowTileRules, house_way_key
from firmware_host.rules.paigow_tiles.tiles import Tile


class HouseWayStep(enum.StrEnum):
    """Which rule chose the dealer's setting."""

    RULES_SUBMISSION = "rules_submission"
    SUPREME_PAIR = "supreme_pair"
    PAIR_WONG_GONG = "pair_wong_gong"
    NINE_EIGHT_SEVEN = "nine_eight_seven"
    HIGHEST_WITH_LOWEST = "highest_with_lowest"

    @property
    def section(self) -> str:
        """The regulation this step applies."""
        return _SECTIONS[self]

    @property
    def explanation(self) -> str:
        """What the step says, for the dealer's display."""
        return _EXPLANATIONS[self]


_SECTIONS = {
    HouseWayStep.RULES_SUBMISSION: "535.10(b), 535.12(f)",
    HouseWayStep.SUPREME_PAIR: "535.10(d)(1)",
    HouseWayStep.PAIR_WONG_GONG: "535.10(d)(2)",
    HouseWayStep.NINE_EIGHT_SEVEN: "535.10(d)(3)",
    HouseWayStep.HIGHEST_WITH_LOWEST: "535.10(d)(4)",
}
_EXPLANATIONS = {
    HouseWayStep.RULES_SUBMISSION: "set as the casino's Rules Submission lists these tiles",
    HouseWayStep.SUPREME_PAIR: "the Supreme Pair is played as the Supreme Pair",
    HouseWayStep.PAIR_WONG_GONG: "a pair, Wong or Gong is played when possible",
    HouseWayStep.NINE_EIGHT_SEVEN: "two tiles worth nine, eight or seven are played together",
    HouseWayStep.HIGHEST_WITH_LOWEST: "the highest-ranking tile is played with the lowest-ranking tile",
}

#: Values that qualify for step 3 (§ 535.10(d)(3)).
_NINE_EIGHT_SEVEN = frozenset({7, 8, 9})
#: Pair rank of the Supreme Pair (§ 535.4(a)).
_SUPREME_PAIR_RANK = 1


@dataclasses.dataclass(frozen=True)
class HouseWaySetting:
    """The dealer's setting and the step of § 535.10(d) (or the casino's table) that chose it."""

    setting: Setting
    step: HouseWayStep

    def to_json(self) -> dict[str, Any]:
        return {
            **self.setting.to_json(),
            "step": self.step.value,
            "section": self.step.section,
            "why": self.step.explanation,
        }


def house_way(tiles: Iterable[Tile], rules: PaiGowTileRules = DEFAULT_RULES) -> HouseWaySetting:
    """Set four tiles the house way (§ 535.10(d)), or as the casino's table lists them.

    :raises RulesError: not four tiles, or tiles one set cannot hold together.
    """
    settings = legal_settings(tiles)
    listed = rules.house_way_table.get(house_way_key(settings[0].tiles))
    if listed is not None:
        return HouseWaySetting(listed, HouseWayStep.RULES_SUBMISSION)
    return _regulation_way(settings, rules.house_way_tie_break)


def follows_house_way(setting: Setting, rules: PaiGowTileRules = DEFAULT_RULES) -> bool:
    """Whether ``setting`` plays as the house way would (§ 535.12(f)).

    A setting of other tiles whose hands rank identically to the house way's plays
    identically, so it follows the house way.
    """
    return house_way(setting.tiles, rules).setting.strengths == setting.strengths


@functools.cache
def _regulation_way(settings: tuple[Setting, ...], tie_break: HouseWayTieBreak) -> HouseWaySetting:
    preference = _PREFERENCES[tie_break]
    supreme = [setting for setting in settings if _pair_rank(setting.high) == _SUPREME_PAIR_RANK]
    if supreme:
        return HouseWaySetting(supreme[0], HouseWayStep.SUPREME_PAIR)
    # A low hand with a pair implies a high hand with one, so the high hand tells.
    with_pair = [setting for setting in settings if setting.high.rank.pair is not None]
    if with_pair:
        return HouseWaySetting(max(with_pair, key=preference), HouseWayStep.PAIR_WONG_GONG)
    with_seven_up = [setting for setting in settings if _has_nine_eight_or_seven(setting)]
    if with_seven_up:
        return HouseWaySetting(max(with_seven_up, key=preference), HouseWayStep.NINE_EIGHT_SEVEN)
    return HouseWaySetting(_highest_with_lowest(settings), HouseWayStep.HIGHEST_WITH_LOWEST)


def _pair_rank(hand: Hand) -> int | None:
    pair = hand.rank.pair
    return pair.rank if pair is not None else None


def _has_nine_eight_or_seven(setting: Setting) -> bool:
    return setting.high.rank.value in _NINE_EIGHT_SEVEN or setting.low.rank.value in _NINE_EIGHT_SEVEN


def _highest_with_lowest(settings: tuple[Setting, ...]) -> Setting:
    # § 535.4(f) ranks as printed; ties cannot arise here, as two tiles of one rank would
    # have formed a pair at step 2.
    tiles = sorted(settings[0].tiles, key=lambda tile: tile.index)
    pairing = Hand(tiles[0], tiles[-1])
    return next(setting for setting in settings if pairing in (setting.high, setting.low))


_PREFERENCES: dict[HouseWayTieBreak, Callable[[Setting], tuple[int, int]]] = {
    HouseWayTieBreak.STRONGEST_LOW: lambda setting: (setting.strengths[1], setting.strengths[0]),
    HouseWayTieBreak.STRONGEST_HIGH: lambda setting: setting.strengths,
}
