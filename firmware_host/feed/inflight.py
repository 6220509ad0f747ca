"""What a table's feed has published and not yet had acknowledged, on one connection (:class:`InFlight`).

Pure bookkeeping, no MQTT: the publisher tells it what it sent (:meth:`InFlight.sent`), what the
broker took (:meth:`InFlight.took`, a PUBACK) and what the floor says it stored
(:meth:`InFlight.stored`, a checked :class:`~firmware_host.feed.ack.Ack`), and reads where the
cursor is (:attr:`InFlight.acked`) and what is overdue.

- **End to end** (the table names the floor's key): the cursor moves only over an
  acknowledgement of the floor whose ``seq`` is a message in flight and whose ``hash`` is that
  message's, as this table's own journal gives it. A message stays in flight, and counts against
  the window, until the floor has it; the broker's PUBACK only moves :attr:`InFlight.taken`.
- **The store's epoch** (docs/feed.md, "The store's epoch"): an acknowledgement of an epoch older
  than the cursor's is refused (a replay, or a store restored behind and not yet recognised); one
  of a newer epoch is handed to the publisher (like one beyond what is in flight), which checks
  it against the journal and moves the cursor there, back if need be, and resends from it.
- **Broker only** (no floor key: the behaviour before end-to-end acknowledgement): the cursor
  moves over the prefix of messages the broker acknowledged.

At most the window's messages are held (their :class:`~firmware_host.feed.schema.FeedState`, a
few dozen bytes each), however long the floor is away.
"""

from __future__ import annotations

import collections
import dataclasses
from typing import TYPE_CHECKING

from firmware_host.feed.ack import Ack, AckError, check_ack
from firmware_host.feed.schema import FeedState

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

__all__ = ["InFlight", "Sent", "not_this_journals"]


def not_this_journals(ack: Ack) -> str:
    """Why ``ack`` is refused: its hash is not this journal's message ``ack.seq``."""
    return f"seq {ack.seq} with hash {ack.hash[:16]}..., which is not this journal's message {ack.seq}"


@dataclasses.dataclass
class Sent:
    """One published message: the feed's state after it, when it was sent and when the broker took it."""

    state: FeedState
    sent_at: float
    taken_at: float | None = None


class InFlight:
    """The messages of one connection not yet acknowledged, in publishing order.

    :param acked: the cursor when the connection began.
    :param end_to_end: the floor's acknowledgement moves the cursor (else the broker's PUBACK).
    :param epoch: the floor store's epoch the cursor is of (0: none yet, or before epochs).
    """

    def __init__(self, acked: FeedState, *, end_to_end: bool, epoch: int = 0) -> None:
        self.end_to_end, self.epoch = end_to_end, epoch
        #: The cursor: the last message acknowledged (by the floor, or by the broker without a floor key).
        self.acked = acked
        #: The last message of the prefix the broker acknowledged (PUBACK).
        self.taken = acked
        #: The broker has acknowledged something on this connection.
        self.answered = False
        self._sent: collections.OrderedDict[int, Sent] = collections.OrderedDict()  # by paho's mid

    def __len__(self) -> int:
        return len(self._sent)

    def __contains__(self, mid: int) -> bool:
        return mid in self._sent

    def seq_of(self, mid: int) -> int:
        """The seq of the message published as ``mid``."""
        return self._sent[mid].state.seq

    def sent(self, mid: int, state: FeedState, now: float) -> None:
        """A message was published as ``mid``; ``state`` is the feed's state after it."""
        self._sent[mid] = Sent(state, now)

    def took(self, mid: int, now: float) -> bool:
        """The broker acknowledged ``mid`` (success). True when the cursor moved."""
        self.answered = True
        self._sent[mid].taken_at = now
        moved = False
        for sent in self._sent.values():  # the prefix the broker has taken
            if sent.taken_at is None:
                break
            if sent.state.seq > self.taken.seq:
                self.taken = sent.state
        if not self.end_to_end:
            while self._sent and next(iter(self._sent.values())).taken_at is not None:
                self.acked = self._sent.popitem(last=False)[1].state
                moved = True
        return moved

    def stored(self, ack: Ack) -> bool | str | Ack:
        """The floor says it holds every message up to ``ack.seq`` (checked and signed: :func:`~firmware_host.feed.ack.check_ack`).

        :returns: True when the cursor moved; False for one behind the cursor (the cursor never
            moves back within an epoch); why it is refused (its hash is not this journal's
            message ``seq``: another journal's, or forged; or its epoch is older than the
            cursor's); or the acknowledgement itself when it is beyond every message in flight
            (a cursor behind the floor's, after a cursor write lost to a power cut) or of a newer
            epoch (the store was restored): the publisher checks it against the journal and
            moves the cursor there.
        """
        if ack.epoch < self.epoch:
            return (
                f"seq {ack.seq} of the floor store's epoch {ack.epoch}, older than this table's {self.epoch} "
                "(replayed, or a store restored behind it)"
            )
        if ack.epoch > self.epoch:
            return ack
        if ack.seq <= self.acked.seq:
            if ack.seq == self.acked.seq and ack.hash != self.acked.hash:
                return not_this_journals(ack)
            return False
        for sent in self._sent.values():
            if sent.state.seq == ack.seq:
                if sent.state.hash != ack.hash:
                    return not_this_journals(ack)
                break
        else:
            return ack
        while self._sent:
            state = self._sent.popitem(last=False)[1].state
            if state.seq == ack.seq:
                break
        self.acked = state
        if self.taken.seq < state.seq:
            self.taken = state
        return True

    def jump(self, state: FeedState) -> None:
        """The floor holds every message up to ``state``, beyond all in flight (checked against the journal)."""
        self._sent.clear()
        self.acked = state
        if self.taken.seq < state.seq:
            self.taken = state

    def floor_said(self, payload: bytes, table: str, floor_keys: dict[str, Ed25519PublicKey]) -> bool | str | Ack:
        """:meth:`stored` for an acknowledgement as received on ``table``'s topic, checked first
        (:func:`~firmware_host.feed.ack.check_ack`): True when the cursor moved, or why it is refused."""
        try:
            return self.stored(check_ack(payload, table, floor_keys))
        except AckError as exc:
            return str(exc)

    def overdue(self, now: float, puback_s: float, lag_s: float) -> str | None:
        """Why the connection must be left and the feed resent from the cursor, or None: a PUBACK
        later than ``puback_s`` (a black hole), or the floor's acknowledgement behind the broker's
        for longer than ``lag_s`` (the floor lost, or refused, what the broker took)."""
        unanswered = self.unanswered()
        if unanswered is not None and now - unanswered[1] > puback_s:
            return f"no PUBACK for seq {unanswered[0]} in {puback_s:.0f} s"
        lagging = self.lagging()
        if lagging is not None and now - lagging[1] > lag_s:
            return f"the floor has not acknowledged seq {lagging[0]} {now - lagging[1]:.0f} s after the broker took it"
        return None

    def unanswered(self) -> tuple[int, float] | None:
        """``(seq, sent_at)`` of the oldest message the broker has not acknowledged, if any."""
        for sent in self._sent.values():
            if sent.taken_at is None:
                return sent.state.seq, sent.sent_at
        return None

    def lagging(self) -> tuple[int, float] | None:
        """``(seq, taken_at)`` of the oldest message the broker took and the floor has not acknowledged."""
        first = next(iter(self._sent.values()), None)
        if first is None or first.taken_at is None:
            return None
        return first.state.seq, first.taken_at
