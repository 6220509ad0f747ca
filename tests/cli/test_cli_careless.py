"""Issue 20 item 6: every careless command line gets one line naming what and why, and exit 2.

Each ``tablehost`` sub-command (``display``, ``floor`` and ``feed`` have their own tests) is
given what a careless operator types: a missing file, a directory where a file is expected,
a path no one can create (``/proc/nope/x``), a bad or negative number, a profile that is not
TOML (or not text at all), a journal that is not a journal. ``run`` is started as a process
(it would start simulators); the others run in-process through :func:`firmware_host.cli.main`.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host.cli import main
from tests.support.journals_010 import JOURNALS, copy_journal
from tests.support.paths import REPO

PROFILE = str(REPO / "hardware-profiles" / "tables" / "sim-baccarat.toml")
FIVE_THOUSAND_DIGITS = "9" * 5000


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory of careless files: ``bad.toml``, ``binary.dat``, ``text.txt``,
    ``empty.sqlite``, ``other.sqlite`` (another SQLite database), ``short.key``, ``adir/`` and
    ``journal.sqlite`` (a good journal)."""
    (tmp_path / "bad.toml").write_text("not = [toml\n")
    (tmp_path / "binary.dat").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "text.txt").write_text("hello\n")
    (tmp_path / "empty.sqlite").write_bytes(b"")
    with sqlite3.connect(tmp_path / "other.sqlite") as conn:
        conn.execute("CREATE TABLE inventory (item TEXT)")
    conn.close()
    (tmp_path / "short.key").write_bytes(b"short\n")
    (tmp_path / "adir").mkdir()
    copy_journal(next(f for f in JOURNALS if f.name == "paigow"), tmp_path).rename(tmp_path / "journal.sqlite")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _one_line(status: int, err: str) -> str:
    assert status == 2, err
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


RUN = [
    (["--profile", "/nonexistent.toml"], "no such file"),
    (["--profile", "adir"], "is a directory"),
    (["--profile", "/proc/nope/x"], "no such file"),
    (["--profile", "bad.toml"], "not valid TOML"),
    (["--profile", "binary.dat"], "not UTF-8"),
    (["--profile", PROFILE, "--rounds", "-1"], "not a positive number of rounds"),
    (["--profile", PROFILE, "--rounds", "abc"], "not a number of rounds"),
    (["--profile", PROFILE, "--journal", "/proc/nope/j.sqlite"], "cannot make the directory"),
    (["--profile", PROFILE, "--journal", "adir"], "is a directory"),
    (["--profile", PROFILE, "--journal", "text.txt"], "file is not a database"),
    (["--profile", PROFILE, "--journal", "other.sqlite"], "another SQLite database"),
    (["--profile", PROFILE, "--replay", "/nonexistent"], "no such file"),
    (["--profile", PROFILE, "--replay", "binary.dat"], "not UTF-8"),
    (["--profile", PROFILE, "--replay", "text.txt"], "not a JSON line"),
    (["--profile", PROFILE, "--speed", "-1"], "must be a number above 0"),
    (["--profile", PROFILE, "--speed", "nan"], "must be a number above 0"),
    (["--profile", PROFILE, "--capture", "/proc/nope/c"], "cannot make the directory"),
    (["--profile", PROFILE, "--capture", "adir"], "is a directory"),
    (["--profile", PROFILE, "--spy", "/proc/nope"], "cannot make the directory"),
    (["--profile", PROFILE, "--spy", "text.txt"], "is not a directory"),
    (["--profile", PROFILE, "--pace", "nan"], "a pace is 0 to 4 seconds"),
    (["--profile", PROFILE, "--http", "127.0.0.1:99999"], "expected HOST:PORT"),
    (["--profile", PROFILE, "--metrics", "127.0.0.1:" + "9" * 5000], "expected HOST:PORT"),
]


@pytest.mark.parametrize(("args", "why"), RUN, ids=[" ".join(a).replace(PROFILE, "P")[:60] for a, _ in RUN])
def test_run_with_a_careless_argument_says_why_in_one_line(files: Path, args: list[str], why: str) -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "firmware_host", "run", *args, "--rounds", "1"]
        if "--rounds" not in args
        else [sys.executable, "-m", "firmware_host", "run", *args],
        cwd=files,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    line = _one_line(ran.returncode, ran.stderr)
    assert why in line
    if line.startswith("tablehost: journal "):  # the table cannot start: the dealer is told, in the same words
        said = line.removeprefix("tablehost: ").strip()
        assert ran.stdout == f"[SIM-BAC-1] TABLE STOPPED: the journal cannot be opened; call a supervisor ({said})\n"
    else:
        assert ran.stdout == ""


