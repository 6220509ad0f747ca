"""The casino's choices for Pai Gow tiles (its Rules Submission, § 521.2), read from the table profile.

Every option has the regulation's reading as its default, so ``PaiGowTileRules()`` is the
game exactly as ch. 535 prints it. Where ch. 535 leaves a choice to the casino, or its text
is open to more than one reading, the option and the reading are listed in
``docs/rules-interpretations/paigow-tiles.md``.

In a table profile (TOML)::

    [rules]
    commission_percent = 5
    commission_rounding = "quarter"          # § 535.10(k): round the vigorish up to 25 cents
    house_way_tie_break = "strongest_low"

    [rules.house_way_table]                  # the casino's own house way for these tiles
    "6-6,6-6,4-5,3-6" = "6-6,4-5/6-6,3-6"
"""

from __future__ import annotations

import dataclasses
import decimal
import enum
import types
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from typing import Any, ClassVar

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_tiles.hands import Setting
from firmware_host.rules.paigow_tiles.tiles import Tile, parse_tiles


class CommissionRounding(enum.StrEnum):
    """§ 535.10(k): how the vigorish is rounded."""

    #: Up to the next whole cent (the exact 5% when it is whole cents).
    CENT = "cent"
    #: Up to 25 cents or the next highest multiple of 25 cents (the casino's option in § 535.10(k)).
    QUARTER = "quarter"


class HouseWayTieBreak(enum.StrEnum):
    """§ 535.10(d)(2), (3): which setting to play when more than one meets the same step."""

    #: The strongest low hand, then the strongest high hand.
    STRONGEST_LOW = "strongest_low"
    #: The strongest high hand, then the strongest low hand.
    STRONGEST_HIGH = "strongest_high"


class ZeroValueRule(enum.StrEnum):
    """§ 535.10(g), (h)(1): which of the player's hands cannot win with a value of zero."""

    #: Only the low hand, the words of § 535.10(g), (h)(1) (the default); a zero high hand
    #: ranks as usual and can win on its highest tile.
    LOW_HAND = "low_hand"
    #: Neither of the player's hands wins with a value of zero (a Rules Submission option).
    BOTH_HANDS = "both_hands"


class OddCent(enum.StrEnum):
    """§ 535.11(r): which co-banker's half takes the odd cent when an amount is split in two."""

    BANK = "bank"
    HOUSE = "house"


class BankTileExposed(enum.StrEnum):
    """§ 535.12(d), (e): what a tile of the player bank's hand exposed by the dealer does."""

    #: Treated like the dealer's tile (§ 535.12(e)): all hands void.
    VOID_ALL = "void_all"
    #: Treated like a player's tile (§ 535.12(d)): the bank may void, which voids every hand.
    BANK_MAY_VOID = "bank_may_void"


#: Sorted tile texts of four tiles, the key of a house-way table entry.
HouseWayKey = tuple[str, str, str, str]

_MAX_COMMISSION_PERCENT = Decimal(100)
#: Percentages are kept to hundredths, so commission arithmetic stays in whole basis points.
_PERCENT_QUANTUM = Decimal("0.01")


def house_way_key(tiles: Iterable[Tile]) -> HouseWayKey:
    """The house-way table key of four tiles: their texts in § 535.4(f) order."""
    first, second, third, fourth = (tile.text for tile in sorted(tiles, key=lambda tile: tile.index))
    return (first, second, third, fourth)


def _parse_percent(raw: object) -> Decimal:
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str, Decimal)):
        raise RulesError(f"expected a percentage such as 5, got {raw!r}")
    try:
        percent = Decimal(str(raw))
    except decimal.InvalidOperation:
        raise RulesError(f"expected a percentage such as 5, got {raw!r}") from None
    if not percent.is_finite() or not Decimal(0) <= percent < _MAX_COMMISSION_PERCENT:
        raise RulesError(f"expected a percentage from 0 up to (not including) 100, got {raw!r}")
    if percent != percent.quantize(_PERCENT_QUANTUM):
        raise RulesError(f"at most two decimal places (hundredths of a percent), got {raw!r}")
    return percent


def _enum_parser(kind: type[enum.StrEnum]) -> Callable[[object], enum.StrEnum]:
    def parse(raw: object) -> enum.StrEnum:
        try:
            if not isinstance(raw, str):
                raise ValueError(raw)
            return kind(raw)
        except ValueError:
            choices = ", ".join(repr(member.value) for member in kind)
            raise RulesError(f"expected one of {choices}, got {raw!r}") from None

    return parse


def _parse_flag(raw: object) -> bool:
    if not isinstance(raw, bool):
        raise RulesError(f"expected true or false, got {raw!r}")
    return raw


def _parse_optional_cents(raw: object) -> int | None:
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
        raise RulesError(f"expected a whole number of cents, 0 or more, got {raw!r}")
    return raw


