"""The floor collector in the test's process against a test broker, and waits on what each side
holds (the tables, their exports and the floor's databases: :mod:`bench.floor.tables`).

- :class:`CollectorThread` runs :class:`~firmware_host.floor.collector.Collector` in this process
  (its keys by default in :func:`~bench.floor.tables.floor_keys` beside the database);
- :func:`wait_for` polls a condition (a deadline, never a timed assertion); :func:`wait_for_the_floor`
  waits for the floor to hold a journal's rounds.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from bench.floor.tables import (
    FloorDb,
    as_floor_db,
    floor_export,
    floor_keys,
    floor_seq,
    journal_export,
    provision_floor,
    run_table,
)
from firmware_host.feed import signing
from firmware_host.feed.ack import ACK_PREFIX
from firmware_host.feed.broker import BrokerSettings
from firmware_host.floor.collector import Collector

__all__ = ["CollectorThread", "wait_for", "wait_for_the_floor", "collecting"]


class CollectorThread:
    """The floor collector on a thread of the test process, as a context manager.

    :param keys: the public key directory (default: :func:`floor_keys` beside ``db``); None: unsigned.
    :param floor_key: the floor's private key its acknowledgements are signed with (default:
        :func:`provision_floor` beside ``db``, the tables' ``floor_key``); None: it acknowledges nothing.
    """

    def __init__(
        self,
        db: Path | FloorDb,
        url: str,
        keys: Path | None | str = "default",
        floor_key: Path | None | str = "default",
        **settings: object,
    ) -> None:
        self.db = as_floor_db(db)
        self.store = self.db.open()
        directory = floor_keys(self.db.directory) if keys == "default" else keys
        keyring = signing.Keyring(Path(directory)) if directory is not None else None
        key = provision_floor(self.db.directory) if floor_key == "default" else floor_key
        signer = signing.Signer.from_file(Path(key), "floor key", ACK_PREFIX) if key is not None else None
        self.collector = Collector(
            self.store,
            BrokerSettings(url, **settings),  # type: ignore[arg-type]
            keyring,
            floor_signer=signer,
        )
        self._thread = threading.Thread(target=self.collector.run, daemon=True)

    def __enter__(self) -> CollectorThread:
        self._thread.start()
        if not self.collector.subscribed.wait(10):
            raise AssertionError(f"the collector did not subscribe at {self.collector.settings.url}")
        return self

    def __exit__(self, *exc: object) -> None:
        self.collector.stop()
        self._thread.join(10)
        self.store.close()


def wait_for_the_floor(
    db: Path | FloorDb, journal: Path, profile: Path | None = None, url: str = "", rounds: int = 0
) -> None:
    """Wait until the floor's rounds are the journal's.

    A clean stop publishes the backlog for up to 3 s and leaves the rest to the next start: on
    a slow machine, ``profile`` and ``url`` start the table again (up to twice, ``rounds``
    already played, so it only publishes) until the floor has it all.
    """
    for _ in range(2 if profile is not None else 0):
        with contextlib.suppress(AssertionError):
            wait_for(lambda: floor_export(db) == journal_export(journal), 10, "the floor's copy")
            return
        run_table(profile, journal, rounds, url)  # type: ignore[arg-type]
    wait_for(lambda: floor_export(db) == journal_export(journal) if floor_seq(db) else False, 60, "the floor's copy")


def wait_for(condition: Callable[[], object], timeout: float = 30.0, what: str = "condition") -> None:
    """Poll ``condition`` until it is true; fail with ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@contextlib.contextmanager
def collecting(db: Path | FloorDb, url: str, **settings: object) -> Iterator[CollectorThread]:
    """A :class:`CollectorThread` for the ``with`` block."""
    with CollectorThread(db, url, **settings) as thread:
        yield thread
