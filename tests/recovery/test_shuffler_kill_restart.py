"""Issue 6 item 1 at a table with an automatic shuffler: hard kills lose and duplicate nothing.

The shipped simulated shuffler table (``sim-baccarat-shuffler.toml``: the shoe on a
pseudo-terminal, the shuffler as a pyusb backend, faults on both but those that pause the
table at a moment of wall time) with batches of 6 decks, 12 in all (§ 541.3(b)), a dealer
who never errs and a keyed journal. The real ``tablehost run`` is SIGKILLed at
seeded points of play (:func:`~bench.soak.killloop.kill_loop`) and then at every
moment of two changes of shoe: the read-out, the batch going back into the shuffler, its
shuffle, the other batch coming out, the shoe being loaded. A restarted simulated shuffler
holds its batches as the journal shows them and the simulated shoe the batch in play
(:meth:`sim.devices.shuffler.SimulatedShuffler.resume`), so the audit finds every shoe holding
the batch the seeded shuffler released, cut as the shoe cut it, and the rounds are those of
an uninterrupted run of the same seed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.soak.audit import audit, shoes_played
from bench.soak.killloop import Run, kill_at_shoe_changes, kill_loop, played_alongside, run_to_end
from bench.soak.profiles import shuffler_profile
from bench.soak.shuffler_audit import shuffler_troubles
from firmware_host.host.journal_export import round_results

#: A seed whose shuffler jams, opens its door and miscounts in an uninterrupted run.
SEED = 10
#: Rounds in all: four shoes of 6 decks (about 58 rounds each), three changes of shoe.
ROUNDS = 200
#: The kill loop's part: the first shoe and into the second.
LOOP_ROUNDS, LOOP_KILLS = 100, 12


@pytest.mark.slow
def test_541_12_c_kills_at_a_shuffler_table_lose_and_duplicate_nothing(ram_path: Path, key_file: Path) -> None:
    # Compared below with an uninterrupted run: no dealer errors, no fault that pauses the table
    # at a moment of wall time (docs/recovery.md, "Compared with an uninterrupted run").
    profile = shuffler_profile(ram_path, key_file, comparable=True)
    journal = ram_path / "journal.sqlite"
    # Compared at the end with a run of the same seed that was never killed, played meanwhile.
    uninterrupted = Run(profile, ram_path / "uninterrupted.sqlite", rounds=ROUNDS, seed=SEED)
    with played_alongside(uninterrupted) as uninterrupted_end:
        report = kill_loop(Run(profile, journal, rounds=LOOP_ROUNDS, seed=SEED), kills=LOOP_KILLS, seed=SEED)
        assert len(report.kills) == LOOP_KILLS, report.kills
        run = Run(profile, journal, rounds=ROUNDS, seed=SEED)  # --rounds counts from the journal's start
        landed = kill_at_shoe_changes(run, changes=2)
        assert {"read_out", "return_batch"} <= {aim for aim, _ in landed}, landed  # the rest is timing's luck
        assert run_to_end(run) == 0
        assert uninterrupted_end() == 0
    found = audit(run, key_file.read_bytes())
    assert found.problems == []
    assert found.shoes >= 4 and found.steps_replayed > 0

    # The same cards, rounds and shoes as the uninterrupted run, whose shuffler suffered its
    # faults (a kill can hide one: a restarted shuffler has them behind it).
    assert list(round_results(journal)) == list(round_results(uninterrupted.journal))
    assert shoes_played(journal) == shoes_played(uninterrupted.journal)
    troubles = shuffler_troubles(uninterrupted.journal, key_file.read_bytes())
    assert len(troubles) >= 2, f"the shuffler's faults must strike: pick another seed ({troubles})"
