"""Running a coroutine from a test whatever event loop the test's thread already runs (a worker's
shared Playwright keeps one running for the whole session: asyncio.run there would refuse)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any

__all__ = ["run"]


def run(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run ``coroutine`` on a loop of its own thread and return its result (or raise its error)."""
    result: list[Any] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            result.append(asyncio.run(coroutine))
        except BaseException as exc:  # handed to the test's thread
            errors.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return result[0]
