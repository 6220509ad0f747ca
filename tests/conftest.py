"""Shared pytest configuration: the bench options and the markers' behaviour."""

from __future__ import annotations

import os

import pytest

# This machine's kernel clock is never synchronised (no NTP in the container): tables run by the
# tests take it as synchronised unless a test says otherwise (issue 28; firmware_host/host/clock.py).
os.environ.setdefault("TABLEHOST_CLOCK", "assume-synchronised")

#: The floor's stores (SQLite, a real PostgreSQL): the ``floor_db`` fixture.
pytest_plugins = ["tests.support.floor_db"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--hil-profile",
        default=None,
        help="table profile of a hardware-in-the-loop bench; contract tests then run against real devices",
    )


#: Folders of the system suites, whose tests run the real service for seconds each, longest
#: first: the kill loops, then the whole runs of a table.
SYSTEM_SUITES = ("recovery", "integration")
#: :func:`_length` of a short test.
SHORT = 2 * (len(SYSTEM_SUITES) + 1) - 1


def _length(item: pytest.Item) -> int:
    """How long a test runs, roughly, longest first: ``slow`` tests, by system suite, then the
    other ``slow`` tests; then the system suites' other tests; :data:`SHORT` any other."""
    folder = item.path.parent.name
    suite = SYSTEM_SUITES.index(folder) if folder in SYSTEM_SUITES else len(SYSTEM_SUITES)
    return suite if "slow" in item.keywords else len(SYSTEM_SUITES) + 1 + suite


def _searches(item: pytest.Item) -> bool:
    """A Hypothesis test: tens to hundreds of examples, up to half a minute, in no system suite."""
    return bool(getattr(getattr(item, "obj", None), "is_hypothesis_test", False))


def start_order(items: list[pytest.Item]) -> list[pytest.Item]:
    """The long tests first, each followed by a short one, then the Hypothesis tests, then the
    other short tests.

    ``make test`` runs the suite on xdist workers that are sent the next test of this order
    each time they finish one (``--dist load --maxschedchunk 1``); a worker holds one test
    queued behind the one it runs. So a long test starts as soon as a worker is free, the test
    queued behind it is a short one, the searches (the longest of the short tests) come before
    the quick ones, and the run does not end with one long tail.
    """
    ranked = sorted(items, key=_length)  # stable: the collection order within each length
    long = [item for item in ranked if _length(item) < SHORT]
    searches = [item for item in ranked[len(long) :] if _searches(item)]
    short = [item for item in ranked[len(long) :] if not _searches(item)]
    order = [test for pair in zip(long, short) for test in pair]
    return order + long[len(short) :] + searches + short[len(long) :]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items[:] = start_order(items)
    if config.getoption("--hil-profile"):
        return
    skip = pytest.mark.skip(reason="needs a person at the bench: run with --hil-profile")
    for item in items:
        if "manual" in item.keywords:
            item.add_marker(skip)
