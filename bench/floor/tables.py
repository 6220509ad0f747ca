"""Simulated tables and the floor's databases, for the benches and the tests.

- :func:`table_profile` writes a simulated Baccarat table's profile with a ``[feed]`` section under
  a directory, and provisions the table's signing key (:func:`provision`: the public key in
  :func:`floor_keys`) and the floor's public key (:func:`provision_floor`: the floor's key pair
  beside them, whose private key the test's collectors sign their acknowledgements with);
- :func:`run_table` / :func:`start_table` run ``tablehost run`` in a child process (so it can be
  SIGKILLed);
- :func:`journal_export` / :func:`floor_export` print what ``tablehost journal export --rounds`` /
  ``tablehost floor export --rounds`` print; :func:`journal_rounds` and :func:`floor_seq` count;
- :class:`FloorDb` names a floor database: a SQLite path, or a PostgreSQL DSN and its password file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import subprocess
import sys
from pathlib import Path

from firmware_host.cli import main
from firmware_host.feed import signing
from firmware_host.floor.store import open_store
from firmware_host.floor.store_sql import SqlStore

__all__ = [
    "FloorDb",
    "as_floor_db",
    "provision",
    "provision_floor",
    "floor_keys",
    "table_profile",
    "run_table",
    "start_table",
    "journal_export",
    "floor_export",
    "journal_rounds",
    "floor_seq",
    "run_command",
]

#: The repository's top folder.
REPO = Path(__file__).resolve().parents[2]


@dataclasses.dataclass(frozen=True)
class FloorDb:
    """A floor database of a test: a SQLite path or a PostgreSQL DSN (no password) and its password file."""

    spec: str
    directory: Path  #: the test's own directory (keys, journals)
    password_file: Path | None = None

    @property
    def kind(self) -> str:
        return "postgresql" if self.password_file is not None else "sqlite"

    def open(self, read_only: bool = False) -> SqlStore:
        """The store, as ``tablehost floor`` opens it."""
        return open_store(self.spec, password_file=self.password_file, read_only=read_only)

    def args(self) -> list[str]:
        """``--db SPEC [--db-password-file F]``."""
        return ["--db", self.spec] + (["--db-password-file", str(self.password_file)] if self.password_file else [])

    def exists(self) -> bool:
        return self.password_file is not None or Path(self.spec).exists()

    def __str__(self) -> str:
        return self.spec


def as_floor_db(db: Path | FloorDb) -> FloorDb:
    """A SQLite path as a :class:`FloorDb` (a :class:`FloorDb` as it is)."""
    return db if isinstance(db, FloorDb) else FloorDb(str(db), db.parent)


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


def provision_floor(tmp_path: Path) -> Path:
    """The floor's key pair under ``tmp_path/floor`` (made once): its private key's path
    (``tablehost floor --floor-key``); the public key ``floor.pub`` beside it is the tables' ``floor_key``."""
    private = tmp_path / "floor" / "floor.key"
    if not private.exists():
        private.parent.mkdir(exist_ok=True)
        signing.keygen(private, private.with_suffix(signing.PUBLIC_SUFFIX))
    return private


def table_profile(tmp_path: Path, table_id: str = "SIM-BAC-1", feed: str = "", journal: str = "") -> Path:
    """The simulated Baccarat table's profile with id ``table_id``, a ``[feed]`` section ``feed``
    (with the table's provisioned ``signing_key`` unless ``feed`` names one, and the floor's
    ``floor_key`` of :func:`provision_floor` unless ``feed`` names one) and a ``[journal]``
    section ``journal`` (its upkeep: the path is given on the command line)."""
    if feed and "signing_key" not in feed:
        feed += f'\nsigning_key = "{provision(tmp_path, table_id)}"'
    if feed and "floor_key" not in feed:
        feed += f'\nfloor_key = "{provision_floor(tmp_path).with_suffix(signing.PUBLIC_SUFFIX)}"'
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


def run_command(
    profile: Path,
    journal: Path,
    rounds: int | None = None,
    feed_url: str | None = None,
    seed: int | None = None,
    pace: float = 0.0,
) -> list[str]:
    """The argv of ``tablehost run --quiet`` on ``profile`` and ``journal`` (``rounds`` None: until
    a signal; ``seed`` None: the profile's)."""
    command = [sys.executable, "-m", "firmware_host", "run", "--profile", str(profile), "--journal", str(journal)]
    command += ["--rounds", str(rounds)] if rounds is not None else []
    command += ["--seed", str(seed)] if seed is not None else []
    command += ["--quiet"] + (["--feed", feed_url] if feed_url else [])
    return command + (["--pace", str(pace)] if pace else [])


def start_table(
    profile: Path, journal: Path, rounds: int, feed_url: str | None = None, seed: int = 1, pace: float = 0.0
) -> subprocess.Popen[str]:
    """Start ``tablehost run`` in a child process (stdout: the dealer view; ``pace``: its ``--pace``)."""
    return subprocess.Popen(
        run_command(profile, journal, rounds, feed_url, seed, pace),
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
        run_command(profile, journal, rounds, feed_url, seed), capture_output=True, text=True, cwd=REPO, timeout=timeout
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


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
