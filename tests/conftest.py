"""Shared pytest configuration: the bench options and the markers' behaviour."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--hil-profile",
        default=None,
        help="table profile of a hardware-in-the-loop bench; contract tests then run against real devices",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--hil-profile"):
        return
    skip = pytest.mark.skip(reason="needs a person at the bench: run with --hil-profile")
    for item in items:
        if "manual" in item.keywords:
            item.add_marker(skip)
