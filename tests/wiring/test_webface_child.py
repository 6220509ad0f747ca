"""``tablehost run``'s web face child (issue 30): restarted when it dies, after a back-off of 0.5 s
doubling to 10 s, back to 0.5 s once a child has lived 60 s; a restarted child takes the first
one's addresses."""

from __future__ import annotations

from typing import Any

import pytest

from firmware_host.wiring import child as child_module
from firmware_host.wiring.child import FIRST_BACKOFF_S, HEALTHY_S, MAX_BACKOFF_S, WebFaceChild


class Died:
    """A child that has exited (its ``wait`` returns at once)."""

    pid = 4321

    def wait(self, timeout: float | None = None) -> int:
        return -9

    def poll(self) -> int:
        return -9


class Waits:
    """The watcher's ``_stopping``: notes each back-off it waits, and stops it after ``count``."""

    def __init__(self, count: int) -> None:
        self.count, self.waited = count, []

    def wait(self, timeout: float) -> bool:
        self.waited.append(timeout)
        return len(self.waited) >= self.count

    def is_set(self) -> bool:
        return len(self.waited) >= self.count

    def set(self) -> None:
        self.count = 0


def watched(lives: list[float], monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The back-offs waited after children that lived ``lives`` seconds each."""
    face = WebFaceChild(["--profile", "p"])
    face.process = Died()  # type: ignore[assignment]
    face._stopping = stopping = Waits(len(lives))  # type: ignore[assignment]
    clock = iter(t for life in lives for t in (0.0, life))
    monkeypatch.setattr(child_module.time, "monotonic", lambda: next(clock))
    monkeypatch.setattr(face, "_spawn", lambda: None)
    face._watch()
    return stopping.waited


def test_restarts_back_off_doubling_to_ten_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    waited = watched([0.1] * 8, monkeypatch)
    assert waited == [0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0, 10.0]
    assert (FIRST_BACKOFF_S, MAX_BACKOFF_S) == (0.5, 10.0)


def test_a_child_that_lived_a_minute_is_restarted_after_the_first_back_off(monkeypatch: pytest.MonkeyPatch) -> None:
    assert watched([0.1, 0.1, 0.1, HEALTHY_S, 0.1], monkeypatch) == [0.5, 1.0, 2.0, 0.5, 1.0]


def test_a_restarted_child_takes_the_first_ones_addresses() -> None:
    face = WebFaceChild(["--profile", "p", "--http", "127.0.0.1:0", "--metrics", "127.0.0.1:0"])
    face.urls = {"display": "http://127.0.0.1:8080", "metrics": "http://127.0.0.1:9100"}
    argv: Any = face._argv()
    assert argv[argv.index("--http") + 1] == "127.0.0.1:8080" and argv[argv.index("--metrics") + 1] == "127.0.0.1:9100"
