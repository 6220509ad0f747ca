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
        (1, "journal_opened"),
        (3, "device_event"),
        (4, "device"),
        (8, "device_event"),
        (9, "alert"),
        (10, "round_result"),
    ]
    assert published[1]["data"] == {
        "event": "DeviceIdentified",
        "device": "shoe",
        "model": "M",
        "serial": "S1",
        "firmware": "1.0",
    }


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


def genuine(**changes: Any) -> bytes:
    """The last message of :data:`RECORDS` with ``changes``, its hash recomputed (so only the change is wrong)."""
    body = {k: v for k, v in messages()[-1].items() if k != "hash"}
    try:
        made = schema.seal({**body, **changes})
    except ValueError:  # NaN has no canonical JSON: any hash will do, the parse refuses it first
        made = {**body, **changes, "hash": "0" * 64}
    return json.dumps(made, allow_nan=True).encode()


def nested(depth: int) -> list[Any]:
    made: list[Any] = []
    for _ in range(depth - 1):
        made = [made]
    return made


def test_a_hand_made_json_float_checks() -> None:
    assert schema.check_message(genuine(at=1796116391.58))["at"] == 1796116391.58


@pytest.mark.parametrize(
    "payload, why",
    [
        (b"\xff", "not UTF-8"),
        (b"[1]", "a JSON list, not an object"),
        (json.dumps({f: 1 for f in schema.FIELDS}).encode(), "table is 1"),
        # issue 20: each of these stopped the collector for every table, for good
        (genuine(at=float("nan")), "NaN is not a JSON number"),
        (genuine(at=float("inf")), "Infinity is not a JSON number"),
        (genuine().replace(b'"at": 10.5', b'"at": 1e999'), "is not finite"),
        (genuine(seq=2**63), r"seq is 9223372036854775808, not an integer 1\.\.9007199254740992"),
        (genuine(seq=2**53 + 1), "seq is 9007199254740993"),
        (genuine(seq=10**300), "an integer of 301 digits"),
        (genuine(round=[1, 2]), r"round is \[1, 2\], not an integer"),
        (genuine(round="3"), "round is '3'"),
        (genuine(at="10.5"), "at is '10.5', not a time"),
        (genuine(at=True), "at is True"),
        (genuine(seq=True), "seq is True"),
        (genuine(journal_seq=0), "journal_seq is 0"),
        (genuine(type="x" * 65), "not a message type"),
        (genuine(data=[]), r"data is \[\], not an object"),
        (genuine(table="T1/events"), "not a table id"),
        (genuine(extra=1), r"unknown \['extra'\]"),
        (genuine(data={"a": nested(33)}), "nested more than 32 deep"),
        (b"[" * 5000 + b"]" * 5000, "nested more than 32 deep"),
        (b"[" * 100_000 + b"]" * 100_000, "100000 objects and arrays"),
        (b'{"a": [' + b"[]," * 10_000 + b"[]]}", "10003 objects and arrays"),
        (b'{"table": "T1", "table": "T2"}', "repeats a key"),
        (b" " * (schema.MAX_PAYLOAD + 1), "payload of 262145 bytes"),
    ],
)
def test_malformed_payloads_are_refused_with_the_reason(payload: bytes, why: str) -> None:
    with pytest.raises(MessageError, match=why):
        schema.check_message(payload)


def test_nesting_up_to_the_limit_is_accepted() -> None:
    assert schema.check_message(genuine(data={"a": nested(30)}))["data"]["a"] == nested(30)  # 32 deep in all
    assert not schema.too_deep(json.dumps({"a": [[1], [2, {"b": []}]], "c": ']]]\\"['}).encode(), 5)
    assert schema.too_deep(json.dumps({"a": [[1], [2, {"b": []}]]}).encode(), 4)  # 5 deep
    assert schema.too_deep(b"[" * 40 + b'"]]]"', 32)  # unbalanced


def test_brackets_inside_strings_are_not_nesting() -> None:
    assert schema.check_message(genuine(data={"text": "[[[[{{{{" * 100 + '\\"]'}))["data"]["text"].startswith("[[[[")


@pytest.mark.parametrize(
    "change, why",
    [
        ({"state": "hacked"}, "state is 'hacked'"),
        ({"seq": -1}, "seq is -1"),
        ({"version": ""}, "version is ''"),
        ({"game": ["baccarat"]}, "game is"),
        ({"table": 7}, "table is 7"),
    ],
)
def test_a_status_is_checked_as_strictly(change: dict[str, Any], why: str) -> None:
    status = {"table": "T1", "state": "online", "version": "0.2.0", "game": "baccarat", "seq": 3}
    assert schema.check_status(json.dumps(status).encode()) == status
    with pytest.raises(MessageError, match=why):
        schema.check_status(json.dumps({**status, **change}).encode())


def test_signed_requires_the_signature_fields() -> None:
    with pytest.raises(MessageError, match="unsigned"):
        schema.check_message(genuine(), signed=True)
