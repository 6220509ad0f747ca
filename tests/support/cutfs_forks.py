""":mod:`cutfs <tests.support.cutfs>` file systems forked from a warm server: a mount without Python's start.

Every power cut mounts a cutfs of its own, and most of a fresh ``python -m tests.support.cutfs``'s
CPU is not the file system's: the interpreter's start, mfusepy's import and its search for libfuse
(about 0.15 s of CPU, and up to 0.8 s of wall time on a loaded machine). :func:`fork_cutfs` forks
the same :func:`~tests.support.cutfs.serve` from a server (``python -m tests.support.cutfs_forks``,
one per test process) that has done those once. The fork is a process of its own with its own
mount, as a fresh one was: it mounts, answers the control lines on its standard input and tells
on its standard output, and ends when it is unmounted; the server makes it and forgets it.

The test's side sends the server the two pipe ends the fork takes as its standard input and
output (``SCM_RIGHTS`` over a socket pair) and reads the fork's pid back. The fork has ended when
its standard output closes (the server's children are reaped as they end: ``SIGCHLD`` ignored).
The server dies with the test process (``PR_SET_PDEATHSIG``), and each fork with the server,
unmounting (``SIGTERM``).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import IO

__all__ = ["CutfsProcess", "fork_cutfs"]

#: Bytes of a request the server reads at a time (a request is one short JSON line).
REQUEST_BYTES = 4096


class CutfsProcess:
    """A forked cutfs: ``stdin`` takes its control lines, each line it tells goes to ``told``."""

    def __init__(self, pid: int, stdin: IO[str], stdout: IO[str], told: Callable[[str], None]) -> None:
        self.pid = pid
        self.stdin = stdin
        self._stdout = stdout
        self._told = told
        self._ended = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for line in self._stdout:
                self._told(line)
        finally:
            self._stdout.close()
            self._ended.set()

    def ended(self, seconds: float = 0.0) -> bool:
        """Whether it has ended (its standard output closed), waiting up to ``seconds`` for it."""
        return self._ended.wait(seconds) if seconds > 0 else self._ended.is_set()

    def kill(self) -> None:
        """SIGKILL it unless it has ended (its pid is still its own until then: the server reaps it at its end)."""
        if not self._ended.is_set():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)


class _Server:
    """The test process's side of the server."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair()
        repo = str(Path(__file__).resolve().parents[2])
        with theirs:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tests.support.cutfs_forks"],
                cwd=repo,
                env=dict(os.environ, PYTHONPATH=repo),
                stdin=theirs,
            )
        self.socket = ours
        self.answers = ours.makefile("r")
        self.lock = threading.Lock()
        atexit.register(self.close)

    def fork(self, backing: Path, mountpoint: Path, told: Callable[[str], None]) -> CutfsProcess:
        in_read, in_write = os.pipe()
        out_read, out_write = os.pipe()
        try:
            with self.lock:
                request = json.dumps({"backing": str(backing), "mountpoint": str(mountpoint)}) + "\n"
                socket.send_fds(self.socket, [request.encode()], [in_read, out_write])
                answer = self.answers.readline()
        finally:
            os.close(in_read)
            os.close(out_write)
        if not answer:
            os.close(in_write)
            os.close(out_read)
            raise RuntimeError(f"the cutfs fork server ended (status {self.proc.wait()})")
        stdin, stdout = open(in_write, "w", buffering=1), open(out_read)  # noqa: SIM115 (the process's)
        return CutfsProcess(int(json.loads(answer)["pid"]), stdin, stdout, told)

    def close(self) -> None:
        """End the server (it ends at the end of its requests) and reap it."""
        self.answers.close()
        self.socket.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


_SERVER: list[_Server] = []


def fork_cutfs(backing: Path, mountpoint: Path, told: Callable[[str], None]) -> CutfsProcess:
    """Start a cutfs over ``backing`` at ``mountpoint``, forked from the warm server; each line it
    tells (its standard output) is passed to ``told``, from a thread of its own."""
    if not _SERVER or _SERVER[0].proc.poll() is not None:
        _SERVER[:] = [_Server()]
    return _SERVER[0].fork(backing, mountpoint, told)


# --------------------------------------------------------------------------- the server


def _serve_fork(request: dict[str, str], fds: list[int]) -> None:
    """In the fork: the request's pipe ends become standard input and output; cutfs serves; exit."""
    from tests.support.cutfs import serve

    status = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.dup2(fds[0], 0)
        os.dup2(fds[1], 1)
        for fd in fds:
            os.close(fd)
        sys.stdin, sys.stdout = open(0, closefd=False), open(1, "w", closefd=False)  # noqa: SIM115
        serve(Path(request["backing"]), Path(request["mountpoint"]))
        status = 0
    except BaseException:  # a fork must never return into the server's loop
        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        os._exit(status)


def main() -> None:
    """The server: mfusepy and cutfs imported once, a fork per request read from the socket on
    standard input (a JSON line and two pipe ends), its pid answered."""
    import mfusepy  # noqa: F401 (imported once here, for every fork)

    from tests.support.cutfs import die_with_parent

    die_with_parent()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the forks are reaped as they end
    requests = socket.socket(fileno=0)
    pending, fds = b"", list[int]()
    while True:
        data, got, _, _ = socket.recv_fds(requests, REQUEST_BYTES, 2)
        if not data:
            break
        pending, fds = pending + data, fds + got
        if not pending.endswith(b"\n"):
            continue
        pid = os.fork()
        if pid == 0:
            requests.close()
            _serve_fork(json.loads(pending), fds)
        for fd in fds:
            os.close(fd)
        pending, fds = b"", list[int]()
        requests.sendall(json.dumps({"pid": pid}).encode() + b"\n")


if __name__ == "__main__":
    main()
