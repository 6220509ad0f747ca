"""A reader that goes away early (``tablehost ... | head -1``) ends a command quietly.

Python ignores SIGPIPE, so a write to a pipe whose reader has gone raises
:class:`BrokenPipeError` (EPIPE). The Unix convention is to stop without a word, as a
command killed by SIGPIPE does, and the Python documentation's recipe (:mod:`signal`,
"Note on SIGPIPE") is followed: point standard output at ``/dev/null``, so that the
interpreter's last flush at exit cannot fail again, and exit, here with
:data:`EXIT_CLOSED_PIPE`, the status a shell reports for a command SIGPIPE ended.

- :func:`firmware_host.cli.main` does it for every command whose own thread writes the
  output (``journal export``, ``baccarat resolve``, ``paigow hand``, ``floor export``...):
  the :class:`BrokenPipeError` reaches it, and :func:`closed_stdout` says whether it was
  standard output's (an EPIPE of a device or a socket is not silenced).
- :class:`PipeOut` is standard output for writers on other threads (``tablehost run``'s
  dealer view, its progress lines, the feed's trouble lines, which the service thread
  writes): the first EPIPE is noticed once, every later write is dropped, and the callback
  of :meth:`PipeOut.when_gone` is called, with which ``tablehost run`` stops its service
  after the step it is writing (the step is journaled before any output sees it).

Under systemd standard output is the journal's stream socket (:func:`stdout_is_journal`),
which is not a reader that finishes: there ``tablehost run`` plays on (see
:mod:`firmware_host.cli.run`).
"""

from __future__ import annotations

import os
import select
import sys
import threading
from collections.abc import Callable
from typing import TextIO

__all__ = ["EXIT_CLOSED_PIPE", "PipeOut", "closed_stdout", "reader_gone", "stdout_is_journal"]

#: Exit status once standard output's reader has gone: 128 + SIGPIPE (13).
EXIT_CLOSED_PIPE = 141


def _stdout_fd() -> int | None:
    try:
        return sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # no stdout, or one without a descriptor (a test's capture)
        return None


def closed_stdout() -> bool:
    """Whether standard output is a pipe or socket whose reader has gone (poll reports an error or a hang-up)."""
    fd = _stdout_fd()
    if fd is None:
        return False
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))


def reader_gone() -> int:
    """Point standard output at ``/dev/null`` (what is still buffered goes nowhere); returns
    :data:`EXIT_CLOSED_PIPE`."""
    fd = _stdout_fd()
    if fd is not None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, fd)
        finally:
            os.close(devnull)
    return EXIT_CLOSED_PIPE


def stdout_is_journal() -> bool:
    """Whether standard output is systemd's journal: ``JOURNAL_STREAM`` names its device and inode
    (systemd.exec(5), "Environment variables in spawned processes")."""
    fd = _stdout_fd()
    stream = os.environ.get("JOURNAL_STREAM")
    if fd is None or not stream:
        return False
    status = os.fstat(fd)
    return stream == f"{status.st_dev}:{status.st_ino}"


class PipeOut:
    """A text stream over ``stream`` (standard output) that notices its reader going away.

    On the first EPIPE :attr:`gone` becomes true, standard output is pointed at ``/dev/null``
    (:func:`reader_gone`), the callback given to :meth:`when_gone` is called once, from the
    thread that wrote, and every later write is dropped.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._on_gone: Callable[[], None] | None = None
        self.gone = False

    def when_gone(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once the reader has gone (at once if it has already)."""
        with self._lock:
            self._on_gone, gone = callback, self.gone
        if gone:
            callback()

    def write(self, text: str) -> int:
        """Write ``text``, unless the reader has gone; its length either way."""
        if not self.gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._went()
        return len(text)

    def flush(self) -> None:
        """Flush, unless the reader has gone."""
        if not self.gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._went()

    def _went(self) -> None:
        with self._lock:
            if self.gone:
                return
            self.gone, callback = True, self._on_gone
        reader_gone()
        if callback is not None:
            callback()
