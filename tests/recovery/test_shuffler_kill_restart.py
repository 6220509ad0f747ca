"""Issue 6 item 1 at a table with an automatic shuffler: hard kills lose and duplicate nothing.

The shipped simulated shuffler table (``sim-baccarat-shuffler.toml``: the shoe on a
pseudo-terminal, the shuffler as a pyusb backend, faults on both) with batches of 6 decks,
12 in all (§ 541.3(b)), and a keyed journal. The real ``tablehost run`` is SIGKILLed at
seeded points of play (:func:`~tests.recovery.killloop.kill_loop`) and then at every
moment of two changes of shoe: the read-out, the batch going back into the shuffler, its
shuffle, the other batch coming out, the shoe being loaded. A restarted simulated shuffler
holds its batches as the journal shows them and the simulated shoe the batch in play
(:meth:`sim.shuffler_usb.SimulatedShuffler.resume`), so the audit finds every shoe holding
the batch the seeded shuffler released, cut as the shoe cut it, and the rounds are those of
an uninterrupted run of the same seed.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Callable

import pytest

from firmware_host.journal import Journal, export_rounds, export_shoes
from firmware_host.recovery import RESTARTED
from tests.recovery.killloop import (
    FOREVER, Run, Tracker, audit, follow, kill, kill_loop, paigow_profile, run_to_end,
)  # fmt: skip

#: A seed whose shuffler jams, opens its door and miscounts in an uninterrupted run.
SEED = 10
#: Rounds in all: four shoes of 6 decks (about 58 rounds each), three changes of shoe.
ROUNDS = 200
#: The kill loop's part: the first shoe and into the second.
LOOP_ROUNDS, LOOP_KILLS = 100, 12
#: The shuffler's faults per shuffle, lower than the shipped profile's (0.2): some shuffles go through.
SHUFFLER_FAULTS = "jam = 0.1, door_open = 0.1, missing_card = 0.1, extra_card = 0.1, unplug = 0.1, same_order = 0.1"
#: A shuffle takes this long (the shipped profile: no time), so kills land while one runs.
SHUFFLE_SECONDS = 0.2
#: The moments of a change of shoe at a shuffler table, in the order they come, as the journal shows them.
SHOE_CHANGE: dict[str, Callable[[Tracker], bool]] = {
    "read_out": lambda t: t.prompt == "read_out",  # the last hand is over: the rest of the shoe is read
    "return_batch": lambda t: t.prompt == "return_batch",  # the batch goes back into the shuffler (§ 541.3(b)(6))
    "batch_loaded": lambda t: t.last_input == "BatchLoaded",
    "shuffling": lambda t: t.last_input in ("ShuffleStarted", "ShuffleProgress"),
    "released": lambda t: t.last_input == "BatchReleased",  # the other batch is out for the next shoe
    "load_shoe": lambda t: t.prompt == "load_shoe",
}


def shuffler_profile(directory: Path, key_file: Path) -> Path:
    """The shipped simulated shuffler table in ``directory``: 6-deck batches (§ 541.3(b): 12 to
    16 decks in two batches of 6 to 8), :data:`SHUFFLER_FAULTS`, shuffles of
    :data:`SHUFFLE_SECONDS`, a keyed journal."""
    path = paigow_profile(directory, "sim-baccarat-shuffler.toml")
    text, _, _ = path.read_text().partition("[journal]")  # --journal names the journal
    for old, new in (("decks = 8 ", "decks = 6 "), ("decks_per_batch = 8", "decks_per_batch = 6"),
                     ("jam = 0.2, door_open = 0.2, missing_card = 0.2, extra_card = 0.2, unplug = 0.2, "
                      "same_order = 0.2", SHUFFLER_FAULTS),
                     ("[devices.shuffler.sim]\n", f"[devices.shuffler.sim]\nshuffle_seconds = {SHUFFLE_SECONDS}\n")):  # fmt: skip
        assert old in text, f"the shipped profile no longer has {old!r}"
        text = text.replace(old, new)
    path.write_text(f'{text}[journal]\nhmac_key_file = "{key_file}"\n')
    return path


def kill_at_shoe_changes(run: Run, changes: int) -> list[tuple[str, str]]:
    """SIGKILL ``run`` at the moments of :data:`SHOE_CHANGE` in turn over the next ``changes``
    changes of shoe, each change starting further on in the list; ``(aim, the journal's last
    input)`` per kill. A restarted table hurries through the rest of a change (the batch is
    shuffled at once, the other one released), so a moment it went past is not waited for
    beyond the next shoe."""
    landed: list[tuple[str, str]] = []
    tracker = Tracker(run)
    try:
        moments = list(SHOE_CHANGE)
        for change in range(changes):
            tracker.poll()
            next_shoe = tracker.shoes + 1
            first = change * len(moments) // changes  # a restart hurries through the change: start further on
            for aim in moments[first:] + moments[:first]:
                if tracker.shoes >= next_shoe:
                    break
                proc = run.start()
                tracker.poll()
                since = tracker.seq
                reached = SHOE_CHANGE[aim]
                follow(proc, tracker, FOREVER,
                       lambda: tracker.seq > since and (reached(tracker) or tracker.shoes >= next_shoe))
                kill(proc)
                tracker.settle()
                assert proc.returncode != 0, f"the run ended before the kill aimed at {aim}"
                landed.append((aim, tracker.last_input or ""))
    finally:
        tracker.close()
    return landed


def shuffler_troubles(journal: Path, key: bytes) -> Counter[str]:
    """The shuffler's faults and losses (a pulled cable, not a restart) in the journal."""
    troubles: Counter[str] = Counter()
    with Journal.open(journal, hmac_key=key) as opened:
        for _, event, _ in opened.steps():
            name, device = type(event).__name__, getattr(event, "device", None)
            if name == "ShufflerFault":
                troubles[getattr(event, "code")] += 1
            elif name == "DeviceLost" and device == "shuffler" and getattr(event, "reason") != RESTARTED:
                troubles["lost"] += 1
    return troubles


