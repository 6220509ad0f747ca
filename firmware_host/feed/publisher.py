"""The feed publisher: an Output that publishes the journal to the floor's MQTT broker.

The journal is the outbox. The service thread only wakes the publisher (:meth:`on_decisions`
sets an event); the publisher's own thread reads the journal in pages after the durable
cursor, derives the messages (:mod:`firmware_host.feed.schema`), publishes them at QoS 1
with at most ``window`` unacknowledged, and moves the cursor only over messages the floor
says it stored: the floor's signed acknowledgement on ``<prefix>/<table>/ack``
(:mod:`firmware_host.feed.ack`), whose hash must be this journal's. The broker's PUBACK only
says the broker took a message (:attr:`FeedPublisher.taken`); an acknowledgement of the floor
lagging it for longer than ``ack_lag_s`` makes the publisher resend from the floor's. A table
whose ``[feed]`` names no floor key keeps the behaviour before end-to-end acknowledgement: the
cursor moves on the PUBACK. Memory is bounded by one page and the window, however long the
broker or the floor is away.

paho-mqtt keeps its session in memory, reports success for a publish while disconnected and
queues without limit beyond its in-flight window (its README and issues). So the publisher
never relies on it: each connection is a fresh client with a clean start, publishes only
once CONNACK is in, never more than paho's in-flight limit, and after any disconnect, refusal
or stalled acknowledgement it drops the connection and resends from the cursor.
A retained ``status`` topic says ``online`` with the version, game and last acknowledged
``seq``; the will says ``offline`` (the availability pattern of Zigbee2MQTT).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import paho.mqtt.client as mqtt

from firmware_host.errors import JournalError
from firmware_host.feed import broker, schema
from firmware_host.feed.ack import Ack, ack_topic
from firmware_host.feed.catch_up import CatchUp, JournalPages, Reader, adopt
from firmware_host.feed.cursor import FeedCursor
from firmware_host.feed.inflight import InFlight
from firmware_host.feed.receipts import Receipts
from firmware_host.feed.warning import TroubleClock

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from firmware_host.feed.signing import Signer
from firmware_host.tables.decisions import Decision

__all__ = ["FeedPublisher", "JournalPages"]

log = logging.getLogger("tablehost.feed")

#: How long to wait for CONNACK after the TCP (and TLS) connection is up, seconds.
CONNACK_TIMEOUT_S = 10.0
#: Cursor writes at most this often while acknowledgements stream in, seconds (and once idle).
CURSOR_EVERY_S = 0.2
#: How long a clean stop goes on publishing the backlog while the broker is there, seconds.
STOP_DRAIN_S = 3.0
#: Reconnect backoff: first and longest wait, seconds (doubled each failure, with jitter).
BACKOFF_S = (0.25, 10.0)


class FeedPublisher:
    """Publish one table's journal to ``<prefix>/<table>/events`` and its status to ``.../status``.

    :param journal: the open journal (read through :meth:`JournalPages.records_after`).
    :param cursor: the durable cursor in the journal's database.
    :param settings: the broker.
    :param signer: the table's signing key: every message and status is signed with it.
    :param table_id, game, version: name the table in topics and in the status.
    :param topic_prefix: first level of every topic.
    :param window: most messages published and not yet acknowledged.
    :param warn_after_s: feed trouble lasting this long is reported to ``on_trouble``.
    :param ack_timeout_s: an acknowledgement this late means the path is dead: reconnect.
    :param status_every_s: the retained status is refreshed at most this often with the last seq.
    :param on_trouble: called from the publisher's thread with a warning text when trouble has
        lasted ``warn_after_s``, and with None once the feed is healthy again.
    :param floor_keys: the floor's public keys by id: its signed acknowledgements move the cursor.
        None: the broker's PUBACK does (a table whose ``[feed]`` names no ``floor_key``).
    :param ack_lag_s: the floor's acknowledgement this long behind the broker's: resend from it.
    """

    def __init__(
        self,
        journal: JournalPages,
        cursor: FeedCursor,
        settings: broker.BrokerSettings,
        signer: Signer,
        *,
        table_id: str,
        game: str,
        version: str,
        topic_prefix: str = "tablehost",
        window: int = 64,
        warn_after_s: float = 30.0,
        ack_timeout_s: float = 10.0,
        status_every_s: float = 5.0,
        on_trouble: Callable[[str | None], None] | None = None,
        floor_keys: dict[str, Ed25519PublicKey] | None = None,
        ack_lag_s: float = 30.0,
    ) -> None:
        self.journal, self.cursor, self.settings, self.signer = journal, cursor, settings, signer
        self.table_id, self.game, self.version = table_id, game, version
        self.events_topic = f"{topic_prefix}/{table_id}/events"
        self.status_topic = f"{topic_prefix}/{table_id}/status"
        self.window, self.ack_timeout_s, self.status_every_s = window, ack_timeout_s, status_every_s
        self.floor_keys, self.ack_lag_s = floor_keys, ack_lag_s
        self.ack_topic = ack_topic(topic_prefix, table_id)
        #: The cursor: the last message the floor acknowledged (the broker, without ``floor_keys``).
        self.acked = cursor.load()
        #: The last message of the prefix the broker acknowledged (PUBACK), this run.
        self.taken = self.acked
        #: Connections made, messages published (resends included), and times the journal could not
        #: be read on from the cursor (a segment it needs moved away), since start.
        self.connections = self.published = self.journal_failures = 0
        #: Messages published on the current connection and not yet acknowledged (at most ``window``).
        self.in_flight = 0
        #: Messages derived from the journal and not yet published (at most a page's).
        self.pending = 0
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._drain_until = 0.0
        self._said_offline = False
        #: The acknowledgements received (:mod:`~firmware_host.feed.receipts`).
        self.receipts = Receipts(table_id, self.events_topic, self.ack_topic, floor_keys, self._wake)
        #: The floor's acknowledgements checked against the journal (:mod:`~firmware_host.feed.catch_up`).
        self.catch_up = CatchUp(journal, table_id, self.receipts, cursor.archived)
        self._connack: threading.Event = threading.Event()
        self._connack_ok: bool | None = None  # None: no CONNACK (yet) on this connection
        self._connected = False
        self._trouble = TroubleClock(table_id, settings.url, warn_after_s, on_trouble)
        self._thread = threading.Thread(target=self._run, name=f"feed-{table_id}", daemon=True)

    # ------------------------------------------------------------------ the Output side

    def on_decisions(self, decisions: Sequence[Decision]) -> None:
        """The step is durable: wake the publisher (never blocks)."""
        self._wake.set()

    def start(self) -> None:
        """Start the publisher's thread."""
        self._thread.start()

    def stop(self, drain_s: float = STOP_DRAIN_S) -> None:
        """Publish what the journal holds for up to ``drain_s`` seconds while connected, then say
        ``offline``, disconnect and stop the thread. What is left goes at the next start."""
        self._drain_until = time.monotonic() + drain_s
        self._stopping.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(drain_s + CONNACK_TIMEOUT_S)

    @property
    def refused_acks(self) -> int:
        """Acknowledgements of the floor refused: malformed, not the floor's key, another table's or journal's."""
        return self.receipts.refused

    @property
    def troubled(self) -> bool:
        """Whether feed trouble is being reported (it lasted ``warn_after_s``)."""
        return self._trouble.warned

    # ------------------------------------------------------------------ the thread

    def _run(self) -> None:
        delay = BACKOFF_S[0]
        try:
            while not self._finished():
                client = self._connect()
                if client is not None:
                    try:
                        self._serve(client)
                        delay = BACKOFF_S[0]
                    except JournalError as exc:  # a segment the cursor needs is gone: the table deals on
                        self.journal_failures += 1  # and the feed tries again, backing off, and says so each time
                        log.error("feed %s: journal unreadable after seq %d: %s", self.table_id, self.acked.seq, exc)
                    finally:
                        self.cursor.save(self.acked)
                        self._hang_up(client)
                self._trouble.check(self.acked.seq)
                if self._stopping.is_set():  # a stop drains while it may: try again at once
                    time.sleep(max(0.0, min(0.2, self._drain_until - time.monotonic())))
                else:
                    self._back_off(delay * random.uniform(0.5, 1.0))
                    delay = min(delay * 2, BACKOFF_S[1])
        except Exception:  # the feed never takes the table down; the journal still holds everything
            log.exception("feed %s: publisher stopped by an unexpected error", self.table_id)
        finally:
            self.cursor.close()

    def _back_off(self, seconds: float) -> None:
        """Wait before the next connection attempt (a stop cuts it short); trouble is reported meanwhile."""
        until = time.monotonic() + seconds
        while not self._stopping.is_set() and time.monotonic() < until:
            self._stopping.wait(min(0.1, max(0.0, until - time.monotonic())))
            self._trouble.check(self.acked.seq)

    def _finished(self) -> bool:
        """Stopping, and the offline status said or the drain time over."""
        return self._stopping.is_set() and (self._said_offline or time.monotonic() >= self._drain_until)

    def _connect(self) -> mqtt.Client | None:
        """A connected client (CONNACK accepted), or None after logging why not."""
        _, host, port = self.settings.endpoint
        try:
            client = broker.client(self.settings, f"tablehost-{self.table_id}")
        except broker.BrokerError as exc:  # a secret file changed under a running table: say so, retry
            log.error("feed %s: %s", self.table_id, exc)
            return None
        errors = broker.SocketErrors(client)
        client.will_set(self.status_topic, self._signed_status("offline"), qos=1, retain=True)
        client.max_inflight_messages_set(self.window + 1)  # + the status: paho never queues one of ours
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_publish = self.receipts.on_publish
        client.on_message = self.receipts.on_message
        self._connack.clear()
        self._connack_ok = None
        self.receipts.clear()
        try:
            client.connect(host, port, keepalive=self.settings.keepalive_s, clean_start=True)
        except OSError as exc:  # refused, unreachable, TLS handshake (ssl.SSLError is an OSError)
            log.warning("feed %s: cannot connect to %s: %s", self.table_id, self.settings.url, exc)
            return None
        client.loop_start()
        answered = self._connack.wait(CONNACK_TIMEOUT_S)
        if answered and self._connack_ok:
            self.connections += 1
            log.info(
                "feed %s: connected to %s; resending from seq %d", self.table_id, self.settings.url, self.acked.seq + 1
            )
            return client
        if not answered:
            log.warning(
                "feed %s: no CONNACK from %s in %.0f s; reconnecting",
                self.table_id,
                self.settings.url,
                CONNACK_TIMEOUT_S,
            )
        elif self._connack_ok is None:  # closed before CONNACK (a refused client certificate, over TLS 1.3)
            log.warning("feed %s: %s", self.table_id, broker.closed_before_connack(self.settings, errors.first))
        self._hang_up(client)
        return None

    def _hang_up(self, client: mqtt.Client) -> None:
        self._connected = False
        self.in_flight = 0
        self._trouble.begins()
        client.disconnect()
        client.loop_stop()

    def _serve(self, client: mqtt.Client) -> None:
        """Publish from the cursor until the connection fails, stalls or the publisher stops."""
        self.acked = self.cursor.load()
        self.catch_up.anchor(self.acked)
        reader = Reader(self.journal, self.table_id, self.acked)
        inflight = InFlight(self.acked, end_to_end=self.floor_keys is not None, epoch=self.cursor.epoch())
        saved, saved_at, status_seq, status_at = self.acked.seq, time.monotonic(), -1, 0.0
        # One message until the broker has answered one: Mosquitto closes the connection right after
        # refusing a PUBLISH (PUBACK 0x87, ACL), and anything more of ours arriving after that close
        # makes its kernel answer with a reset, which discards the unread PUBACK here: the refusal
        # would never be said. The window opens at the first acknowledgement (one round trip).
        while True:
            # Read first: every PUBACK that came before a disconnect is in _acks by then. Mosquitto
            # (2.0) closes the connection right after a PUBACK 0x87 (ACL), and the refusal must still be said.
            connected = self._connected
            self._wake.clear()
            if not self._take_acks(inflight) or not connected:
                return
            ahead = self.receipts.take_ahead()
            caught_up = reader if ahead is None else self._catch_up(inflight, reader, ahead)
            if caught_up is None:  # the floor's store holds less than the cursor said: resend from it
                return
            reader = caught_up
            now = time.monotonic()
            if self.acked.seq != saved and (now - saved_at >= CURSOR_EVERY_S or not inflight):
                self.cursor.save(self.acked)
                self.catch_up.anchor(self.acked)
                saved, saved_at = self.acked.seq, now
            if self._stopping.is_set() and (now >= self._drain_until or (not inflight and reader.caught_up)):
                self._say_offline(client)
                return
            overdue = inflight.overdue(now, self.ack_timeout_s, self.ack_lag_s)
            if overdue is not None:  # a black hole, or the floor lost or refused what the broker took
                log.warning("feed %s: %s; resending from seq %d", self.table_id, overdue, self.acked.seq + 1)
                return
            while len(inflight) < (self.window if inflight.answered else 1):
                made = reader.next()
                if made is None:
                    break
                message, state = made
                info = client.publish(self.events_topic, schema.encode(self.signer.sign(message)), qos=1)
                if info.rc != mqtt.MQTT_ERR_SUCCESS:
                    return
                inflight.sent(info.mid, state, now)
                self.published += 1
            if (
                (inflight.answered or not inflight)
                and self.acked.seq != status_seq
                and now - status_at >= self.status_every_s
            ):
                client.publish(self.status_topic, self._signed_status("online"), qos=1, retain=True)
                status_seq, status_at = self.acked.seq, now
            self.in_flight, self.pending = len(inflight), reader.held
            if not inflight:
                self._trouble.healthy(self.acked.seq)
            self._trouble.check(self.acked.seq)
            self._wake.wait(0.5)

    def _take_acks(self, inflight: InFlight) -> bool:
        """Apply the acknowledgements received (:meth:`Receipts.apply`); move :attr:`acked`. False: refused."""
        if not self.receipts.apply(inflight, time.monotonic()):
            return False
        self.taken = inflight.taken if inflight.taken.seq > self.taken.seq else self.taken
        if inflight.acked.seq > self.acked.seq:
            self.acked = inflight.acked
            self._trouble.healthy(self.acked.seq)
        return True

    def _catch_up(self, inflight: InFlight, reader: Reader, ack: Ack) -> Reader | None:
        """An acknowledgement beyond every message in flight, or of a newer epoch of the floor's store,
        checked against the journal (:meth:`CatchUp.checked`, :func:`adopt`). None: the cursor went back, resend."""
        found = self.catch_up.checked(inflight, ack)
        if found is None:
            return reader
        if ack.epoch > inflight.epoch and adopt(self.cursor, self.table_id, inflight, ack, found):
            self.acked = found
            return None
        inflight.jump(found)
        self.acked = found
        self._trouble.healthy(self.acked.seq)
        return Reader(self.journal, self.table_id, found)

    def _say_offline(self, client: mqtt.Client) -> None:
        """A clean stop: the retained status says offline (the will is only for an unclean end)."""
        info = client.publish(self.status_topic, self._signed_status("offline"), qos=1, retain=True)
        if info.rc == mqtt.MQTT_ERR_SUCCESS:
            info.wait_for_publish(timeout=2.0)
        self._said_offline = True

    def _signed_status(self, state: str) -> bytes:
        status = {"table": self.table_id, "state": state, "version": self.version, "game": self.game}
        return schema.encode(self.signer.sign({**status, "seq": self.acked.seq}))

    # ------------------------------------------------------------------ paho callbacks (its thread)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self._connack_ok = not reason.is_failure
        self._connected = self._connack_ok
        if reason.is_failure:
            log.error("feed %s: broker %s refused the connection: %s", self.table_id, self.settings.url, reason)
        else:
            self._trouble.begins()  # trouble until something is acknowledged again
            if self.floor_keys is not None:  # the floor's retained acknowledgement comes first
                client.subscribe(self.ack_topic, qos=1)
        self._connack.set()
        self._wake.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self._connected = False
        self._connack.set()
        self._wake.set()
