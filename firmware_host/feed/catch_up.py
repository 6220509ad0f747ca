"""The floor's acknowledgements the publisher checks against the journal (:class:`CatchUp`), and
the journal read a page at a time (:class:`Reader`).

An acknowledgement beyond every message in flight, or of a newer epoch of the floor's store
(docs/feed.md, "The store's epoch"), names a message the publisher holds no state for: its hash
is checked by deriving the journal's messages up to its ``seq``. From the cursor when it is
ahead; when it is behind (a store restored from a backup), from the nearest **anchor** at or
before it: a state of the feed this publisher derived from the journal and the floor
acknowledged (the cursor at each save, and as each archived segment kept it at its rotation,
:meth:`~firmware_host.feed.cursor.FeedCursor.archived`; a bounded set, thinned evenly), or the
start of the feed when none is. The journal may no longer hold what the search needs (an archived segment
moved away once the floor had it, docs/feed.md), or no longer what it would resend from: the
acknowledgement is then refused, counted
and logged at a rate limit, and the feed goes on from its cursor. A refused acknowledgement is
remembered (its epoch, seq and hash), so the broker's redelivery of a retained one, at each
reconnect, is refused without reading the journal again.
"""

from __future__ import annotations

import bisect
import collections
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from firmware_host.errors import JournalError
from firmware_host.feed import schema
from firmware_host.feed.ack import Ack
from firmware_host.feed.cursor import FeedCursor
from firmware_host.feed.inflight import InFlight, not_this_journals
from firmware_host.feed.receipts import Receipts
from firmware_host.feed.schema import FeedState

__all__ = ["ANCHORS_HELD", "PAGE", "REFUSALS_HELD", "CatchUp", "JournalPages", "Reader", "adopt"]

log = logging.getLogger("tablehost.feed")

#: Journal records read per page.
PAGE = 256
#: Anchors held at most: beyond, every second one is dropped (the first and the newest stay).
ANCHORS_HELD = 64
#: Refused acknowledgements remembered at most (the oldest forgotten first).
REFUSALS_HELD = 64
#: Seconds an acknowledgement refused because the journal could not be read is refused again
#: without reading it (a cause may pass: a full temporary directory, a segment put back).
UNREADABLE_HELD_S = 60.0


class JournalPages(Protocol):
    """What the publisher reads of the journal (:meth:`firmware_host.host.journal.Journal.records_after`)."""

    def records_after(self, seq: int, limit: int) -> Sequence[schema.JournalRecord]: ...


