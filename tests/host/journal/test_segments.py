"""Journal segments: rotation keeps seq global and the chain whole across files; verify names a
segment missing, swapped or cut short; archives compressed still verify and export; a SIGKILL at
any moment of a rotation loses nothing and duplicates nothing."""

from __future__ import annotations

import gzip
import lzma
import os
import pathlib
import shutil
import signal
import sqlite3

import pytest

from drivers.events.lifecycle import DeviceLost
from firmware_host import durable
from firmware_host.errors import JournalError
from firmware_host.host import segments
from firmware_host.host.journal import Journal
from firmware_host.host.journal_codec import CHECKPOINT_TYPE
from firmware_host.host.journal_export import round_results
from firmware_host.host.journal_verify import Problem, verify
from firmware_host.tables.decisions import Decision

KEY = bytes(range(32))


def play(journal: Journal, rounds: range) -> None:
    for number in rounds:
        journal.append_step(
            float(number), DeviceLost(device="shoe", reason="x"), [Decision("round_result", {"round": number}, number)]
        )


def rotated(tmp_path: pathlib.Path, times: int = 3) -> pathlib.Path:
    """A keyed journal of ``times + 1`` segments, four rounds each."""
    path = tmp_path / "t.sqlite"
    with Journal.open(path, hmac_key=KEY) as journal:
        for segment in range(times):
            play(journal, range(segment * 4 + 1, segment * 4 + 5))
            journal.rotate({"state": segment}, at=1.0)
        play(journal, range(times * 4 + 1, times * 4 + 5))
    return path


def all_seqs(path: pathlib.Path) -> list[int]:
    return [
        seq
        for segment in segments.segments_of(path)
        for (seq,) in sqlite3.connect(segment.path).execute("SELECT seq FROM records ORDER BY seq")
    ]


def test_rotation_keeps_seq_gapless_and_the_chain_whole_under_the_key(tmp_path: pathlib.Path) -> None:
    path = rotated(tmp_path)
    names = [s.path.name for s in segments.segments_of(path)]
    assert names == ["t.000001.sqlite", "t.000002.sqlite", "t.000003.sqlite", "t.sqlite"]
    seqs = all_seqs(path)
    assert seqs == list(range(1, len(seqs) + 1))
    report = verify(path, hmac_key=KEY)
    assert report.ok and report.records_checked == len(seqs) and len(report.segments) == 4
    with Journal.open(path, hmac_key=KEY) as journal:
        assert journal.segment_number == 4 and journal.first_record.type == CHECKPOINT_TYPE
        assert journal.first_record.data["segment"]["key_id"] is not None
        assert journal.last_checkpoint().data["state"] == 2
    assert [r["round"] for r in round_results(path)] == list(range(1, 17))


