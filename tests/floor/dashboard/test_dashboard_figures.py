"""One set of figures (issue 31 item 3): the dashboard shows a gaming day's drop, win, theo, hold
and pace as ``journal report`` counts them from the same table's journal (host/figures.py)."""

from __future__ import annotations

import pytest

from firmware_host.floor.dashboard.tables import PIT, SURVEILLANCE, TableWatch
from firmware_host.host import figures
from firmware_host.rules.gaming_day import GamingDay
from tests.floor.dashboard.support import messages_of
from tests.support.journals_010 import JOURNALS_030, Fixture


@pytest.mark.parametrize("fixture", [JOURNALS_030[1], JOURNALS_030[2]], ids=["baccarat-shuffler", "paigow"])
def test_the_dashboards_day_is_journal_reports_day(fixture: Fixture) -> None:
    (reported,) = figures.report(fixture.journal, "day", GamingDay())
    watch = TableWatch("T1")
    watch.fold_all(messages_of(fixture.journal, "T1"))
    shown = watch.detail(SURVEILLANCE)["figures"]["day"]
    assert (shown["day"], shown["rounds"]) == (reported["day"], reported["rounds"]) and shown["drop"] > 0
    assert (shown["drop"], shown["win"], shown["theo"]) == (
        reported["drop"],
        reported["win"],
        round(reported["theo"]),
    )
    assert shown["hold"] == round(100 * reported["hold"], 2)
    assert shown["rounds_per_hour"] == pytest.approx(reported["rounds_per_hour"], rel=0.05)  # wall vs monotonic
    pit = watch.detail(PIT)["figures"]["day"]
    assert (pit["drop"], pit["win"]) == (shown["drop"], shown["win"])
    assert (pit["theo"] is None) == (fixture.name != "paigow")  # a Baccarat theo gives the odds back
