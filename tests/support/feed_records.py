"""Journal records as the floor feed reads them, and the feed messages they make, for the feed and
floor tests."""

from __future__ import annotations

from bench.floor.records import RECORDS, Rec, payloads
from drivers.events.shoe import CardRead
from firmware_host.feed.signing import Keyring
from firmware_host.floor.admission import Admission, Admitted, Refusal
from firmware_host.host.journal import Journal
from firmware_host.tables.decisions import Decision

__all__ = ["Rec", "RECORDS", "payloads", "admit", "play"]


def play(journal: Journal, rounds: int, first: int = 1) -> None:
    """Per round: a card (not published), a prompt (not published) and a round_result."""
    for n in range(first, first + rounds):
        journal.append_step(
            float(n),
            CardRead(device="shoe", rank="9", suit="S"),
            [Decision("prompt", {"action": "deal"}, n), Decision("round_result", {"round": n, "winner": "banker"}, n)],
        )


def admit(
    items: list[bytes], table: str = "T1", leaf: str = "events", keyring: Keyring | None = None
) -> list[Admitted | Refusal]:
    """What the collector's :class:`Admission` makes of ``items`` on ``tablehost/<table>/<leaf>``
    (unsigned without a ``keyring``)."""
    admission = Admission("tablehost", keyring)
    return [admission.admit(f"tablehost/{table}/{leaf}", p) for p in items]
