"""The floor's acknowledgements checked against the journal (:mod:`firmware_host.feed.catch_up`):
one behind the cursor is searched for from the nearest anchor, one the journal can no longer be
read back to is refused and counted (the feed goes on), and a refused one redelivered is refused
again without reading the journal. Rule: hostile input is bounded, refused, counted, logged."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

import firmware_host.feed.catch_up
from firmware_host.errors import JournalError
from firmware_host.feed import schema
from firmware_host.feed.ack import Ack
from firmware_host.feed.catch_up import ANCHORS_HELD, UNREADABLE_HELD_S, CatchUp
from firmware_host.feed.cursor import FeedCursor
from firmware_host.feed.inflight import InFlight
from firmware_host.feed.receipts import Receipts
from firmware_host.feed.schema import FeedState
from firmware_host.host.journal import Journal
from tests.support.feed_records import play


class Pages:
    """The journal's pages, counted, with the records up to ``gone`` moved away (JournalError)."""

    def __init__(self, journal: Journal, gone: int = 0, gap: tuple[int, int] | None = None) -> None:
        self.journal, self.gone, self.gap = journal, gone, gap
        self.reads: list[int] = []

    def records_after(self, seq: int, limit: int) -> Sequence[schema.JournalRecord]:
        self.reads.append(seq)
        if seq < self.gone or (self.gap is not None and seq < self.gap[1] and seq + limit > self.gap[0]):
            raise JournalError(f"record {seq + 1} is in no segment beside it")
        return self.journal.records_after(seq, limit)


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    with Journal.open(tmp_path / "journal.sqlite") as opened:
        play(opened, 12)
        yield opened


def _states(journal: Journal) -> list[FeedState]:
    """The feed's state after each message, from the start (index 0: after message 1)."""
    return [state for _, state in schema.derive("T1", journal.records_after(0, 10_000), FeedState())]


def _catch_up(pages: Pages) -> CatchUp:
    return CatchUp(pages, "T1", Receipts("T1", "tablehost/T1/events", "tablehost/T1/ack", {}, threading.Event()))


def test_a_new_epoch_ack_behind_records_moved_away_is_refused_counted_and_not_read_again(journal: Journal) -> None:
    states = _states(journal)
    pages = Pages(journal, gone=states[8].journal_seq)  # the segment holding messages 1..9 moved away
    catch_up = _catch_up(pages)
    inflight = InFlight(states[11], end_to_end=True, epoch=1)
    ack = Ack("T1", 5, states[4].hash, 1.0, epoch=2)  # the store restored to message 5
    assert catch_up.checked(inflight, ack) is None
    assert (catch_up.unreadable, catch_up.receipts.refused) == (1, 1)
    reads = len(pages.reads)
    assert catch_up.checked(inflight, ack) is None  # the broker's redelivery of the retained one
    assert (len(pages.reads), catch_up.unreadable, catch_up.receipts.refused) == (reads, 1, 2)
    assert inflight.acked == states[11] and inflight.epoch == 1  # the cursor stays: the feed goes on from it


def test_an_anchor_at_the_ack_is_refused_when_what_follows_it_is_gone(journal: Journal) -> None:
    """The search needs no read from an anchor at the ack, but the resend does: refused, not adopted."""
    states = _states(journal)
    catch_up = _catch_up(Pages(journal, gone=states[8].journal_seq))
    catch_up.anchor(states[4])
    assert (
        catch_up.checked(InFlight(states[11], end_to_end=True, epoch=1), Ack("T1", 5, states[4].hash, 1.0, 2)) is None
    )
    assert catch_up.unreadable == 1


def test_a_search_behind_the_cursor_starts_at_the_nearest_anchor(journal: Journal) -> None:
    states = _states(journal)
    pages = Pages(journal, gone=states[2].journal_seq)  # messages 1..3 gone: a search from 0 would fail
    catch_up = _catch_up(pages)
    for state in (states[11], states[3], states[7]):  # message 4, 8 and 12, in any order
        catch_up.anchor(state)
    assert [a.seq for a in catch_up.anchors] == [4, 8, 12]
    found = catch_up.checked(InFlight(states[11], end_to_end=True, epoch=1), Ack("T1", 6, states[5].hash, 1.0, 2))
    assert found == states[5] and pages.reads[0] == states[3].journal_seq
    assert catch_up.receipts.refused == 0


