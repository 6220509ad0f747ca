"""Runs of the real service on simulated Baccarat tables, shared by the integration and recovery tests.

:func:`shuffler_table` is the integration tests' table (:func:`bench.soak.profiles.make_profile`)
with an automatic shuffler; :func:`run_armed` runs it in-process with each shuffle's faults armed;
:func:`check_rounds_against_resolve` checks every completed round of a journal (§ 541.9-§ 541.12).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bench.soak.profiles import make_profile
from firmware_host.config.profiles import load_table
from firmware_host.host.journal_export import round_results
from firmware_host.rules.baccarat.cards import parse_card
from firmware_host.rules.baccarat.deal import resolve
from firmware_host.rules.baccarat.variant import Variant
from firmware_host.tables.decisions import Decision
from firmware_host.wiring import build_table

__all__ = ["SHUFFLER_SECTIONS", "ArmShuffles", "shuffler_table", "run_armed", "check_rounds_against_resolve"]


#: What makes the integration tests' Baccarat table one with a shuffler; its own faults are armed.
SHUFFLER_SECTIONS = """
[rules.shuffler]
back_colours = ["red", "blue"]
[devices.shuffler]
model = "tablehost-sh16-2026"
port = "sim"
[devices.shuffler.sim]
recover_after_s = 0.2
"""


def shuffler_table(tmp_path: Path, *, decks: int, shoe_faults: str) -> Path:
    """The simulated Baccarat table of :func:`bench.soak.profiles.make_profile` with batches of
    ``decks`` decks in a shuffler."""
    path = make_profile(tmp_path, faults=shoe_faults)
    path.write_text(path.read_text().replace("decks = 8", f"decks = {decks}") + SHUFFLER_SECTIONS)
    return path


class ArmShuffles:
    """Output: arms the simulated shuffler with the next faults of ``script`` for each shuffle the
    controller asks for (or, with ``by_batch``, the next faults of that batch's own list, so the
    faults meet the batch meant whatever the order the two batches' shuffles come in). It runs
    before the command output, so the faults meet that very shuffle."""

    def __init__(
        self, script: Iterable[Sequence[str]] = (), by_batch: Mapping[str, Iterable[Sequence[str]]] | None = None
    ) -> None:
        self.script = [tuple(faults) for faults in script]
        self.by_batch = {batch: [tuple(faults) for faults in listed] for batch, listed in (by_batch or {}).items()}
        self.sim: Any = None
        #: (batch, faults) of every shuffle asked for.
        self.armed: list[tuple[str, tuple[str, ...]]] = []

    def on_decisions(self, decisions: Sequence[Decision]) -> None:
        for decision in decisions:
            if decision.type == "device_command" and decision.data["command"] == "start_shuffle":
                batch = decision.data["batch"]
                queue = self.by_batch.get(batch, []) if self.by_batch else self.script
                faults = queue.pop(0) if queue else ()
                if faults:
                    self.sim.arm(*faults)
                self.armed.append((batch, faults))


def run_armed(
    profile: Path,
    journal: Path,
    rounds: int,
    script: Iterable[Sequence[str]] = (),
    seed: int = 3,
    by_batch: Mapping[str, Iterable[Sequence[str]]] | None = None,
) -> ArmShuffles:
    """``tablehost run`` in-process (as the CLI builds and serves the table), with shuffles armed
    (:class:`ArmShuffles`)."""
    armer = ArmShuffles(script, by_batch)
    table = build_table(load_table(profile), journal_path=journal, seed=seed, rounds=rounds, stream=io.StringIO(),
                        quiet=True, extra_outputs=(armer,))  # fmt: skip
    armer.sim = next(parts.sim for parts in table.devices if parts.slot.model.kind == "shuffler")
    try:
        table.start()
        table.service.run()
    finally:
        table.stop()
    assert table.service.rounds_finished == rounds
    return armer


def check_rounds_against_resolve(journal: Path, variant: str = "standard") -> list[dict[str, Any]]:
    """Every completed round of the journal equals ``resolve`` on its cards (§ 541.9-§ 541.12,
    § 541.12(c) reconstruction); returns the exported rounds."""
    rounds = list(round_results(journal))
    for record in rounds:
        if record["status"] != "completed":
            continue
        expected = resolve([parse_card(c) for c in record["cards"]], Variant.parse(variant)).to_json_dict()
        assert {key: record[key] for key in expected} == expected, f"round {record['round']}"
    return rounds
