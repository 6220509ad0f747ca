"""``tablehost run`` forked from a warm server: the kill loops' processes without Python's start.

A kill loop starts the service a hundred times, and most of each start's CPU is not the
service's: the interpreter's start and the imports (about 0.3 s), and the exact odds' table
of values (0.1 s). :func:`fork_service` runs the same command line in a process forked from a
server (``python -m bench.soak.forked``, one per harness process) that has done those once
(:mod:`bench.soak.warm`). The fork runs :func:`firmware_host.cli.main` as
``python -m firmware_host`` does, its output appended to the run's log; it is a process of its
own, with its own journal connection, devices and threads, and SIGKILL ends it as it ends any.

The server is one thread: it forks on each request read from its standard input (a JSON line:
the arguments, the log, the folder), answers the fork's pid, and reaps its forks as they end
(it sleeps on their process descriptors, ``os.pidfd_open``, and its requests), answering
each one's exit status (``-N``: ended by signal N). :class:`ForkedService` answers as much of
:class:`subprocess.Popen` as the kill loops use (``pid``, ``returncode``, ``poll``, ``wait``,
``send_signal``).
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

__all__ = ["ForkedService", "fork_service"]

#: How often the server looks for ended forks while any runs and no request comes, seconds, where
#: the kernel has no process descriptors (``os.pidfd_open``) to wait on.
REAP_SECONDS = 0.002


class _Server:
    """The harness's side of the server: requests out, pids and exit statuses in."""

    def __init__(self) -> None:
        repo = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ, PYTHONPATH=repo)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bench.soak.forked"],
            cwd=repo,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.statuses: dict[int, int] = {}
        self._lock = threading.Lock()
        atexit.register(self.close)

    def close(self) -> None:
        """End the server (it ends at the end of its requests) and reap it."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def fork(self, arguments: list[str], log: Path, cwd: Path, group: bool) -> int:
        assert self.proc.stdin is not None
        request = {"arguments": arguments, "log": str(log), "cwd": str(cwd), "group": group}
        with self._lock:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
            while True:
                answer = self._read(None)
                if answer is not None and "started" in answer:
                    return int(answer["started"])

    def status(self, pid: int, timeout: float | None) -> int | None:
        """``pid``'s exit status, waiting up to ``timeout`` seconds (None: for ever) for it."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while pid not in self.statuses:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                if self._read(left) is None and left == 0.0:
                    break
            return self.statuses.get(pid)

    def _read(self, timeout: float | None) -> dict[str, Any] | None:
        """One answer (exit statuses are recorded), or None if none came within ``timeout``."""
        stdout: IO[str] | None = self.proc.stdout
        assert stdout is not None
        if timeout is not None and not select.select([stdout], [], [], timeout)[0]:
            return None
        line = stdout.readline()
        if not line:
            raise RuntimeError(f"the fork server ended (status {self.proc.wait()})")
        answer: dict[str, Any] = json.loads(line)
        if "pid" in answer:
            self.statuses[int(answer["pid"])] = int(answer["status"])
        return answer


_SERVER: list[_Server] = []


class ForkedService:
    """A service process of :func:`fork_service`, as much of a :class:`subprocess.Popen` as the harness uses."""

    def __init__(self, server: _Server, pid: int, arguments: list[str]) -> None:
        self._server = server
        self.pid = pid
        self.args = arguments
        self.returncode: int | None = None

    def poll(self) -> int | None:
        """The exit status if it has ended (``-N``: by signal N), else None (without waiting)."""
        if self.returncode is None:
            self.returncode = self._server.status(self.pid, 0.0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the end; :class:`subprocess.TimeoutExpired` after ``timeout`` seconds."""
        if self.returncode is None:
            self.returncode = self._server.status(self.pid, timeout)
        if self.returncode is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        """Send ``signum`` unless it has ended (the server has not reaped it: the pid is still its)."""
        if self.poll() is None:
            os.kill(self.pid, signum)


def fork_service(arguments: list[str], log: Path, cwd: Path, *, group: bool = False) -> ForkedService:
    """Start ``tablehost ARGUMENTS`` (the arguments after ``python -m firmware_host``) forked
    from the warm server, its output appended to ``log``, in ``cwd``; with ``group``, as the
    leader of a process group of its own (the power-cut tests kill the group)."""
    if not _SERVER or _SERVER[0].proc.poll() is not None:
        _SERVER[:] = [_Server()]
    server = _SERVER[0]
    return ForkedService(server, server.fork(arguments, log, cwd, group), arguments)


# --------------------------------------------------------------------------- the server


def _run_fork(request: dict[str, Any]) -> int:
    """In the fork: the service, as ``python -m firmware_host`` runs it; its exit status."""
    if request.get("group"):
        os.setpgid(0, 0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    log = os.open(request["log"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    os.chdir(request["cwd"])
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as in ``python -m firmware_host``
    from firmware_host.cli import main

    try:
        status = main(request["arguments"])
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 1
    for thread in threading.enumerate():  # as the interpreter's exit waits for them
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    return status


def _serve() -> None:
    import bench.soak.warm  # noqa: F401 (the imports and the table, once)

    running: dict[int, int] = {}  # by pid: a descriptor readable once it has ended (-1: none, look)
    requests = sys.stdin
    while True:
        ends = [fd for fd in running.values() if fd >= 0]
        look = -1 in running.values()
        ready = select.select([requests, *ends], [], [], REAP_SECONDS if look else None)[0]  # else only wait
        if requests in ready:
            line = requests.readline()
            if not line:
                return
            request = json.loads(line)
            sys.stdout.flush()
            pid = os.fork()
            if pid == 0:
                status = 1
                try:
                    status = _run_fork(request)
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(status)
            running[pid] = _end_of(pid)
            print(json.dumps({"started": pid}), flush=True)
        for pid, end in list(running.items()):
            if end >= 0 and end not in ready:
                continue
            done, wait_status = os.waitpid(pid, os.WNOHANG)
            if done:
                del running[pid]
                if end >= 0:
                    os.close(end)
                print(json.dumps({"pid": pid, "status": os.waitstatus_to_exitcode(wait_status)}), flush=True)


def _end_of(pid: int) -> int:
    """A descriptor of ``pid`` that select finds readable once it has ended (-1 where there is none)."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return -1


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the harness's interrupt is the harness's
    _serve()
