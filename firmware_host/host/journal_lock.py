"""The journal's writer lock: one process appends to a journal."""

from __future__ import annotations

import fcntl
import os
import pathlib

from firmware_host.errors import JournalBusyError, JournalError

__all__ = ["lock_for_writing", "writer_lock_path"]


def writer_lock_path(path: pathlib.Path) -> pathlib.Path:
    """The file whose lock the one process appending to the journal at ``path`` holds."""
    return path.with_name(path.name + ".lock")


def lock_for_writing(path: pathlib.Path) -> int:
    """Take the journal's writer lock (``flock`` on :func:`writer_lock_path`); return its descriptor.

    One process appends to a journal: a second ``tablehost run`` or a ``journal rotate`` while
    the table runs is refused here. The kernel drops the lock with the process, a SIGKILL too.

    :raises JournalBusyError: another process holds it (``tablehost`` exits 75: try again later).
    :raises JournalError: the lock file cannot be made.
    """
    lock_path = writer_lock_path(path)
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise JournalError(f"journal {path}: cannot open {lock_path.name}: {exc.strerror}") from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        raise JournalBusyError(
            f"journal {path}: another process is writing to it (a running tablehost?); stop it first"
        ) from exc
    return fd
