"""Issue 7's known gap closed: `tablehost run --replay` plays a capture of the table with the USB
shuffler through the whole service again, the shuffler included (sim/devices/replay_usb.py): the
journal's rounds and shoes come out as the captured run's."""

from __future__ import annotations

from pathlib import Path

import pytest

from drivers.capture import Link, read_capture
from drivers.events.shuffler import ShufflerFault, ShuffleStarted
from firmware_host.cli import main
from firmware_host.host.journal_export import round_results, shoe_results
from tests.support.sim_runs import shuffler_table

#: Rounds of the captured run: with 6-deck batches, past the first change of shoe.
ROUNDS = 60
#: The shuffler's faults, appended to its ``[devices.shuffler.sim]`` (the profile's last table):
#: the cable pulled mid-shuffle and jams, so the replay pulls the cable and clears jams too.
SHUFFLER_FAULTS = "faults = { unplug = 0.25, jam = 0.4 }\n"


def run(profile: Path, journal: Path, *options: str) -> None:
    assert main(["run", "--profile", str(profile), "--journal", str(journal), "--quiet", *options]) == 0


@pytest.fixture(scope="module")
def captured(module_tmp_path: Path) -> tuple[Path, Path, Path]:
    """A captured run of the shuffler table: its profile, its capture and its journal."""
    profile = shuffler_table(module_tmp_path, decks=6, shoe_faults="corrupt_byte = 0.02, duplicate_frame = 0.02")
    profile.write_text(profile.read_text() + SHUFFLER_FAULTS)
    capture, journal = module_tmp_path / "run.jsonl", module_tmp_path / "run.sqlite"
    run(profile, journal, "--rounds", str(ROUNDS), "--seed", "6", "--capture", str(capture))
    return profile, capture, journal


def test_the_captured_run_changed_shoes_and_met_the_shuffler_s_faults(captured: tuple[Path, Path, Path]) -> None:
    _, capture_path, journal = captured
    capture = read_capture(capture_path)
    assert capture.devices["shuffler"].transport == "usb"
    assert len(list(shoe_results(journal))) >= 1, "a shoe finished and the next was loaded"
    assert sum(isinstance(ev, ShuffleStarted) for ev in capture.events("shuffler")) >= 2
    assert any(isinstance(ev, ShufflerFault) and ev.code == "jam" for ev in capture.events("shuffler"))
    assert any(isinstance(r, Link) and r.device == "shuffler" and r.state == "lost" for r in capture.records)


@pytest.mark.parametrize("speed", [(), ("--speed", "4")], ids=["fast", "timed"])
def test_a_captured_shuffler_table_replays_to_the_same_rounds_and_shoes(
        captured: tuple[Path, Path, Path], tmp_path: Path, speed: tuple[str, ...]) -> None:  # fmt: skip
    profile, capture, original = captured
    replayed = tmp_path / "replayed.sqlite"
    run(profile, replayed, "--replay", str(capture), *speed)
    assert list(round_results(replayed)) == list(round_results(original))
    assert list(shoe_results(replayed)) == list(shoe_results(original))
