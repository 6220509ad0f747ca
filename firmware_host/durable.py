"""Kept files: the one way tablehost writes a file it keeps (GUIDE rule 3, docs/recovery.md).

A kept file (a journal, a segment, a key, a PIN file) is written whole under a temporary
name in its own directory, its contents fsynced, renamed into place, and its directory
fsynced. A power cut at any of those moments leaves either the file as it was (or no file)
or the new file whole, never an empty, short or vanished one: the rename is atomic, the
fsync before it makes sure the name never points at contents the disk does not hold, and
the directory's fsync makes the rename itself survive the cut.

Every layer of :mod:`firmware_host` may import this module (like :mod:`firmware_host.errors`
it belongs to no layer and imports nothing of the project); ``tests/architecture/
test_kept_files.py`` fails when production code renames or creates a kept file any other way.
"""

from __future__ import annotations

import os
import pathlib
import tempfile

__all__ = ["write_file", "publish", "fsync_file", "fsync_directory", "make_directories", "remove"]

#: How the temporary files of :func:`write_file` begin (``.NAME.``): hidden, and never taken for the file.
TEMPORARY_PREFIX = "."
TEMPORARY_SUFFIX = ".tmp"


def fsync_directory(directory: str | os.PathLike[str]) -> None:
    """Make the names in ``directory`` durable (a creation, a rename or a removal in it)."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_file(path: str | os.PathLike[str]) -> None:
    """Make a file's contents durable (a file another writer made, such as SQLite's ``VACUUM INTO``)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def make_directories(directory: str | os.PathLike[str], mode: int = 0o777) -> None:
    """Create ``directory`` and any missing parents, each new name made durable in its parent."""
    directory = pathlib.Path(directory)
    if directory.is_dir():
        return
    make_directories(directory.parent, mode)
    try:
        os.mkdir(directory, mode)
    except FileExistsError:
        if directory.is_dir():
            return  # made by another process at the same moment
        raise
    fsync_directory(directory.parent)


def publish(temporary: str | os.PathLike[str], path: str | os.PathLike[str], *, replace: bool = True) -> None:
    """Give the whole file ``temporary`` (another writer made it, such as SQLite) the name
    ``path`` in the same directory, durably: fsync its contents, rename it, fsync the directory.

    :param replace: replace a file already at ``path`` (atomically). False: never, and
        :class:`FileExistsError` if one is there (the temporary file is then left as it is).
    """
    fsync_file(temporary)
    _rename(pathlib.Path(temporary), pathlib.Path(path), replace)


def _rename(temporary: pathlib.Path, path: pathlib.Path, replace: bool) -> None:
    """Rename the durable file ``temporary`` to ``path`` and fsync the directory."""
    if temporary.parent.resolve() != path.parent.resolve():
        raise ValueError(f"{temporary} and {path}: a kept file is renamed within its directory only")
    if replace:
        os.replace(temporary, path)
    else:
        os.link(temporary, path)  # fails if a file is there: never overwritten, not even in a race
        os.unlink(temporary)
    fsync_directory(path.parent)


def write_file(path: str | os.PathLike[str], data: bytes, *, mode: int = 0o600, replace: bool = True) -> None:
    """Write ``data`` as the kept file ``path`` (mode ``mode``): whole or not at all, durably.

    The temporary file is ``.NAME.XXXXXXXX.tmp`` beside it, removed whatever happens.

    :param replace: replace an existing file atomically; False: :class:`FileExistsError`
        if ``path`` exists (a key is never overwritten).
    :raises OSError: the file cannot be written; a file that was at ``path`` is as it was.
    """
    path = pathlib.Path(path)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f"{TEMPORARY_PREFIX}{path.name}.", suffix=TEMPORARY_SUFFIX)
    temporary = pathlib.Path(name)
    try:
        try:
            os.fchmod(fd, mode)  # whatever the umask
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        _rename(temporary, path, replace)
    finally:
        temporary.unlink(missing_ok=True)


def remove(path: str | os.PathLike[str]) -> bool:
    """Remove ``path`` if it is there, durably (its directory fsynced); whether it was there."""
    path = pathlib.Path(path)
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    fsync_directory(path.parent)
    return True
