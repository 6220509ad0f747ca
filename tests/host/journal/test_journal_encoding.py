"""The hash encoding is exactly what docs/journal.md describes byte by byte, so that an auditor
can verify a journal with their own tool."""

from __future__ import annotations

import hashlib
import hmac
import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_host.host.journal_codec import GENESIS_PREV_HASH, encode
from firmware_host.host.journal_keys import key_id
from tests.support.journal_forge import KEY

DOCUMENTED_HEAD = bytes.fromhex(
    "7461626c65686f73742d6a6f75726e61"
    "6c2f310a000000000000000200000005"
    "696e70757400000009436c6f636b5469"
    "636b013ff80000000000000000000012"
    "7b22646576696365223a22636c6f636b"
    "227d00000040"
)


def test_the_worked_example_of_the_docs_encodes_hashes_and_macs_as_documented() -> None:
    message = encode(2, "input", "ClockTick", 1.5, None, '{"device":"clock"}', GENESIS_PREV_HASH)
    assert message == DOCUMENTED_HEAD + b"0" * 64
    assert hashlib.sha256(message).hexdigest() == "42a9b251658ae8a990c75c063ae93bc548c37781c4f8012ebd20252bd60038c5"
    assert bytes(range(32)) == KEY
    assert (
        hmac.new(KEY, message, "sha256").hexdigest()
        == "1f914408ed95307b4d0de8e12440e717ad759f795a43a449733f715ddf480993"
    )
    assert key_id(KEY) == "0763eac00c15f665"


def test_a_round_is_encoded_as_a_flag_and_a_signed_64_bit_integer() -> None:
    with_round = encode(3, "decision", "prompt", None, -2, "{}", GENESIS_PREV_HASH)
    assert b"\x00\x01\xff\xff\xff\xff\xff\xff\xff\xfe\x00\x00\x00\x02{}" in with_round


def _documented(
    seq: object, kind: object, type_: object, at: object, round_: object, data: object, prev: object
) -> bytes:
    """The message as docs/journal.md's table spells it, field after field (no shortcut taken)."""

    def text(name: str, value: object) -> bytes:
        if not isinstance(value, str):
            raise TypeError(f"{name} is not text")
        raw = value.encode("utf-8")
        return struct.pack(">I", len(raw)) + raw

    if at is not None and not isinstance(at, float):
        raise TypeError("at is not a real number")
    if round_ is not None and (isinstance(round_, bool) or not isinstance(round_, int)):
        raise TypeError("round is not an integer")
    head = b"tablehost-journal/1\n" + struct.pack(">q", seq)
    when = b"\x00" if at is None else b"\x01" + struct.pack(">d", at)
    which = b"\x00" if round_ is None else b"\x01" + struct.pack(">q", round_)
    return head + text("kind", kind) + text("type", type_) + when + which + text("data", data) + text("prev", prev)


_STORED = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**64), 2**64), st.floats(), st.text(max_size=8), st.binary(max_size=4)
)


@settings(max_examples=500)
@given(
    seq=st.one_of(st.integers(-(2**63), 2**63 - 1), _STORED),
    kind=st.one_of(st.sampled_from(["meta", "input", "decision"]), _STORED),
    type_=st.one_of(st.text(), _STORED),
    at=st.one_of(st.none(), st.floats(), _STORED),
    round_=st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1), _STORED),
    data=st.one_of(st.text(), _STORED),
    prev=st.one_of(st.text(alphabet="0123456789abcdef", min_size=64, max_size=64), _STORED),
)
def test_encode_gives_the_documented_bytes_for_any_stored_fields_and_refuses_what_the_table_cannot_hold(
    seq: object, kind: object, type_: object, at: object, round_: object, data: object, prev: object
) -> None:
    # encode is written for speed (a start verifies every record with it): it must give the
    # documented bytes for anything SQLite can hand a verify, and refuse exactly what they cannot hold.
    refusals = (TypeError, ValueError, struct.error)
    try:
        expected: bytes | type[Exception] = _documented(seq, kind, type_, at, round_, data, prev)
    except refusals:
        expected = Exception
    try:
        got: bytes | type[Exception] = encode(seq, kind, type_, at, round_, data, prev)  # type: ignore[arg-type]
    except refusals:
        got = Exception
    assert got == expected
