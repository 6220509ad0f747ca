"""The floor collector: subscribes to every table's feed and stores it (``tablehost floor``).

It subscribes to ``<prefix>/+/events`` and ``<prefix>/+/status`` at QoS 1 with a persistent
session (clean start off, a session expiry), so the broker keeps what arrives while the
collector is down. Acknowledgements are manual: a batch of messages is committed to the
store first and only then acknowledged, so a collector killed at any moment loses nothing
(the broker resends what was not acknowledged; the store deduplicates it).

Every message is checked first (:class:`~firmware_host.floor.admission.Admission`): one that
fails is refused, kept in the store's ``refused`` table (bounded), counted, logged at most
:data:`LOG_BURST` times a minute, and acknowledged like any other, so it is never redelivered
and never stops the batch or the collector.

A store that cannot be written (PostgreSQL restarting, a full disk) raises
:class:`~firmware_host.floor.model.FloorError`: the batch is not acknowledged, kept, and
written again after a backoff, so the collector rides out a database outage.

Several collectors may share one PostgreSQL store, each with its own persistent session (its
own ``client_id``): every message reaches each of them, and the store keeps it once
(docs/feed.md, "Redundant collectors").

Only the store can say a message is stored. With the floor's key (``--floor-key``), after each
committed batch the collector publishes, for every table the batch brought a message of, the
floor's acknowledgement (:mod:`firmware_host.feed.ack`): the highest seq up to which the store
holds every message of the table, read from the store (so any collector sharing it may say
it), signed with the store's epoch, retained, QoS 1. The tables move their cursors on it, not on
the broker's PUBACK. The collector also reads the acknowledgements (its own and those of any
collector sharing the store, and the retained ones at each subscription): one of the store's
epoch whose message the store does not hold, or one of a newer epoch, means the store was
restored behind what the floor acknowledged, and the collector begins a new epoch and
acknowledges every table anew from what the store really holds (:mod:`~firmware_host.floor.store_epochs`).

:class:`CollectorStats` is where the collector counts what became of each message and how long
each store write took: the Prometheus metrics read it.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from firmware_host.feed import broker
from firmware_host.feed.ack import ack_topic, make_ack
from firmware_host.feed.signing import Keyring, Signer
from firmware_host.floor.ack_watch import FAILURE_KINDS as ACK_FAILURE_KINDS
from firmware_host.floor.ack_watch import AckWatch
from firmware_host.floor.admission import FAILURE_KINDS, Admission, Admitted, Refusal
from firmware_host.floor.model import FloorError, Outcome, Store

__all__ = ["Collector", "CollectorStats", "RefusalLog"]

log = logging.getLogger("tablehost.floor")

#: The broker keeps the collector's session (subscriptions, unacknowledged messages) this long, seconds.
SESSION_EXPIRY_S = 7 * 24 * 3600
#: Most messages committed in one transaction.
BATCH = 500
#: Reconnect backoff, first and longest wait, seconds.
BACKOFF_S = (0.25, 10.0)
#: A table's acknowledged seq is remembered in the store each time it has moved this far (where the
#: search starts after a restart: :meth:`~firmware_host.floor.store_sql.SqlStore.remember_ack`).
REMEMBER_EVERY = 1000
#: The floor's acknowledgements paho may hold unsent (beyond, one is dropped: the next batch says it again).
ACKS_QUEUED = 1000
#: Refusals logged one by one in each :data:`LOG_WINDOW_S`; the rest are summed up in one line.
LOG_BURST = 10
LOG_WINDOW_S = 60.0


@dataclasses.dataclass
class CollectorStats:
    """What the collector did, since it started: read by the metrics (counters only grow).

    :param counts: messages by :class:`~firmware_host.floor.model.Outcome` kind: ``stored``,
        ``duplicate`` (dropped), ``refused``, ``conflict``, ``status``.
    :param gaps: stored messages that left seqs missing below them (a gap opened).
    :param last_write_seconds: the last committed store transaction's duration (their count and
        sum are the metrics' histogram); ``write_failures``: transactions the store refused;
        ``reader_failures``: calls of a :attr:`Collector.readers` hook that raised (the write stands).
    :param admission_failures: messages whose checks failed in our own code, by kind
        (:attr:`~firmware_host.floor.admission.Admission.failure_kinds`; each also counted refused).
    :param ack_failures: what went wrong reading back the floor's acknowledgements, by kind
        (:data:`~firmware_host.floor.ack_watch.FAILURE_KINDS`: ``refused``, ``store``, ``unsettled``).
    :param last_seq: per table, the highest seq this collector stored or saw stored.
    :param listeners: called with ``(outcomes, seconds)`` after each committed write.
    """

    counts: dict[str, int] = dataclasses.field(
        default_factory=lambda: dict.fromkeys(("stored", "duplicate", "refused", "status", "conflict"), 0)
    )
    gaps: int = 0
    last_write_seconds: float = 0.0
    write_failures: int = 0
    reader_failures: int = 0
    admission_failures: dict[str, int] = dataclasses.field(default_factory=lambda: dict.fromkeys(FAILURE_KINDS, 0))
    ack_failures: dict[str, int] = dataclasses.field(default_factory=lambda: dict.fromkeys(ACK_FAILURE_KINDS, 0))
    last_seq: dict[str, int] = dataclasses.field(default_factory=dict)
    listeners: list[Callable[[list[Outcome], float], None]] = dataclasses.field(default_factory=list)

    def written(self, outcomes: list[Outcome], seconds: float) -> None:
        """One committed store transaction of ``outcomes`` that took ``seconds``."""
        self.last_write_seconds = seconds
        for outcome in outcomes:
            self.counts[outcome.kind] = self.counts.get(outcome.kind, 0) + 1
            self.gaps += outcome.gap is not None
            if outcome.kind in ("stored", "duplicate") and outcome.table is not None and outcome.seq is not None:
                self.last_seq[outcome.table] = max(self.last_seq.get(outcome.table, 0), outcome.seq)
        for listener in self.listeners:
            listener(outcomes, seconds)


class RefusalLog:
    """Log refusals at a rate limit: :data:`LOG_BURST` lines a window, then one line of how many more."""

    def __init__(self, burst: int = LOG_BURST, window_s: float = LOG_WINDOW_S) -> None:
        self.burst, self.window_s = burst, window_s
        self._start, self._said, self._quiet = time.monotonic(), 0, 0

    def refused(self, outcome: Outcome) -> None:
        """One refusal."""
        now = time.monotonic()
        if now - self._start >= self.window_s:
            if self._quiet:
                log.warning(
                    "floor: %d more messages refused in the last %.0f s (floor status lists them)",
                    self._quiet,
                    now - self._start,
                )
            self._start, self._said, self._quiet = now, 0, 0
        if self._said < self.burst:
            self._said += 1
            log.warning(
                "floor: refused a message of %s (seq %s): %s",
                outcome.table or "an unknown table",
                outcome.seq,
                outcome.detail,
            )
        else:
            self._quiet += 1


def _topic(message: mqtt.MQTTMessage) -> str:
    """The message's topic (a topic that is not UTF-8, which a broker should refuse, as escaped text)."""
    try:
        return message.topic
    except UnicodeDecodeError:
        return bytes(message._topic).decode("utf-8", "backslashreplace")