class CatchUp:
    """Check the floor's acknowledgements the publisher holds no state for against the journal.

    :param journal: the open journal.
    :param table_id: the table (messages and logs).
    :param receipts: where a refused acknowledgement is counted and logged.
    :param archived: the states the archived segments kept (anchors, read at the first search behind the cursor).
    :param clock: the monotonic clock (how long an unreadable refusal is held).
    """

    def __init__(
        self,
        journal: JournalPages,
        table_id: str,
        receipts: Receipts,
        archived: Callable[[], list[FeedState]] = list,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.journal, self.table_id, self.receipts, self.clock = journal, table_id, receipts, clock
        self._archived: Callable[[], list[FeedState]] | None = archived
        #: States of the feed derived from the journal and acknowledged, by seq (at most :data:`ANCHORS_HELD`).
        self.anchors: list[FeedState] = []
        #: Acknowledgements refused because the journal could not be read back to them.
        self.unreadable = 0
        #: Refusals by (epoch, seq, hash): why, and until when (monotonic; None: for good).
        self._refused: collections.OrderedDict[tuple[int, int, str], tuple[str, float | None]] = (
            collections.OrderedDict()
        )

    def anchor(self, state: FeedState) -> None:
        """Keep ``state`` (derived from the journal by this publisher) as a place a search may start."""
        at = bisect.bisect_left([a.seq for a in self.anchors], state.seq)
        if state.seq == 0 or (at < len(self.anchors) and self.anchors[at].seq == state.seq):
            return
        self.anchors.insert(at, state)
        if len(self.anchors) > ANCHORS_HELD:
            self.anchors = self.anchors[::2]  # an odd count: the first and the newest stay

    def nearest(self, seq: int) -> FeedState:
        """The last anchor at or before message ``seq`` (the start of the feed when none is)."""
        at = bisect.bisect_right([a.seq for a in self.anchors], seq)
        return self.anchors[at - 1] if at else FeedState()

    def checked(self, inflight: InFlight, ack: Ack) -> FeedState | None:
        """The feed's state after the journal's message ``ack.seq`` if its hash is ``ack.hash``, else
        None (and ``ack`` refused): read from the cursor, or from the nearest anchor when ``ack``
        is behind it."""
        key = (ack.epoch, ack.seq, ack.hash)
        held = self._refused.get(key)
        if held is not None and (held[1] is None or self.clock() < held[1]):
            self.receipts.refuse(held[0])  # redelivered: refused again without reading the journal
            return None
        behind = ack.seq < inflight.acked.seq
        if behind and self._archived is not None:
            for state in self._archived():
                self.anchor(state)
            self._archived = None
        start = self.nearest(ack.seq) if behind else inflight.acked
        try:
            found = start if ack.seq == start.seq else Reader(self.journal, self.table_id, start).find(ack.seq)
            if behind and found is not None and found.hash == ack.hash:
                self._read_through(found, inflight.acked)  # what it lacks must be there to resend
        except JournalError as exc:  # an archived segment moved away: the feed goes on from its cursor
            self.unreadable += 1
            why = f"seq {ack.seq} of epoch {ack.epoch} cannot be checked or resent from: {exc}"
            self._refuse(key, why, self.clock() + UNREADABLE_HELD_S)
            return None
        if found is None or found.hash != ack.hash:
            self._refuse(key, not_this_journals(ack))
            return None
        self.anchor(found)
        return found

    def _read_through(self, start: FeedState, cursor: FeedState) -> None:
        """Read the journal's records after ``start`` up to the ``cursor``'s, a page at a time.

        :raises JournalError: one of them is gone (a segment between the two moved away).
        """
        after = start.journal_seq
        while after < cursor.journal_seq and (page := self.journal.records_after(after, PAGE)):
            after = page[-1].seq

    def _refuse(self, key: tuple[int, int, str], why: str, until: float | None = None) -> None:
        self._refused[key] = (why, until)
        self._refused.move_to_end(key)
        while len(self._refused) > REFUSALS_HELD:
            self._refused.popitem(last=False)
        self.receipts.refuse(why)


def adopt(cursor: FeedCursor, table_id: str, inflight: InFlight, ack: Ack, found: FeedState) -> bool:
    """The floor's store is at a newer epoch and holds up to ``found``: the cursor takes both (and
    says so). True when that is behind the cursor (the store was restored): resend from it."""
    back = found.seq < inflight.acked.seq
    cursor.adopt(found, ack.epoch)
    log.log(
        logging.WARNING if back or inflight.epoch else logging.INFO,  # a first epoch is no news
        "feed %s: the floor's store is at epoch %d (the cursor was of %d) and holds up to seq %d (the cursor was at %d)%s",
        table_id,
        ack.epoch,
        inflight.epoch,
        found.seq,
        inflight.acked.seq,
        f"; resending from seq {found.seq + 1}" if back else "",
    )
    inflight.epoch = ack.epoch
    return back


class Reader:
    """The messages after a state, derived one journal page at a time (never more than a page held)."""

    def __init__(self, journal: JournalPages, table_id: str, state: FeedState) -> None:
        self.journal, self.table_id, self.state = journal, table_id, state
        self._pending: collections.deque[tuple[dict[str, Any], FeedState]] = collections.deque()
        #: The last read found nothing more in the journal.
        self.caught_up = False

    @property
    def held(self) -> int:
        """Messages derived and not yet taken (at most a page's)."""
        return len(self._pending)

    def next(self) -> tuple[dict[str, Any], FeedState] | None:
        """The next message and the state after it, or None when the journal has no more yet.

        :raises JournalError: the journal no longer holds the records after the state.
        """
        while True:
            if self._pending:
                self.caught_up = False
                return self._pending.popleft()
            page = self.journal.records_after(self.state.journal_seq, PAGE)
            if not page:
                self.caught_up = True
                return None
            self._pending.extend(schema.derive(self.table_id, page, self.state))
            last = self._pending[-1][1] if self._pending else self.state
            self.state = FeedState(last.seq, page[-1].seq, last.hash)

    def find(self, seq: int) -> FeedState | None:
        """The state after message ``seq``, read up to it a page at a time (None: the journal has no such message)."""
        made = self.next()
        while made is not None and made[1].seq < seq:
            made = self.next()
        return made[1] if made is not None and made[1].seq == seq else None
