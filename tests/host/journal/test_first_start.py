"""A first start interrupted at any point comes back by itself (issue 27 item 1).

A child process opens a new journal and appends a record, and strace kills it (SIGKILL) at
one of its fsyncs, fdatasyncs or renames; the journal must then open, verify, start with its
genesis and hold the record if the child said it was appended. Files an earlier version
left when its first start was cut short (0 bytes beside a ``-journal``, a header with no
table, a records table with no record beside a ``-wal``) are made anew, named in one line;
a file holding any record is never discarded.
"""

from __future__ import annotations

import logging
import os
import pathlib
import shutil
import sqlite3
import subprocess
import sys

import pytest

from firmware_host.errors import JournalError
from firmware_host.host import genesis, segments
from firmware_host.host.journal import Journal
from firmware_host.host.journal_file import APPLICATION_ID
from firmware_host.host.journal_verify import verify
from tests.support.journal_forge import KEY
from tests.support.paths import REPO

needs_strace = pytest.mark.skipif(shutil.which("strace") is None, reason="strace is a Debian package of make deps")

#: The child: open (make) the journal, append one record, say so after each.
CHILD = """
import sys
from firmware_host.host.journal import Journal
with Journal.open(sys.argv[1], hmac_key=bytes.fromhex(sys.argv[2])) as journal:
    print("opened", flush=True)
    journal.append_meta("table", {"id": "T-1"}, at=1.0)
    print("appended", flush=True)
"""

#: (syscalls, which call): every sync of a first start's creation (SQLite's fdatasyncs of the
#: new file, its rollback journal and directory; the file's fsync before its rename and the
#: directory's after it), the rename, and the first commits.
KILL_POINTS = [
    *(("fdatasync", n) for n in range(1, 12)),
    ("fsync", 1),
    ("fsync", 2),
    ("/^rename", 1),
]


def _killed_at(path: pathlib.Path, syscall: str, when: int) -> str:
    """Run the child under strace, SIGKILLed at call ``when`` of ``syscall``; what it printed."""
    ran = subprocess.run(
        [
            "strace",
            "-f",
            "-qq",
            "-o",
            "/dev/null",
            "-e",
            f"trace={syscall}",
            "-e",
            f"inject={syscall}:signal=SIGKILL:when={when}",
            sys.executable,
            "-c",
            CHILD,
            str(path),
            KEY.hex(),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return ran.stdout


@needs_strace
@pytest.mark.parametrize(("syscall", "when"), KILL_POINTS, ids=[f"{s.strip('/^')}-{n}" for s, n in KILL_POINTS])
def test_a_first_start_killed_at_any_sync_or_rename_starts_again(
    tmp_path: pathlib.Path, syscall: str, when: int
) -> None:
    path = tmp_path / "j.sqlite"
    said = _killed_at(path, syscall, when)
    with Journal.open(path, hmac_key=KEY) as journal:
        first = journal.first_record
        tables = journal.meta("table")
        assert (first.seq, first.type) == (1, "journal")
        if "appended" in said:
            assert tables == [{"id": "T-1"}]  # acknowledged, so durable
        journal.append_meta("table", {"id": "T-2"}, at=2.0)
    assert verify(path, hmac_key=KEY).ok
    assert not genesis.temporary_path(path).exists()


# --------------------------------------------------------------------------- what earlier versions left


def _old_first_start(path: pathlib.Path, upto: str) -> None:
    """Leave what an earlier version's first start, made in place, left when cut short at ``upto``."""
    if upto == "empty":
        path.touch()
        return
    if upto == "empty-beside-journal":  # the issue's: 0 bytes and a hot -journal (SIGKILL at the first fdatasync)
        if shutil.which("strace") is None:
            pytest.skip("strace is a Debian package of make deps")
        subprocess.run(
            ["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=fdatasync"]
            + ["-e", "inject=fdatasync:signal=SIGKILL:when=1", sys.executable, "-c"]
            + [f"import sqlite3; c = sqlite3.connect({str(path)!r}); c.execute('PRAGMA journal_mode=WAL')"],
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert path.stat().st_size == 0 and path.with_name(path.name + "-journal").exists()
        return
    pid = os.fork()  # the child dies without closing, so a -wal stays beside the file
    if pid == 0:
        try:
            conn = sqlite3.connect(path, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            if upto == "records-table":
                conn.execute("CREATE TABLE records (seq INTEGER PRIMARY KEY, data TEXT)")
                conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


@pytest.mark.parametrize("upto", ["empty", "empty-beside-journal", "header", "records-table"])
def test_a_file_an_earlier_first_start_left_holding_no_record_is_made_anew_and_named(
    tmp_path: pathlib.Path, upto: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "j.sqlite"
    _old_first_start(path, upto)
    with caplog.at_level(logging.WARNING, "tablehost.journal"), Journal.open(path, hmac_key=KEY) as journal:
        assert (journal.last_seq, journal.first_record.type) == (1, "journal")
    (line,) = [r.getMessage() for r in caplog.records if "anew" in r.getMessage()]
    assert str(path) in line and "holding no record" in line and "\n" not in line
    assert verify(path, hmac_key=KEY).ok
    assert not path.with_name(path.name + "-journal").exists()


def test_a_journal_holding_a_record_is_never_discarded(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as journal:
        genesis_hash = journal.first_record.hash
    assert genesis.unfinished(path) is None
    with sqlite3.connect(path) as conn:  # its genesis edited: still a record, so refused, never remade
        conn.execute("UPDATE records SET data = '{}' WHERE seq = 1")
    conn.close()
    with pytest.raises(JournalError, match="BROKEN at record 1"):
        Journal.open(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT hash FROM records").fetchall() == [(genesis_hash,)]
    conn.close()


def test_an_empty_live_file_beside_archived_segments_is_refused_not_remade(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as journal:
        journal.append_meta("table", {"id": "T"}, at=1.0)
    os.rename(path, segments.archive_path(path, 1))
    path.touch()
    with pytest.raises(JournalError, match="not a tablehost journal"):
        Journal.open(path)
    assert path.stat().st_size == 0


def test_a_write_ahead_log_without_its_journal_is_refused(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "j.sqlite"
    path.with_name("j.sqlite-wal").write_bytes(b"\x37\x7f\x06\x82" + bytes(60))
    with pytest.raises(JournalError, match="its write-ahead log j.sqlite-wal is there"):
        Journal.open(path)
    assert not path.exists()


def test_a_creation_that_fails_leaves_nothing_and_says_why(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "j.sqlite"

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(genesis.durable, "publish", full)
    with pytest.raises(JournalError, match=r"journal .*j\.sqlite: cannot make it: No space left on device"):
        Journal.open(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["j.sqlite.lock"]
    monkeypatch.undo()
    with Journal.open(path) as journal:
        assert journal.last_seq == 1