def parse_house_way_table(raw: object) -> types.MappingProxyType[HouseWayKey, Setting]:
    """``{"TILES": "HIGH/LOW"}`` entries (a profile's or a house-way document's), checked and keyed.

    :raises RulesError: naming the entry that is malformed, sets other tiles, or repeats tiles.
    """
    if not isinstance(raw, Mapping):
        raise RulesError(f'expected a table of "TILES" = "HIGH/LOW" entries, got {type(raw).__name__}')
    table: dict[HouseWayKey, Setting] = {}
    for raw_tiles, raw_setting in raw.items():
        where = f"entry {raw_tiles!r}"
        tiles_text = ",".join(raw_tiles) if isinstance(raw_tiles, tuple) else raw_tiles
        if not isinstance(tiles_text, str) or not isinstance(raw_setting, (str, Setting)):
            raise RulesError(f'{where}: expected "TILES" = "HIGH/LOW" text, got {raw_setting!r}')
        try:
            key = house_way_key(parse_tiles(tiles_text, count=4))
            setting = raw_setting if isinstance(raw_setting, Setting) else Setting.parse(raw_setting)
        except RulesError as exc:
            raise RulesError(f"{where}: {exc}") from exc
        if house_way_key(setting.tiles) != key:
            raise RulesError(f"{where}: the setting {setting.text} does not use exactly these four tiles")
        if key in table:
            raise RulesError(f"{where}: these four tiles already have an entry")
        table[key] = setting
    return types.MappingProxyType(table)


#: Option name -> parser of its profile value (also the check of a directly built value).
_PARSERS: dict[str, Callable[[Any], Any]] = {
    "commission_percent": _parse_percent,
    "commission_rounding": _enum_parser(CommissionRounding),
    "house_way_tie_break": _enum_parser(HouseWayTieBreak),
    "house_way_table": parse_house_way_table,
    "zero_value_rule": _enum_parser(ZeroValueRule),
    "two_adjacent_areas": _parse_flag,
    "dealer_wager_against_bank": _parse_optional_cents,
    "co_bank_odd_cent": _enum_parser(OddCent),
    "bank_tile_exposed": _enum_parser(BankTileExposed),
}


@dataclasses.dataclass(frozen=True)
class PaiGowTileRules:
    """The Rules Submission options of the tiles game.

    :param commission_percent: vigorish on the amount won (§ 535.10(k), § 535.11(o), (q), (r)).
    :param commission_rounding: § 535.10(k) rounding of the vigorish.
    :param house_way_tie_break: choice between settings meeting the same step of § 535.10(d).
    :param house_way_table: the casino's own settings for given tiles, replacing § 535.10(d)'s
        steps for those tiles; keyed by :func:`house_way_key`.
    :param zero_value_rule: § 535.10(g), (h)(1) reading: by default only the low hand
        cannot win with a value of zero.
    :param two_adjacent_areas: a player may wager on two adjacent areas (§ 535.13(a)).
    :param dealer_wager_against_bank: fixed amount in cents the dealer wagers against a player
        bank (§ 535.11(h)); ``None`` means the bank's last wager against the dealer.
    :param co_bank_odd_cent: § 535.11(r) split of an odd amount.
    :param bank_tile_exposed: § 535.12(d)/(e) reading for the bank's tiles.
    :raises RulesError: an option's value is out of range.
    """

    commission_percent: Decimal = Decimal(5)
    commission_rounding: CommissionRounding = CommissionRounding.CENT
    house_way_tie_break: HouseWayTieBreak = HouseWayTieBreak.STRONGEST_LOW
    house_way_table: Mapping[HouseWayKey, Setting] = dataclasses.field(
        default_factory=lambda: types.MappingProxyType({}), hash=False
    )
    zero_value_rule: ZeroValueRule = ZeroValueRule.LOW_HAND
    two_adjacent_areas: bool = False
    dealer_wager_against_bank: int | None = None
    co_bank_odd_cent: OddCent = OddCent.BANK
    bank_tile_exposed: BankTileExposed = BankTileExposed.VOID_ALL

    #: Keys of the ``[rules]`` table this class reads.
    KEYS: ClassVar[frozenset[str]] = frozenset(_PARSERS)

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            object.__setattr__(self, field.name, _PARSERS[field.name](getattr(self, field.name)))

    @property
    def commission_basis_points(self) -> int:
        """The commission in hundredths of a percent (500 for 5%)."""
        return int(self.commission_percent * 100)

    def to_mapping(self) -> dict[str, Any]:
        """The options as a profile table (inverse of
        :func:`firmware_host.config.rules.paigow_tile_rules`), for the journal."""
        mapping: dict[str, Any] = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if field.name == "house_way_table":
                value = {",".join(key): setting.text for key, setting in value.items()}
            elif field.name == "commission_percent":
                value = str(value)
            elif isinstance(value, enum.Enum):
                value = value.value
            if value is not None:
                mapping[field.name] = value
        return mapping


#: The regulation as printed, with no casino options.
DEFAULT_RULES = PaiGowTileRules()
