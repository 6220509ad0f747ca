"""The shuffler's status after a handshake (a replug, a restart of the host) against what the
rules know of its batches (issue 6 item 1: a restarted table reconciles with the device)."""

from __future__ import annotations

import pytest

from drivers.events.lifecycle import DeviceLost

from .shuffler_table import FULL, SHOE_UP, SHUFFLER, SHUFFLER_UP, ShufflerDriver, loaded, released, shuffled, status
from .table import command


@pytest.mark.parametrize("reason", ["service restarted", "unplugged"])
def test_541_3_b_4_a_batch_out_for_new_decks_is_still_out_when_the_shuffler_reports_it_released(reason: str) -> None:
    # Batch B counted a card too many (§ 541.3(b)(1)): it came out to be replaced. Then the host
    # lost the shuffler and found it again: the device reports B released, which is no new decks.
    driver = ShufflerDriver()
    driver.feed(SHOE_UP, SHUFFLER_UP, status("A"), status("B"), shuffled("A"), released("A"))
    driver.feed(command("shoe_loaded", batch="A"))
    driver.feed(*shuffled("B", FULL + 1), released("B", FULL + 1))
    assert driver.stage("B") == "absent"
    out = driver.feed(DeviceLost(device=SHUFFLER, reason=reason), SHUFFLER_UP,
                      status("A", "released", FULL, "a"), status("B", "released", FULL + 1, "b"))  # fmt: skip
    assert driver.stage("B") == "absent" and driver.commands(out) == []
    assert driver.table.shuffler is not None and "B" in driver.table.shuffler.new_decks_due
    driver.feed(loaded("B"))  # the new decks
    assert driver.stage("B") == "loaded" and driver.commands()[-1] == ("start_shuffle", "B")
