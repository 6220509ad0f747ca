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
leaves the check off, said once in the log.
"""

from __future__ import annotations

import logging
import secrets

import paho.mqtt.client as mqtt

from firmware_host.feed.ack import MAX_ACK, Ack, AckError, ack_table, check_ack
from firmware_host.feed.signing import Signer
from firmware_host.floor.model import Store

__all__ = ["AckWatch", "HEARD_TABLES", "MARKER_LEVEL"]

log = logging.getLogger("tablehost.floor")

#: Tables whose heard acknowledgements are held until the next check (more are dropped: a retained
#: one comes again at the next subscription).
HEARD_TABLES = 10_000
#: The marker's topic level (``~`` is in no table id).
MARKER_LEVEL = "~floor"


class AckWatch:
    """What one collector hears of the floor's acknowledgements (in the collector's thread).

    :param prefix: first level of the tables' topics.
    :param signer: the floor's key (the acknowledgements heard must check under it).
    """

    def __init__(self, prefix: str, signer: Signer) -> None:
        self.prefix, self.keys = prefix, signer.public_keys()
        self.marker = f"{prefix}/{MARKER_LEVEL}/ack"
        #: Per table, the newest acknowledgement heard and not yet checked.
        self.heard: dict[str, Ack] = {}
        #: The retained acknowledgements of this connection's subscription are all heard.
        self.settled = False
        self._word = b""

    def connected(self) -> None:
        """A new connection: its subscription brings the retained acknowledgements again."""
        self.settled = False

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
        client.publish(self.marker, self._word, qos=1)

    def received(self, client: mqtt.Client, topic: str, message: mqtt.MQTTMessage) -> bool:
        """Take ``message`` if it is an acknowledgement or the marker (True), acknowledging it to
        the broker at once; an acknowledgement that does not check under the floor's key is dropped."""
        table = ack_table(self.prefix, topic)
        if table is None and topic != self.marker:
            return False
        client.ack(message.mid, message.qos)
        payload = bytes(message.payload[: MAX_ACK + 1])
        if table is None:
            self.settled = self.settled or payload == self._word
            return True
        try:
            ack = check_ack(payload, table, self.keys)
        except AckError:
            return True  # not the floor's: the tables refuse it themselves
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
