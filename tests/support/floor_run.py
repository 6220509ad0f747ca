"""Run tables and the floor collector against a test broker, and compare what each side holds.

- :func:`table_profile` writes a table profile with a ``[feed]`` section under ``tmp_path``, and
  provisions the table's signing key (:func:`provision`: the public key in ``floor_keys(tmp_path)``,
  where :class:`CollectorThread` looks by default);
- :func:`run_table` runs ``tablehost run`` in a child process (so it can be SIGKILLed);
- :class:`CollectorThread` runs :class:`~firmware_host.floor.collector.Collector` in this process;
- :func:`journal_export` / :func:`floor_export` print what ``tablehost journal export --rounds`` /
  ``tablehost floor export --rounds`` print;
- :func:`wait_for` polls a condition (a deadline, never a timed assertion); :func:`wait_for_the_floor`
  waits for the floor to hold a journal's rounds.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from firmware_host.cli import main
from firmware_host.feed import signing
from firmware_host.feed.broker import BrokerSettings
from firmware_host.floor.collector import Collector
from tests.support.floor_db import FloorDb, as_floor_db
from tests.support.paths import REPO

__all__ = [
    "provision",
    "floor_keys",
    "table_profile",
    "run_table",
    "start_table",
    "CollectorThread",
    "journal_export",
    "floor_export",
    "wait_for",
    "wait_for_the_floor",
    "floor_seq",
    "journal_rounds",
    "collecting",
]

SIM_PROFILE = REPO / "hardware-profiles" / "tables" / "sim-baccarat.toml"


def floor_keys(tmp_path: Path) -> Path:
    """The collector's public key directory of a test (created empty)."""
    keys = tmp_path / "floor-keys"
    keys.mkdir(exist_ok=True)
    return keys


def provision(tmp_path: Path, table_id: str = "SIM-BAC-1") -> Path:
    """The table's signing key under ``tmp_path/keys`` (made once), its public key in :func:`floor_keys`."""
    private = tmp_path / "keys" / f"{table_id}.key"
    if not private.exists():
        private.parent.mkdir(exist_ok=True)
        signing.keygen(private, floor_keys(tmp_path) / f"{table_id}.pub")
    return private


def table_profile(tmp_path: Path, table_id: str = "SIM-BAC-1", feed: str = "", journal: str = "") -> Path:
    """The simulated Baccarat table's profile with id ``table_id``, a ``[feed]`` section ``feed``
    (with the table's provisioned ``signing_key`` unless ``feed`` names one) and a ``[journal]``
    section ``journal`` (its upkeep: the path is given on the command line)."""
    if feed and "signing_key" not in feed:
        feed += f'\nsigning_key = "{provision(tmp_path, table_id)}"'
    tables = tmp_path / "profiles" / "tables"
    tables.mkdir(parents=True, exist_ok=True)
    devices = tmp_path / "profiles" / "devices"
    if not devices.exists():
        devices.symlink_to(REPO / "hardware-profiles" / "devices")
    text = SIM_PROFILE.read_text().replace('id = "SIM-BAC-1"', f'id = "{table_id}"')
    text = text.split("[journal]")[0]  # the journal path is given on the command line
    path = tables / f"{table_id}.toml"
    path.write_text(text + (f"\n[feed]\n{feed}\n" if feed else "") + (f"\n[journal]\n{journal}\n" if journal else ""))
    return path


def _command(
    profile: Path, journal: Path, rounds: int, feed_url: str | None, seed: int, pace: float = 0.0
) -> list[str]:
    command = [
        sys.executable,
        "-m",
        "firmware_host",
        "run",
        "--profile",
        str(profile),
        "--journal",
        str(journal),
        "--rounds",
        str(rounds),
        "--seed",
        str(seed),
        "--quiet",
    ]
    return command + (["--feed", feed_url] if feed_url else []) + (["--pace", str(pace)] if pace else [])


def start_table(
    profile: Path, journal: Path, rounds: int, feed_url: str | None = None, seed: int = 1, pace: float = 0.0
) -> subprocess.Popen[str]:
    """Start ``tablehost run`` in a child process (stdout: the dealer view; ``pace``: its ``--pace``)."""
    return subprocess.Popen(
        _command(profile, journal, rounds, feed_url, seed, pace),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def run_table(
    profile: Path, journal: Path, rounds: int, feed_url: str | None = None, seed: int = 1, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``tablehost run`` to the end; raise if it fails."""
    done = subprocess.run(
        _command(profile, journal, rounds, feed_url, seed), capture_output=True, text=True, cwd=REPO, timeout=timeout
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


class CollectorThread:
    """The floor collector on a thread of the test process, as a context manager.

    :param keys: the public key directory (default: :func:`floor_keys` beside ``db``); None: unsigned.
    """

    def __init__(self, db: Path | FloorDb, url: str, keys: Path | None | str = "default", **settings: object) -> None:
        self.db = as_floor_db(db)
        self.store = self.db.open()
        directory = floor_keys(self.db.directory) if keys == "default" else keys
        keyring = signing.Keyring(Path(directory)) if directory is not None else None
        self.collector = Collector(self.store, BrokerSettings(url, **settings), keyring)  # type: ignore[arg-type]
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


def _cli(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(list(argv))
    assert status == 0, (argv, out.getvalue())
    return out.getvalue()


def journal_export(journal: Path) -> str:
    """What ``tablehost journal export PATH --rounds`` prints."""
    return _cli("journal", "export", str(journal), "--rounds")


def floor_export(db: Path | FloorDb, table: str = "SIM-BAC-1") -> str:
    """What ``tablehost floor export --db DB --table ID --rounds`` prints."""
    return _cli("floor", "export", *as_floor_db(db).args(), "--table", table, "--rounds")


def journal_rounds(journal: Path) -> int:
    """Finished rounds in a journal."""
    return len(journal_export(journal).splitlines())


def floor_seq(db: Path | FloorDb, table: str = "SIM-BAC-1") -> int:
    """The last gapless seq the floor holds of a table (0: none)."""
    store = as_floor_db(db).open(read_only=True)
    try:
        return store.status(table).last_seq if table in store.tables() else 0
    finally:
        store.close()


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
