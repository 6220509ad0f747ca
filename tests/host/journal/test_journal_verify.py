"""Tamper evidence: ``verify`` finds the first changed, deleted or inserted record, and with
the table's key a chain re-built by someone without the key (issue 6, item 2). A journal that
verifies is one from which every round can be reconstructed as it was (§ 541.12(c), § 535.10(l))."""

from __future__ import annotations

import hashlib
import json
import pathlib
import shutil

import pytest

from firmware_host.errors import JournalError
from firmware_host.host.journal import Journal
from firmware_host.host.journal_codec import GENESIS_PREV_HASH, encode
from firmware_host.host.journal_verify import Problem, verify
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import ClockTick
from tests.support.journal_forge import KEY, OTHER_KEY, build, execute, rechain, rows


@pytest.fixture(params=[None, KEY], ids=["unkeyed", "keyed"])
def key(request: pytest.FixtureRequest) -> bytes | None:
    return request.param


@pytest.fixture
def path(tmp_path: pathlib.Path, key: bytes | None) -> pathlib.Path:
    build(tmp_path / "j.sqlite", key=key)
    return tmp_path / "j.sqlite"


def test_an_untouched_journal_verifies_with_every_record_checked(path: pathlib.Path, key: bytes | None) -> None:
    report = verify(path, hmac_key=key)
    assert report.ok and report.problem is None
    assert report.records_checked == report.last_seq == len(rows(path))
    assert report.last_hash == rows(path)[-1][7]
    assert report.keyed is (key is not None)


def test_541_12_c_an_edited_record_is_found_as_changed_content(path: pathlib.Path, key: bytes | None) -> None:
    execute(path, "UPDATE records SET data = ? WHERE seq = 6", json.dumps({"text": "Banker 9"}))
    report = verify(path, hmac_key=key)
    assert not report.ok
    assert (report.broken_seq, report.problem) == (6, Problem.CHANGED)
    assert report.records_checked == 5
    assert report.record is not None and report.record.data == {"text": "Banker 9"}


def test_an_edited_round_number_is_found(path: pathlib.Path, key: bytes | None) -> None:
    execute(path, "UPDATE records SET round = 8 WHERE seq = 4")
    assert (verify(path, hmac_key=key).broken_seq, verify(path, hmac_key=key).problem) == (4, Problem.CHANGED)


def test_a_deleted_record_is_found_at_the_gap(path: pathlib.Path, key: bytes | None) -> None:
    execute(path, "DELETE FROM records WHERE seq = 5")
    report = verify(path, hmac_key=key)
    assert (report.ok, report.broken_seq, report.problem) == (False, 5, Problem.DELETED)
    assert report.record is None


def test_a_deleted_record_with_the_rest_renumbered_is_found(path: pathlib.Path, key: bytes | None) -> None:
    execute(path, "DELETE FROM records WHERE seq = 5")
    execute(path, "UPDATE records SET seq = -seq + 1 WHERE seq > 5")
    execute(path, "UPDATE records SET seq = -seq WHERE seq < 0")
    report = verify(path, hmac_key=key)
    assert not report.ok and report.broken_seq == 5


def test_an_inserted_record_is_found_where_it_was_inserted(path: pathlib.Path, key: bytes | None) -> None:
    # Make room at seq 4 by renumbering 4.. up by one, then insert a well-formed record
    # linked to record 3 (its hash computed correctly).
    execute(path, "UPDATE records SET seq = -seq - 1 WHERE seq >= 4")
    execute(path, "UPDATE records SET seq = -seq WHERE seq < 0")
    prev = rows(path)[2][7]
    data = json.dumps(
        {"device": "dealer", "seat": 1, "kind": "player", "amount": 100000}, separators=(",", ":"), sort_keys=True
    )
    new_hash = hashlib.sha256(encode(4, "input", "WagerPlaced", 1001.0, None, data, prev)).hexdigest()
    execute(
        path,
        "INSERT INTO records VALUES (4, 'input', 'WagerPlaced', 1001.0, NULL, ?, ?, ?, NULL)",
        data,
        prev,
        new_hash,
    )
    report = verify(path)  # even without the key
    assert (report.ok, report.broken_seq, report.problem) == (False, 4, Problem.INSERTED)
    assert report.record is not None and report.record.data["amount"] == 100000


