"""A Rules Submission's options as JSON: what the journal records as the rules in force.

The casino's Rules Submission (§ 521.2) selects among the options the regulations allow
(§ 541.9(c)(1) or (2), the commission, the house way...). A hand can only be reconstructed
with the options it was played under, so every table journals them (``RulesInForce``).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

__all__ = ["resolved", "in_key_order"]


def resolved(options: Any) -> dict[str, Any]:
    """Every field of the rules dataclass ``options``, resolved and JSON-plain: enums by value,
    sets sorted, tuples as lists, exact numbers as text, nested rules likewise.

    :raises TypeError: ``options`` is not a dataclass instance, or a field holds a value with
        no JSON form here.
    """
    if not dataclasses.is_dataclass(options) or isinstance(options, type):
        raise TypeError(f"not a rules dataclass: {options!r}")
    return {field.name: _plain(getattr(options, field.name)) for field in dataclasses.fields(options)}


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return _plain(value.value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return resolved(value)
    if isinstance(value, (set, frozenset)):
        return sorted(_plain(item) for item in value)
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    if isinstance(value, Mapping):
        return {",".join(key) if isinstance(key, tuple) else str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (Decimal, Fraction)):
        return str(value)
    raise TypeError(f"no JSON form for the option value {value!r}")


def in_key_order(value: Any) -> Any:
    """``value`` (JSON-plain) with every object's keys sorted, as the journal stores it (its
    canonical JSON): the same options compare, and capture, alike live and replayed."""
    if isinstance(value, Mapping):
        return {key: in_key_order(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [in_key_order(item) for item in value]
    return value
