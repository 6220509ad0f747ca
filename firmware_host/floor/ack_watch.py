"""The floor's acknowledgements read back by the collector, to tell a store restored behind them
(docs/feed.md, "The store's epoch").

The collector subscribes to ``<prefix>/+/ack`` too: it hears its own acknowledgements, those of
any collector sharing the store, and at every subscription the ones the broker retained. One of
the store's epoch whose message the store does not hold, or one of a newer epoch, means the
store is behind what the floor said: :meth:`AckWatch.check` begins a new epoch.

The retained acknowledgements are the evidence, and the collector's own acknowledgements replace
them at the broker. So after each subscription the collector says nothing until it has heard
them all: it publishes a marker of its own (a random word on ``<prefix>/~floor/ack``, a topic no
table has) and the broker delivers it after the retained messages the subscription brought
(:attr:`AckWatch.settled`). A broker that refuses the subscription (an ACL from before epochs)
leaves the check off, said once in the log; so does one that grants it and never delivers the
marker (an ACL that filters what the collector may read): after :data:`SETTLE_S` the
collector goes on without the read-back check (counted, logged), never holding every table.

What goes wrong is counted by kind (:data:`FAILURE_KINDS`, the collector's ``/metrics``) and
logged the first time and every 100th: ``refused``, an acknowledgement heard that does not
check under the floor's key (a forgery, or a second floor key); ``store``, the store could not
be read to check or to say one (retried with a backoff, :meth:`AckWatch.due`); ``unsettled``,
a subscription whose marker did not come back in time.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable

import paho.mqtt.client as mqtt

from firmware_host.feed.ack import MAX_ACK, Ack, AckError, ack_table, check_ack
from firmware_host.feed.signing import Signer
from firmware_host.floor.model import Store

__all__ = ["AckWatch", "BACKOFF_S", "FAILURE_KINDS", "HEARD_TABLES", "MARKER_LEVEL", "SETTLE_S"]

log = logging.getLogger("tablehost.floor")

#: Tables whose heard acknowledgements are held until the next check (more are dropped: a retained
#: one comes again at the next subscription).
HEARD_TABLES = 10_000
#: The marker's topic level (``~`` is in no table id).
MARKER_LEVEL = "~floor"
#: How long after the subscription the marker may take to come back, seconds; then the
#: collector goes on without the read-back check.
SETTLE_S = 30.0
#: Retry of the store after it could not be read for the acknowledgements: first and longest wait, seconds.
BACKOFF_S = (0.5, 10.0)
#: What is counted going wrong (see the module's text).
FAILURE_KINDS = ("refused", "store", "unsettled")


class AckWatch:
    """What one collector hears of the floor's acknowledgements (in the collector's thread).

    :param prefix: first level of the tables' topics.
    :param signer: the floor's key (the acknowledgements heard must check under it).
    :param clock: the monotonic clock (the marker's deadline, the store's backoff).
    """

    def __init__(self, prefix: str, signer: Signer, clock: Callable[[], float] = time.monotonic) -> None:
        self.prefix, self.keys, self.clock = prefix, signer.public_keys(), clock
        self.marker = f"{prefix}/{MARKER_LEVEL}/ack"
        #: Per table, the newest acknowledgement heard and not yet checked.
        self.heard: dict[str, Ack] = {}
        #: The retained acknowledgements of this connection's subscription are all heard.
        self.settled = False
        #: What went wrong, by kind (:data:`FAILURE_KINDS`), since start.
        self.failures = dict.fromkeys(FAILURE_KINDS, 0)
        self._word = b""
        self._settle_by: float | None = None  # the marker's deadline, once subscribed
        self._retry_at, self._delay = 0.0, BACKOFF_S[0]

    def connected(self) -> None:
        """A new connection: its subscription brings the retained acknowledgements again (a marker
        of the connection before, still queued in the session, settles nothing)."""
        self.settled, self._settle_by, self._word = False, None, b""

    def ready(self) -> bool:
        """Whether the collector may speak: the retained acknowledgements heard (:attr:`settled`), or
        the marker not back :data:`SETTLE_S` after the subscription (then settled without them)."""
        if not self.settled and self._settle_by is not None and self.clock() >= self._settle_by:
            self.failed(
                "unsettled",
                "floor: the broker granted %s/+/ack but did not deliver this collector's marker in %.0f s "
                "(its ACL lets the collector write the acknowledgements and not read them?): going on without "
                "checking the store against them; after a restore, tablehost floor epoch --begin",
                self.prefix,
                SETTLE_S,
            )
            self.settled = True
        return self.settled

    def failed(self, kind: str, text: str, *args: object) -> None:
        """Count a failure of ``kind`` and log ``text`` the first time and every 100th."""
        self.failures[kind] += 1
        if self.failures[kind] == 1 or self.failures[kind] % 100 == 0:
            log.error(text + " (%d times so far)", *args, self.failures[kind])

    def due(self) -> bool:
        """Whether the store may be tried again (:meth:`store_failed` backs off)."""
        return self.clock() >= self._retry_at

    def store_failed(self, what: str, exc: Exception) -> None:
        """The store could not be read to ``what``: count, log at a rate limit, back off."""
        self.failed("store", "floor: cannot read the store to %s (retried in %.1f s): %s", what, self._delay, exc)
        self._retry_at, self._delay = self.clock() + self._delay, min(self._delay * 2, BACKOFF_S[1])

    def store_read(self) -> None:
        """The store was read: the next failure backs off from the start again."""
        self._retry_at, self._delay = 0.0, BACKOFF_S[0]

    def subscribed(self, client: mqtt.Client, granted: bool) -> None:
        """The broker answered the subscription (``granted``: the acknowledgements' part too)."""
        if not granted:
            log.error(
                "floor: the broker refused this collector %s/+/ack (its ACL?): a store restored behind "
                "the acknowledgements is not recognised; after a restore, tablehost floor epoch --begin",
                self.prefix,
            )
            self.settled = True
            return
        self._word = secrets.token_hex(8).encode()
        self._settle_by = self.clock() + SETTLE_S
        client.publish(self.marker, self._word, qos=1)

    def received(self, client: mqtt.Client, topic: str, message: mqtt.MQTTMessage) -> bool:
        """Take ``message`` if it is an acknowledgement or the marker (True), acknowledging it to
        the broker at once; an acknowledgement that does not check under the floor's key is dropped
        (counted ``refused`` and logged at a rate limit)."""
        table = ack_table(self.prefix, topic)
        if table is None and topic != self.marker:
            return False
        client.ack(message.mid, message.qos)
        payload = bytes(message.payload[: MAX_ACK + 1])
        if table is None:
            self.settled = self.settled or (bool(self._word) and payload == self._word)
            return True
        try:
            ack = check_ack(payload, table, self.keys)
        except AckError as exc:  # not the floor's (a forgery, a second floor key): the tables refuse it too
            self.failed(
                "refused", "floor: an acknowledgement on %s does not check under the floor's key: %s", topic, exc
            )
            return True
        held = self.heard.get(table)
        if (held is None and len(self.heard) < HEARD_TABLES) or (
            held is not None and (ack.epoch, ack.seq) > (held.epoch, held.seq)
        ):
            self.heard[table] = ack
        return True

    def check(self, store: Store) -> list[str] | None:
        """Check the acknowledgements heard against ``store``; if it is behind them, begin a new
        epoch and return the tables heard (to acknowledge anew), else None.

        :raises FloorError: the store cannot be read or written (the heard are kept for the next check).
        """
        heard, self.heard = self.heard, {}
        try:
            epoch = store.epoch()
            why = next(
                (why for table, ack in sorted(heard.items()) if (why := _behind(store, table, ack, epoch))), None
            )
            if why is not None:
                store.new_epoch(max(epoch, *(ack.epoch for ack in heard.values())), why)
        except BaseException:
            self.heard = {**heard, **self.heard}
            raise
        return None if why is None else sorted(heard)


def _behind(store: Store, table: str, ack: Ack, epoch: int) -> str | None:
    """Why ``ack`` shows ``store`` (at ``epoch``) behind what the floor acknowledged, or None."""
    if ack.epoch > epoch:
        return f"{table}'s acknowledgement is of epoch {ack.epoch}, newer than the store's {epoch}"
    if ack.epoch == epoch and ack.seq > 0 and not store.holds(table, ack.seq, ack.hash):
        return f"{table}'s acknowledgement of seq {ack.seq} in this epoch, which the store does not hold"
    return None
