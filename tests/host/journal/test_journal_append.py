"""Appending and reading back: the journal is the record from which every round is
reconstructed (§ 541.12(c), § 535.10(l)) and the state rebuilt by replay after a crash."""

from __future__ import annotations

import math
import pathlib
import sqlite3

import pytest

from drivers.events import DeviceEvent
from firmware_host.errors import JournalError
from firmware_host.host.journal import Journal
from firmware_host.host.journal_codec import GENESIS_PREV_HASH
from firmware_host.host.journal_lock import writer_lock_path
from firmware_host.host.journal_verify import verify
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import ClockTick, DealerCommand
from tests.support.journal_forge import KEY, OTHER_KEY, JournalTestReading, build, rows


def test_541_12_c_steps_rebuild_every_event_and_decision_equal_to_the_originals(tmp_path: pathlib.Path) -> None:
    steps = build(tmp_path / "j.sqlite")
    with Journal.open(tmp_path / "j.sqlite") as journal:
        assert list(journal.steps()) == steps


def test_steps_rebuild_tuple_and_optional_fields_of_a_test_event(tmp_path: pathlib.Path) -> None:
    reading = JournalTestReading("shoe", (1, 2, 3), None, {"nested": {"a": [True, None]}})
    with Journal.open(tmp_path / "j.sqlite") as journal:
        journal.append_step(5.0, reading, [])
        ((at, rebuilt, decisions),) = list(journal.steps())
    assert (at, rebuilt, decisions) == (5.0, reading, [])
    assert isinstance(rebuilt.values, tuple)


def test_a_new_journal_starts_with_a_genesis_meta_record_naming_its_key(tmp_path: pathlib.Path) -> None:
    with Journal.open(tmp_path / "k.sqlite", hmac_key=KEY) as journal:
        (genesis,) = journal.meta("journal")
        first = next(journal.records())
    assert genesis["keyed"] is True and len(genesis["key_id"]) == 16
    assert (first.seq, first.kind, first.prev_hash) == (1, "meta", GENESIS_PREV_HASH)
    assert first.mac is not None


