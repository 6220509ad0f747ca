"""What the floor lets in: every message from the broker checked before any store sees it.

Pure of any database (a SQLite or a PostgreSQL store takes what :meth:`Admission.admit`
returns). A message is :class:`Admitted` only when its topic is ``<prefix>/<table>/events`` or
``.../status`` for a table id, its payload passes the strict schema
(:func:`~firmware_host.feed.schema.check_message`, :func:`~firmware_host.feed.schema.check_status`:
size, nesting, types, ranges, hash), its ``table`` is the topic's, and it is signed by one of
that table's provisioned keys (:mod:`firmware_host.feed.signing`), unless the collector was
explicitly started unsigned. Anything else is a :class:`Refusal`, with why and a bounded
excerpt; :meth:`Admission.admit` never raises. A failure of the checks themselves (a defect of
ours) is a refusal too, counted in :attr:`Admission.failures` and by kind in
:attr:`Admission.failure_kinds` (the metric ``tablehost_floor_admission_failures_total``), and
logged once a kind a minute.

A feed message refused as malformed whose content is malformed however it is encoded, yet
which its table signed, **settles** its seq (:attr:`Refusal.settles`): the table really sent
it, and would send the same bytes at every resend, so the floor's acknowledgement passes it
rather than hold back every message after it (docs/feed.md, "Acknowledgement"). Only the
table's key can make one, so a forger cannot settle a seq.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from typing import Any

from firmware_host.feed import schema, signing
from firmware_host.text import escaped
from firmware_host.web.logs import RateLimit

__all__ = ["Admission", "Admitted", "Refusal", "EXCERPT_BYTES", "TOPIC_CHARS", "REASON_CHARS", "FAILURE_KINDS"]

log = logging.getLogger("tablehost.floor")

#: Bytes of a refused payload kept (as text, undecodable bytes escaped).
EXCERPT_BYTES = 200
#: Characters of a refused topic kept.
TOPIC_CHARS = 200
#: Characters of a refusal's reason kept.
REASON_CHARS = 300
LEAVES = ("events", "status")
#: The kinds a failure of the checks is counted under (its exception's class, else ``other``): a
#: bounded label set, never the message, the topic or the payload.
FAILURE_KINDS = (
    "UnicodeError",
    "ValueError",
    "TypeError",
    "KeyError",
    "IndexError",
    "AttributeError",
    "RecursionError",
    "MemoryError",
    "other",
)
_HASH = re.compile(r"[0-9a-f]{64}\Z")


@dataclasses.dataclass(frozen=True)
class Admitted:
    """A message that passed every check: ``leaf`` ``events`` (a feed message) or ``status``."""

    table: str
    leaf: str
    message: dict[str, Any]
    topic: str


@dataclasses.dataclass(frozen=True)
class Refusal:
    """A message refused, with what the floor keeps of it (each part bounded).

    :param table: the topic's table, if the topic names one (else None).
    :param known: that table is provisioned (it has keys), so the refusal is counted under it even
        before it has stored anything; otherwise it is counted under the table only if the store
        holds the table already, else under the floor's "unknown" count (a flood of made-up table
        ids never adds a table).
    :param seq: the message's seq when it could be read.
    :param size: the payload's length, bytes.
    :param settles: ``(seq, hash)`` of a feed message malformed in content yet signed by its
        table: the store records the seq as settled, and the floor's acknowledgement passes it.
    """

    table: str | None
    known: bool
    topic: str
    seq: int | None
    reason: str
    excerpt: str
    size: int
    settles: tuple[int, str] | None = None


def failure_kind(exc: BaseException) -> str:
    """The :data:`FAILURE_KINDS` entry ``exc`` is counted under (the first class it is an instance of)."""
    return next((kind for kind in FAILURE_KINDS[:-1] if any(c.__name__ == kind for c in type(exc).__mro__)), "other")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Admission:
    """The collector's checks.

    :param prefix: first level of the tables' topics.
    :param keyring: the tables' public keys; ``None`` only for an explicitly unsigned collector
        (``tablehost floor --unsigned``), which then admits unsigned messages of any table id.
    """

    def __init__(self, prefix: str, keyring: signing.Keyring | None) -> None:
        self.prefix, self.keyring = prefix, keyring
        #: Messages whose check failed in our own code (each refused; logged once a kind a minute).
        self.failures = 0
        #: :attr:`failures` by kind (:data:`FAILURE_KINDS`, each present from the start).
        self.failure_kinds = dict.fromkeys(FAILURE_KINDS, 0)
        self._failures_log = RateLimit()

    def admit(self, topic: str, payload: bytes) -> Admitted | Refusal:
        """The verdict on one message from the broker (never raises)."""
        table: str | None = None
        try:
            table, leaf = self._topic(topic)
            if table is None:
                return self.refusal(None, topic, payload, f"topic is not {self.prefix}/<table id>/events|status")
            return self._check(table, leaf, topic, payload)
        except Exception as exc:  # a defect of ours must never stop the floor: refuse, count, and say so
            self.failures += 1
            self.failure_kinds[failure_kind(exc)] += 1
            held = self._failures_log.allow(type(exc).__name__)  # by kind only: the topic is the peer's to vary
            if held is not None:
                log.error(
                    "floor: checking a message on %s failed (%d in all%s): %s",
                    escaped(_cut(topic, TOPIC_CHARS)),
                    self.failures,
                    f", {held} more like it in the last minute" if held else "",
                    escaped(_cut(repr(exc), REASON_CHARS)),
                    exc_info=held == 0,  # one traceback a kind a minute at most
                )
            return self.refusal(table, topic, payload, f"internal error while checking: {exc!r}")

    def _topic(self, topic: str) -> tuple[str | None, str]:
        head, _, leaf = topic.rpartition("/")
        prefix, _, table = head.rpartition("/")
        if prefix != self.prefix or leaf not in LEAVES or not schema.TABLE_ID.match(table):
            return None, leaf
        return table, leaf

    def _check(self, table: str, leaf: str, topic: str, payload: bytes) -> Admitted | Refusal:
        signed = self.keyring is not None
        check = schema.check_message if leaf == "events" else schema.check_status
        try:
            message = check(payload, signed=signed)
        except schema.MessageError as exc:
            refused = self.refusal(table, topic, payload, str(exc))
            settles = self._signed_malformed(table, payload) if leaf == "events" else None
            return refused if settles is None else dataclasses.replace(refused, seq=settles[0], settles=settles)
        seq = message["seq"] if leaf == "events" else None
        if message["table"] != table:
            return self.refusal(
                table,
                topic,
                payload,
                f"{'message' if seq else 'status'} of table {message['table']!r} on the topic of table {table!r}",
                seq,
            )
        if self.keyring is not None:
            why = signing.verify(message, self.keyring.keys(table))
            if why is not None:
                return self.refusal(table, topic, payload, f"not signed by the table: {why}", seq)
        return Admitted(table, leaf, message, topic)

    def _signed_malformed(self, table: str, payload: bytes) -> tuple[int, str] | None:
        """``(seq, hash)`` of a message its table signed whose content is malformed however it is
        encoded (so not merely a genuine message re-encoded by someone else), else None."""
        if self.keyring is None or len(payload) > 2 * schema.MAX_PAYLOAD:
            return None
        try:
            message = json.loads(payload)
        except (ValueError, RecursionError):
            return None
        if not isinstance(message, dict) or message.get("table") != table:
            return None
        seq, hash = message.get("seq"), message.get("hash")
        if type(seq) is not int or not 0 < seq <= schema.MAX_SEQ or not isinstance(hash, str) or not _HASH.match(hash):
            return None
        if signing.verify(message, self.keyring.keys(table)) is not None:
            return None
        try:
            schema.check_message(schema.encode(message), signed=True)
        except (schema.MessageError, ValueError, TypeError, RecursionError):
            return seq, hash
        return None  # well-formed in its canonical form: someone re-encoded a genuine message

    def refusal(self, table: str | None, topic: str, payload: bytes, reason: str, seq: int | None = None) -> Refusal:
        """A :class:`Refusal`, every part cut to its bound and escaped (no control, bidirectional
        or lone surrogate character reaches the store, a log line or ``floor export``)."""
        if table is not None and not schema.TABLE_ID.match(table):
            table = None
        known = table is not None and self.keyring is not None and table in self.keyring.tables
        excerpt = escaped(payload[:EXCERPT_BYTES].decode("utf-8", "backslashreplace"))
        return Refusal(
            table,
            known,
            _cut(escaped(topic), TOPIC_CHARS),
            seq,
            _cut(escaped(reason), REASON_CHARS),
            excerpt,
            len(payload),
        )
