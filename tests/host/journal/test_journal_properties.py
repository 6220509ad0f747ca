"""Properties: any sequence of appends verifies and replays to what was appended, and any
single-byte edit of any stored field of any record is caught by ``verify`` (§ 541.12(c),
§ 535.10(l): the record a round is reconstructed from cannot be altered unnoticed)."""

from __future__ import annotations

import hmac
import pathlib
import shutil
import sqlite3
import struct
import tempfile
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from firmware_host.host.journal import Journal
from firmware_host.host.journal_codec import mac_of
from firmware_host.host.journal_verify import verify
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import DealerCommand, WagerPlaced
from tests.support.journal_forge import KEY, JournalTestReading, build, rows

INT64 = st.integers(-(2**63), 2**63 - 1)
json_values = st.recursive(
    st.none() | st.booleans() | INT64 | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
json_objects = st.dictionaries(st.text(max_size=6), json_values, max_size=4)
events = st.one_of(
    st.builds(WagerPlaced, st.just("dealer"), st.integers(1, 7), st.text(max_size=8), INT64),
    st.builds(DealerCommand, st.text(min_size=1, max_size=8), st.text(max_size=12), st.none() | json_objects),
    st.builds(
        JournalTestReading,
        st.just("shoe"),
        st.lists(INT64, max_size=4).map(tuple),
        st.none() | st.text(max_size=8),
        st.none() | json_objects,
    ),
)
decisions = st.builds(Decision, st.text(min_size=1, max_size=12), json_objects, st.none() | INT64)
times = st.floats(allow_nan=False, allow_infinity=False)
steps = st.tuples(times, events, st.lists(decisions, max_size=3))
metas = st.tuples(st.text(min_size=1, max_size=8), json_objects)
appends = st.lists(st.one_of(steps.map(lambda s: ("step", s)), metas.map(lambda m: ("meta", m))), max_size=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(appends=appends, keyed=st.booleans())
def test_any_sequence_of_appends_verifies_and_replays_to_what_was_appended(
    appends: list[tuple[str, Any]], keyed: bool
) -> None:
    key = KEY if keyed else None
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "j.sqlite"
        with Journal.open(path, hmac_key=key) as journal:
            for what, args in appends:
                if what == "step":
                    journal.append_step(*args)
                else:
                    journal.append_meta(*args, at=0.5)
        with Journal.open(path, hmac_key=key) as journal:
            replayed = list(journal.steps())
            count = journal.last_seq
        report = verify(path, hmac_key=key)
    assert report.ok, report
    assert report.records_checked == count == 1 + sum(1 if w == "meta" else 1 + len(a[2]) for w, a in appends)
    assert replayed == [(at + 0.0, ev, ds) for w, (at, ev, ds) in ((w, a) for w, a in appends if w == "step")]


# ---------------------------------------------------------------- single-byte edits

FIELDS = ("seq", "kind", "type", "at", "round", "data", "prev_hash", "hash", "mac")


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[bool, pathlib.Path]:
    """One closed journal per keyedness, copied before each edit."""
    made = {}
    for keyed in (False, True):
        path = tmp_path_factory.mktemp("template") / "j.sqlite"
        build(path, key=KEY if keyed else None)
        made[keyed] = path
    return made


def _edit_byte(value: Any, index: int, new_byte: int) -> Any:
    """``value`` with one byte of its stored representation replaced (text as UTF-8 — stored as
    a BLOB if no longer valid UTF-8 —, integers as 8-byte two's complement, reals as IEEE 754)."""
    if isinstance(value, str):
        raw = bytearray(value.encode("utf-8"))
        raw[index % len(raw)] = new_byte
        try:
            return bytes(raw).decode("utf-8")
        except UnicodeDecodeError:
            return bytes(raw)
    fmt = ">q" if isinstance(value, int) else ">d"
    raw = bytearray(struct.pack(fmt, value))
    raw[index % 8] = new_byte
    return struct.unpack(fmt, bytes(raw))[0]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    keyed=st.booleans(),
    pick=st.integers(0, 10**6),
    field=st.sampled_from(FIELDS),
    index=st.integers(0, 10**6),
    new_byte=st.integers(0, 255),
)
def test_any_single_byte_edit_of_any_field_is_caught(
    templates: dict[bool, pathlib.Path], keyed: bool, pick: int, field: str, index: int, new_byte: int
) -> None:
    key = KEY if keyed else None
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "j.sqlite"
        shutil.copy(templates[keyed], path)
        stored = rows(path)
        seq = stored[pick % len(stored)][0]
        old = stored[seq - 1][FIELDS.index(field)]
        assume(old is not None)  # NULLs (an input's round, an unkeyed MAC) hold no bytes to edit
        new = _edit_byte(old, index, new_byte)
        assume(new != old or type(new) is not type(old))
        conn = sqlite3.connect(path)
        try:
            conn.execute(f"UPDATE records SET {field} = ? WHERE seq = ?", (new, seq))
            conn.commit()
        except sqlite3.IntegrityError:
            assume(False)  # a seq edited onto another record's seq: SQLite itself refuses it
        finally:
            conn.close()
        report = verify(path, hmac_key=key)
    assert not report.ok
    if field == "seq":
        assert report.broken_seq is not None and report.broken_seq <= seq
    else:
        assert report.broken_seq == seq, report


@given(key=st.binary(max_size=200), messages=st.lists(st.binary(max_size=2000), min_size=1, max_size=4))
def test_the_mac_a_verify_checks_with_is_hmac_sha256_of_the_key(key: bytes, messages: list[bytes]) -> None:
    """A verify sets the key up once (``mac_of``) and must get what :func:`hmac.digest` gives, record after record,
    for a key of any length (shorter than, as long as, or longer than SHA-256's block)."""
    mac = mac_of(key)
    assert [mac(m) for m in messages] == [hmac.digest(key, m, "sha256").hex() for m in messages]