def test_reopening_continues_the_chain_gaplessly(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "j.sqlite"
    build(path)
    with Journal.open(path) as journal:
        last_hash, last_seq = journal.last_hash, journal.last_seq
        seq = journal.append_step(2000.0, ClockTick("clock"), [Decision("lamp", {"colour": "green"})])
        records = list(journal.records(start_seq=last_seq))
    assert seq == last_seq + 1
    assert records[1].prev_hash == last_hash
    assert [row[0] for row in rows(path)] == list(range(1, seq + 2))
    assert verify(path).ok


def test_a_step_is_its_input_then_its_decisions_all_stamped_with_the_inputs_time(tmp_path: pathlib.Path) -> None:
    decisions = [Decision("prompt", {"n": 1}, 3), Decision("alert", {"code": "x"}, 3)]
    with Journal.open(tmp_path / "j.sqlite") as journal:
        seq = journal.append_step(42.5, DealerCommand("buttons", "reveal", {"seat": 2}), decisions)
        records = list(journal.records(seq))
    assert [(r.kind, r.type, r.at, r.round) for r in records] == [
        ("input", "DealerCommand", 42.5, None),
        ("decision", "prompt", 42.5, 3),
        ("decision", "alert", 42.5, 3),
    ]
    assert records[0].data == {"device": "buttons", "command": "reveal", "args": {"seat": 2}}


def test_data_is_stored_as_canonical_json(tmp_path: pathlib.Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        journal.append_meta("m", {"b": "é", "a": [1, 2]}, at=1.0)
    assert rows(tmp_path / "j.sqlite")[-1][5] == '{"a":[1,2],"b":"é"}'


def test_last_round_is_the_highest_round_and_survives_reopening(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as journal:
        assert journal.last_round() is None
        journal.append_step(1.0, ClockTick("clock"), [Decision("prompt", {}, 12), Decision("prompt", {}, 11)])
        assert journal.last_round() == 12
    with Journal.open(path) as journal:
        assert journal.last_round() == 12


def test_meta_returns_every_meta_of_a_type_in_order(tmp_path: pathlib.Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        journal.append_meta("device_refused", {"serial": "A"})
        journal.append_step(1.0, ClockTick("clock"), [])
        journal.append_meta("device_refused", {"serial": "B"})
        assert journal.meta("device_refused") == [{"serial": "A"}, {"serial": "B"}]
        assert journal.meta("nothing") == []


@pytest.mark.parametrize("at", [math.nan, math.inf, "12", None])
def test_an_unusable_time_is_refused_and_nothing_is_written(tmp_path: pathlib.Path, at: object) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        with pytest.raises(JournalError, match="at must be"):
            journal.append_step(at, ClockTick("clock"), [])  # type: ignore[arg-type]
        assert journal.last_seq == 1


def test_negative_zero_time_is_stored_so_that_it_still_verifies(tmp_path: pathlib.Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        journal.append_step(-0.0, ClockTick("clock"), [])
    assert verify(tmp_path / "j.sqlite").ok


def test_decision_data_that_is_not_json_is_refused_naming_the_decision(tmp_path: pathlib.Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        with pytest.raises(JournalError, match="decision 'alert'"):
            journal.append_step(1.0, ClockTick("clock"), [Decision("alert", {"seats": {1, 2}})])
        journal.append_step(2.0, ClockTick("clock"), [])  # the failed step left no trace
        assert [r.kind for r in journal.records()] == ["meta", "input"]


def test_an_unregistered_event_is_refused(tmp_path: pathlib.Path) -> None:
    class NotRegistered(DeviceEvent):
        pass

    with Journal.open(tmp_path / "j.sqlite") as journal, pytest.raises(JournalError, match="NotRegistered"):
        journal.append_step(1.0, NotRegistered("x"), [])


def test_a_round_beyond_64_bits_is_refused(tmp_path: pathlib.Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        with pytest.raises(JournalError, match="cannot encode"):
            journal.append_step(1.0, ClockTick("clock"), [Decision("prompt", {}, 2**63)])
        assert journal.last_seq == 1


def test_a_keyed_journal_cannot_be_opened_without_its_key(tmp_path: pathlib.Path) -> None:
    build(tmp_path / "k.sqlite", key=KEY)
    with pytest.raises(JournalError, match="keyed .* give its key"):
        Journal.open(tmp_path / "k.sqlite")
    with pytest.raises(JournalError, match="key given is"):
        Journal.open(tmp_path / "k.sqlite", hmac_key=OTHER_KEY)


def test_an_unkeyed_journal_is_not_silently_continued_with_a_key(tmp_path: pathlib.Path) -> None:
    build(tmp_path / "j.sqlite")
    with pytest.raises(JournalError, match="not keyed"):
        Journal.open(tmp_path / "j.sqlite", hmac_key=KEY)


def test_another_sqlite_database_is_not_taken_for_a_journal(tmp_path: pathlib.Path) -> None:
    conn = sqlite3.connect(tmp_path / "other.sqlite")
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    with pytest.raises(JournalError, match="not a tablehost journal"):
        Journal.open(tmp_path / "other.sqlite")


def test_a_second_writer_on_the_same_file_is_refused_instead_of_forking_the_chain(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as first:
        with pytest.raises(JournalError, match="another process is writing to it"):
            Journal.open(path)
        first.append_step(1.0, ClockTick("clock"), [])
    with Journal.open(path) as again:  # closed, the lock goes with it
        again.append_step(2.0, ClockTick("clock"), [])
    assert verify(path).ok


def test_a_writer_that_bypasses_the_lock_is_still_caught_at_its_append(tmp_path: pathlib.Path) -> None:
    """Belt and braces: a writer that took no lock (its lock file deleted under it) cannot fork
    the chain either; its append fails on the seq the other one took."""
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as first:
        writer_lock_path(path).unlink()
        with Journal.open(path) as second:
            first.append_step(1.0, ClockTick("clock"), [])
            with pytest.raises(JournalError, match="another process wrote"):
                second.append_step(2.0, ClockTick("clock"), [])
    assert verify(path).ok


def test_records_iterate_across_many_pages_in_order(tmp_path: pathlib.Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        for i in range(7):
            journal.append_step(float(i), ClockTick("clock"), [Decision("prompt", {"i": i})] * 200)
        seqs = [r.seq for r in journal.records()]
        steps = list(journal.steps())
    assert seqs == list(range(1, 1 + 1 + 7 * 201))
    assert [len(d) for _, _, d in steps] == [200] * 7