def test_an_ack_refused_for_its_hash_is_refused_again_without_reading_the_journal(journal: Journal) -> None:
    states = _states(journal)
    pages = Pages(journal)
    catch_up = _catch_up(pages)
    inflight = InFlight(states[11], end_to_end=True, epoch=1)
    forged = Ack("T1", 6, "f" * 64, 1.0, epoch=2)
    assert catch_up.checked(inflight, forged) is None
    reads = len(pages.reads)
    assert reads > 0
    for _ in range(3):
        assert catch_up.checked(inflight, forged) is None
    assert (len(pages.reads), catch_up.receipts.refused, catch_up.unreadable) == (reads, 4, 0)


def test_anchors_are_bounded_and_keep_the_first_and_the_newest() -> None:
    catch_up = CatchUp(Pages.__new__(Pages), "T1", Receipts("T1", "e", "a", {}, threading.Event()))
    for seq in range(1, 1_001):
        catch_up.anchor(FeedState(seq, seq, f"{seq:064x}"))
    seqs = [a.seq for a in catch_up.anchors]
    assert len(seqs) <= ANCHORS_HELD and seqs[0] == 1 and seqs[-1] == 1_000 and seqs == sorted(seqs)
    assert catch_up.nearest(500).seq <= 500 and catch_up.nearest(0) == FeedState()
    assert catch_up.nearest(500).seq == max(seq for seq in seqs if seq <= 500) and catch_up.nearest(1_000).seq == 1_000


def test_after_a_restart_the_search_starts_at_the_cursor_an_archived_segment_kept(journal: Journal) -> None:
    """A rotation copies the cursor with the segment: after a restart (no anchor in memory) the
    search behind the cursor starts there, not at the start of the feed."""
    states = _states(journal)
    cursor = FeedCursor(journal.path, "T1")
    try:
        cursor.save(states[5])
        journal.rotate({"state": "x"}, at=100.0)
        cursor.save(states[11])
        assert cursor.archived() == [states[5]]
        pages = Pages(journal, gone=states[4].journal_seq)  # a search from the start would fail
        catch_up = CatchUp(pages, "T1", _catch_up(pages).receipts, cursor.archived)
        inflight = InFlight(cursor.load(), end_to_end=True, epoch=1)
        assert catch_up.checked(inflight, Ack("T1", 8, states[7].hash, 1.0, epoch=2)) == states[7]
        assert pages.reads[0] == states[5].journal_seq and catch_up.receipts.refused == 0
    finally:
        cursor.close()


def test_an_ack_is_refused_when_a_segment_between_it_and_the_cursor_is_gone(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the first page after the ack was read before it was adopted: a segment moved away
    further on (between it and the cursor) then raised in the resend and stopped the feed thread
    (a review of this change). Every record up to the cursor is read first now."""
    monkeypatch.setattr(firmware_host.feed.catch_up, "PAGE", 4)
    states = _states(journal)
    catch_up = _catch_up(Pages(journal, gap=(states[8].journal_seq, states[9].journal_seq)))
    catch_up.anchor(states[3])
    inflight = InFlight(states[11], end_to_end=True, epoch=1)
    assert catch_up.checked(inflight, Ack("T1", 5, states[4].hash, 1.0, epoch=2)) is None
    assert (catch_up.unreadable, catch_up.receipts.refused) == (1, 1)


def test_an_ack_refused_as_unreadable_is_read_again_once_its_hold_is_over(journal: Journal) -> None:
    """A cause may pass (the segment put back, a full temporary directory emptied): the refusal is
    held a while, not for good."""
    states = _states(journal)
    pages = Pages(journal, gone=states[2].journal_seq)
    now = [0.0]
    catch_up = CatchUp(pages, "T1", _catch_up(pages).receipts, clock=lambda: now[0])
    inflight = InFlight(states[11], end_to_end=True, epoch=1)
    ack = Ack("T1", 5, states[4].hash, 1.0, epoch=2)
    assert catch_up.checked(inflight, ack) is None
    reads = len(pages.reads)
    now[0] += UNREADABLE_HELD_S - 1
    assert catch_up.checked(inflight, ack) is None and len(pages.reads) == reads  # held: not read again
    pages.gone = 0  # the segment put back
    now[0] += 1
    assert catch_up.checked(inflight, ack) == states[4] and len(pages.reads) > reads
