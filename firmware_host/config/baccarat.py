"""The ``[rules]`` table of a Baccarat table profile parsed into the plain rule objects.

:func:`baccarat_rules` reads the Rules Submission
(:class:`~firmware_host.rules.baccarat.rules.RulesSubmission`: the variant and every choice
ch. 541 and § 631c.5 leave to the casino) and :func:`shuffler_rules` its ``[rules.shuffler]``
(:class:`~firmware_host.rules.shuffler.ShufflerConfig`, § 541.3). Each refuses an unknown key,
a value of the wrong type and a value the regulation does not allow with a
:class:`~firmware_host.errors.ProfileError` naming the file, ``rules.<key>`` and why; the rules
and the controller receive the objects and never see the profile.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from firmware_host.config.profiles import DeviceSlot, TableProfile
from firmware_host.errors import ProfileError
from firmware_host.rules.baccarat.rules import InvalidRule, RulesSubmission
from firmware_host.rules.shuffler import InvalidSetting, ShufflerConfig

__all__ = ["SHUFFLER_RULES", "baccarat_rules", "shuffler_rules", "shuffler_slot", "table_rules"]


#: The sub-table of ``[rules]`` that holds the shuffler's part of the Rules Submission.
SHUFFLER_RULES = "shuffler"


def table_rules(profile: TableProfile) -> tuple[RulesSubmission, ShufflerConfig | None]:
    """A Baccarat table profile's ``[rules]``: its Rules Submission, and the shuffler's
    ``[rules.shuffler]`` at a table with a shuffler device (None at a table without one).

    :raises ProfileError: naming the key and why.
    """
    mapping = dict(profile.rules.data)
    shuffler = mapping.pop(SHUFFLER_RULES, None)
    return baccarat_rules(mapping, str(profile.path)), _shuffler_config(profile, shuffler, shuffler_slot(profile))


def shuffler_slot(profile: TableProfile) -> DeviceSlot | None:
    """The table's shuffler device (a device of kind ``shuffler``), if it has one."""
    return next((slot for slot in profile.devices.values() if slot.model.kind == "shuffler"), None)


def baccarat_rules(mapping: Mapping[str, Any], source: str) -> RulesSubmission:
    """The Rules Submission of a Baccarat profile's ``[rules]`` table (less ``[rules.shuffler]``).

    :param mapping: the parsed TOML table.
    :param source: the profile's path, for error messages.
    :raises ProfileError: naming ``rules.<key>`` and why, for an unknown key, a value of
        the wrong type or out of range, or a key that does not apply to the variant.
    """
    if not isinstance(mapping, Mapping):
        raise ProfileError(source, "rules", f"must be a table, not {type(mapping).__name__}")
    fields = {field.name: field for field in dataclasses.fields(RulesSubmission)}
    for key, value in mapping.items():
        if key not in fields:
            raise ProfileError(source, f"rules.{key}", f"unknown key (known: {', '.join(fields)})")
        expected = _KEY_TYPES[key]
        if not _is_of_type(value, expected):
            raise ProfileError(source, f"rules.{key}", f"must be {_TYPE_NAMES[expected]}, not {value!r}")
    try:
        return RulesSubmission.from_choices(mapping)
    except InvalidRule as exc:
        raise ProfileError(source, f"rules.{exc.key}", exc.why) from None


def _shuffler_config(profile: TableProfile, mapping: Any, slot: DeviceSlot | None) -> ShufflerConfig | None:
    """The ``[rules.shuffler]`` of a table with a shuffler device; ``None`` for a table without one.

    ``decks_per_batch`` defaults to the table's ``decks`` and must equal it: each batch is
    one shoe (§ 541.3(b)(1)), and the simulated shuffler holds batches of ``decks``.

    :raises ProfileError: a shuffler without ``[rules.shuffler]`` or the reverse, a value the
        regulation does not allow, or batches of another size than the table's shoes.
    """
    key = f"rules.{SHUFFLER_RULES}"
    if slot is None and mapping is None:
        return None
    if slot is None:
        raise ProfileError(profile.path, key, "the table has no shuffler device (a device of kind shuffler)")
    if mapping is None:
        raise ProfileError(profile.path, key, f"missing: device {slot.name!r} is a shuffler, so the Rules "
                           "Submission must set its batches (§ 541.3(b))")  # fmt: skip
    if not isinstance(mapping, dict):
        raise ProfileError(profile.path, key, f"expected a table, got {type(mapping).__name__}")
    config = shuffler_rules({"decks_per_batch": profile.decks, **mapping}, str(profile.path))
    if config.decks_per_batch != profile.decks:
        raise ProfileError(profile.path, f"{key}.decks_per_batch", f"{config.decks_per_batch}: the table's shoes "
                           f"hold {profile.decks} decks ([table] decks), and each batch is one shoe (§ 541.3(b)(1))")  # fmt: skip
    return config


def shuffler_rules(mapping: Mapping[str, Any], source: str) -> ShufflerConfig:
    """The shuffler's part of the Rules Submission, a profile's ``[rules.shuffler]`` table.

    :raises ProfileError: naming ``rules.shuffler.<key>`` and why.
    """
    types = {"decks_per_batch": int, "back_colours": list, "continuous": bool, "deck_life_s": int,
             "deck_warning_s": int, "idle_after_s": int, "repeated_order_blocks": bool}  # fmt: skip
    for key, value in mapping.items():
        if key not in types:
            raise ProfileError(source, f"rules.shuffler.{key}", f"unknown key (known: {', '.join(types)})")
        wanted = types[key]
        if not isinstance(value, wanted) or (wanted is int and isinstance(value, bool)):
            raise ProfileError(source, f"rules.shuffler.{key}", f"must be {wanted.__name__}, not {value!r}")
    values = dict(mapping)
    if "back_colours" in values:
        colours = values["back_colours"]
        if len(colours) != 2 or not all(isinstance(c, str) for c in colours):
            raise ProfileError(source, "rules.shuffler.back_colours", "must list two colours, for batches A and B")
        values["back_colours"] = tuple(colours)
    try:
        return ShufflerConfig(**values)
    except InvalidSetting as exc:
        raise ProfileError(source, f"rules.shuffler.{exc.key}", exc.why) from None


#: The TOML type of each key: ``str``, ``int``, ``bool`` or ``list`` (of strings).
_KEY_TYPES: dict[str, type] = {
    "variant": str,
    "commission_percent": int,
    "round_commission_up_to_5_cents": bool,
    "commission_collection": str,
    "tie_commission_alternative": bool,
    "tie_payout": int,
    "offered_wagers": list,
    "lucky_six_on_six_six_tie": str,
    "initial_deal": str,
    "face_up_discards": str,
}
_TYPE_NAMES = {str: "a string", int: "a whole number", bool: "true or false", list: "a list of wager kinds"}


def _is_of_type(value: object, expected: type) -> bool:
    if expected is int:
        return isinstance(value, int) and not isinstance(value, bool)  # TOML true is not 1
    if expected is list:
        return isinstance(value, list) and all(isinstance(item, str) for item in value)
    return isinstance(value, expected)
