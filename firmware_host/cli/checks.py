"""Argument types of the command line that refuse a careless argument in one line (issue 20 item 6).

Each is an ``argparse`` ``type=``: it returns the value or raises
:class:`argparse.ArgumentTypeError`, which :class:`~firmware_host.cli.Parser` turns into one
line on stderr and exit status 2. Paths are checked for what the command will do with them —
read a file, write one, fill a directory — so a missing file, a directory where a file is
expected, or a path no one can create (``/proc/nope/x``) is said at once by name, not as a
traceback half-way through the command.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

__all__ = [
    "directory_to_fill",
    "directory_to_read",
    "file_to_open",
    "file_to_read",
    "file_to_write",
    "port",
    "positive_number",
    "short_text",
]


_N = TypeVar("_N", int, float)


def _refuse(text: str, why: str) -> argparse.ArgumentTypeError:
    return argparse.ArgumentTypeError(f"{text}: {why}")


def file_to_read(text: str) -> Path:
    """An existing regular file this process can read."""
    path = Path(text)
    if not path.exists():
        raise _refuse(text, "no such file")
    if path.is_dir():
        raise _refuse(text, "is a directory, not a file")
    try:
        with path.open("rb"):
            pass
    except OSError as exc:
        raise _refuse(text, f"cannot be read: {exc.strerror}") from None
    return path


def _make_directory(path: Path, text: str) -> None:
    """Make ``path`` and its parents (as the command would), durably; refused when that cannot be done."""
    from firmware_host import durable  # here: a parser's checks stay argparse and os only (tablehost --help)

    try:
        durable.make_directories(path)
    except FileExistsError:
        raise _refuse(text, f"{path} is not a directory") from None
    except OSError as exc:
        raise _refuse(text, f"cannot make the directory {path}: {exc.strerror}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise _refuse(text, f"cannot write in the directory {path}")


def file_to_write(text: str) -> Path:
    """A file the command will create or append to: not a directory, in a directory it can write
    (made with its parents if missing, as the command itself would)."""
    path = file_to_open(text)
    _make_directory(path.parent, text)
    if path.exists() and not os.access(path, os.W_OK):
        raise _refuse(text, "cannot be written")
    return path


def file_to_open(text: str) -> Path:
    """A file the command opens to write itself and, if it cannot, says why in its own words: not
    a directory. ``run --journal``: a journal on a read-only disk is the journal's failure, which
    the dealer is told of (the red lamp, the buzzer: :mod:`firmware_host.wiring.start_alarm`)."""
    path = Path(text)
    if path.is_dir():
        raise _refuse(text, "is a directory, not a file")
    return path


def directory_to_read(text: str) -> Path:
    """An existing directory this process can list."""
    path = Path(text)
    if not path.exists():
        raise _refuse(text, "no such directory")
    if not path.is_dir():
        raise _refuse(text, "is a file, not a directory")
    if not os.access(path, os.R_OK | os.X_OK):
        raise _refuse(text, "cannot be read")
    return path


def directory_to_fill(text: str) -> Path:
    """A directory the command writes files into (made with its parents if missing)."""
    path = Path(text)
    _make_directory(path, text)
    return path


def _parsed(text: str, parse: Callable[[str], _N], what: str) -> _N:
    try:
        return parse(text)
    except ValueError:
        raise _refuse(text, f"not {what}") from None


def positive_number(text: str) -> float:
    """A finite number above zero."""
    value = _parsed(text, float, "a number")
    if not math.isfinite(value) or value <= 0:
        raise _refuse(text, "must be a number above 0")
    return value


def port(text: str) -> int:
    """A TCP port, 0 (any free one) to 65535."""
    value = _parsed(text, int, "a port number")
    if not 0 <= value <= 65535:
        raise _refuse(text, "a port is 0 to 65535")
    return value


def short_text(longest: int) -> Callable[[str], str]:
    """Text of at most ``longest`` characters (what the parser behind it may read whole)."""

    def check(text: str) -> str:
        if len(text) > longest:
            raise _refuse(text[:20] + "...", f"{len(text)} characters, longer than {longest}")
        return text

    return check
