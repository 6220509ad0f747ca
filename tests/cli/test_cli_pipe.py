"""A reader that closes the pipe early (`tablehost ... | head -1`) is not an error of ours."""

from __future__ import annotations

import subprocess
import sys


def test_a_reader_closing_the_pipe_early_gives_exit_0_and_no_traceback() -> None:
    rounds = "".join("9S 2H KD 5C 3D\n" for _ in range(20_000))
    proc = subprocess.Popen([sys.executable, "-m", "firmware_host", "baccarat", "resolve"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdin is not None
    proc.stdin.write(b"9S 2H KD 5C 3D\n")
    proc.stdin.flush()
    assert proc.stdout.readline().startswith(b"{")  # read one round, then go away as `head -1` does
    proc.stdout.close()
    try:
        proc.stdin.write(rounds.encode())
        proc.stdin.close()
    except BrokenPipeError:
        pass  # it may already have exited, which is what the test wants
    err = proc.stderr.read() if proc.stderr else b""
    proc.wait(timeout=60)
    assert proc.returncode == 0
    assert b"Traceback" not in err