def test_a_segment_re_chained_without_the_key_is_a_bad_mac(tmp_path: pathlib.Path) -> None:
    path = rotated(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    with Journal.open(other / "t.sqlite", hmac_key=b"k" * 32) as journal:
        play(journal, range(1, 5))
    shutil.copyfile(other / "t.sqlite", tmp_path / "t.000001.sqlite")
    assert not verify(path, hmac_key=KEY).ok


@pytest.mark.parametrize("compress", [gzip.open, lzma.open])
def test_archives_compressed_still_verify_and_export(tmp_path: pathlib.Path, compress: object) -> None:
    path = rotated(tmp_path)
    suffix = ".gz" if compress is gzip.open else ".xz"
    for number in (1, 2):
        plain = segments.archive_path(path, number)
        with open(plain, "rb") as source, compress(plain.with_name(plain.name + suffix), "wb") as target:  # type: ignore[operator]
            shutil.copyfileobj(source, target)
        plain.unlink()
    assert verify(path, hmac_key=KEY).ok
    assert len(list(round_results(path))) == 16


def test_a_missing_segment_is_named(tmp_path: pathlib.Path) -> None:
    path = rotated(tmp_path)
    segments.archive_path(path, 2).unlink()
    report = verify(path, hmac_key=KEY)
    assert (report.ok, report.problem) == (False, Problem.SEGMENT_MISSING)
    assert "segment 2 missing" in report.detail and report.broken_seq == report.last_seq + 1


def test_swapped_segments_are_named(tmp_path: pathlib.Path) -> None:
    path = rotated(tmp_path)
    first, second = segments.archive_path(path, 2), segments.archive_path(path, 3)
    first.rename(tmp_path / "x")
    second.rename(first)
    (tmp_path / "x").rename(second)
    report = verify(path, hmac_key=KEY)
    assert (report.ok, report.problem) == (False, Problem.SEGMENT_SWAPPED)
    assert "t.000002.sqlite holds segment 3" in report.detail


def test_a_segment_cut_short_is_named(tmp_path: pathlib.Path) -> None:
    path = rotated(tmp_path)
    with sqlite3.connect(segments.archive_path(path, 2)) as conn:
        (last,) = conn.execute("SELECT max(seq) FROM records").fetchone()
        conn.execute("DELETE FROM records WHERE seq >= ?", (last - 1,))
    report = verify(path, hmac_key=KEY)
    assert (report.ok, report.problem) == (False, Problem.SEGMENT_CUT)
    assert f"records {last - 1}..{last} were cut off" in report.detail


@pytest.mark.parametrize("stage", ["copy-half-written", "copy-whole", "copy-archived", "mid-cut", "after-cut"])
def test_sigkill_at_any_moment_of_a_rotation_loses_and_duplicates_nothing(tmp_path: pathlib.Path, stage: str) -> None:
    """A child process rotates and SIGKILLs itself at one moment of it; the journal then opens,
    verifies, holds every record once, and takes further steps."""
    path = tmp_path / "t.sqlite"
    with Journal.open(path, hmac_key=KEY) as journal:
        play(journal, range(1, 5))
        before = journal.last_seq
    pid = os.fork()
    if pid == 0:  # the child: rotate, dying at the stage
        try:
            real_fsync_file, real_rename, real_vacuum = durable.fsync_file, os.replace, segments.write_archive

            def fsync_file(copy: pathlib.Path) -> None:
                if stage == "copy-half-written":
                    copy.write_bytes(copy.read_bytes()[:1000])
                    os.kill(os.getpid(), signal.SIGKILL)
                real_fsync_file(copy)
                if stage == "copy-whole":
                    os.kill(os.getpid(), signal.SIGKILL)

            def rename(source: object, target: object) -> None:
                real_rename(source, target)  # type: ignore[arg-type]
                if stage == "copy-archived":
                    os.kill(os.getpid(), signal.SIGKILL)

            def write_archive(conn: sqlite3.Connection, archived: pathlib.Path) -> None:
                real_vacuum(conn, archived)
                # Die as the cut's records go out (before its commit), or just after its commit.
                fatal = {"mid-cut": "INSERT", "after-cut": "VACUUM"}.get(stage)
                if fatal is not None:
                    conn.set_trace_callback(lambda sql: sql.startswith(fatal) and os.kill(os.getpid(), signal.SIGKILL))

            durable.fsync_file = fsync_file  # type: ignore[assignment]
            durable.os.replace = rename  # type: ignore[assignment]
            segments.write_archive = write_archive  # type: ignore[assignment]
            with Journal.open(path, hmac_key=KEY) as journal:
                journal.rotate({"state": "x"}, at=1.0)
        finally:
            os._exit(3)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    with Journal.open(path, hmac_key=KEY) as journal:
        rotated_ = journal.segment_number == 2
        play(journal, range(5, 7))
    seqs = all_seqs(path)
    assert seqs == list(range(1, len(seqs) + 1))  # nothing lost, nothing twice
    assert len(seqs) == before + 2 * 2 + (1 if rotated_ else 0)
    assert rotated_ == (stage == "after-cut")
    assert segments.archive_path(path, 1).exists() == rotated_  # a copy of an uncut file is gone
    assert not any("partial" in p.name or p.name.startswith("t.000002") for p in tmp_path.iterdir())
    assert verify(path, hmac_key=KEY).ok
    assert [r["round"] for r in round_results(path)] == [1, 2, 3, 4, 5, 6]


def test_a_reader_neither_stops_a_rotation_nor_sees_it_midway(tmp_path: pathlib.Path) -> None:
    """A reader in the middle of a read keeps its snapshot of the whole segment; its next read
    sees the new segment (the live file keeps its name, so SQLite's locks hold across)."""
    path = tmp_path / "t.sqlite"
    with Journal.open(path) as journal:
        play(journal, range(1, 3))
        reader = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, isolation_level=None)
        reader.execute("BEGIN")
        held = reader.execute("SELECT seq, hash FROM records ORDER BY seq").fetchall()
        archived = journal.rotate({}, at=1.0)
        assert reader.execute("SELECT seq, hash FROM records ORDER BY seq").fetchall() == held
        reader.execute("COMMIT")
        assert [seq for (seq,) in reader.execute("SELECT seq FROM records")] == [journal.last_seq]
        play(journal, range(3, 4))
        reader.close()
    assert [(r.seq, r.hash) for r in segments.records(archived)] == held
    assert verify(path).ok and [r["round"] for r in round_results(path)] == [1, 2, 3]


def test_a_file_under_the_live_segments_archive_name_that_is_not_its_copy_is_refused(tmp_path: pathlib.Path) -> None:
    path = rotated(tmp_path, times=1)
    shutil.copyfile(segments.archive_path(path, 1), segments.archive_path(path, 2))  # segment 2 is the live file
    with pytest.raises(JournalError, match="t.000002.sqlite is named as segment 2, which is the live file"):
        Journal.open(path, hmac_key=KEY)


def test_rotation_frees_the_cut_segments_pages(tmp_path: pathlib.Path) -> None:
    """After a rotation the live segment's size is its one checkpoint, so rotation by size
    starts counting again (the archive holds the rest, compacted)."""
    path = tmp_path / "t.sqlite"
    with Journal.open(path) as journal:
        play(journal, range(1, 400))
        full = journal.size()
        archived = journal.rotate({"state": "x" * 100}, at=1.0)
        assert journal.size() < full / 10
        assert archived.stat().st_size <= full


def test_records_after_pages_a_reader_behind_rotations_through_the_archives(tmp_path: pathlib.Path) -> None:
    """The floor feed's cursor may lag behind rotations (a broker outage): it pages on through
    the archived segments, compressed ones too, then the live file, each record once in order."""
    path = rotated(tmp_path)
    plain = segments.archive_path(path, 2)
    with open(plain, "rb") as source, gzip.open(plain.with_name(plain.name + ".gz"), "wb") as target:
        shutil.copyfileobj(source, target)
    plain.unlink()
    expected = [(r.seq, r.hash) for r in segments.records(path)]
    with Journal.open(path, hmac_key=KEY) as journal:
        read: list[tuple[int, str]] = []
        while page := journal.records_after(read[-1][0] if read else 0, 3):
            assert len(page) <= 3
            read += [(r.seq, r.hash) for r in page]
        assert read == expected and journal.first_record.seq > 1
        segments.archive_path(path, 1).unlink()
        with pytest.raises(JournalError, match="record 2 is in no segment beside it"):
            journal.records_after(1, 10)
        assert [r.seq for r in journal.records_after(journal.first_record.seq - 1, 2)] == [
            journal.first_record.seq,
            journal.first_record.seq + 1,
        ]