IN_PROCESS = [
    (["baccarat", "odds", "--decks", "0"], "decks"),
    (["baccarat", "odds", "--decks", "abc"], "abc"),
    (["baccarat", "odds", "--seen", "ZZ"], "ZZ"),
    (["baccarat", "odds", "--decks", "1", "--seen", "AS AS AS AS AS"], "AS"),
    (["baccarat", "resolve", "--variant", "nope"], "invalid choice"),
    (["paigow", "start", "--dice", "0,0,0"], "0"),
    (["paigow", "start", "--dice", f"{FIVE_THOUSAND_DIGITS},1,1"], "longer than 20"),
    (["paigow", "start", "--dice", "1,2,3", "--cut", FIVE_THOUSAND_DIGITS], "longer than 40"),
    (["paigow", "start", "--dice", "1,2,3", "--bank-seat", "-1"], "-1"),
    (["paigow", "start", "--dice", "1,2,3", "--style", "nope"], "nope"),
    (["paigow", "hand", "--tiles", "x"], "x"),
    (["paigow", "hand", "--tiles", "6-6,4-5,1-3,2-2", "--profile", "/proc/nope/x"], "no such file"),
    (["paigow", "hand", "--tiles", "6-6,4-5,1-3,2-2", "--profile", "adir"], "cannot be read"),
    (["paigow", "hand", "--tiles", "6-6,4-5,1-3,2-2", "--profile", PROFILE], "needs a Pai Gow table"),
    (["paigow", "hand", "--tiles", "6-6,4-5,1-3,2-2", "--house-way", "binary.dat"], "not UTF-8"),
    (["paigow", "hand", "--tiles", "6-6,4-5,1-3,2-2", "--house-way", "bad.toml"], "not valid TOML"),
    (["paigow", "compare", "--player", "6-6,4-5/1-3,2-2"], "dealer"),
    (["journal", "verify", "/nonexistent"], "no such file"),
    (["journal", "verify", "adir"], "adir"),
    (["journal", "verify", "/proc/nope/x"], "no such file"),
    (["journal", "verify", "text.txt"], "text.txt"),
    (["journal", "verify", "binary.dat"], "binary.dat"),
    (["journal", "verify", "other.sqlite"], "another SQLite database"),
    (["journal", "verify", "journal.sqlite", "--key-file", "/nonexistent"], "/nonexistent"),
    (["journal", "verify", "journal.sqlite", "--key-file", "adir"], "adir"),
    (["journal", "verify", "journal.sqlite", "--key-file", "short.key"], "short.key"),
    (["journal", "verify", "journal.sqlite", "--deep", "--profile", "bad.toml"], "not valid TOML"),
    (["journal", "verify", "journal.sqlite", "--deep", "--profile", PROFILE], "baccarat"),
    (["journal", "verify", "journal.sqlite", "--floor", "/nonexistent.db"], "/nonexistent.db"),
    (["journal", "verify", "journal.sqlite", "--floor", "text.txt"], "text.txt"),
    (["journal", "export", "/nonexistent", "--rounds"], "no such file"),
    (["journal", "export", "adir", "--rounds"], "adir"),
    (["journal", "export", "empty.sqlite", "--shoes"], "empty.sqlite"),
    (["journal", "rotate", "/nonexistent"], "/nonexistent"),
    (["journal", "rotate", "empty.sqlite"], "empty.sqlite"),
    (["journal", "rotate", "text.txt"], "text.txt"),
    (["journal", "rotate", "journal.sqlite", "--profile", "bad.toml"], "not valid TOML"),
    (["journal", "keygen", "text.txt"], "text.txt"),
    (["journal", "keygen", "adir"], "adir"),
    (["journal", "keygen", "/proc/nope/k"], "/proc/nope/k"),
    (["devices", "--devices-dir", "/nonexistent"], "no such directory"),
    (["devices", "--devices-dir", "text.txt"], "is a file, not a directory"),
    (["capture", "--profile", "/nonexistent", "--out", "c.jsonl"], "no such file"),
    (["capture", "--profile", PROFILE, "--out", "/proc/nope/c"], "cannot make the directory"),
    (["capture", "--profile", PROFILE, "--out", "adir"], "is a directory"),
    (["capture", "--profile", PROFILE, "--out", "c.jsonl", "--seconds", "nan"], "must be a number above 0"),
    (["capture", "--profile", PROFILE, "--out", "c.jsonl", "--device", "nope", "--seconds", "1"], "nope"),
    (["sim", "shoe", "--decks", "9"], "9"),
    (["sim", "shoe", "--suit-first-burns", "2"], "2"),
    (["sim", "shoe", "--socket", "70000"], "a port is 0 to 65535"),
    (["sim", "shoe", "--socket", "-1"], "a port is 0 to 65535"),
    (["sim", "shoe", "--faults", "garbage"], "garbage"),
    (["sim", "shoe", "--auto", "-1"], "must be a number above 0"),
    (["sim", "shaker", "--auto", "nan"], "must be a number above 0"),
    (["sim", "shaker", "--faults", "x=1"], "x"),
]


@pytest.mark.parametrize(
    ("args", "why"), IN_PROCESS, ids=[" ".join(a).replace(PROFILE, "P")[:60] for a, _ in IN_PROCESS]
)
def test_every_other_command_with_a_careless_argument_says_why_in_one_line(
    files: Path, capsys: pytest.CaptureFixture[str], args: list[str], why: str
) -> None:
    try:
        status = main(args)
    except SystemExit as exited:  # a usage error, from argparse
        status = int(exited.code or 0)
    err = capsys.readouterr().err
    assert why in _one_line(status, err), err


def test_a_usage_error_is_one_line_that_points_at_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["baccarat", "odds", "--decks", "abc"])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and err.count("\n") == 1
    assert (
        err.startswith("tablehost baccarat odds: error: argument --decks")
        and "(see tablehost baccarat odds --help)" in err
    )