def shoes_played(journal: Path) -> list[dict[str, Any]]:
    """Each finished shoe as ``journal export --shoes`` gives it, but its alerts: a restart adds
    its own (the devices lost and found again, a shuffle abandoned when the host died)."""
    return [{key: value for key, value in shoe.items() if key != "alerts"} for shoe in export_shoes(journal)]


@pytest.mark.slow
def test_541_12_c_kills_at_a_shuffler_table_lose_and_duplicate_nothing(tmp_path: Path, key_file: Path) -> None:
    profile = shuffler_profile(tmp_path, key_file)
    journal = tmp_path / "journal.sqlite"
    report = kill_loop(Run(profile, journal, rounds=LOOP_ROUNDS, seed=SEED), kills=LOOP_KILLS, seed=SEED)
    assert len(report.kills) == LOOP_KILLS, report.kills
    run = Run(profile, journal, rounds=ROUNDS, seed=SEED)  # --rounds counts from the journal's start
    landed = kill_at_shoe_changes(run, changes=2)
    assert {"read_out", "return_batch"} <= {aim for aim, _ in landed}, landed  # the rest is timing's luck
    assert run_to_end(run) == 0
    found = audit(run, key_file.read_bytes())
    assert found.problems == []
    assert found.shoes >= 4 and found.steps_replayed > 0

    # The same cards, rounds and shoes as a run of the same seed that was never killed, whose
    # shuffler suffered its faults (a kill can hide one: a restarted shuffler has them behind it).
    uninterrupted = Run(profile, tmp_path / "uninterrupted.sqlite", rounds=ROUNDS, seed=SEED)
    assert run_to_end(uninterrupted) == 0
    assert list(export_rounds(journal)) == list(export_rounds(uninterrupted.journal))
    assert shoes_played(journal) == shoes_played(uninterrupted.journal)
    troubles = shuffler_troubles(uninterrupted.journal, key_file.read_bytes())
    assert len(troubles) >= 2, f"the shuffler's faults must strike: pick another seed ({troubles})"
