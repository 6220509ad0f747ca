"""A reader that closes the pipe early (``tablehost ... | head -1``) is not an error of ours.

Each command runs in a real shell pipeline, ``tablehost ARGS <IN 2>ERR | head -1``, with output
big enough to outlast the pipe's buffer (64 KiB), so it writes after ``head`` has gone and sees
EPIPE. It must end quietly: exit status 141 (128 + SIGPIPE, as the shell reports for a command
SIGPIPE ended; 0 only for one that finished before the reader left), nothing on stderr but its
own warnings (no traceback), and a journal it was writing intact and replayable to its last step.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host.cli import pipes
from firmware_host.host.journal_export import round_results
from firmware_host.host.journal_verify import verify
from tests.support.paths import REPO

TABLEHOST = [sys.executable, "-m", "firmware_host"]
SIM_BACCARAT = REPO / "hardware-profiles" / "tables" / "sim-baccarat.toml"
#: A journal whose ``export --rounds`` is about 180 KB (a Pai Gow table of 0.1.0's, with its tiles).
PAIGOW_JOURNAL = REPO / "tests" / "fixtures" / "journals-0.1.0" / "paigow.sqlite"


def head_1(argv: list[str], tmp_path: Path, stdin: str = "") -> tuple[int, str, str]:
    """(tablehost's exit status, what ``head -1`` printed, tablehost's stderr) of the pipeline."""
    feed, err = tmp_path / "stdin", tmp_path / "stderr"
    feed.write_text(stdin)
    line = f"{shlex.join(TABLEHOST + argv)} <{shlex.quote(str(feed))} 2>{shlex.quote(str(err))} | head -1"
    done = subprocess.run(
        ["bash", "-c", line + '; exit "${PIPESTATUS[0]}"'], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    return done.returncode, done.stdout, err.read_text()


def assert_quiet(err: str) -> None:
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err, err
    assert "failed" not in err, err  # "output DealerView failed", once per decision, before


def test_run_ends_at_a_closed_stdout_with_its_journal_whole(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    status, out, err = head_1(
        ["run", "--profile", str(SIM_BACCARAT), "--rounds", "50", "--seed", "1", "--journal", str(path)], tmp_path
    )
    assert status == pipes.EXIT_CLOSED_PIPE
    assert out.startswith("[SIM-BAC-1] ")
    assert_quiet(err)
    assert verify(path).ok
    rounds = list(round_results(path))
    assert len(rounds) < 50  # ended by the reader going, not by --rounds
    # Every journaled step decides again as journaled (the step being written when the reader
    # left is whole), and the table it leaves continues: the replay checks each step.
    deep = subprocess.run(
        [*TABLEHOST, "journal", "verify", "--deep", str(path)], capture_output=True, text=True, timeout=120
    )
    assert deep.returncode == 0, deep.stdout + deep.stderr
    assert "0 wrong" in deep.stdout


def test_run_under_systemd_plays_on_when_its_stdout_refuses(tmp_path: Path) -> None:
    """Under systemd stdout is the journal (JOURNAL_STREAM names it): the table plays on to --rounds."""
    path = tmp_path / "journal.sqlite"
    read_end, write_end = os.pipe()
    stat = os.fstat(write_end)
    env = {**os.environ, "JOURNAL_STREAM": f"{stat.st_dev}:{stat.st_ino}"}
    proc = subprocess.Popen(
        [*TABLEHOST, "run", "--profile", str(SIM_BACCARAT), "--rounds", "3", "--seed", "1", "--journal", str(path)],
        stdout=write_end,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reader:
        assert reader.readline().startswith(b"[SIM-BAC-1] ")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0
    assert err.count("refused a write") == 1 and "the table plays on" in err
    assert "Traceback" not in err and "DealerView failed" not in err, err
    assert len(list(round_results(path))) == 3


def test_journal_export_ends_quietly(tmp_path: Path) -> None:
    path = tmp_path / "paigow.sqlite"
    shutil.copy(PAIGOW_JOURNAL, path)
    status, out, err = head_1(["journal", "export", str(path), "--rounds"], tmp_path)
    assert status == pipes.EXIT_CLOSED_PIPE
    assert json.loads(out)["round"] == 1
    assert err == ""
    assert verify(path).ok


@pytest.mark.parametrize("what", ["--rounds", "--messages"])
def test_floor_export_ends_quietly(tmp_path: Path, what: str) -> None:
    from tests.floor.dashboard.support import messages_of, store_messages

    db = tmp_path / "floor.sqlite"
    store_messages(db, messages_of(PAIGOW_JOURNAL, "SIM-PG-1"))
    status, out, err = head_1(["floor", "export", "--db", str(db), "--table", "SIM-PG-1", what], tmp_path)
    assert status == pipes.EXIT_CLOSED_PIPE
    first = json.loads(out)  # 181 KB of rounds or 264 KB of messages: the reader left long before the end
    assert first["round"] == 1 if what == "--rounds" else (first["table"], first["seq"]) == ("SIM-PG-1", 1)
    assert err == ""


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["baccarat", "resolve"], "9S 2H KD 5C 3D\n"),
        (["paigow", "hand"], "6-6,4-5,1-3,2-2\n"),
        (["paigow", "compare", "--dealer", "5-5,1-5/2-2,3-4"], "6-6,4-5/1-3,2-2\n"),
    ],
    ids=["baccarat resolve", "paigow hand", "paigow compare"],
)
def test_a_command_answering_stdin_ends_quietly(tmp_path: Path, argv: list[str], line: str) -> None:
    status, out, err = head_1(argv, tmp_path, stdin=line * 20_000)
    assert status == pipes.EXIT_CLOSED_PIPE
    assert json.loads(out)
    assert err == ""


def test_a_simulated_device_printing_its_moves_ends_quietly(tmp_path: Path) -> None:
    status, out, err = head_1(["sim", "shoe", "--auto", "0.01"], tmp_path)
    assert status == pipes.EXIT_CLOSED_PIPE
    assert out.startswith("/dev/pts/") or out.startswith("socket://"), out
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def test_a_command_done_before_the_reader_left_exits_0(tmp_path: Path) -> None:
    status, out, err = head_1(["baccarat", "resolve"], tmp_path, stdin="9S 2H KD 5C 3D\n")
    assert (status, err) == (0, "")
    assert json.loads(out)


def test_a_broken_pipe_that_is_not_stdouts_is_not_silenced(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only standard output's reader going is quiet: EPIPE of a device or a socket is an error."""
    from firmware_host.cli import baccarat, main

    def broken(args: object) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(baccarat, "run_resolve", broken)
    with pytest.raises(BrokenPipeError):
        main(["baccarat", "resolve"])
