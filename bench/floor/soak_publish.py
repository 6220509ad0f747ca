"""The floor soak's republished tables on the wire: one MQTT session per table, QoS 1, with paho-mqtt.

Each table logs in as itself (the broker's ACL lets it write only ``tablehost/<its id>/...``), so
the soak's broker is the one the deploy files describe. A :class:`TableLink` holds a table's
pre-computed payloads and three indices: ``due`` (what its schedule has reached), ``sent`` and
``acked`` (the first message without a PUBACK). After any reconnect, a broker restart above all,
it resends from ``acked``: a message the broker had may come twice (the floor drops the
duplicate), none is lost.

:class:`Publisher` drives the links of one process: paho's network loop on a thread per link,
and one scheduler thread that moves every link on every :data:`TICK_S`. paho calls back with its
own locks held, so the callbacks only record (a flag, a deque of mids) and the scheduler does all
the bookkeeping.
"""

from __future__ import annotations

import collections
import json
import resource
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from bench.floor.soak_issue import Burst, reissue, topic
from firmware_host.feed.signing import Signer

__all__ = ["TableLink", "Publisher", "TICK_S", "publish_share", "game_of", "GAME_OF"]

#: Seconds between two passes of the scheduler.
TICK_S = 0.02
#: MQTT keep-alive of a table's session, seconds.
KEEPALIVE_S = 20


class TableLink:
    """One table's MQTT session and what it still has to publish.

    :param bursts: its schedule (:func:`~bench.floor.soak_issue.reissue`), in time order.
    """

    def __init__(self, table: str, password: str, bursts: Sequence[Burst], host: str, port: int) -> None:
        self.table = table
        self.topic = topic(table)
        self.payloads = [payload for burst in bursts for payload in burst.payloads]
        self._ends = [(burst.at, len(burst.payloads)) for burst in bursts]
        self._burst = 0
        self.due = self.sent = self.acked = 0
        self._acked = bytearray(len(self.payloads))
        self._pending: dict[int, int] = {}  # mid -> index
        self._early: set[int] = set()  # PUBACKs that came before publish() returned their mid
        self._pubacks: collections.deque[int] = collections.deque()
        self._connected_now = False
        self.connected = False
        self.reconnects = -1  # the first connection is not a reconnect
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"soak-{table}", clean_session=True)
        self.client.username_pw_set(table, password)
        self.client.max_inflight_messages_set(100)
        self.client.reconnect_delay_set(0.25, 4)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_publish = self._on_publish
        self.client.connect_async(host, port, keepalive=KEEPALIVE_S)

    # -- paho's callbacks (its network thread, its locks held): record only -------------------

    def _on_connect(self, client: object, userdata: object, flags: object, reason: object, props: object) -> None:
        if not getattr(reason, "is_failure", False):
            self._connected_now = True

    def _on_disconnect(self, client: object, userdata: object, flags: object, reason: object, props: object) -> None:
        self.connected = False

    def _on_publish(self, client: object, userdata: object, mid: int, reason: object, props: object) -> None:
        self._pubacks.append(mid)

    # -- the scheduler's side ----------------------------------------------------------------

    def start(self) -> None:
        self.client.loop_start()

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    @property
    def done(self) -> bool:
        """Every message published and acknowledged."""
        return self.acked == len(self.payloads)

    def step(self, now: float) -> int:
        """Take the PUBACKs, resend after a reconnect, publish what is due; return how many were published."""
        if self._connected_now:
            self._connected_now, self.connected = False, True
            self.reconnects += 1
            self.sent = self.acked  # everything after the first unacknowledged one goes again
            self._pending.clear()
            self._early.clear()
        while self._pubacks:
            mid = self._pubacks.popleft()
            index = self._pending.pop(mid, None)
            if index is None:
                self._early.add(mid)
            else:
                self._ack(index)
        while self._burst < len(self._ends) and self._ends[self._burst][0] <= now:
            self.due += self._ends[self._burst][1]
            self._burst += 1
        published = 0
        while self.connected and self.sent < self.due:
            info = self.client.publish(self.topic, self.payloads[self.sent], qos=1)
            if info.rc != mqtt.MQTT_ERR_SUCCESS:
                break
            if info.mid in self._early:
                self._early.discard(info.mid)
                self._ack(self.sent)
            else:
                self._pending[info.mid] = self.sent
            self.sent += 1
            published += 1
        return published

    def _ack(self, index: int) -> None:
        self._acked[index] = 1
        while self.acked < len(self._acked) and self._acked[self.acked]:
            self.acked += 1


class Publisher:
    """The links of one process, moved by one scheduler thread."""

    def __init__(self, links: Sequence[TableLink]) -> None:
        self.links = list(links)
        self.published = 0

    def run(self, until: float, drain_s: float) -> bool:
        """Publish every link's schedule (it ends by ``until``, time.time()), then wait up to ``drain_s``
        seconds for the last PUBACKs. True when every message was acknowledged."""
        for link in self.links:
            link.start()
        try:
            deadline = until + drain_s
            while True:
                now = time.time()
                for link in self.links:
                    self.published += link.step(now)
                if now >= until and all(link.done for link in self.links):
                    return True
                if now > deadline:
                    return False
                time.sleep(TICK_S)
        finally:
            threads = [threading.Thread(target=link.stop) for link in self.links]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(10)


def publish_share(
    shares: Sequence[tuple[str, str, Path, list[float]]],
    groups: dict[str, list[list[dict[str, Any]]]],
    port: int,
    until: float,
    drain_s: float,
    out: Path,
) -> None:
    """A publisher process's work: re-issue its tables' feeds (before the first is due), publish them
    on time, and write what it issued and how it went to ``out`` (JSON).

    :param shares: ``(table, password, signing key, publish times)`` per table; the game is
        the key of ``groups`` named by the table's :data:`GAME_OF` prefix.
    """
    issued: dict[str, list[str]] = {}
    links = []
    for table, password, key, times in shares:
        bursts = reissue(groups[game_of(table)], table, Signer.from_file(key), times)
        issued[table] = [digest for burst in bursts for digest in burst.hashes]
        links.append(TableLink(table, password, bursts, "127.0.0.1", port))
    first_due = min(times[0] for *_, times in shares)
    ready = time.time()
    publisher = Publisher(links)
    acked_all = publisher.run(until, drain_s)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    out.write_text(
        json.dumps(
            {
                "issued": issued,
                "acked_all": acked_all,
                "published": publisher.published,
                "reconnects": sum(max(link.reconnects, 0) for link in links),
                "late_s": max(0.0, ready - first_due),
                "cpu_s": usage.ru_utime + usage.ru_stime,
                "unacked": {link.table: len(link.payloads) - link.acked for link in links if not link.done},
            }
        )
    )


#: A republished table's id prefix -> its game.
GAME_OF = {"B": "baccarat", "P": "paigow"}


def game_of(table: str) -> str:
    """The game of republished table ``table`` (``B001`` Baccarat, ``P002`` Pai Gow)."""
    return GAME_OF[table[0]]
