"""The rule forms a published house way uses beyond fixed pairings (§ 535.10(b), (d)).

Published house ways (Foxwoods 1997, the Taj Mahal, ...) are ordered rules, the first that
applies winning. Besides "play these two together" (:mod:`.house_way_rules`' ``together``)
they say *keep* or *split* a pair, *combine* a tile with one of some others, and finally how
to *choose* among the ways left. A ``[[rule]]`` with a ``play`` key is one of those::

    [[rule]]                                   # the four tiles hold a permissible pair (§ 535.4(a))
    play = "keep_pair"                         #   whose tiles have these spots (or "supreme"),
    pair = ["4", "5", "6", "10", "11"]         #   and it is played as one hand
    [[rule]]
    play = "split_pair"                        # ... its tiles are played in different hands,
    pair = ["9"]
    others = [["2", "10", "12"], ["2", "10", "12"]]   # when the other two tiles match these,
    makes_at_least = [6, 8]                    # or when a split makes low/high of these points
    [[rule]]
    play = "combine"                           # a hand of one of `tile` with one of `partners`,
    tile = ["1-1", "6-6"]                      # the earlier group of partners preferred,
    partners = [["7"], ["8"], ["9"]]
    high_hand_holds = "6-6"                    # then the setting whose high hand holds this tile
    [[rule]]
    play = "two_pairs"                         # two permissible pairs are played as two hands
    [[rule]]
    play = "choose"                            # every setting; [choose] picks

Where a rule leaves more than one setting, the document's ``[choose]`` table picks::

    [choose]
    maximise_high_when_best_low_below = "3-3,1-6"   # a hand: the best low is below it, and
    maximise_high_when_best_high_at_least = 7        # the best high has this many points:
                                                     # the strongest high, else the strongest low
    [[choose.exception]]                             # then, in order, the first that applies:
    name = "..."
    low_high = [8, 9]           # the chosen setting is worth these low/high points
    or_more = true              # ... or more (else exactly)
    holds = ["1-1", "6-6"]      # and the four tiles include these
    high_hand_holds = "highest" # among the settings of the same points, one whose high hand
                                # holds this tile ("highest": the four's highest-ranking)

Without ``[choose]`` the strongest low hand is played, then the strongest high hand (the
default ``house_way_tie_break`` of § 535.10(d)). A tile pattern is a tile (``"6-6"``), a spot
count (``"10"``: 4-6 or 5-5, never 1-2 or 2-4, § 535.4(d)) or a list of those.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_tiles.hands import PAIR_TABLE, Hand, Setting, legal_settings
from firmware_host.rules.paigow_tiles.tiles import TILE_KINDS, TILES_BY_TEXT, Tile

__all__ = [
    "DEFAULT_CHOOSER",
    "Chooser",
    "FourTiles",
    "Play",
    "Pattern",
    "parse_chooser",
    "parse_pattern",
    "parse_play",
    "reject_unknown",
]

#: A place of a rule: the tiles it stands for, in § 535.4(f) order (so expansion is deterministic).
Pattern = tuple[Tile, ...]
#: The § 535.4(a) groups that are permissible pairs (Wongs and Gongs are not pairs).
_PAIR_GROUPS = frozenset({"supreme", "matched", "mixed"})
#: A hand of N points or more has a strength of at least N * 100 (hands.py: value * 100 + ...).
_POINT_STRENGTH = 100
_PLAY_KEYS: dict[str, frozenset[str]] = {
    "keep_pair": frozenset({"name", "play", "pair", "others"}),
    "split_pair": frozenset({"name", "play", "pair", "others", "makes_at_least"}),
    "combine": frozenset({"name", "play", "tile", "partners", "high_hand_holds"}),
    "two_pairs": frozenset({"name", "play"}),
    "choose": frozenset({"name", "play"}),
}
_CHOOSE_KEYS = frozenset(
    {"name", "maximise_high_when_best_low_below", "maximise_high_when_best_high_at_least", "exception"}
)
_EXCEPTION_KEYS = frozenset({"name", "low_high", "or_more", "holds", "high_hand_holds"})
_MAX_POINTS = 9
_MAX_PATTERN_ALTERNATIVES = len(TILE_KINDS)


def parse_pattern(raw: object, where: str) -> Pattern:
    """The tiles a pattern stands for: ``"4-5"`` that tile, ``"9"`` every tile of 9 spots, a list: any of them.

    :raises RulesError: naming ``where`` and the pattern.
    """
    if isinstance(raw, list) and 0 < len(raw) <= _MAX_PATTERN_ALTERNATIVES:
        tiles = {tile for part in raw for tile in _one_pattern(part, where)}
    else:
        tiles = set(_one_pattern(raw, where))
    return tuple(sorted(tiles, key=lambda tile: tile.index))


def _one_pattern(raw: object, where: str) -> tuple[Tile, ...]:
    if isinstance(raw, str) and raw in TILES_BY_TEXT:
        return (TILES_BY_TEXT[raw],)
    if isinstance(raw, str) and raw.isdigit():
        tiles = tuple(tile for tile in TILE_KINDS if tile.spots == int(raw) and not tile.is_supreme)
        if tiles:
            return tiles
    raise RulesError(
        f'{where}: tiles: {raw!r} is neither a tile such as "4-5" (low end first)'
        f" nor a spot count 2-12 of a tile other than 1-2 and 2-4"
    )


@dataclasses.dataclass(frozen=True)
class _Exception:
    """One ``[[choose.exception]]``: among settings of equal points, one whose high hand holds a tile."""

    name: str
    low_high: tuple[int, int]
    or_more: bool
    holds: frozenset[Tile]
    high_hand_holds: Tile | None  # None: the four tiles' highest-ranking

    def wanted(self, chosen: Setting, tiles: Sequence[Tile]) -> Callable[[Setting], bool] | None:
        """A test of the settings this exception prefers to ``chosen``, or ``None`` if it does not apply."""
        points = _points(chosen)
        if points is None or not self.holds <= set(tiles):
            return None
        low, high = self.low_high
        if not ((points[0] >= low and points[1] >= high) if self.or_more else points == (low, high)):
            return None
        tile = self.high_hand_holds or min(tiles, key=lambda one: one.index)
        return lambda setting: _points(setting) == points and tile in setting.high.tiles


@dataclasses.dataclass(frozen=True)
class Chooser:
    """How the house way picks among the settings a rule leaves (a document's ``[choose]``).

    :param low_below: the strongest high hand is played when the best low hand ranks below
        this strength and the best high hand reaches ``high_at_least``; else the strongest low.
    :param exceptions: tried in order after that choice; the first that applies may change it.
    """

    low_below: int = 0
    high_at_least: int = 0
    exceptions: tuple[_Exception, ...] = ()

    def choose(self, settings: Sequence[Setting], tiles: Sequence[Tile]) -> Setting:
        """The setting of ``settings`` (non-empty, in :func:`legal_settings` order) this chooser plays."""
        best_low = max(setting.low.rank.strength for setting in settings)
        best_high = max(setting.high.rank.strength for setting in settings)
        key = _strongest_high if best_low < self.low_below and best_high >= self.high_at_least else _strongest_low
        chosen = max(settings, key=key)
        for exception in self.exceptions:
            wanted = exception.wanted(chosen, tiles)
            if wanted is not None:
                preferred = [setting for setting in settings if wanted(setting)]
                return max(preferred, key=key) if preferred else chosen
        return chosen


def _strongest_low(setting: Setting) -> tuple[int, int]:
    return (setting.strengths[1], setting.strengths[0])


def _strongest_high(setting: Setting) -> tuple[int, int]:
    return setting.strengths


def _points(setting: Setting) -> tuple[int, int] | None:
    """(low, high) points of a setting of two hands without a pair, Wong or Gong, else ``None``."""
    low, high = setting.low.rank.value, setting.high.rank.value
    return None if low is None or high is None else (low, high)


#: Default chooser: the strongest low hand, then the strongest high hand.
DEFAULT_CHOOSER = Chooser()


def parse_chooser(raw: object) -> Chooser:
    """A document's ``[choose]`` table (``None``: :data:`DEFAULT_CHOOSER`).

    :raises RulesError: naming the key that is wrong and why.
    """
    if raw is None:
        return DEFAULT_CHOOSER
    if not isinstance(raw, Mapping):
        raise RulesError(f"[choose]: expected a table, got {type(raw).__name__}")
    reject_unknown(raw, _CHOOSE_KEYS, "choose.")
    threshold = raw.get("maximise_high_when_best_low_below")
    low_below = 0
    if threshold is not None:
        where = "choose.maximise_high_when_best_low_below"
        if not isinstance(threshold, str):
            raise RulesError(f'{where}: expected a hand such as "3-3,1-6", got {threshold!r}')
        try:
            low_below = Hand.parse(threshold).rank.strength
        except RulesError as exc:
            raise RulesError(f"{where}: {exc}") from None
    high_at_least = _points_value(
        raw.get("maximise_high_when_best_high_at_least", 0), "choose.maximise_high_when_best_high_at_least"
    )
    exceptions = raw.get("exception", [])
    if not isinstance(exceptions, list):
        raise RulesError(f"choose.exception: expected [[choose.exception]] tables, got {type(exceptions).__name__}")
    return Chooser(
        low_below,
        high_at_least * _POINT_STRENGTH,
        tuple(_parse_exception(one, f"choose.exception {number}") for number, one in enumerate(exceptions, start=1)),
    )


def _parse_exception(raw: object, where: str) -> _Exception:
    if not isinstance(raw, Mapping):
        raise RulesError(f"{where}: expected a table, got {type(raw).__name__}")
    reject_unknown(raw, _EXCEPTION_KEYS, f"{where}: ")
    name = _text(raw, "name", where)
    low_high = raw.get("low_high")
    if not isinstance(low_high, list) or len(low_high) != 2:
        raise RulesError(f"{where}: low_high: expected [LOW, HIGH] points, got {low_high!r}")
    low, high = (_points_value(value, f"{where}: low_high") for value in low_high)
    or_more = raw.get("or_more", False)
    if not isinstance(or_more, bool):
        raise RulesError(f"{where}: or_more: expected true or false, got {or_more!r}")
    holds = raw.get("holds", [])
    if not isinstance(holds, list) or len(holds) > 4:
        raise RulesError(f"{where}: holds: expected up to four tiles, got {holds!r}")
    held = frozenset(_tile(text, f"{where}: holds") for text in holds)
    wanted = raw.get("high_hand_holds")
    return _Exception(
        name, (low, high), or_more, held, None if wanted == "highest" else _tile(wanted, f"{where}: high_hand_holds")
    )


@dataclasses.dataclass(frozen=True)
class FourTiles:
    """Four tiles as the rules look at them, worked out once: their settings and permissible pairs.

    :param tiles: the four tiles, in § 535.4(f) order.
    :param settings: :func:`legal_settings` of them.
    :param pairs: each two-tile permissible pair (§ 535.4(a)) among them: (hand, kind, other two tiles),
        kind being ``"supreme"`` or the spots of either tile.
    """

    tiles: tuple[Tile, ...]
    settings: tuple[Setting, ...]
    pairs: tuple[tuple[Hand, str, tuple[Tile, Tile]], ...]

    @classmethod
    def of(cls, tiles: Iterable[Tile]) -> FourTiles:
        """The view of ``tiles`` (memoised, as :func:`legal_settings` is: 8,130 kinds of four at most)."""
        return _four_tiles(tuple(sorted(tiles, key=lambda tile: tile.index)))

    @classmethod
    def _build(cls, four: tuple[Tile, ...]) -> FourTiles:
        settings = legal_settings(four)
        pairs = []
        for setting in settings:
            for hand, other in ((setting.high, setting.low), (setting.low, setting.high)):
                if _is_pair(hand):
                    assert hand.rank.pair is not None
                    kind = "supreme" if hand.rank.pair.group == "supreme" else str(hand.first.spots)
                    pairs.append((hand, kind, other.tiles))
        return cls(four, settings, tuple(pairs))


@functools.cache
def _four_tiles(four: tuple[Tile, ...]) -> FourTiles:
    return FourTiles._build(four)


@dataclasses.dataclass(frozen=True)
class Play:
    """One ``[[rule]]`` with ``play``: which settings of four tiles it leaves, in preference groups."""

    name: str
    play: str
    pair: frozenset[str] = frozenset()
    others: tuple[Pattern, Pattern] | None = None
    makes_at_least: tuple[int, int] | None = None
    tile: Pattern = ()
    partners: tuple[Pattern, ...] = ()
    high_hand_holds: Tile | None = None

    def settings(self, four: FourTiles) -> list[Setting]:
        """The settings of ``four`` this rule leaves, best group only (empty: the rule does not apply)."""
        if self.play == "choose":
            return list(four.settings)
        if self.play == "two_pairs":
            return [setting for setting in four.settings if _is_pair(setting.high) and _is_pair(setting.low)]
        if self.play == "combine":
            return self._combined(four.settings)
        pairs = [hand for hand, kind, rest in four.pairs if kind in self.pair and self._others_match(rest)]
        if not pairs:
            return []
        if self.play == "keep_pair":
            return [setting for setting in four.settings if setting.high in pairs or setting.low in pairs]
        split = [setting for setting in four.settings if setting.high not in pairs and setting.low not in pairs]
        if self.makes_at_least is not None:
            low, high = self.makes_at_least
            split = [
                setting
                for setting in split
                if setting.low.rank.strength >= low * _POINT_STRENGTH
                and setting.high.rank.strength >= high * _POINT_STRENGTH
            ]
        return split

    def _others_match(self, rest: tuple[Tile, Tile]) -> bool:
        if self.others is None:
            return True
        first, second = self.others
        return (rest[0] in first and rest[1] in second) or (rest[1] in first and rest[0] in second)

    def _combined(self, settings: Iterable[Setting]) -> list[Setting]:
        ranked: dict[int, list[Setting]] = {}
        groups = self._group_of
        for setting in settings:
            found = [groups[hand.tiles] for hand in (setting.high, setting.low) if hand.tiles in groups]
            if found:
                ranked.setdefault(min(found), []).append(setting)
        if not ranked:
            return []
        best = ranked[min(ranked)]
        holding = [setting for setting in best if self.high_hand_holds in setting.high.tiles]
        return holding or best

    @functools.cached_property
    def _group_of(self) -> dict[tuple[Tile, Tile], int]:
        """Each hand ``combine`` makes (both tile orders) -> the number of its partners' group."""
        groups: dict[tuple[Tile, Tile], int] = {}
        for number, partners in reversed(list(enumerate(self.partners))):
            for one in self.tile:
                for other in partners:
                    groups[(one, other)] = groups[(other, one)] = number
        return groups


def _is_pair(hand: Hand) -> bool:
    return hand.rank.pair is not None and hand.rank.pair.group in _PAIR_GROUPS


#: The pair kinds a ``pair`` list may name: "supreme" and the spot counts of § 535.4(a)'s pairs.
PAIR_KINDS = frozenset(
    {"supreme"} | {str(TILES_BY_TEXT[row.tiles[0][0]].spots) for row in PAIR_TABLE if row.group in ("matched", "mixed")}
)


def parse_play(rule: Mapping[str, Any], where: str) -> Play:
    """Check a ``[[rule]]`` that has ``play`` and build it.

    :raises RulesError: naming ``where``, the key and why.
    """
    play = rule.get("play")
    if play not in _PLAY_KEYS:
        raise RulesError(f"{where}: play: expected one of {', '.join(sorted(_PLAY_KEYS))}, got {play!r}")
    reject_unknown(rule, _PLAY_KEYS[play], f"{where}: ")
    name = _text(rule, "name", where)
    where = f"{where} ({name!r})"
    if play in ("choose", "two_pairs"):
        return Play(name, play)
    if play == "combine":
        partners = rule.get("partners")
        if not isinstance(partners, list) or not 0 < len(partners) <= _MAX_PATTERN_ALTERNATIVES:
            raise RulesError(f"{where}: partners: expected a list of tile patterns, got {partners!r}")
        holds = rule.get("high_hand_holds")
        return Play(
            name,
            play,
            tile=parse_pattern(rule.get("tile"), where),
            partners=tuple(parse_pattern(group, where) for group in partners),
            high_hand_holds=None if holds is None else _tile(holds, f"{where}: high_hand_holds"),
        )
    kinds = rule.get("pair")
    if (
        not isinstance(kinds, list)
        or not kinds
        or not all(isinstance(kind, str) and kind in PAIR_KINDS for kind in kinds)
    ):
        raise RulesError(
            f"{where}: pair: expected a list of pair kinds ({', '.join(sorted(PAIR_KINDS, key=len))}), got {kinds!r}"
        )
    raw_others = rule.get("others")
    others = None
    if raw_others is not None:
        if not isinstance(raw_others, list) or len(raw_others) != 2:
            raise RulesError(f"{where}: others: expected two tile patterns, got {raw_others!r}")
        others = (parse_pattern(raw_others[0], where), parse_pattern(raw_others[1], where))
    makes = rule.get("makes_at_least")
    makes_at_least = None
    if makes is not None:
        if not isinstance(makes, list) or len(makes) != 2:
            raise RulesError(f"{where}: makes_at_least: expected [LOW, HIGH] points, got {makes!r}")
        if others is not None:
            raise RulesError(f"{where}: makes_at_least and others: give one or the other")
        low, high = (_points_value(value, f"{where}: makes_at_least") for value in makes)
        makes_at_least = (low, high)
    return Play(name, play, pair=frozenset(kinds), others=others, makes_at_least=makes_at_least)


def _points_value(raw: object, where: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw <= _MAX_POINTS:
        raise RulesError(f"{where}: expected points 0-9, got {raw!r}")
    return raw


def _tile(raw: object, where: str) -> Tile:
    if not isinstance(raw, str) or raw not in TILES_BY_TEXT:
        raise RulesError(f'{where}: expected a tile such as "6-6" (low end first), got {raw!r}')
    return TILES_BY_TEXT[raw]


def _text(mapping: Mapping[str, Any], key: str, where: str) -> str:
    value = mapping.get(key)
    if not isinstance(value, str) or not value.strip():
        raise RulesError(f"{where}: {key}: expected text, got {value!r}")
    return value


def reject_unknown(mapping: Mapping[str, Any], known: frozenset[str], prefix: str) -> None:
    """Refuse the first key of ``mapping`` not in ``known``, naming it after ``prefix``."""
    unknown = sorted(set(mapping) - known)
    if unknown:
        raise RulesError(f"{prefix}{unknown[0]}: unknown key (known: {', '.join(sorted(known))})")
