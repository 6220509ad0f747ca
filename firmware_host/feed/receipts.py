"""The acknowledgements a feed connection receives, from paho's thread to the publisher's
(:class:`Receipts`): the broker's PUBACKs and the floor's signed acknowledgements
(:mod:`firmware_host.feed.ack`), held until the publisher applies them to what is in flight
(:class:`~firmware_host.feed.inflight.InFlight`), and the count of the floor's refused.

Memory is bounded: PUBACKs come for messages in flight only (at most the window's), and at most
:data:`ACKS_HELD` of the floor's acknowledgements are held (only the newest matter).
"""

from __future__ import annotations

import collections
import logging
import threading
from typing import TYPE_CHECKING, Any

import paho.mqtt.client as mqtt

from firmware_host.feed.ack import Ack
from firmware_host.feed.inflight import InFlight

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

__all__ = ["ACKS_HELD", "NO_SUBSCRIBERS", "Receipts"]

log = logging.getLogger("tablehost.feed")

#: MQTT 5 PUBACK reason code 0x10 "No matching subscribers": the broker took the message and gave
#: it to nobody (no collector session, e.g. a broker restarted without persistence). Not delivered:
#: the cursor stays, and the feed resends after a backoff.
NO_SUBSCRIBERS = 0x10
#: The floor's acknowledgements received and not yet checked, at most (only the newest matter).
ACKS_HELD = 16
#: The longest acknowledgement of the floor read, bytes.
ACK_LONGEST = 2 * 1024


class Receipts:
    """What one table's feed connection was told of its messages.

    :param table_id: the table (logs; the floor's acknowledgement must name it).
    :param events_topic: where the messages go (logs).
    :param ack_topic: where the floor's acknowledgements come from.
    :param floor_keys: the floor's public keys by id (None: the floor's acknowledgements are not read).
    :param wake: set when something came in (the publisher's thread waits on it).
    """

    def __init__(
        self,
        table_id: str,
        events_topic: str,
        ack_topic: str,
        floor_keys: dict[str, Ed25519PublicKey] | None,
        wake: threading.Event,
    ) -> None:
        self.table_id, self.events_topic, self.ack_topic = table_id, events_topic, ack_topic
        self.floor_keys, self._wake = floor_keys, wake
        #: Acknowledgements of the floor refused: malformed, not the floor's key, another table's or journal's.
        self.refused = 0
        #: The newest acknowledgement of the floor beyond every message in flight, or of a newer
        #: epoch of its store, to check (:meth:`take_ahead`).
        self.ahead: Ack | None = None
        self._acks: collections.deque[tuple[int, int]] = collections.deque()  # (mid, reason code)
        self._floor_acks: collections.deque[bytes] = collections.deque(maxlen=ACKS_HELD)

    def clear(self) -> None:
        """A new connection: what the last one was told no longer counts."""
        self._acks.clear()
        self._floor_acks.clear()

    def apply(self, inflight: InFlight, now: float) -> bool:
        """Apply the PUBACKs and the floor's acknowledgements received to ``inflight``.

        :returns: False when the broker refused a message or had no subscriber for it: reconnect.
        """
        while self._acks:
            mid, reason = self._acks.popleft()
            if mid not in inflight:
                continue  # the status topic's
            if reason == NO_SUBSCRIBERS:
                log.warning(
                    "feed %s: no floor collector has subscribed to %s yet; resending from seq %d",
                    self.table_id,
                    self.events_topic,
                    inflight.acked.seq + 1,
                )
                return False
            if reason:
                log.error(
                    "feed %s: the broker refused seq %d on %s (reason code 0x%02X: ACL?); reconnecting",
                    self.table_id,
                    inflight.seq_of(mid),
                    self.events_topic,
                    reason,
                )
                return False
            inflight.took(mid, now)
        while self._floor_acks and self.floor_keys is not None:
            verdict = inflight.floor_said(self._floor_acks.popleft(), self.table_id, self.floor_keys)
            if isinstance(verdict, str):
                self.refuse(verdict)
            elif isinstance(verdict, Ack) and (
                self.ahead is None or (verdict.epoch, verdict.seq) > (self.ahead.epoch, self.ahead.seq)
            ):
                self.ahead = verdict
        return True

    def take_ahead(self) -> Ack | None:
        """The acknowledgement beyond every message in flight, once (None: none came)."""
        ahead, self.ahead = self.ahead, None
        return ahead

    def refuse(self, why: str) -> None:
        """Count a refused acknowledgement of the floor, and log it at a rate limit."""
        self.refused += 1
        if self.refused == 1 or self.refused % 100 == 0:
            log.error(
                "feed %s: refused an acknowledgement on %s (%d so far): %s",
                self.table_id,
                self.ack_topic,
                self.refused,
                why,
            )

    # ------------------------------------------------------------------ paho callbacks (its thread)

    def on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason: Any, properties: Any) -> None:
        """The broker's PUBACK."""
        self._acks.append((mid, reason.value if reason.is_failure or reason.value == NO_SUBSCRIBERS else 0))
        self._wake.set()

    def on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        """The floor's acknowledgement (checked in the publisher's thread by :meth:`apply`)."""
        if message.topic == self.ack_topic:
            self._floor_acks.append(bytes(message.payload[:ACK_LONGEST]))
            self._wake.set()
