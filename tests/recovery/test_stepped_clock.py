"""Issue 28 item 8: libfaketime steps the wall clock of a running table while the monotonic clock
runs on (``tests/support/stepped_clock.py``), forward and back by an hour, three days and a year,
at Pai Gow, Baccarat and a shuffler table, opened on a stale clock that NTP corrects (``start``)
or on a right one (``mid``). Each step is a ``clock-step`` alert of its size and nothing else;
the short limits (1 s: the dice, § 535.5(c); the decks' life, § 541.3(c)) fire when 1 s has
passed on the monotonic clock, not before and not never; the journal replays identically."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host.host.journal import Journal
from firmware_host.host.service import Service
from tests.support.paths import REPO
from tests.support.stepped_clock import DAY, LIMIT_S, OPENING, STEPS

LIBFAKETIME = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1")
#: The alert each table's limit fires once it has passed (None: Baccarat without a shuffler has none).
LIMIT_ALERT = {"paigow": "dice-expired", "baccarat": None, "shuffler": "deck-clock-expired"}
LIMITS = {"dice-expired", "dice-warn", "deck-clock", "deck-clock-expired", "idle-table", "clock-unknown"}

pytestmark = pytest.mark.skipif(not LIBFAKETIME.exists(), reason="needs the Debian package faketime (make deps)")


@pytest.mark.parametrize("moment", ["start", "mid"])
@pytest.mark.parametrize("game", ["paigow", "baccarat", "shuffler"])
def test_535_5_c_541_3_c_a_stepped_wall_clock_neither_fires_nor_hides_a_limit(
    tmp_path: Path, game: str, moment: str
) -> None:
    stamp, journal = tmp_path / "faketime", tmp_path / "journal.sqlite"
    stamp.write_text("+0\n")
    env = {
        **os.environ,
        "LD_PRELOAD": str(LIBFAKETIME),
        "FAKETIME_TIMESTAMP_FILE": str(stamp),
        "FAKETIME_NO_CACHE": "1",
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",
    }
    run = subprocess.run(
        [sys.executable, "-m", "tests.support.stepped_clock", game, moment, str(journal)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    steps = [line for line in lines if line["what"] in ("corrected", "stepped")]
    expected = ([3 * DAY] if moment == "start" else []) + list(STEPS)
    assert [line["alerts"].count("clock-step") for line in steps] == [1] * len(expected)
    for line, step in zip(steps, expected, strict=True):
        assert abs(line["steps"][0] - step * 1_000_000_000) < 1_000_000_000  # its size, within the run's own time
    limit, opened = LIMIT_ALERT[game], lines[0]
    fired = [line for line in lines if LIMITS & set(line["alerts"])]
    assert all(set(line["alerts"]) & LIMITS == {limit} for line in fired)  # no other limit, ever
    # Three years of steps, and the limit fires only once LIMIT_S has passed on the monotonic clock
    # since the table opened (on a quiet machine, after the wait; a loaded one may take that long
    # over the steps themselves), and it does fire.
    assert all(line["ended_ns"] - opened["began_ns"] >= LIMIT_S * 1_000_000_000 for line in fired)
    assert bool(fired) is (limit is not None)
    if limit is not None and lines[-2]["ended_ns"] - opened["began_ns"] < LIMIT_S * 1_000_000_000:
        assert fired == [lines[-1]]  # the usual case: it fired after the wait, not at any step
    with Journal.open(journal) as kept:  # every decision replays from the journaled stamps
        assert Service(OPENING[game][0](), kept).recover() > len(lines)
