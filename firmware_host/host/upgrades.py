"""What each version of tablehost added to what it journals, and a step as an earlier version wrote it.

A journal is replayed by the version that continues it (:meth:`firmware_host.host.service.Service.recover`),
which must decide every step as the journal holds it. A later version may decide more than an
earlier one did: a new decision type, a new kind of alert, a new field in a decision's data.
:data:`ADDED` says, version by version, what was new; the replay compares a step of a journal
``V`` wrote less everything the versions after ``V`` added (:func:`as_written_by`), so the
journals of every earlier version still replay. Adding a field to every ``round_result`` is one
line in :func:`firmware_host.tables.round_record.head` and one here, under the version that adds it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from firmware_host.tables.decisions import (
    ADVANTAGE_PLAY,
    ADVANTAGE_WINDOW,
    ROUNDS_LOST,
    ROUNDS_LOST_ALERT,
    Decision,
)

__all__ = ["ADDED", "WHOLE", "kinds_of", "version_key", "added_after", "as_written_by"]

#: Marks a kind of decision that was new as a whole in its version (not fields of one).
WHOLE: tuple[str, ...] = ("*",)

#: By version, what it added: by kind of decision (its type, or ``alert:<code>`` for alerts of
#: one code), the fields it added to that kind's data, or :data:`WHOLE` for a new kind.
ADDED: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "0.2.0": {
        "prompt": ("exposed",),  # the hands a deal prompt shows as they lie face up (issue 14)
    },
    "0.3.0": {
        "odds": WHOLE,  # game protection (docs/protection.md)
        f"alert:{ADVANTAGE_WINDOW}": WHOLE,
        f"alert:{ADVANTAGE_PLAY}": WHOLE,
        "refused": WHOLE,  # beside each refusal's alert, the refusal's only record before (issue 20 item 3)
        "round_result": ("gaming_day", "clock"),  # a step stamped on both clocks (issue 28)
        ROUNDS_LOST: WHOLE,  # a salvage's round numbers skipped (docs/recovery.md, "Salvage")
        f"alert:{ROUNDS_LOST_ALERT}": WHOLE,
    },
}


def version_key(version: str) -> tuple[int, ...]:
    """``"0.2.0"`` as ``(0, 2, 0)``; a version that is not numbers sorts first."""
    try:
        return tuple(int(part) for part in version.split("."))
    except ValueError:
        return ()


def kinds_of(decision: Decision) -> tuple[str, ...]:
    """The kinds :data:`ADDED` may name ``decision`` by: its type, and ``alert:<code>`` for an alert."""
    if decision.type == "alert":
        return (decision.type, f"alert:{decision.data.get('code')}")
    return (decision.type,)


def added_after(version: str | None) -> dict[str, set[str]]:
    """Everything the versions after ``version`` added (:data:`ADDED`), by kind (None: nothing,
    the running version's own)."""
    later: dict[str, set[str]] = {}
    if version is None:
        return later
    for since, kinds in ADDED.items():
        if version_key(since) > version_key(version):
            for kind, fields in kinds.items():
                later.setdefault(kind, set()).update(fields)
    return later


def as_written_by(version: str | None, decisions: Iterable[Decision]) -> list[Decision]:
    """``decisions`` as tablehost ``version`` would have journaled them: without the kinds of
    decision and the fields that later versions added (:func:`added_after`)."""
    later = added_after(version)
    if not later:
        return list(decisions)
    kept: list[Decision] = []
    for decision in decisions:
        fields = set().union(*(later.get(kind, ()) for kind in kinds_of(decision)))
        if WHOLE[0] in fields:
            continue
        data = {key: value for key, value in decision.data.items() if key not in fields} if fields else decision.data
        kept.append(Decision(decision.type, data, decision.round))
    return kept
