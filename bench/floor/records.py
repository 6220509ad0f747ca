"""A table's journal records as the floor feed reads them, and the feed messages they make (the
floor store's bench, and through ``tests/support/feed_records.py`` the feed and floor tests)."""

from __future__ import annotations

import dataclasses
from typing import Any

from firmware_host.feed import schema
from firmware_host.feed.schema import FeedState
from firmware_host.feed.signing import Signer

__all__ = ["Rec", "RECORDS", "payloads"]


@dataclasses.dataclass(frozen=True)
class Rec:
    """A journal record as the feed reads it."""

    seq: int
    kind: str
    type: str
    data: dict[str, Any]
    round: int | None = None
    at: float | None = 10.5
    hash: str = ""

    def __post_init__(self) -> None:
        if not self.hash:
            object.__setattr__(self, "hash", f"{self.seq:064x}")


RECORDS = [
    Rec(1, "meta", "journal", {"format": 1, "keyed": False, "key_id": None}),
    Rec(2, "meta", "table", {"table_id": "T1", "seed": 7}),  # the seed orders a simulated shoe: never published
    Rec(3, "input", "DeviceIdentified", {"device": "shoe", "model": "M", "serial": "S1", "firmware": "1.0"}),
    Rec(4, "decision", "device", {"device": "shoe", "online": True}),
    Rec(5, "decision", "lamp", {"colour": "green"}),
    Rec(6, "decision", "prompt", {"action": "deal", "to": "player"}),
    Rec(7, "input", "CardRead", {"device": "shoe", "rank": "9", "suit": "S", "burn": False}),
    Rec(8, "input", "ProtocolError", {"device": "shoe", "text": "malformed frame: b'[G]<Card:9S'"}),
    Rec(
        9,
        "decision",
        "alert",
        {"code": "protocol-error", "text": "shoe: malformed frame: b'[G]<Card:9S'", "severity": "warning"},
    ),
    Rec(10, "decision", "round_result", {"round": 1, "winner": "banker"}, round=1),
]


def payloads(table: str = "T1", signer: Signer | None = None) -> list[bytes]:
    """The encoded feed messages :data:`RECORDS` make for ``table`` (signed by ``signer``, if given)."""
    return [schema.encode(signer.sign(m) if signer else m) for m, _ in schema.derive(table, RECORDS, FeedState())]
