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
from tests.support.stepped_clock import DAY, OPENING, STEPS

LIBFAKETIME = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1")
#: The alert each table's limit fires once it has passed (None: Baccarat without a shuffler has none).
LIMIT_ALERT = {"paigow": "dice-expired", "baccarat": None, "shuffler": "deck-clock-expired"}
LIMITS = {"dice-expired", "dice-warn", "deck-clock", "deck-clock-expired", "new-decks", "idle-table", "clock-unknown"}

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
    assert [line["alerts"] for line in steps] == [["clock-step"]] * len(expected)
    for line, step in zip(steps, expected, strict=True):
        assert abs(line["steps"][0] - step * 1_000_000_000) < 1_000_000_000  # its size, within the run's own time
    (before,) = [line["alerts"] for line in lines if line["what"] == "before the limit"]
    (after,) = [line["alerts"] for line in lines if line["what"] == "after the limit"]
    assert not LIMITS & set(before)  # 3 years of steps, and still not 1 s on the monotonic clock
    limit = LIMIT_ALERT[game]
    assert (limit in after) if limit else not LIMITS & set(after)
    with Journal.open(journal) as opened:  # every decision replays from the journaled stamps
        assert Service(OPENING[game][0](), opened).recover() > len(lines)
