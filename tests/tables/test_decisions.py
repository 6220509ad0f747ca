"""What outputs may show of a decision (firmware_host/tables/decisions.py)."""

from __future__ import annotations

from firmware_host.tables.decisions import WITHHELD_TEXT, Decision, for_outputs


def test_541_9_c_2_an_alert_quoting_device_bytes_is_shown_without_them() -> None:
    garbled = Decision(
        "alert", {"code": "protocol-error", "text": "shoe: malformed frame b'<Card:KH'", "severity": "warning"}, 2
    )
    shown = for_outputs(garbled)
    assert shown.data == {"code": "protocol-error", "text": WITHHELD_TEXT, "severity": "warning"}
    assert shown.round == 2 and garbled.data["text"].endswith("<Card:KH'")


def test_every_other_decision_is_shown_as_decided() -> None:
    for decision in (
        Decision("alert", {"code": "card-face-up", "text": "card face up", "severity": "attention"}),
        Decision("announce", {"announce": "outcome", "text": "banker wins"}, 5),
    ):
        assert for_outputs(decision) is decision
