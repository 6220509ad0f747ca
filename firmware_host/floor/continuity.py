"""A batch's continuity, worked out in Python from one read of the store (:class:`Batch`).

:class:`~firmware_host.floor.store_sql.SqlStore` reads, once per batch, each of the batch's
tables' highest integer seq and the ``hash`` and ``prev_hash`` stored at every seq the batch
names and at their neighbours (``seq - 1``, ``seq + 1``: :func:`wanted`). :meth:`Batch.add`
then says what each message becomes, in batch order, and records it in the table's
:class:`Chain`, so a message sees the ones before it in the batch exactly as if each had been
stored on its own:

- a seq already held with the same hash: a **duplicate** (counted, not stored);
- held with another hash: a **conflict**, a :data:`BREAK` (the first is kept);
- else **stored**; a :data:`BREAK` where its ``prev_hash`` is not the hash of message ``seq - 1``
  (the genesis hash for message 1), or where message ``seq + 1``'s ``prev_hash`` is not its
  hash; a :data:`REPAIR` where it fills a gap below the highest seq; and the gap it opens above
  the highest seq, if any.

Nothing here touches a database: the store writes what :class:`Batch` collected (:attr:`new`,
:attr:`problems`, :attr:`duplicates`) in a few set-based statements.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Iterable
from typing import Any

from firmware_host.feed import schema
from firmware_host.floor.admission import Admitted
from firmware_host.floor.model import Outcome

__all__ = ["BREAK", "REPAIR", "Chain", "Problem", "Batch", "wanted"]

#: The kinds of problem recorded.
BREAK, REPAIR = "break", "repair"
#: Why a second, different message for a stored seq is a break.
CONFLICT = "a second, different message for this seq (the first is kept)"


@dataclasses.dataclass
class Chain:
    """What the store holds of one table around a batch: its highest integer seq, and the
    ``(hash, prev_hash)`` at each seq read (and each stored by the batch so far)."""

    max_seq: int = 0
    rows: dict[int, tuple[Any, Any]] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Problem:
    """A break or a repair found at one seq of a table."""

    table: str
    seq: int
    kind: str
    detail: str
    topic: str


def wanted(messages: Iterable[Admitted]) -> list[tuple[str, int]]:
    """The ``(table, seq)`` pairs to read for ``messages``: each seq and its neighbours, in order."""
    return sorted({(m.table, m.message["seq"] + d) for m in messages for d in (-1, 0, 1)})


class Batch:
    """The outcomes of a batch's messages, one by one, over ``chains`` (each table's :class:`Chain`)."""

    def __init__(self, chains: dict[str, Chain]) -> None:
        self.chains = chains
        #: The messages to insert, in batch order.
        self.new: list[Admitted] = []
        #: The problems to record, in the order one-by-one storing would record them.
        self.problems: list[Problem] = []
        #: Duplicates per table.
        self.duplicates: collections.Counter[str] = collections.Counter()

    def add(self, item: Admitted) -> Outcome:
        """What ``item`` (a feed message, not a status) becomes, given the store and the batch so far."""
        table, message = item.table, item.message
        seq = message["seq"]
        chain = self.chains.setdefault(table, Chain())
        held = chain.rows.get(seq)
        if held is not None:
            if held[0] == message["hash"]:  # the same message (re-signed after a key rotation, maybe)
                self.duplicates[table] += 1
                return Outcome("duplicate", table, seq)
            self.problems.append(Problem(table, seq, BREAK, CONFLICT, item.topic))
            return Outcome("conflict", table, seq, CONFLICT)
        before = schema.GENESIS_HASH if seq == 1 else chain.rows.get(seq - 1, (None,))[0]
        after = chain.rows.get(seq + 1, (None, None))[1]
        if before is not None and before != message["prev_hash"]:
            self.problems.append(
                Problem(table, seq, BREAK, f"prev_hash is not the hash of message {seq - 1}", item.topic)
            )
        if after is not None and after != message["hash"]:
            self.problems.append(
                Problem(table, seq + 1, BREAK, f"prev_hash is not the hash of message {seq}", item.topic)
            )
        max_seq = chain.max_seq
        if seq < max_seq:
            self.problems.append(Problem(table, seq, REPAIR, f"fills a gap below seq {max_seq}", item.topic))
        chain.rows[seq] = (message["hash"], message["prev_hash"])
        chain.max_seq = max(max_seq, seq)
        self.new.append(item)
        at = message.get("at")
        return Outcome(
            "stored",
            table,
            seq,
            gap=(max_seq + 1, seq - 1) if seq > max_seq + 1 else None,
            at=float(at) if isinstance(at, (int, float)) and not isinstance(at, bool) else None,
        )
