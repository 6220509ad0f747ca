"""``tablehost run``'s web face as a child process, restarted when it dies.

:class:`WebFaceChild` starts ``python -m firmware_host.cli.webface`` (:mod:`firmware_host.cli.webface`)
and waits for its first line on standard output: where it serves (``{"display": url, "metrics":
url}``), or why it cannot (``{"error": why}``, a :class:`~firmware_host.errors.TablehostError`
here: ``tablehost run`` exits 2 naming it, as when the display was in its own process). Then a
thread of its own waits on the child; when it dies (a crash, a SIGKILL, the OOM killer) it is
started again on the same addresses after a back-off (:data:`FIRST_BACKOFF_S`, doubled at each
death up to :data:`MAX_BACKOFF_S`, back to the first once a child has lived :data:`HEALTHY_S`),
each restart logged. The service loop never waits on it.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO, Any

from firmware_host.errors import TablehostError

__all__ = ["WebFaceChild", "FIRST_BACKOFF_S", "MAX_BACKOFF_S", "HEALTHY_S", "READY_TIMEOUT_S"]

log = logging.getLogger("tablehost.webface")

#: Seconds before the first restart, the longest wait between restarts, and how long a child must
#: have lived for the next restart to wait the first back-off again.
FIRST_BACKOFF_S, MAX_BACKOFF_S, HEALTHY_S = 0.5, 10.0, 60.0
#: Seconds a child has to say where it serves (it imports Starlette and rebuilds its view).
READY_TIMEOUT_S = 60.0
#: Longest first line read from a child.
MAX_LINE = 4096


class WebFaceChild:
    """The web face process of a running table.

    :param argv: the web face's arguments after ``python -m firmware_host.cli.webface``.
    :param on_ready: called (on the restarting thread, after the first start: in :meth:`start`)
        with each child's addresses.
    """

    def __init__(self, argv: Sequence[str], on_ready: Callable[[dict[str, str]], None] | None = None) -> None:
        self.argv = list(argv)
        self.on_ready = on_ready
        self.urls: dict[str, str] = {}
        self.restarts = 0
        self.process: subprocess.Popen[bytes] | None = None
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def pid(self) -> int | None:
        """The running child's process id."""
        process = self.process
        return None if process is None else process.pid

    def start(self) -> None:
        """Start the child and wait until it serves; then watch it.

        :raises TablehostError: the child cannot serve as configured (its one line), or did not start.
        """
        self._spawn()
        self._thread = threading.Thread(target=self._watch, name="webface-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop watching and end the child (SIGTERM, then SIGKILL after 5 s)."""
        self._stopping.set()
        with self._lock:
            process = self.process
        _end(process)
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _spawn(self) -> None:
        process = subprocess.Popen(
            [sys.executable, "-m", "firmware_host.cli.webface", *self._argv()],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            close_fds=True,
            start_new_session=True,  # a terminal's Ctrl-C is the service's to act on; it stops the child
        )
        with self._lock:
            self.process = process
        assert process.stdout is not None
        first = _first_line(process.stdout, READY_TIMEOUT_S)
        try:
            said = json.loads(first) if first else {}
        except ValueError:
            said = {}
        if not isinstance(said, dict) or "error" in said or not said:
            process.kill()
            process.wait()
            why = said.get("error") if isinstance(said, dict) and said.get("error") else "it did not start"
            raise TablehostError(str(why))
        self.urls = {str(k): str(v) for k, v in said.items()}
        if self.on_ready is not None:
            self.on_ready(self.urls)

    def _argv(self) -> list[str]:
        """The arguments, with every address made the one the first child was given (a port 0 becomes
        that child's port, so pages reconnect to the same address after a restart)."""
        argv = list(self.argv)
        for option, name in (("--http", "display"), ("--metrics", "metrics")):
            url = self.urls.get(name)
            if url is not None and option in argv:
                argv[argv.index(option) + 1] = url.split("://", 1)[1].strip("/")
        return argv

    def _watch(self) -> None:
        backoff = FIRST_BACKOFF_S
        while not self._stopping.is_set():
            process = self.process
            assert process is not None
            started = time.monotonic()
            status = process.wait()
            if self._stopping.is_set():
                return
            lived = time.monotonic() - started
            backoff = FIRST_BACKOFF_S if lived >= HEALTHY_S else backoff
            log.warning(
                "web face (pid %d) exited with status %d; starting it again in %.1fs", process.pid, status, backoff
            )
            if self._stopping.wait(backoff):
                return
            backoff = min(backoff * 2, MAX_BACKOFF_S)
            try:
                self._spawn()
            except (TablehostError, OSError) as exc:
                log.error("web face: could not start again: %s", exc)
                continue
            if self._stopping.is_set():  # stopped while this one was starting
                _end(self.process)
                return
            self.restarts += 1
            log.warning("web face started again (pid %d, restart %d)", self.pid or 0, self.restarts)


def _end(process: subprocess.Popen[bytes] | None) -> None:
    """End a child: SIGTERM, then SIGKILL after 5 s."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _first_line(stream: IO[bytes], timeout: float) -> str:
    """The child's first line, read within ``timeout`` seconds ("" if none came)."""
    box: list[bytes] = []
    reader = threading.Thread(target=lambda: box.append(stream.readline(MAX_LINE)), daemon=True)
    reader.start()
    reader.join(timeout)
    return box[0].decode("utf-8", "replace").strip() if box else ""


def argv_of(**options: Any) -> list[str]:
    """``--name value`` for each option that has a value (underscores become dashes)."""
    argv: list[str] = []
    for name, value in options.items():
        if value is not None:
            argv += [f"--{name.replace('_', '-')}", str(value)]
    return argv
