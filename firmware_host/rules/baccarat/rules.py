"""The casino's Rules Submission for a Baccarat table.

A :class:`RulesSubmission` is the ``[rules]`` table of a table profile: which variant is
played and every choice ch. 541 and § 631c.5 leave to the casino. It is a frozen value that
refuses a value the regulation does not allow (:class:`InvalidRule`, naming the key); the
profile's table is parsed into one by :func:`firmware_host.config.baccarat.baccarat_rules`. The readings we took where the regulation is ambiguous are in
``docs/rules-interpretations/baccarat.md``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.variant import Variant
from firmware_host.rules.baccarat.wagers import VARIANT_WAGERS, WAGER_KINDS

#: § 541.13(b): a winning Tie Bet pays at least 8 to 1.
MIN_TIE_PAYOUT = 8
#: § 631c.5(j): in commission-free Baccarat the tie pays exactly 8 to 1.
COMMISSION_FREE_TIE_PAYOUT = 8
#: § 541.13(c): the vigorish on a winning banker wager is 4% or 5% of the amount won.
COMMISSION_PERCENTS: tuple[int, ...] = (4, 5)
#: § 541.13(e): when the vigorish is collected.
COMMISSION_COLLECTIONS: tuple[str, ...] = ("at_payout", "deferred")
#: What a Lucky Six wager does when both hands tie at 6; § 631c.5(c)(3) does not say.
LUCKY_SIX_SIX_TIE_OUTCOMES: tuple[str, ...] = ("lose", "push")
#: § 541.9(c): the initial four cards are dealt face up ((c)(1)) or face down until the
#: Player's Hand is called ((c)(2)), as the casino chooses.
INITIAL_DEALS: tuple[str, ...] = ("face_up", "face_down")
#: § 541.14(d) "the value of the card found face up": the § 541.6(a) point value (tens and
#: faces 0) or the face value the burn counts (§ 541.5(g): tens and faces 10).
FACE_UP_DISCARD_READINGS: tuple[str, ...] = ("point_value", "face_value")


#: Keys that only mean something when a commission is charged (Minibaccarat, § 541.13).
_STANDARD_ONLY_KEYS = frozenset(
    ("commission_percent", "round_commission_up_to_5_cents", "commission_collection", "tie_commission_alternative")
)
#: Keys that only mean something when the § 541.13(c) commission is charged.
_COMMISSION_KEYS = frozenset(("commission_percent", "commission_collection"))


@dataclasses.dataclass(frozen=True)
class RulesSubmission:
    """The casino's choices for one Baccarat table (58 Pa. Code § 521.2 Rules Submission).

    :param variant: standard Minibaccarat (ch. 541) or commission-free (§ 631c.5).
    :param commission_percent: vigorish on a winning banker wager, 4 or 5 (§ 541.13(c)).
    :param round_commission_up_to_5_cents: round every vigorish up to the next multiple of
        5 cents (§ 541.13(d)); otherwise a fraction of a cent is rounded up to the cent.
    :param commission_collection: ``'at_payout'`` or ``'deferred'``: marked per seat and
        collected before the reshuffle or when the player leaves (§ 541.13(e)).
    :param tie_commission_alternative: instead of the commission, charge 25% of every
        banker wager when the round is a tie (§ 541.13(f)).
    :param tie_payout: a winning tie pays this to 1: at least 8 (§ 541.13(b)); exactly 8 in
        commission-free Baccarat (§ 631c.5(j)).
    :param offered_wagers: the wager kinds this table takes; by default every kind the
        variant permits.
    :param lucky_six_on_six_six_tie: ``'lose'`` or ``'push'``: a Lucky Six wager when both
        hands tie at 6, which § 631c.5(c)(3) leaves open.
    :param initial_deal: ``'face_up'`` (§ 541.9(c)(1)) or ``'face_down'`` until the reveal
        (§ 541.9(c)(2)).
    :param face_up_discards: ``'point_value'`` or ``'face_value'``: how many cards follow a
        card found face up in the shoe to the discard rack (§ 541.14(d)).
    :raises RulesError: for a value the regulation does not allow.
    """

    variant: Variant = Variant.STANDARD
    commission_percent: int = 5
    round_commission_up_to_5_cents: bool = False
    commission_collection: str = "at_payout"
    tie_commission_alternative: bool = False
    tie_payout: int = MIN_TIE_PAYOUT
    offered_wagers: frozenset[str] = frozenset()
    lucky_six_on_six_six_tie: str = "lose"
    initial_deal: str = "face_up"
    face_up_discards: str = "point_value"

    def __post_init__(self) -> None:
        object.__setattr__(self, "variant", Variant.parse(self.variant))
        offered = frozenset(self.offered_wagers) or VARIANT_WAGERS[self.variant]
        object.__setattr__(self, "offered_wagers", offered)
        problem = _value_problem(self)
        if problem is not None:
            raise InvalidRule(*problem)

    @property
    def charges_commission(self) -> bool:
        """Whether a winning banker wager pays the § 541.13(c) vigorish."""
        return self.variant is Variant.STANDARD and not self.tie_commission_alternative

    def require_offered(self, kind: str) -> None:
        """Check that this table takes ``kind`` wagers.

        :raises RulesError: naming the kind and what the table offers.
        """
        if kind not in self.offered_wagers:
            offered = ", ".join(k for k in WAGER_KINDS if k in self.offered_wagers)
            raise RulesError(f"wager kind {kind!r}: not offered at this {self.variant} table (offered: {offered})")

    @classmethod
    def from_choices(cls, choices: Mapping[str, Any]) -> RulesSubmission:
        """The Rules Submission of the choices a casino made (the others take their defaults),
        each of its field's type: a profile's parsed ``[rules]`` or the CLI's options.

        :raises InvalidRule: naming the key and why, for a value the regulation does not allow
            or a choice that does not apply to the variant or the vigorish.
        """
        values: dict[str, Any] = {field.name: field.default for field in dataclasses.fields(cls)} | dict(choices)
        if values["variant"] not in set(Variant):
            raise InvalidRule("variant", f"{values['variant']!r} is not one of {', '.join(v.value for v in Variant)}")
        problem = _presence_problem(
            set(choices), Variant(values["variant"]), bool(values["tie_commission_alternative"])
        )
        if problem is None and "offered_wagers" in choices:
            problem = _offered_list_problem(choices["offered_wagers"])
        if problem is not None:
            raise InvalidRule(*problem)
        return cls(**values | {"offered_wagers": frozenset(values["offered_wagers"])})


class InvalidRule(RulesError):
    """A Rules Submission value the regulation does not allow; keeps the key apart, so the
    profile's parser (:mod:`firmware_host.config.baccarat`) names ``rules.<key>``."""

    def __init__(self, key: str, why: str) -> None:
        self.key, self.why = key, why
        super().__init__(f"rules.{key}: {why}")


