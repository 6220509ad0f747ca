"""What a floor store is: the interface the collector and the ``floor`` commands use, and its values.

:class:`Store` is all the collector, ``floor status``, ``floor export`` and ``journal verify
--floor`` need, so a store on another database (PostgreSQL) sits beside the SQLite one
(:class:`~firmware_host.floor.store.FloorStore`). A store takes only what
:class:`~firmware_host.floor.admission.Admission` let through, or its refusals: it never
parses a payload itself.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, ClassVar, Protocol

from firmware_host.errors import TablehostError
from firmware_host.floor.admission import Admitted, Refusal

__all__ = ["Store", "Outcome", "TableStatus", "Unreadable", "FloorError", "UNKNOWN_TABLE"]

#: The table a refusal is counted under when its topic names no table the floor knows.
UNKNOWN_TABLE = ""


class FloorError(TablehostError):
    """The floor's database cannot be opened or read."""


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What became of one received message: ``stored``, ``duplicate``, ``status``, ``refused``
    (with why) or ``conflict`` (a second, different message for a stored seq: a break); ``gap``:
    the seq range a stored message left missing below it (it opened a gap)."""

    kind: str
    table: str | None = None
    seq: int | None = None
    detail: str = ""
    gap: tuple[int, int] | None = None
    #: A stored message's ``at`` (the table's clock when it journaled the record).
    at: float | None = None


@dataclasses.dataclass(frozen=True)
class Unreadable:
    """A stored record that cannot be read back (a damaged or hand-edited database), named."""

    table: str
    seq: Any
    why: str

    def __str__(self) -> str:
        return f"table {self.table!r} message {self.seq!r}: cannot read it: {self.why}"


#: A table whose last message's ``at`` differs from when the floor stored it by more than this
#: (seconds) has a wrong clock: ``clock-skew`` (issue 28). A backlog being resent after an
#: outage shows so too until it is caught up: its ``at`` are as old as the outage.
DEFAULT_SKEW_BOUND_S = 5.0


@dataclasses.dataclass(frozen=True)
class TableStatus:
    """One table as ``tablehost floor status`` lists it."""

    table: str
    last_seq: int  #: highest seq up to which nothing is missing
    max_seq: int
    last_seen: float | None
    lag_s: float | None  #: the last message's delay from the table's journal to the floor
    online: bool | None
    version: str | None
    game: str | None
    gaps: list[tuple[int, int]]
    breaks: int
    refused: int  #: messages refused on its topic (all of them, kept or only counted)
    duplicates: int
    last_refusal: str | None = None  #: why the last one was refused
    unreadable: list[str] = dataclasses.field(default_factory=list)  #: stored records it cannot read

    def clock_skew(self, bound_s: float = DEFAULT_SKEW_BOUND_S) -> bool:
        """Whether the table's clock differs from the floor's by more than ``bound_s`` (its last
        message's ``at`` against when it was stored, either way)."""
        return self.lag_s is not None and abs(self.lag_s) > bound_s

    @property
    def shown_lag_s(self) -> float | None:
        """The lag as people see it: never negative (a table clock ahead is a clock skew, not a lag)."""
        return None if self.lag_s is None else max(0.0, self.lag_s)

    def to_json(self, bound_s: float = DEFAULT_SKEW_BOUND_S) -> dict[str, Any]:
        """JSON-ready fields, with ``clock_skew`` (``lag_s`` stays signed: the table's clock ahead is negative)."""
        return {
            **dataclasses.asdict(self),
            "gaps": [list(g) for g in self.gaps],
            "clock_skew": self.clock_skew(bound_s),
        }


class Store(Protocol):
    """A floor database: one writer (the collector), any number of readers."""

    def ingest(self, batch: Sequence[Admitted | Refusal]) -> list[Outcome]:
        """Store a batch in one durable transaction (all of it or, raising :class:`FloorError`, none)."""

    def tables(self) -> list[str]:
        """Every table the floor holds."""

    def status(self, table: str) -> TableStatus:
        """One table's status (:class:`FloorError` for an unknown table)."""

    def contiguous(self, table: str, start: int | None = None) -> tuple[int, str]:
        """The highest seq up to which every message of ``table`` is held, and its hash."""

    def remember_ack(self, table: str, seq: int) -> None:
        """Where :meth:`contiguous` starts next time (a hint)."""

    def epoch(self) -> int:
        """The store's epoch (:mod:`~firmware_host.floor.store_epochs`)."""

    def new_epoch(self, above: int, why: str) -> int:
        """Begin an epoch newer than ``above`` unless the store's already is; the store's epoch after."""

    def holds(self, table: str, seq: int, hash: str) -> bool:
        """Whether message ``seq`` of ``table`` with ``hash`` is stored or settled."""

    def refused_unknown(self) -> int:
        """Refusals on topics naming no table the floor knows."""

    def refusals(self, table: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        """The refusals kept (of one table; ``""``: unknown tables), newest first."""

    def problems(self, table: str | None = None) -> list[dict[str, Any]]:
        """The breaks and repairs recorded, oldest first."""

    def read(
        self, table: str, type: str | None = None, *, after: int = 0, limit: int | None = None
    ) -> Iterator[dict[str, Any] | Unreadable]:
        """The table's stored messages in seq order (seq above ``after``, at most ``limit``), each as
        published or :class:`Unreadable`."""

    def newer(
        self, table: str, after: int, *, type: str | None = None, limit: int | None = None
    ) -> Iterator[dict[str, Any] | Unreadable]:
        """:meth:`read` without its status check (an unknown table has none)."""

    #: Whether :meth:`listen` tells of each commit (PostgreSQL), else :meth:`changes` is polled.
    notifies: ClassVar[bool]

    def listen(self, heard: Callable[[list[str] | None], None], stop: threading.Event) -> None:
        """Until ``stop``: ``heard`` the tables of each commit (None: every table)."""

    def newer_of(self, afters: dict[str, int], span: int) -> dict[str, list[dict[str, Any] | Unreadable]]:
        """:meth:`newer` of many tables in one query: above each one's ``after``, at most ``span`` above it."""

    def changes(self) -> dict[str, tuple[Any, Any]]:
        """Every table's mark of change (``last_seen``, highest seq), compared for equality only."""

    def messages(self, table: str, type: str | None = None) -> Iterator[dict[str, Any]]:
        """The readable ones of :meth:`read`."""

    def round_messages(self, table: str, round_number: int) -> list[dict[str, Any]]:
        """The readable messages of one round of ``table``, in seq order (by the store's round index)."""

    def close(self) -> None:
        """Close the database."""
