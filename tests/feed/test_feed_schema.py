"""The feed's messages as pure functions of the journal: what is published, numbering, chain."""

from __future__ import annotations

import json
from typing import Any

import pytest

from firmware_host.feed import schema
from firmware_host.feed.schema import FeedState, MessageError
from tests.support.feed_records import RECORDS, Rec




def messages(records: list[Rec] = RECORDS, state: FeedState = FeedState()) -> list[dict[str, Any]]:
    return [m for m, _ in schema.derive("T1", records, state)]


def test_only_binding_decisions_and_device_status_are_published() -> None:
    published = messages()
    assert [(m["journal_seq"], m["type"]) for m in published] == [
        (1, "journal_opened"), (3, "device_event"), (4, "device"), (8, "device_event"), (9, "alert"),
        (10, "round_result")]
    assert published[1]["data"] == {"event": "DeviceIdentified", "device": "shoe", "model": "M", "serial": "S1",
                                    "firmware": "1.0"}


def test_no_card_bytes_leave_in_protocol_errors() -> None:
    payloads = b"".join(schema.encode(m) for m in messages())
    assert b"9S" not in payloads and b"Card" not in payloads
    assert messages()[3]["data"] == {"event": "ProtocolError", "device": "shoe"}
    assert messages()[4]["data"] == {"code": "protocol-error", "severity": "warning"}


def test_seq_is_gapless_from_one_and_chained() -> None:
    published = messages()
    assert [m["seq"] for m in published] == list(range(1, len(published) + 1))
    assert published[0]["prev_hash"] == schema.GENESIS_HASH
    for before, after in zip(published, published[1:]):
        assert after["prev_hash"] == before["hash"]
    assert all(m["journal_hash"] == f"{m['journal_seq']:064x}" for m in published)


def test_the_same_journal_yields_the_same_bytes_from_any_cursor() -> None:
    whole = [schema.encode(m) for m in messages()]
    # Resuming after message 3 (journal record 4) gives the same bytes for the rest.
    _, state = list(schema.derive("T1", RECORDS, FeedState()))[2]
    assert state == FeedState(3, 4, messages()[2]["hash"])
    assert [schema.encode(m) for m in messages(RECORDS, state)] == whole[3:]


def test_a_message_checks_and_any_change_is_caught() -> None:
    for message in messages():
        assert schema.check_message(schema.encode(message)) == message
    forged = {**messages()[-1], "data": {"round": 1, "winner": "player"}}
    with pytest.raises(MessageError, match="does not match its hash"):
        schema.check_message(schema.encode(forged))


@pytest.mark.parametrize("payload, why", [
    (b"\xff", "not a JSON message"),
    (b"[1]", "fields are"),
    (json.dumps({f: 1 for f in schema.FIELDS}).encode(), "table is 1"),
])
def test_malformed_payloads_are_refused_with_the_reason(payload: bytes, why: str) -> None:
    with pytest.raises(MessageError, match=why):
        schema.check_message(payload)
