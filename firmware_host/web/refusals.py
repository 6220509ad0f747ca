"""Refused requests, journaled as one record per address per minute, never one each.

An address's first refusal after a quiet minute is written at once (``{"client", "why",
"command"}``: surveillance sees the first wrong PIN as it happens); the ones after it are
counted and written as one summary a minute (``{"client", "count", "why": {reason: n},
"commands": {command: n}, "seconds"}``) until a minute passes without one. At most
:attr:`Refusals.max_records` records are written a minute in all: past that, the refusals of
every further address go into one summary of client ``"*"`` (``addresses``: how many). At most
:attr:`Refusals.max_addresses` addresses are held (the oldest is written out and forgotten first).
Every record is also one log line. Used on one event loop (the web server's); the records are
written by a thread of their own, so a slow disk never holds up the loop (and its streams).
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import dataclasses
import logging
import time
from collections.abc import Callable
from typing import Any

__all__ = ["Refusals", "WINDOW_S"]

log = logging.getLogger("tablehost.web")

#: Seconds an address's refusals are gathered into one record.
WINDOW_S = 60.0
#: The client of the summary of every address past :attr:`Refusals.max_records`.
OTHERS = "*"


@dataclasses.dataclass
class _Gathered:
    started: float
    count: int = 0
    why: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)
    commands: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)
    addresses: int = 0


class Refusals:
    """Gather refusals per address and write them out, bounded.

    :param sink: writes one record (the journal's meta record), in the writer thread.
    :param clock: monotonic seconds (tests step it).
    """

    def __init__(
        self,
        sink: Callable[[dict[str, Any]], None],
        *,
        window_s: float = WINDOW_S,
        max_addresses: int = 1024,
        max_records: int = 12,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.sink, self.window_s, self.clock = sink, window_s, clock
        self.max_addresses, self.max_records = max_addresses, max_records
        self._gathered: collections.OrderedDict[str, _Gathered] = collections.OrderedDict()
        self._others: _Gathered | None = None
        self._written: collections.deque[float] = collections.deque()
        self._timer: asyncio.TimerHandle | None = None
        self._writer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="refusals")
        #: Refusals noted since start, and records written (tests and benchmarks read them).
        self.noted = self.records = 0

    def note(self, client: str, why: str, command: str | None = None) -> None:
        """One refused request from ``client``."""
        now = self.clock()
        self.noted += 1
        self.flush(now)
        gathered = self._gathered.get(client)
        if gathered is None:
            if not self._room(now):
                self._gather_other(now, why, command)
                return
            self._gathered[client] = _Gathered(now)
            self._write({"client": client, "why": why, **({"command": command} if command else {})}, now)
            while len(self._gathered) > self.max_addresses:
                self._write_out(*self._gathered.popitem(last=False))
            return
        gathered.count += 1
        gathered.why[why] += 1
        if command:
            gathered.commands[command] += 1
        self._arm()

    def flush(self, now: float | None = None, everything: bool = False) -> None:
        """Write out every minute that is over (``everything``: every one, as at shutdown)."""
        now = self.clock() if now is None else now
        while self._gathered:
            client, gathered = next(iter(self._gathered.items()))
            if not everything and now - gathered.started < self.window_s:
                break
            del self._gathered[client]
            if gathered.count and not everything:  # still refusing: the next minute is gathered too
                self._gathered[client] = _Gathered(now)
            self._write_out(client, gathered)
        if self._others is not None and (everything or now - self._others.started >= self.window_s):
            others, self._others = self._others, None
            self._write_out(OTHERS, others, force=True)

    def _write_out(self, client: str, gathered: _Gathered, force: bool = False) -> None:
        if not gathered.count:
            return
        if not force and not self._room(self.clock()):
            self._fold(gathered, self.clock())
            return
        record: dict[str, Any] = {
            "client": client,
            "count": gathered.count,
            "why": dict(gathered.why),
            "commands": dict(gathered.commands),
            "seconds": round(self.clock() - gathered.started, 1),
        }
        if client == OTHERS:
            record["addresses"] = gathered.addresses
        self._write(record, self.clock())

    def _room(self, now: float) -> bool:
        while self._written and self._written[0] <= now - self.window_s:
            self._written.popleft()
        return len(self._written) < self.max_records

    def _gather_other(self, now: float, why: str, command: str | None) -> None:
        self._fold(
            _Gathered(now, 1, collections.Counter({why: 1}), collections.Counter({command: 1} if command else {})), now
        )

    def _fold(self, gathered: _Gathered, now: float) -> None:
        others = self._others = self._others or _Gathered(now)
        others.count += gathered.count
        others.why.update(gathered.why)
        others.commands.update(gathered.commands)
        others.addresses += 1
        self._arm()

    def _write(self, record: dict[str, Any], now: float) -> None:
        self._written.append(now)
        self.records += 1
        log.warning("web: refused %s: %s", record["client"], {k: v for k, v in record.items() if k != "client"})
        self._writer.submit(self._sink, record)

    def _sink(self, record: dict[str, Any]) -> None:
        try:
            self.sink(record)
        except Exception:  # the journal closed under us (shutdown): the log line stays
            log.exception("web: a refusal could not be journaled")

    def written(self, timeout: float = 5.0) -> None:
        """Wait until every record handed to the writer so far is written (tests)."""
        self._writer.submit(lambda: None).result(timeout)

    def close(self) -> None:
        """Write out every minute gathered, and wait for the writer (before the journal closes)."""
        self.flush(everything=True)
        self._writer.shutdown(wait=True)

    def _arm(self) -> None:
        """Write out the minute when it is over, even if nothing else is refused by then."""
        if self._timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a test): the next note or flush writes it
            return

        def due() -> None:
            self._timer = None
            self.flush()
            if self._gathered and any(g.count for g in self._gathered.values()) or self._others is not None:
                self._arm()

        self._timer = loop.call_later(self.window_s / 4, due)