def test_a_broken_link_is_found(path: pathlib.Path, key: bytes | None) -> None:
    # Record 7 re-hashed over a wrong prev_hash: it is self-consistent but not linked.
    seq, kind, type_, at, round_, data, _, _, _ = rows(path)[6]
    wrong_prev = "f" * 64
    new_hash = hashlib.sha256(encode(seq, kind, type_, at, round_, data, wrong_prev)).hexdigest()
    execute(path, "UPDATE records SET prev_hash = ?, hash = ? WHERE seq = 7", wrong_prev, new_hash)
    report = verify(path)
    assert (report.broken_seq, report.problem) == (7, Problem.BROKEN_LINK)


def test_a_rechained_forgery_without_the_key_fails_on_its_mac(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "k.sqlite"
    build(path, key=KEY)
    execute(path, "UPDATE records SET data = replace(data, 'banker', 'player') WHERE type = 'round_result'")
    (forged_seq,) = execute(path, "SELECT seq FROM records WHERE type = 'round_result'")[0]
    rechain(path, forged_seq)
    assert verify(path).problem is Problem.KEY_NEEDED  # the hashes alone now agree ...
    report = verify(path, hmac_key=KEY)  # ... the MACs do not
    assert (report.ok, report.broken_seq, report.problem) == (False, forged_seq, Problem.BAD_MAC)


def test_an_unkeyed_chain_rebuilt_by_an_attacker_verifies_which_is_why_tables_are_keyed(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "j.sqlite"
    build(path)
    execute(path, "UPDATE records SET data = replace(data, 'banker', 'player') WHERE type = 'round_result'")
    rechain(path, 2)
    assert verify(path).ok


def test_stripping_the_key_from_a_keyed_journal_is_found_when_the_key_is_given(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "k.sqlite"
    build(path, key=KEY)
    execute(path, "UPDATE records SET mac = NULL")
    execute(path, "UPDATE records SET data = ? WHERE seq = 1", '{"format":1,"key_id":null,"keyed":false}')
    rechain(path, 1)
    assert verify(path).ok  # to someone who does not know the table is keyed ...
    report = verify(path, hmac_key=KEY)
    assert (report.ok, report.problem, report.broken_seq) == (False, Problem.NOT_KEYED, 1)


def test_an_appended_forgery_in_a_keyed_journal_fails_on_its_mac(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "k.sqlite"
    build(path, key=KEY)
    last = rows(path)[-1]
    seq, data = last[0] + 1, '{"winner":"player"}'
    new_hash = hashlib.sha256(encode(seq, "decision", "round_result", 2000.0, 8, data, last[7])).hexdigest()
    execute(
        path,
        "INSERT INTO records VALUES (?, 'decision', 'round_result', 2000.0, 8, ?, ?, ?, ?)",
        seq,
        data,
        last[7],
        new_hash,
        "0" * 64,
    )
    report = verify(path, hmac_key=KEY)
    assert (report.broken_seq, report.problem) == (seq, Problem.BAD_MAC)


def test_a_keyed_journal_does_not_verify_without_or_with_another_key(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "k.sqlite"
    build(path, key=KEY)
    assert verify(path).problem is Problem.KEY_NEEDED and not verify(path).ok
    assert verify(path, hmac_key=OTHER_KEY).problem is Problem.WRONG_KEY


def test_an_unkeyed_journal_does_not_verify_against_a_key(tmp_path: pathlib.Path) -> None:
    build(tmp_path / "j.sqlite")
    report = verify(tmp_path / "j.sqlite", hmac_key=KEY)
    assert (report.ok, report.problem) == (False, Problem.NOT_KEYED)


def test_a_decision_moved_away_from_its_input_is_malformed(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as journal:
        journal.append_meta("m", {}, at=1.0)
    # Written as a decision right after a meta record, with a correct hash: still not a valid journal.
    prev = rows(path)[-1][7]
    new_hash = hashlib.sha256(encode(3, "decision", "prompt", 1.0, None, "{}", prev)).hexdigest()
    execute(path, "INSERT INTO records VALUES (3, 'decision', 'prompt', 1.0, NULL, '{}', ?, ?, NULL)", prev, new_hash)
    assert (verify(path).broken_seq, verify(path).problem) == (3, Problem.MALFORMED)


def test_verify_of_a_missing_file_or_a_non_database_is_a_clear_error(tmp_path: pathlib.Path) -> None:
    with pytest.raises(JournalError, match="no such file"):
        verify(tmp_path / "missing.sqlite")
    (tmp_path / "text.sqlite").write_text("not a database at all, just text\n" * 10)
    with pytest.raises(JournalError, match="cannot open"):
        verify(tmp_path / "text.sqlite")


def test_verify_reads_a_journal_while_it_is_open_for_appending(tmp_path: pathlib.Path) -> None:
    with Journal.open(tmp_path / "j.sqlite", hmac_key=KEY) as journal:
        journal.append_step(1.0, ClockTick("clock"), [Decision("lamp", {"colour": "green"})])
        assert verify(tmp_path / "j.sqlite", hmac_key=KEY).records_checked == 3


# ---------------------------------------------------------------- torn tail and crash


def test_opening_a_journal_whose_last_record_is_broken_is_refused(path: pathlib.Path, key: bytes | None) -> None:
    last = rows(path)[-1][0]
    execute(path, "UPDATE records SET data = '{\"torn\":' WHERE seq = ?", last)
    with pytest.raises(JournalError, match=f"BROKEN at record {last}: changed content"):
        Journal.open(path, hmac_key=key)


def test_opening_a_journal_whose_last_link_is_broken_is_refused(path: pathlib.Path, key: bytes | None) -> None:
    execute(path, "DELETE FROM records WHERE seq = ?", rows(path)[-2][0])
    with pytest.raises(JournalError, match="deleted record"):
        Journal.open(path, hmac_key=key)


def test_a_journal_without_its_first_record_is_refused(path: pathlib.Path, key: bytes | None) -> None:
    execute(path, "DELETE FROM records WHERE seq = 1")
    with pytest.raises(JournalError, match="first record is missing"):
        Journal.open(path, hmac_key=key)
    assert (verify(path, hmac_key=key).broken_seq, verify(path, hmac_key=key).problem) == (1, Problem.MALFORMED)


def test_a_write_torn_by_a_crash_loses_the_whole_last_step_never_half_of_it(tmp_path: pathlib.Path) -> None:
    """Copy the database and its WAL while the writer is open (the files a power cut leaves),
    cut the WAL in the middle of the last step's transaction: reopening keeps every earlier
    step whole and nothing of the torn one, and the chain still verifies."""
    path = tmp_path / "j.sqlite"
    wal = tmp_path / "j.sqlite-wal"
    big = [Decision("prompt", {"filler": "x" * 3000, "i": i}, 1) for i in range(6)]  # spans many WAL frames
    with Journal.open(path, hmac_key=KEY) as journal:
        journal.append_step(1.0, ClockTick("clock"), big)
        kept_seq, kept_hash = journal.last_seq, journal.last_hash
        size_before = wal.stat().st_size
        journal.append_step(2.0, ClockTick("clock"), big)
        size_after = wal.stat().st_size
        shutil.copy(path, tmp_path / "crash.sqlite")
        shutil.copy(wal, tmp_path / "crash.sqlite-wal")
    assert size_after > size_before
    with open(tmp_path / "crash.sqlite-wal", "r+b") as torn:
        torn.truncate((size_before + size_after) // 2)
    with Journal.open(tmp_path / "crash.sqlite", hmac_key=KEY) as recovered:
        assert (recovered.last_seq, recovered.last_hash) == (kept_seq, kept_hash)
        assert [(at, len(d)) for at, _, d in recovered.steps()] == [(1.0, 6)]
        recovered.append_step(3.0, ClockTick("clock"), [])  # and it goes on from there
    assert verify(tmp_path / "crash.sqlite", hmac_key=KEY).ok


def test_the_first_record_links_to_64_zeros(path: pathlib.Path) -> None:
    assert rows(path)[0][6] == GENESIS_PREV_HASH == "0" * 64
