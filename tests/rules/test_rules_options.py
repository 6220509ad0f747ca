"""The Rules Submission options as the journal records them (§ 521.2): every option, JSON-plain."""

from __future__ import annotations

import dataclasses
import json

import pytest

from firmware_host.host.journal_codec import canonical_json
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.rules.baccarat.variant import Variant
from firmware_host.rules.options import in_key_order, resolved
from firmware_host.rules.paigow_dice.rules import PaiGowRules
from firmware_host.rules.shuffler import ShufflerConfig


@pytest.mark.parametrize(
    "options",
    [
        RulesSubmission(),
        RulesSubmission(Variant.COMMISSION_FREE),
        PaiGowRules(delivery_styles=("pin-say-from-the-left",)),
        ShufflerConfig(),
    ],
    ids=["baccarat", "commission-free", "paigow-dice", "shuffler"],
)
def test_every_option_is_recorded_json_plain(options: object) -> None:
    plain = resolved(options)
    assert list(plain) == [field.name for field in dataclasses.fields(options)]  # type: ignore[arg-type]
    assert json.loads(canonical_json(plain, "rules")) == plain


def test_enums_by_value_sets_sorted_tuples_as_lists() -> None:
    plain = resolved(RulesSubmission(offered_wagers=frozenset({"tie", "banker", "player"})))
    assert plain["variant"] == "standard" and plain["offered_wagers"] == ["banker", "player", "tie"]
    assert resolved(PaiGowRules(delivery_styles=("pin-say-from-the-left",)))["delivery_styles"] == [
        "standard",
        "pin-say-from-the-left",
    ]


def test_what_has_no_json_form_is_refused() -> None:
    @dataclasses.dataclass
    class Odd:
        value: object

    with pytest.raises(TypeError, match="no JSON form"):
        resolved(Odd(object()))
    with pytest.raises(TypeError, match="not a rules dataclass"):
        resolved(RulesSubmission)


def test_in_key_order_sorts_every_object_as_the_journal_stores_it() -> None:
    live = {"b": [{"d": 1, "c": 2}], "a": 3}
    ordered = in_key_order(live)
    assert ordered == live and list(ordered) == ["a", "b"] and list(ordered["b"][0]) == ["c", "d"]
    assert json.dumps(ordered) == canonical_json(live, "rules").replace(",", ", ").replace(":", ": ")
