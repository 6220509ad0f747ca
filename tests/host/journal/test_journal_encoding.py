"""The hash encoding is exactly what docs/journal.md describes byte by byte, so that an auditor
can verify a journal with their own tool."""

from __future__ import annotations

import hashlib
import hmac

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
