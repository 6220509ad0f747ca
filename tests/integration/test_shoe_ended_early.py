"""A shoe ended early at a shuffler table, and the simulated dealer plays on (issue 31, item 6).

A shoe whose decks expire (§ 541.3(c)) or that sees no gaming activity (§ 541.5(h)(2)) ends
before its cover card comes out; its read-out (§ 541.3(b)(1)) then meets the cover card, for
which the table counts no card (§ 541.5(d)). The simulated dealer once waited there for good.
At a Pai Gow table the early end is the dice set's time running out mid-session (§ 535.5(c)).
Each run stops a few rounds after the first shoe (or dice set) so ended, and must get there.
"""

from __future__ import annotations

import io
import re
import shutil
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from firmware_host.config.profiles import load_table
from firmware_host.host.journal_export import shoe_results
from firmware_host.tables.decisions import Decision
from firmware_host.wiring import build_table
from tests.support.paths import REPO
from tests.support.sim_runs import shuffler_table

DECKS = 6
#: Rounds played after the first shoe that ended early.
ROUNDS_AFTER = 3
#: Far longer than the runs take (seconds); a dealer that stalls never gets there.
DEADLINE_S = 25


class StopAfterEarlyEnd:
    """Output: stops the service ``ROUNDS_AFTER`` rounds after the first ``shoe_result`` of a shoe
    that ended early (an expired-decks alert, or the idle table's end, came before it); at a
    table without shoes, after the first alert of ``codes``."""

    def __init__(self, codes: Sequence[str] = ("deck-clock-expired", "idle-table"), shoes: bool = True) -> None:
        self.service: Any = None
        self.codes, self.shoes = tuple(codes), shoes
        self.early_end = False
        self.ended_shoe: int | None = None
        self.rounds_after = 0

    def on_decisions(self, decisions: Sequence[Decision]) -> None:
        for decision in decisions:
            if decision.type == "alert" and decision.data.get("code") in self.codes:
                self.early_end = True
                if not self.shoes and self.ended_shoe is None:
                    self.ended_shoe = 0
            elif decision.type == "shoe_result" and self.early_end and self.ended_shoe is None:
                self.ended_shoe = int(decision.data["shoe"])
            elif decision.type == "round_result" and self.ended_shoe is not None:
                self.rounds_after += 1
                if self.rounds_after == ROUNDS_AFTER:
                    self.service.stop()


def play_past_an_early_end(tmp_path: Path, shuffler_keys: str, idle_round: int | None = None) -> None:
    """Run the simulated shuffler table until ``ROUNDS_AFTER`` rounds after a shoe ended early;
    with ``idle_round`` the players leave the table (no wagers) for a while in that round."""
    profile = shuffler_table(tmp_path, decks=DECKS, shoe_faults="")
    profile.write_text(profile.read_text().replace("[rules.shuffler]\n", f"[rules.shuffler]\n{shuffler_keys}\n"))
    journal = tmp_path / "j.sqlite"
    watch = play(profile, journal, StopAfterEarlyEnd(), idle_round)
    ended = next(shoe for shoe in shoe_results(journal) if shoe["shoe"] == watch.ended_shoe)
    assert ended["cards_read"] == DECKS * 52, "the read-out read every card left behind the cover card"


def play(profile: Path, journal: Path, watch: StopAfterEarlyEnd, idle_round: int | None = None) -> StopAfterEarlyEnd:
    """Run the table of ``profile`` in-process until ``watch`` stops it (or :data:`DEADLINE_S`)."""
    table = build_table(load_table(profile), journal_path=journal, seed=3, stream=io.StringIO(), quiet=True,
                        extra_outputs=(watch,))  # fmt: skip
    watch.service = table.service
    if idle_round is not None:
        dealer = table.dealer
        assert dealer is not None
        place_bets, left = dealer.place_bets, list[int]()

        def leave_for_a_while() -> None:
            if dealer.round == idle_round and not left:
                left.append(dealer.round)
                time.sleep(2.5)  # once: no wagers for longer than idle_after_s
            place_bets()

        setattr(dealer, "place_bets", leave_for_a_while)  # noqa: B010 (a method replaced on purpose)
    runner = threading.Thread(target=table.service.run, daemon=True)
    try:
        table.start()
        runner.start()
        runner.join(DEADLINE_S)
    finally:
        if runner.is_alive():
            table.service.stop()
            runner.join(10)
        table.stop()
    assert watch.ended_shoe is not None, "no shoe ended early"
    assert watch.rounds_after == ROUNDS_AFTER, f"the simulated dealer stalled after shoe {watch.ended_shoe}"
    return watch


def test_541_3_c_decks_expired_mid_shoe_are_read_out_and_the_table_plays_on(tmp_path: Path) -> None:
    play_past_an_early_end(tmp_path, "deck_life_s = 3\ndeck_warning_s = 1")


def test_541_5_h_2_an_idle_shoe_is_read_out_and_the_table_plays_on(tmp_path: Path) -> None:
    play_past_an_early_end(tmp_path, "idle_after_s = 1", idle_round=4)


def test_535_5_c_dice_expired_mid_session_are_replaced_and_the_table_plays_on(tmp_path: Path) -> None:
    """Pai Gow's early end: the dice set's time on the table runs out between rounds (§ 535.5(c));
    the simulated dealer puts new dice in and the table plays on."""
    shutil.copytree(REPO / "hardware-profiles" / "devices", tmp_path / "devices")
    profile = tmp_path / "tables" / "t.toml"
    profile.parent.mkdir()
    shipped = (REPO / "hardware-profiles" / "tables" / "sim-paigow.toml").read_text()
    # 0.001 h: 3.6 s on the table, warned 1.2 s before.
    profile.write_text(re.sub(r"^\[rules\].*$", "[rules]\ndice_max_hours = 0.001\ndice_warning_minutes = 0.02",
                              shipped, count=1, flags=re.M))  # fmt: skip
    play(profile, tmp_path / "j.sqlite", StopAfterEarlyEnd(codes=("dice-expired",), shoes=False))
