"""Fake device drivers that record what the host asked of them."""

from __future__ import annotations

from typing import Any

__all__ = ["RecordingShuffler"]


class RecordingShuffler:
    """A shuffler driver that records each command it is given, in order: ``(name, args)``."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def start_shuffle(self, batch: str, expected_cards: int) -> None:
        self.calls.append(("start_shuffle", (batch, expected_cards)))

    def release_batch(self, batch: str) -> None:
        self.calls.append(("release_batch", (batch,)))
