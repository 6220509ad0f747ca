"""New decks rejected in turn (§ 541.3(b)(1), (b)(4)): the simulated dealer puts new decks in again.

The table asks for new decks in a batch with the same prompt each time; when the new decks'
own shuffle counts wrong too, the same prompt comes back and the simulated dealer, seeing the
batch out of the shuffler again, must act on it again (it once waited for ever).
"""

from __future__ import annotations

from pathlib import Path

from firmware_host.host.journal import Journal
from firmware_host.host.journal_export import shoe_results
from tests.support.sim_runs import run_armed, shuffler_table


def test_541_3_b_4_new_decks_that_count_wrong_again_are_replaced_again(tmp_path: Path) -> None:
    profile = shuffler_table(tmp_path, decks=6, shoe_faults="")
    journal = tmp_path / "j.sqlite"
    # Batch A, back after shoe 1, counts a card too many, and so do its new decks, twice. The
    # faults follow batch A, whenever its shuffles come between batch B's (the simulated dealer
    # may load shoe 2 before or after A's first shuffle is done: a matter of timing).
    extra = ("extra_card",)
    armer = run_armed(profile, journal, rounds=125, by_batch={"A": [(), extra, extra, extra]})
    shuffles_of_a = [faults for batch, faults in armer.armed if batch == "A"]
    assert shuffles_of_a[:5] == [(), extra, extra, extra, ()], "new decks a third time, then a good count"
    assert all(faults == () for batch, faults in armer.armed if batch == "B")
    with Journal.open(journal) as opened:
        new_decks = [r.data["text"] for r in opened.records() if r.type == "alert" and r.data["code"] == "new-decks"]
    assert len(new_decks) == 3 and all(text.startswith("batch A") for text in new_decks), new_decks
    assert [shoe["batch"] for shoe in shoe_results(journal)] == ["A", "B"]
