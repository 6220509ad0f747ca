"""The floor's copy read by a salvage (issue 27, item 5) as the hostile input it may be: whatever a
stored row was changed to, checking the copy never raises, never restores a message the table did
not sign as it is, and never lets one changed row cost the genuine messages after it."""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bench.floor.records import RECORDS
from firmware_host.feed import schema, signing
from firmware_host.feed.schema import FeedState
from firmware_host.floor.model import Unreadable
from firmware_host.floor.recovered import check_copy, ranges, record_hash
from firmware_host.host.journal_codec import GENESIS_PREV_HASH, Record, canonical_json, seal

PRIVATE = Ed25519PrivateKey.generate()
SIGNER = signing.Signer(PRIVATE)
KEYS = {SIGNER.key_id: PRIVATE.public_key()}


def _chained() -> list[Record]:
    """The feed tests' records (``RECORDS``) as a journal chains them, with their real hashes."""
    made, prev = [], GENESIS_PREV_HASH
    for r in RECORDS:
        row = seal(r.seq, r.kind, r.type, r.at, r.round, canonical_json(r.data, "test"), prev, None)
        made.append(Record.from_row(row))
        prev = made[-1].hash
    return made


JOURNAL = _chained()
#: The table's feed as the floor stores it: signed, chained.
MESSAGES = [SIGNER.sign(m) for m, _ in schema.derive("T1", JOURNAL, FeedState())]
#: The hashes of the journal records, by seq.
HASHES = {r.seq: r.hash for r in JOURNAL}

values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.floats(allow_nan=True),
    st.text(max_size=70),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)
fields = st.sampled_from([*schema.FIELDS, *schema.SIGNATURE_FIELDS, "extra"])


def test_a_whole_copy_restores_every_record_the_journal_lacks_each_proven_by_its_hash() -> None:
    kept = {seq: h for seq, h in HASHES.items() if seq <= 2}
    copy = check_copy(MESSAGES, KEYS, kept)
    assert [r.message for r in copy.restored] == [m for m in MESSAGES if m["journal_seq"] > 2]
    assert copy.refused == [] and copy.missing == [] and copy.unlinked == []
    assert copy.anchored == sum(1 for m in MESSAGES if m["journal_seq"] <= 2)
    # proven by its record's hash where the record before is known and the message carries all of
    # the record: not 8 (record 7, a card, is never published; the event's text is not), nor 9
    # (a protocol-error alert's text is withheld)
    assert [r.message["journal_seq"] for r in copy.restored if r.record_checked] == [3, 4, 10]
    assert copy.last == FeedState(MESSAGES[-1]["seq"], MESSAGES[-1]["journal_seq"], MESSAGES[-1]["hash"])


def test_the_messages_of_archived_segments_are_passed_over() -> None:
    later = {seq: h for seq, h in HASHES.items() if seq >= 5}  # a live segment opening at record 5
    copy = check_copy(MESSAGES, KEYS, later, first=5)
    assert [r.message["journal_seq"] for r in copy.restored] == []
    assert copy.anchored == sum(1 for m in MESSAGES if m["journal_seq"] >= 5) and copy.refused == []
    first_after = next(m["seq"] for m in MESSAGES if m["journal_seq"] >= 5)
    assert copy.unlinked == [first_after] and copy.missing == []


def test_record_hash_is_the_journals_own_when_the_message_carries_the_whole_record() -> None:
    whole = {message["journal_seq"]: message for message in MESSAGES}
    for seq, message in whole.items():
        made = record_hash(message, HASHES[seq - 1] if seq > 1 else GENESIS_PREV_HASH)
        assert (made == HASHES[seq]) == (seq not in (8, 9))  # 8 and 9: published without their text


@settings(max_examples=150, deadline=None)
@given(index=st.integers(0, len(MESSAGES) - 1), field=fields, value=values, unreadable=st.booleans())
@example(index=0, field="journal_seq", value=0, unreadable=False)  # passed over as archived, unchecked
@example(index=0, field="table", value=float("inf"), unreadable=False)  # a value JSON has not: refused, never a crash
def test_a_changed_row_is_refused_alone(index: int, field: str, value: Any, unreadable: bool) -> None:
    changed = {**MESSAGES[index], field: value}
    stored: list[Any] = list(MESSAGES)
    stored[index] = Unreadable("T1", index + 1, "a column of the wrong type") if unreadable else changed
    copy = check_copy(stored, KEYS, {})  # never raises
    restored = [r.message for r in copy.restored]
    if not unreadable and _encodes_as(changed, MESSAGES[index]):  # the change changed nothing
        assert restored == MESSAGES and copy.refused == []
        return
    assert restored == [m for i, m in enumerate(MESSAGES) if i != index]  # all the others, as signed
    assert len(copy.refused) == 1 and copy.refused[0][1]
    after = MESSAGES[index + 1]["seq"] if index + 1 < len(MESSAGES) else None
    assert copy.unlinked == ([after] if after is not None else [])  # its link could not be checked


def _encodes_as(changed: dict[str, Any], message: dict[str, Any]) -> bool:
    """Whether ``changed`` is ``message`` as the floor signs it (a value JSON has not, such as an
    infinite float a REAL column can hold, never is)."""
    try:
        return schema.encode(changed) == schema.encode(message)
    except ValueError:
        return False


@given(st.lists(st.integers(1, 60), max_size=30))
def test_ranges_are_the_runs_of_the_numbers(numbers: list[int]) -> None:
    runs = ranges(numbers)
    assert [n for a, b in runs for n in range(a, b + 1)] == sorted(set(numbers))
    assert all(b + 1 < c for (_, b), (c, _) in zip(runs, runs[1:]))