def _presence_problem(keys: set[str], variant: Variant, tie_alternative: bool) -> tuple[str, str] | None:
    """A key given that has no meaning with the chosen variant or vigorish."""
    if variant is Variant.COMMISSION_FREE:
        misplaced = sorted(keys & _STANDARD_ONLY_KEYS)
        if misplaced:
            return misplaced[
                0
            ], "applies only to variant 'standard': commission-free Baccarat collects no commission (§ 631c.5(a))"
        return None
    if "lucky_six_on_six_six_tie" in keys:
        return "lucky_six_on_six_six_tie", "applies only to variant 'commission-free', the only one with Lucky Six"
    misplaced = sorted(keys & _COMMISSION_KEYS) if tie_alternative else []
    if misplaced:
        return (
            misplaced[0],
            "does not apply with tie_commission_alternative: the § 541.13(c) commission may not be collected (§ 541.13(f))",
        )
    return None


def _offered_list_problem(kinds: Iterable[str]) -> tuple[str, str] | None:
    listed = list(kinds)
    if not listed:
        return "offered_wagers", "must list at least one wager kind"
    if len(set(listed)) != len(listed):
        return "offered_wagers", "lists a wager kind twice"
    return None


def _value_problem(rules: RulesSubmission) -> tuple[str, str] | None:
    """The first value the regulation does not allow, as (key, why)."""
    if rules.commission_percent not in COMMISSION_PERCENTS:
        return "commission_percent", f"{rules.commission_percent!r} is not 4 or 5 (§ 541.13(c))"
    if rules.commission_collection not in COMMISSION_COLLECTIONS:
        return (
            "commission_collection",
            f"{rules.commission_collection!r} is not one of {', '.join(COMMISSION_COLLECTIONS)}",
        )
    if rules.tie_commission_alternative and rules.commission_collection != "at_payout":
        return "commission_collection", "the 25% tie vigorish is collected at the end of the round (§ 541.13(f))"
    if isinstance(rules.tie_payout, bool) or not isinstance(rules.tie_payout, int) or rules.tie_payout < MIN_TIE_PAYOUT:
        return "tie_payout", f"{rules.tie_payout!r}: a tie pays at least 8 to 1 (§ 541.13(b))"
    if rules.variant is Variant.COMMISSION_FREE:
        if rules.tie_payout != COMMISSION_FREE_TIE_PAYOUT:
            return "tie_payout", f"{rules.tie_payout!r}: commission-free Baccarat pays a tie 8 to 1 (§ 631c.5(j))"
        if rules.tie_commission_alternative:
            return "tie_commission_alternative", "commission-free Baccarat collects no commission (§ 631c.5(a))"
    unknown = sorted(rules.offered_wagers - set(WAGER_KINDS))
    if unknown:
        return "offered_wagers", f"{unknown[0]!r} is not a wager kind (known: {', '.join(WAGER_KINDS)})"
    not_permitted = sorted(rules.offered_wagers - VARIANT_WAGERS[rules.variant])
    if not_permitted:
        return "offered_wagers", f"{not_permitted[0]!r} is not a wager of {rules.variant} Baccarat (§ 541.8(a))"
    if rules.lucky_six_on_six_six_tie not in LUCKY_SIX_SIX_TIE_OUTCOMES:
        return "lucky_six_on_six_six_tie", f"{rules.lucky_six_on_six_six_tie!r} is not 'lose' or 'push'"
    if rules.initial_deal not in INITIAL_DEALS:
        return "initial_deal", f"{rules.initial_deal!r} is not one of {', '.join(INITIAL_DEALS)} (§ 541.9(c)(1), (2))"
    if rules.face_up_discards not in FACE_UP_DISCARD_READINGS:
        return "face_up_discards", (
            f"{rules.face_up_discards!r} is not one of {', '.join(FACE_UP_DISCARD_READINGS)} (§ 541.14(d))"
        )
    return None
