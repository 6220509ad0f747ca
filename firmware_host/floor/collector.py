"""The floor collector: subscribes to every table's feed and stores it (``tablehost floor``).

It subscribes to ``<prefix>/+/events`` and ``<prefix>/+/status`` at QoS 1 with a persistent
session (clean start off, a session expiry), so the broker keeps what arrives while the
collector is down. Acknowledgements are manual: a batch of messages is committed to the
store first and only then acknowledged, so a collector killed at any moment loses nothing
(the broker resends what was not acknowledged; the store deduplicates it).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from firmware_host.feed import broker
from firmware_host.floor.store import FloorStore, Outcome

__all__ = ["Collector"]

log = logging.getLogger("tablehost.floor")

#: The broker keeps the collector's session (subscriptions, unacknowledged messages) this long, seconds.
SESSION_EXPIRY_S = 7 * 24 * 3600
#: Most messages committed in one transaction.
BATCH = 500
#: Reconnect backoff, first and longest wait, seconds.
BACKOFF_S = (0.25, 10.0)


class Collector:
    """Subscribe and store until :meth:`stop`.

    :param store: the floor's database.
    :param settings: the broker (the collector's user may read every table's topics, nothing more).
    :param topic_prefix: first level of the tables' topics.
    :param client_id: the persistent session's name: keep it across restarts.
    """

    def __init__(self, store: FloorStore, settings: broker.BrokerSettings, *, topic_prefix: str = "tablehost",
                 client_id: str = "tablehost-floor") -> None:
        self.store, self.settings, self.prefix, self.client_id = store, settings, topic_prefix, client_id
        self.counts: dict[str, int] = {"stored": 0, "duplicate": 0, "refused": 0, "status": 0}
        self._batch: list[mqtt.MQTTMessage] = []
        self._stopping = threading.Event()
        self._connected = False
        self._answered = False  # a CONNACK came on this connection
        #: Set once the broker has granted the subscriptions (the session exists from then on).
        self.subscribed = threading.Event()

    def stop(self) -> None:
        """Stop after the batch in hand (thread- and signal-safe)."""
        self._stopping.set()

    def run(self) -> None:
        """Connect, subscribe and store until :meth:`stop`; reconnects with backoff."""
        _, host, port = self.settings.endpoint
        client = broker.client(self.settings, self.client_id)
        client.manual_ack_set(True)
        client.enable_logger(log)
        errors = broker.SocketErrors(client)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_subscribe = lambda *_: self.subscribed.set()
        client.on_message = lambda _c, _u, message: self._batch.append(message)
        properties = Properties(PacketTypes.CONNECT)
        properties.SessionExpiryInterval = SESSION_EXPIRY_S
        delay, first, dialing = BACKOFF_S[0], True, True
        while not self._stopping.is_set():
            if dialing:
                errors.clear()
                self._answered = False
                try:
                    if first:
                        client.connect(host, port, keepalive=self.settings.keepalive_s, clean_start=False,
                                       properties=properties)
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
                waiting = len(self._batch)                                      # take what has arrived, then
                rc = client.loop(timeout=0)                                     # store it in one transaction
                if len(self._batch) == waiting:
                    break
            self._flush(client)
            if rc != mqtt.MQTT_ERR_SUCCESS:
                if not self._answered:  # closed before CONNACK (a refused client certificate, over TLS 1.3)
                    log.warning("floor: %s", broker.closed_before_connack(self.settings, errors.first))
                self._connected, dialing = False, True
                self._stopping.wait(delay)
                delay = min(delay * 2, BACKOFF_S[1])
            elif self._connected:
                delay = BACKOFF_S[0]
        self._flush(client)
        client.disconnect()

    def _flush(self, client: mqtt.Client) -> None:
        """Store the messages received, in one transaction, then acknowledge them."""
        while self._batch:
            batch, self._batch = self._batch[:BATCH], self._batch[BATCH:]
            parsed = [self._parse(message.topic, message.payload) for message in batch]
            outcomes = self.store.ingest([p for p in parsed if not isinstance(p, Outcome)])
            for outcome in [p for p in parsed if isinstance(p, Outcome)] + outcomes:
                self.counts[outcome.kind] = self.counts.get(outcome.kind, 0) + 1
                if outcome.kind == "refused":
                    log.warning("floor: refused a message of %s (seq %s): %s", outcome.table, outcome.seq, outcome.detail)
            for message in batch:
                client.ack(message.mid, message.qos)

    def _parse(self, topic: str, payload: bytes) -> tuple[str, str, str, bytes] | Outcome:
        """``(prefix, table, leaf, payload)`` of a message on one of our topics."""
        head, _, leaf = topic.rpartition("/")
        prefix, _, table = head.rpartition("/")
        if prefix != self.prefix or not table or leaf not in ("events", "status"):
            return Outcome("refused", None, None, f"topic {topic!r} is not {self.prefix}/<table>/events|status")
        return prefix, table, leaf, payload

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self._answered = True
        if reason.is_failure:
            log.error("floor: broker %s refused the connection: %s", self.settings.url, reason)
            return
        self._connected = True
        client.subscribe([(f"{self.prefix}/+/events", 1), (f"{self.prefix}/+/status", 1)])
        log.info("floor: connected to %s (session %s)", self.settings.url,
                 "resumed" if flags.session_present else "new")

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self._connected = False
