"""Checked types and one style (issue 23 item 4): mypy and ruff, as configured in pyproject.toml.

mypy is strict on the pure core (``firmware_host.rules``, ``firmware_host.tables``,
``drivers.codecs``), the host and the floor collector (``firmware_host.host``,
``firmware_host.floor``; issue 31 item 7) and mypy's default elsewhere; ruff lints and formats the whole tree.
Each runs as the project's own tool, in a child process, and must find nothing.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib

from tests.support.paths import REPO


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *command], cwd=REPO, capture_output=True, text=True, timeout=600, check=False
    )


def test_mypy_finds_no_error_strict_on_the_core() -> None:
    # Incremental, on the cache `make setup` fills in the virtualenv (pyproject.toml: cache_dir, as
    # `mypy` by hand uses it): mypy checks again every module whose file or whose dependencies
    # changed since, and reports a cached module's errors again, so the check is of the tree as it
    # is now and takes seconds; without the setup's pass it is a whole check (about a minute).
    checked = _run("mypy")
    assert checked.returncode == 0, checked.stdout[-4000:] + checked.stderr[-2000:]
    assert "Success: no issues found" in checked.stdout


def test_mypy_is_strict_on_the_core_the_host_and_the_floor() -> None:
    overrides = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mypy"]["overrides"]
    strict = {module for entry in overrides if entry.get("strict") for module in entry["module"]}
    assert strict >= {"firmware_host.rules.*", "firmware_host.tables.*", "drivers.codecs.*", "firmware_host.host.*",
                      "firmware_host.floor.*"}  # fmt: skip


def test_ruff_finds_nothing_to_lint() -> None:
    checked = _run("ruff", "check", "--no-cache", ".")
    assert checked.returncode == 0, checked.stdout[-4000:]


def test_every_file_is_formatted_as_ruff_formats_it() -> None:
    checked = _run("ruff", "format", "--check", "--no-cache", ".")
    assert checked.returncode == 0, checked.stdout[-4000:]
