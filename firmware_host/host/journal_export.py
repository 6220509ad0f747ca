"""The decisions a journal holds, as they were decided, across its segments
(``journal export`` turns them into rows: :mod:`firmware_host.host.figures`)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from typing import Any

from firmware_host.errors import JournalError
from firmware_host.host import segments
from firmware_host.host.journal_codec import ROUND_RESULT, SHOE_RESULT, Record
from firmware_host.host.journal_file import read_rows

__all__ = ["decisions_of_type", "round_results", "shoe_results"]


# --------------------------------------------------------------------------- exporting


def decisions_of_type(path: str | os.PathLike[str], decision_type: str) -> Iterator[dict[str, Any]]:
    """The ``data`` of every decision of ``decision_type``, across the journal's segments."""
    for conn in segments.connections(path):
        try:
            for row in read_rows(conn, 1, "AND kind = 'decision' AND type = ?", (decision_type,)):
                yield Record.from_row(row).data
        except sqlite3.Error as exc:
            raise JournalError(f"journal {path}: cannot read: {exc}") from exc


def round_results(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The ``data`` of every ``round_result`` decision, in order (``journal export --rounds``)."""
    return decisions_of_type(path, ROUND_RESULT)


def shoe_results(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The ``data`` of every ``shoe_result`` decision, in order (``journal export --shoes``)."""
    return decisions_of_type(path, SHOE_RESULT)
