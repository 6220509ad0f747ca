"""Wrong secrets (PINs) counted per address and in all, checked a few at a time, off the event loop.

:meth:`Lockout.check` takes its place atomically *before* the slow check runs: an attempt in
flight counts against its address and against the global budget as if it had failed, so a
burst of 40 wrong PINs sent at once from one address runs at most :attr:`LockoutPolicy.max_failures`
checks, and a burst from rotating addresses at most :attr:`LockoutPolicy.budget` a window. At
most :attr:`LockoutPolicy.concurrent` checks (scrypt, 16 MiB each) run at once, in their own
thread; a few more may wait (:attr:`LockoutPolicy.waiting`), the rest are refused
(:class:`Busy`) without being checked or counted. The Pi's own screen (:attr:`LockoutPolicy.reserved`
addresses) is counted per address but never against the global budget nor refused as busy, so
a flood from the network cannot lock the dealer out of their own table.

Where secrets belong to named users (the floor dashboard), an attempt names its user, and a
name is answered the same whether it exists or not (issue 29 item 4). No name is ever locked:
a lock a stranger can set is a lock they can hold over an officer (OWASP's authentication cheat
sheet: throttle, do not lock accounts). An address that has logged in as a name is *trusted* for
it (:attr:`LockoutPolicy.max_addresses` pairs remembered, the least recently used forgotten; only
a right secret adds one): its attempts as that name are counted per address only. Every other
attempt is counted per address and against the global budget, known name or not (were only
unknown names to spend it, counting which attempts spend it would tell which names exist): a
flood of wrong secrets from rotating addresses holds back, for a minute, first logins from new
addresses, never an officer at an address they have used, nor a session. A request that
carries a valid session never comes here at all (:mod:`.sessions`); an ``exempt`` attempt (a PIN
sent with a valid session) is counted per address only, like the Pi's own screen.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from firmware_host.errors import TablehostError
from firmware_host.web.logs import RateLimit

__all__ = ["LockoutPolicy", "Lockout", "Locked", "Busy"]

log = logging.getLogger("tablehost.web")

T = TypeVar("T")


class Locked(TablehostError):
    """Too many wrong attempts (from this address, or from everywhere): refused for :attr:`seconds` more."""

    def __init__(self, seconds: float, why: str = "too many wrong PINs") -> None:
        super().__init__(f"{why}: try again in {max(1.0, seconds):.0f} s")
        self.seconds, self.why = max(1.0, seconds), why


class Busy(TablehostError):
    """Too many checks running and waiting already: refused unchecked, uncounted."""

    def __init__(self) -> None:
        super().__init__("too many PIN checks at once: try again in 1 s")
        self.seconds = 1.0


@dataclasses.dataclass(frozen=True)
class LockoutPolicy:
    """The numbers (issue 20 item 4)."""

    #: Wrong attempts from one address within ``window_s`` before it is locked out for ``lockout_s``.
    max_failures: int = 5
    window_s: float = 60.0
    lockout_s: float = 60.0
    #: Wrong attempts from all addresses (but the reserved) within ``window_s`` before every
    #: address but the reserved is locked out for ``lockout_s``: rotating addresses gain nothing.
    budget: int = 20
    #: Checks running at once (threads: one scrypt run of 16 MiB each), and checks waiting for one.
    concurrent: int = 1
    waiting: int = 4
    #: Addresses remembered (the least recently seen is forgotten first).
    max_addresses: int = 4096
    #: The Pi's own screen: never held against the global budget.
    reserved: frozenset[str] = frozenset({"127.0.0.1", "::1"})


@dataclasses.dataclass
class _Count:
    """One address's (or everyone's) wrong attempts: their times, and the attempts in flight."""

    failures: collections.deque[float] = dataclasses.field(default_factory=collections.deque)
    pending: int = 0
    locked_until: float = 0.0


class Lockout:
    """The lockout of one face.

    :param policy: the numbers.
    :param clock: monotonic seconds (tests step it).
    """

    def __init__(self, policy: LockoutPolicy = LockoutPolicy(), clock: Callable[[], float] = time.monotonic) -> None:
        self.policy, self.clock = policy, clock
        self._addresses: collections.OrderedDict[str, _Count] = collections.OrderedDict()
        #: (name, address) pairs that logged in: never held against the global budget.
        self._trusted: collections.OrderedDict[tuple[str, str], None] = collections.OrderedDict()
        self._everyone = _Count()
        self._lock = threading.Lock()
        self._inflight = 0
        self._pool = concurrent.futures.ThreadPoolExecutor(policy.concurrent, thread_name_prefix="secret-check")
        self._errors = RateLimit()
        #: Checks run since start (the tests and benchmarks read it).
        self.checked = 0

    async def check(
        self, client: str, attempt: Callable[[], T | None], name: str | None = None, exempt: bool = False
    ) -> T | None:
        """Run ``attempt`` (the slow check: None when the secret is wrong) for ``client``, in a thread.

        :param name: the user the attempt names, known or not (the floor's logins): counted per
            address only from an address that has logged in as it, else also against the global
            budget; a right secret makes ``client`` trusted for it.
        :param exempt: counted per address only, never refused as busy (a request with a session).
        :raises Locked: ``client``, or every address not trusted for ``name``, is locked out (``attempt`` does not run).
        :raises Busy: too many checks are running and waiting (``attempt`` does not run, nothing is counted).
        """
        counts = self._reserve(client, name, exempt or client in self.policy.reserved)
        result: T | None = None
        ran = False
        try:
            result = await asyncio.get_running_loop().run_in_executor(self._pool, self._run, attempt)
            ran = True
        finally:
            self._settle(counts, ran, result is not None)
        if result is not None and name is not None:
            self._trust(name, client)
        return result

    def _run(self, attempt: Callable[[], T | None]) -> T | None:
        try:
            return attempt()
        except Exception as exc:  # an unusable secret file is refused at start; this is a wrong attempt, counted
            if (held := self._errors.allow(type(exc).__name__)) is not None:
                log.error(
                    "web: a secret could not be checked: %s: %s%s",
                    type(exc).__name__,
                    exc,
                    f" (and {held} more)" if held else "",
                )
            return None

    def _reserve(self, client: str, name: str | None, exempt: bool) -> list[tuple[_Count, int, str]]:
        now, policy = self.clock(), self.policy
        with self._lock:
            if self._inflight >= policy.concurrent + policy.waiting and not exempt:
                raise Busy()  # the Pi's own screen always gets in line
            counts = [(self._remembered(self._addresses, client), policy.max_failures, "too many wrong PINs")]
            trusted = name is not None and (name, client) in self._trusted
            if not exempt and not trusted:
                counts.append((self._everyone, policy.budget, "too many wrong PINs at this table"))
            for count, limit, why in counts:
                if now < count.locked_until:
                    raise Locked(count.locked_until - now, why)
                while count.failures and count.failures[0] <= now - policy.window_s:
                    count.failures.popleft()
                if len(count.failures) + count.pending >= limit:
                    raise Locked(policy.window_s - (now - count.failures[0]) if count.failures else 1.0, why)
            for count, _, _ in counts:
                count.pending += 1
            self._inflight += 1
            return counts

    def _settle(self, counts: list[tuple[_Count, int, str]], ran: bool, right: bool) -> None:
        now, policy = self.clock(), self.policy
        with self._lock:
            self._inflight -= 1
            self.checked += ran
            for count, limit, _ in counts:
                count.pending -= 1
                if not ran or (right and count is self._everyone):
                    continue
                if right:
                    count.failures.clear()
                    continue
                count.failures.append(now)
                if len(count.failures) >= limit:
                    count.locked_until = now + policy.lockout_s
                    count.failures.clear()
                    if count is self._everyone:
                        log.warning(
                            "web: %d wrong PINs from the network within %.0f s: every address off the Pi "
                            "is refused for %.0f s",
                            policy.budget,
                            policy.window_s,
                            policy.lockout_s,
                        )

    def _trust(self, name: str, client: str) -> None:
        with self._lock:
            self._trusted[name, client] = None
            self._trusted.move_to_end((name, client))
            while len(self._trusted) > self.policy.max_addresses:
                self._trusted.popitem(last=False)

    def _remembered(self, kept: collections.OrderedDict[str, _Count], key: str) -> _Count:
        count = kept.get(key)
        if count is None:
            count = kept[key] = _Count()
            while len(kept) > self.policy.max_addresses:
                kept.popitem(last=False)
        kept.move_to_end(key)
        return count

    def addresses(self) -> int:
        """Addresses remembered now."""
        with self._lock:
            return len(self._addresses)

    def close(self) -> None:
        """Stop the check threads (after the checks running)."""
        self._pool.shutdown(wait=False, cancel_futures=True)
