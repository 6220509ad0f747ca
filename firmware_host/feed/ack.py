"""The floor's acknowledgement of a table's feed: what the floor holds, signed by the floor (docs/feed.md).

Only the endpoint that stores can say it is stored. After each batch it stored, a collector
publishes to ``<prefix>/<table>/ack`` (retained, QoS 1) the highest ``seq`` up to which the
floor's store holds every message of the table, that message's chain ``hash``, and the time it
said so, signed with the floor's Ed25519 key (``tablehost floor keygen``) under its own domain
prefix (:data:`ACK_PREFIX`), so neither a table's signature nor a feed message can pass for one,
and the store's **epoch** (docs/feed.md, "The store's epoch"): a number the store takes when it is
made and a greater one each time it is found restored behind what it acknowledged::

    {"at":1796116391.58,"epoch":1796116000123456,"hash":"9b1e...","key_id":"...","seq":12,"sig":"...","table":"BAC-12"}

An acknowledgement without ``epoch`` (a collector before epochs) reads as epoch 0.

The table moves its cursor only over an acknowledgement that checks here
(:func:`check_ack`: the floor's key, its own table id) **and** whose ``hash`` is the one its own
journal gives message ``seq`` (the publisher's part): so an acknowledgement forged, unsigned,
for another table, or replayed from another journal of this table, never makes it drop a message.
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import TYPE_CHECKING, Any

from firmware_host.errors import TablehostError
from firmware_host.feed import schema, signing

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

__all__ = ["Ack", "AckError", "ACK_PREFIX", "ACK_LEAF", "MAX_ACK", "make_ack", "check_ack", "ack_topic", "ack_table"]

#: Domain separation of the floor's signature (a table's is :data:`~firmware_host.feed.signing.SIG_PREFIX`).
ACK_PREFIX = b"tablehost-floor-ack/1\n"
#: The last level of the acknowledgement's topic.
ACK_LEAF = "ack"
#: The fields of an acknowledgement, without its signature (one of a collector before epochs lacks ``epoch``).
ACK_FIELDS = ("table", "seq", "hash", "at", "epoch")
#: Largest epoch (a signed 64-bit integer: both stores' column).
MAX_EPOCH = 2**63 - 1
#: Largest acknowledgement read, bytes (one is about 300).
MAX_ACK = 1024
_HASH = re.compile(r"[0-9a-f]{64}\Z")


class AckError(TablehostError, ValueError):
    """An acknowledgement that does not check: malformed, for another table, or not the floor's."""


@dataclasses.dataclass(frozen=True)
class Ack:
    """The floor's store of ``epoch`` holds every message of ``table`` up to ``seq``, whose chain
    hash is ``hash`` (``epoch`` 0: said by a collector before epochs)."""

    table: str
    seq: int
    hash: str
    at: float
    epoch: int = 0


def ack_topic(prefix: str, table: str) -> str:
    """The acknowledgement topic of ``table``."""
    return f"{prefix}/{table}/{ACK_LEAF}"


def ack_table(prefix: str, topic: str) -> str | None:
    """The table whose acknowledgement topic ``topic`` is (None: not an acknowledgement topic)."""
    head, _, leaf = topic.rpartition("/")
    first, _, table = head.rpartition("/")
    return table if first == prefix and leaf == ACK_LEAF and schema.TABLE_ID.match(table) else None


def make_ack(signer: signing.Signer, table: str, seq: int, hash: str, at: float, epoch: int) -> bytes:
    """The signed acknowledgement's payload (``signer``: the floor's key, with :data:`ACK_PREFIX`;
    ``epoch``: the store's)."""
    return schema.encode(signer.sign({"table": table, "seq": seq, "hash": hash, "at": at, "epoch": epoch}))


def check_ack(payload: bytes, table: str, floor_keys: dict[str, Ed25519PublicKey]) -> Ack:
    """The acknowledgement in ``payload`` if it is ``table``'s and signed by one of ``floor_keys``.

    :raises AckError: why not (never anything else, whatever ``payload`` holds).
    """
    try:
        message: Any = schema.parse_json(payload, MAX_ACK)
    except schema.MessageError as exc:
        raise AckError(str(exc)) from exc
    fields = {*ACK_FIELDS, *schema.SIGNATURE_FIELDS}
    if not isinstance(message, dict) or set(message) not in (fields, fields - {"epoch"}):
        raise AckError(f"expected exactly the fields {', '.join((*ACK_FIELDS, *schema.SIGNATURE_FIELDS))}")
    seq, hash, at, epoch = message["seq"], message["hash"], message["at"], message.get("epoch", 0)
    if type(seq) is not int or not 0 <= seq <= schema.MAX_SEQ:
        raise AckError("seq is not an integer 0..2**53")
    if not isinstance(hash, str) or not _HASH.match(hash):
        raise AckError("hash is not 64 lowercase hex digits")
    if type(at) not in (int, float) or not math.isfinite(at):
        raise AckError("at is not a finite number")
    if type(epoch) is not int or not 0 <= epoch <= MAX_EPOCH:
        raise AckError("epoch is not an integer 0..2**63-1")
    if message["table"] != table:
        raise AckError(f"an acknowledgement for table {str(message['table'])[:64]!r}, not {table!r}")
    why = signing.verify(message, floor_keys, ACK_PREFIX)
    if why is not None:
        raise AckError(f"not signed by the floor: {why}")
    return Ack(table, seq, hash, float(at), epoch)
