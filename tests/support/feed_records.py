"""Journal records as the floor feed reads them, and the feed messages they make, for the feed and
floor tests."""

from __future__ import annotations

from bench.floor.records import RECORDS, Rec, payloads
from firmware_host.feed.signing import Keyring
from firmware_host.floor.admission import Admission, Admitted, Refusal

__all__ = ["Rec", "RECORDS", "payloads", "admit"]


def admit(
    items: list[bytes], table: str = "T1", leaf: str = "events", keyring: Keyring | None = None
) -> list[Admitted | Refusal]:
    """What the collector's :class:`Admission` makes of ``items`` on ``tablehost/<table>/<leaf>``
    (unsigned without a ``keyring``)."""
    admission = Admission("tablehost", keyring)
    return [admission.admit(f"tablehost/{table}/{leaf}", p) for p in items]