class Collector:
    """Subscribe and store until :meth:`stop`.

    :param store: the floor's database.
    :param settings: the broker (the collector's user may read every table's topics, nothing more).
    :param keyring: the tables' public keys; ``None`` (given explicitly: ``--unsigned``) admits
        unsigned messages.
    :param topic_prefix: first level of the tables' topics.
    :param client_id: the persistent session's name: keep it across restarts.
    :param floor_signer: the floor's key (:data:`~firmware_host.feed.ack.ACK_PREFIX`): with it, what
        the store holds is acknowledged to each table; without it the tables' cursors move on
        the broker's PUBACK (only tables whose ``[feed]`` names no floor key make progress).
    """

    def __init__(
        self,
        store: Store,
        settings: broker.BrokerSettings,
        keyring: Keyring | None,
        *,
        topic_prefix: str = "tablehost",
        client_id: str = "tablehost-floor",
        floor_signer: Signer | None = None,
    ) -> None:
        self.store, self.settings, self.prefix, self.client_id = store, settings, topic_prefix, client_id
        self.floor_signer = floor_signer
        #: Per table, the last ``(seq, hash)`` this collector acknowledged (where the next look starts).
        self.said: dict[str, tuple[int, str]] = {}
        self._remembered: dict[str, int] = {}  # per table, the seq last remembered in the store
        self._epoch: int | None = None  # the store's epoch this collector last acknowledged in
        self._unsaid: set[str] = set()  # tables to acknowledge once the retained were heard
        #: The floor's acknowledgements read back (with the floor's key only).
        self.watch = AckWatch(topic_prefix, floor_signer) if floor_signer is not None else None
        self._hint_failures = 0  # remember_ack's failures (logged at a rate limit)
        self.admission = Admission(topic_prefix, keyring)
        #: What became of the messages (the metrics' source).
        self.stats = CollectorStats(admission_failures=self.admission.failure_kinds)
        if self.watch is not None:
            self.stats.ack_failures = self.watch.failures
        #: Messages by outcome kind (:attr:`CollectorStats.counts`).
        self.counts = self.stats.counts
        self._log = RefusalLog()
        self._batch: list[mqtt.MQTTMessage] = []
        self._stopping = threading.Event()
        self._connected = False
        self._answered = False  # a CONNACK came on this connection
        #: Set once the broker has granted the subscriptions (the session exists from then on).
        self.subscribed = threading.Event()
        #: Called with ``(admitted, outcomes)`` after each committed write, in the collector's
        #: thread (the floor dashboard takes what was stored without reading it back).
        self.readers: list[Callable[[Sequence[Admitted | Refusal], list[Outcome]], None]] = []

    def stop(self) -> None:
        """Stop after the batch in hand (thread- and signal-safe)."""
        self._stopping.set()

    def run(self) -> None:
        """Connect, subscribe and store until :meth:`stop`; reconnects with backoff."""
        if self.floor_signer is None:
            log.warning(
                "floor: no floor key (--floor-key): nothing is acknowledged to the tables; a table whose "
                "[feed] names a floor_key resends until a collector with the floor's key acknowledges it"
            )
        _, host, port = self.settings.endpoint
        client = broker.client(self.settings, self.client_id)
        client.manual_ack_set(True)
        client.max_inflight_messages_set(100)
        client.max_queued_messages_set(ACKS_QUEUED)  # bounded: an acknowledgement is said again each batch
        client.enable_logger(log)
        errors = broker.SocketErrors(client)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_subscribe = lambda c, _u, _mid, codes, _p: self._on_subscribed(c, codes)
        client.on_message = lambda _c, _u, message: self._received(client, message)
        properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]  # paho's is untyped
        properties.SessionExpiryInterval = SESSION_EXPIRY_S
        # At most a batch unacknowledged in this process (MQTT 5's default is 65,535): while the
        # store cannot be written nothing is acknowledged, so memory stays bounded however long.
        properties.ReceiveMaximum = BATCH
        delay, first, dialing = BACKOFF_S[0], True, True
        while not self._stopping.is_set():
            if dialing:
                errors.clear()
                self._answered = False
                try:
                    if first:
                        client.connect(
                            host, port, keepalive=self.settings.keepalive_s, clean_start=False, properties=properties
                        )
                        first = False
                    else:
                        client.reconnect()
                    dialing = False  # CONNACK (or the broker closing on us) comes through loop()
                except OSError as exc:
                    log.warning("floor: cannot connect to %s: %s", self.settings.url, exc)
                    self._stopping.wait(delay)
                    delay = min(delay * 2, BACKOFF_S[1])
                    continue
            rc = client.loop(timeout=0.1)
            while rc == mqtt.MQTT_ERR_SUCCESS and 0 < len(self._batch) < BATCH:  # paho reads a packet a call:
                waiting = len(self._batch)  # take what has arrived, then
                rc = client.loop(timeout=0)  # store it in one transaction
                if len(self._batch) == waiting:
                    break
            if not self._flush(client):
                self._stopping.wait(delay)
                delay = min(delay * 2, BACKOFF_S[1])
            if rc != mqtt.MQTT_ERR_SUCCESS:
                if not self._answered:  # closed before CONNACK (a refused client certificate, over TLS 1.3)
                    log.warning("floor: %s", broker.closed_before_connack(self.settings, errors.first))
                self._connected, dialing = False, True
                self._stopping.wait(delay)
                delay = min(delay * 2, BACKOFF_S[1])
            elif self._connected and not self._batch:
                delay = BACKOFF_S[0]
        self._flush(client)  # what cannot be stored now stays with the broker
        client.disconnect()

    def _flush(self, client: mqtt.Client) -> bool:
        """Store the messages received, in one transaction, then acknowledge them (refused ones too).

        :returns: False when the store cannot be written: the batch is kept, unacknowledged, for
            the next call (the broker holds at most its in-flight window of them).
        """
        watch = self.watch
        if watch is not None and watch.heard and watch.due():  # before anything is said: they are the evidence
            self._check_heard()
        while self._batch:
            batch = self._batch[:BATCH]
            try:
                outcomes = self.process([(_topic(message), bytes(message.payload)) for message in batch])
            except FloorError as exc:
                self.stats.write_failures += 1
                if self.stats.write_failures == 1 or self.stats.write_failures % 100 == 0:
                    log.error(
                        "floor: cannot store (%d times so far; the broker keeps the messages): %s",
                        self.stats.write_failures,
                        exc,
                    )
                return False
            del self._batch[: len(batch)]
            for message in batch:
                client.ack(message.mid, message.qos)
            self._say_stored(client, outcomes)
        if watch is not None and watch.ready() and watch.due() and (self._unsaid or self._epoch is None):
            unsaid, self._unsaid = sorted(self._unsaid), set()
            self._say(client, unsaid)  # held until the retained were heard; the first word: every table
        return True

    def _received(self, client: mqtt.Client, message: mqtt.MQTTMessage) -> None:
        """A feed message or status, for the batch; or the floor's acknowledgement (:class:`AckWatch`)."""
        if self.watch is None or not self.watch.received(client, _topic(message), message):
            self._batch.append(message)

    def _check_heard(self) -> None:
        """Check the acknowledgements heard (:meth:`AckWatch.check`): a new epoch begun, every table anew."""
        assert self.watch is not None
        try:
            tables = self.watch.check(self.store)
        except FloorError as exc:  # the heard are kept: checked again after a backoff, nothing said meanwhile
            self.watch.store_failed("check the acknowledgements heard", exc)
            return
        self.watch.store_read()
        if tables is not None:
            self._unsaid.update(tables)

    def _say_stored(self, client: mqtt.Client, outcomes: list[Outcome]) -> None:
        """Publish the floor's acknowledgement of each table the batch brought a feed message of
        (stored; a duplicate: a table resending wants to hear it again; a conflict; or refused,
        which may have settled a seq)."""
        if self.floor_signer is None:
            return
        self._say(client, sorted({o.table for o in outcomes if o.table and o.seq is not None and o.kind != "status"}))

    def _say(self, client: mqtt.Client, tables: list[str]) -> None:
        """Publish the floor's acknowledgement of ``tables``, in the store's epoch; of every table
        the store holds besides when the epoch is not the one this collector last said."""
        if self.watch is None or self.floor_signer is None:
            return
        if not self.watch.ready() or self.watch.heard:  # the evidence not all heard, or not checked yet
            self._unsaid.update(tables)
            return
        try:
            epoch = self.store.epoch()
            if epoch != self._epoch:  # a new epoch (or this collector's first word): every table anew
                tables = sorted({*tables, *self.store.tables()})
                self.said.clear()
        except FloorError as exc:  # said again after a backoff; nothing is lost
            self._unsaid.update(tables)
            self.watch.store_failed("read the store's epoch to acknowledge", exc)
            return
        for table in tables:
            try:
                seq, hash = self.store.contiguous(table, self.said[table][0] if table in self.said else None)
            except FloorError as exc:  # said again after a backoff; nothing is lost
                self._unsaid.update(tables)
                self.watch.store_failed(f"read what it holds of {table} to acknowledge it", exc)
                return
            if seq - self._remembered.get(table, 0) >= REMEMBER_EVERY:
                self._remember(table, seq)
            client.publish(
                ack_topic(self.prefix, table),
                make_ack(self.floor_signer, table, seq, hash, time.time(), epoch),
                qos=1,
                retain=True,
            )
            if seq:
                self.said[table] = (seq, hash)
        self.watch.store_read()
        self._epoch = epoch

    def _remember(self, table: str, seq: int) -> None:
        """Write the store's hint of ``table``'s acknowledged prefix; a failure (logged the first
        time and every 100th) costs only a longer search after a restart, and is tried again."""
        try:
            self.store.remember_ack(table, seq)
        except FloorError as exc:
            self._hint_failures += 1
            if self._hint_failures == 1 or self._hint_failures % 100 == 0:
                log.error(
                    "floor: cannot remember %s's acknowledgement (%d times so far; only a restart's search "
                    "is longer): %s",
                    table,
                    self._hint_failures,
                    exc,
                )
            return
        self._remembered[table] = seq

    def process(self, batch: Sequence[tuple[str, bytes]]) -> list[Outcome]:
        """Check and store ``(topic, payload)`` messages; count and log what became of them.

        :raises FloorError: the store cannot be written (nothing is acknowledged then).
        """
        admitted = [self.admission.admit(topic, payload) for topic, payload in batch]
        started = time.perf_counter()
        outcomes = self.store.ingest(admitted)
        self.stats.written(outcomes, time.perf_counter() - started)
        for reader in self.readers:  # stored and acknowledged whatever a reader does
            try:
                reader(admitted, outcomes)
            except Exception:
                self.stats.reader_failures += 1
                if self.stats.reader_failures == 1 or self.stats.reader_failures % 100 == 0:
                    log.exception("floor: a reader of what was stored failed (%d times)", self.stats.reader_failures)
        for outcome in outcomes:
            if outcome.kind in ("refused", "conflict"):
                self._log.refused(outcome)
        return outcomes

    def _on_subscribed(self, client: mqtt.Client, codes: list[Any]) -> None:
        """The broker has the subscriptions: from now on every table's message reaches this session."""
        acks = f" and {ack_topic(self.prefix, '+')}" if self.watch is not None else ""
        log.info("floor: subscribed to %s/+/events, %s/+/status%s", self.prefix, self.prefix, acks)
        if self.watch is not None:
            self.watch.subscribed(client, len(codes) == 3 and not codes[2].is_failure)
        self.subscribed.set()

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self._answered = True
        if reason.is_failure:
            log.error("floor: broker %s refused the connection: %s", self.settings.url, reason)
            return
        self._connected = True
        topics = [(f"{self.prefix}/+/events", 1), (f"{self.prefix}/+/status", 1)]
        if self.watch is not None:  # the acknowledgements said, to check against the store
            self.watch.connected()
            topics.append((ack_topic(self.prefix, "+"), 1))
        client.subscribe(topics)
        log.info(
            "floor: connected to %s (session %s)", self.settings.url, "resumed" if flags.session_present else "new"
        )

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self._connected = False
