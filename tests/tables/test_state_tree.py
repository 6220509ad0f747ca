"""The state tree: every allowed type comes back equal, anything else is refused by its path."""

from __future__ import annotations

import dataclasses
import enum
import json
import re
from collections import Counter
from typing import Any, NamedTuple

import pytest

from firmware_host.rules.baccarat.cards import parse_card
from firmware_host.rules.baccarat.deal import Deal
from firmware_host.rules.baccarat.rules import Variant
from firmware_host.tables import state_tree
from firmware_host.tables.state_tree import StateTreeError, capture, rebuild, restore_into


class Colour(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Box:
    """A stand-in for a controller's collaborator (classes of tests are not allowed by default)."""

    value: Any
    NOT_STATE = ("config",)


class Pair(NamedTuple):
    left: int
    right: str


class Slotted:
    """An object without instance attributes' dict: not a value a tree allows."""

    __slots__ = ("x",)


class Called:
    """A callable object: code, not state."""

    def __call__(self) -> None:
        """Called."""


@pytest.fixture(autouse=True)
def allow_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(state_tree, "ALLOWED_MODULES", (*state_tree.ALLOWED_MODULES, __name__))


def round_trip(value: Any) -> Any:
    return rebuild(json.loads(json.dumps(capture(value))))


@pytest.mark.parametrize("value", [
    None, True, 0, -7, 2**70, 1.5, -0.25, "", "é", [1, [2, "x"]], (1, (2,), ()), {"a": 1}, {3: "x", (1, 2): None},
    {1, 2, 3}, frozenset({"b", "a"}), Counter({"x": 2, "y": 1}), Colour.RED, Variant.COMMISSION_FREE,
    Pair(1, "b"), Deal(player=(parse_card("9S"), parse_card("KD")), banker=(parse_card("2H"),)),
])  # fmt: skip
def test_every_allowed_value_comes_back_equal_and_of_its_type(value: Any) -> None:
    back = round_trip(Box(value)).value
    assert back == value and type(back) is type(value)


def test_the_document_is_deterministic_and_names_each_class_once() -> None:
    value = Box([Box(1), Box({3, 1, 2})])
    first, second = capture(value), capture(Box([Box(1), Box({2, 3, 1})]))
    assert first == second
    assert first["format"] == state_tree.FORMAT
    assert [name for name, _ in first["classes"]] == [f"{__name__}:Box"]


@pytest.mark.parametrize("value, where", [
    (float("nan"), "state.value"), (lambda: 1, "state.value"), (object(), "state.value"),
    ({"k": bytearray(b"x")}, "state.value['k']"), ([Box], "state.value[0]"), ((Slotted(),), "state.value[0]"),
    ([Box(1), Called()], "state.value[1]"),
    ({Box: 1}, "state.value key"), (frozenset([Box]), "state.value item"), ((1, [2, Box]), "state.value[1][1]"),
    ({(1, "a"): [float("inf")]}, "state.value[(1, 'a')][0]"),
])  # fmt: skip
def test_a_value_the_tree_does_not_allow_is_refused_by_its_path(value: Any, where: str) -> None:
    with pytest.raises(StateTreeError, match="^" + re.escape(where)):
        capture(Box(value))


def test_a_class_outside_the_allowed_modules_is_refused_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    document = capture(Box(1))
    monkeypatch.setattr(state_tree, "ALLOWED_MODULES", ("firmware_host.rules",))
    with pytest.raises(StateTreeError, match="is not a class a state tree may hold"):
        capture(Box(1))
    with pytest.raises(StateTreeError, match="outside firmware_host.rules"):
        rebuild(document)


def test_restore_keeps_what_is_not_state_and_refuses_other_fields() -> None:
    fresh = Box(0)
    fresh.config = "from the profile"  # type: ignore[attr-defined]
    restore_into(fresh, capture(Box([1, 2])))
    assert fresh.value == [1, 2] and fresh.config == "from the profile"  # type: ignore[attr-defined]
    document = capture(Box(1))
    document["classes"][0][1] = ["value", "added_later"]
    document["root"]["object"].append(2)
    with pytest.raises(StateTreeError, match="other state in this version"):
        restore_into(Box(0), document)


@pytest.mark.parametrize("document, why", [
    ({"format": 99, "classes": [], "root": 1}, "state format 99"),
    ({"format": 1, "classes": [["x:Y", []]], "root": 1}, "outside"),
    ({"format": 1, "classes": [], "root": {"object": [0]}}, "names no class"),
    ({"format": 1, "classes": [], "root": {"tuple": 1}}, "expected a list"),
    ({"format": 1, "classes": [], "root": {"what": []}}, "expected one of"),
])  # fmt: skip
def test_a_malformed_document_is_a_clear_error(document: dict[str, Any], why: str) -> None:
    with pytest.raises(StateTreeError, match=why):
        rebuild(document)


@pytest.mark.parametrize("root, where", [
    ({"dict": [["k", {"what": []}]]}, "state['k']: "), ({"dict": [[{"tuple": 1}, 2]]}, "state key: "),
    ({"tuple": [1, [2, {"set": 3}]]}, "state[1][1]: "), ({"counter": [[1, 2], [3]]}, "state[1]: "),
    ({"object": [0, {"frozenset": None}]}, "state.value: "),
])  # fmt: skip
def test_a_malformed_node_is_named_by_its_path(root: Any, where: str) -> None:
    document = {"format": 1, "classes": [[f"{__name__}:Box", ["value"]]], "root": root}
    with pytest.raises(StateTreeError, match="^" + re.escape(where)):
        rebuild(document)
