"""The layers hold: ``lint-imports`` keeps the import-linter contracts of pyproject.toml.

The contracts (``[tool.importlinter]``): cli > wiring > floor | display > feed > host |
config | sim.dealers > tables > rules (the outputs beyond the Pi once they exist); drivers and the device simulators import nothing of the host or of the simulated
people; rules and controllers import no serial, USB or GPIO; the simulated people take a
controller's public surface only. A wrong import fails the suite, and the message names it.
The second test proves each contract catches one, on a copy of the source.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.support.paths import REPO

#: The packages the contracts cover.
PACKAGES = ("firmware_host", "drivers", "sim")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
#: How many contracts pyproject.toml holds.
CONTRACTS = len(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"])


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the packages under ``root`` with ``root``'s pyproject.toml (no cache:
    tests may run in parallel, and the source is read as it is now)."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo", str(root / "pyproject.toml")],
        capture_output=True,
        text=True,
        cwd=root,
        env=env,
        timeout=120,
    )


def test_the_source_keeps_every_import_contract() -> None:
    result = lint_imports(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{CONTRACTS} kept, 0 broken" in result.stdout


#: One or two wrong imports per contract: the module each goes into, the line, the contract it
#: breaks, and how the report names the import.
WRONG_IMPORTS = [
    (
        "firmware_host/tables/base.py",
        "from firmware_host.host.journal import Journal",
        "Layers: cli > wiring > outputs",
        "firmware_host.tables.base -> firmware_host.host.journal",
    ),
    (
        "firmware_host/host/outputs.py",
        "from firmware_host.config.profiles import Section",
        "Layers: cli > wiring > outputs",
        "firmware_host.host.outputs -> firmware_host.config.profiles",
    ),
    (
        "drivers/gpio.py",
        "from firmware_host.tables.events import DealerCommand",
        "drivers and sim.devices: no firmware_host",
        "drivers.gpio -> firmware_host.tables.events",
    ),
    (
        "sim/devices/shuffler.py",
        "from firmware_host.rules.baccarat.cards import full_shoe",
        "drivers and sim.devices: no firmware_host",
        "sim.devices.shuffler -> firmware_host.rules.baccarat.cards",
    ),
    (
        "firmware_host/rules/baccarat/cards.py",
        "import serial",
        "rules and tables touch no hardware",
        "firmware_host.rules.baccarat.cards -> serial",
    ),
    (
        "firmware_host/tables/paigow/round.py",
        "from drivers.gpio import TablePanel",
        "rules and tables touch no hardware",
        "firmware_host.tables.paigow.round -> drivers.gpio",
    ),
    (
        "sim/dealers/paigow.py",
        "from firmware_host.tables.paigow.round import SHAKES_REQUIRED",
        "sim.dealers take a controller's public surface",
        "sim.dealers.paigow -> firmware_host.tables.paigow.round",
    ),
    (
        "firmware_host/tables/baccarat/view.py",
        "from firmware_host.rules.paigow_tiles.tiles import parse_tiles",
        "Baccarat imports no Pai Gow",
        "firmware_host.tables.baccarat.view -> firmware_host.rules.paigow_tiles.tiles",
    ),
    (
        "firmware_host/durable.py",
        "from firmware_host.host.journal import Journal",
        "errors and durable stand alone",
        "firmware_host.durable -> firmware_host.host.journal",
    ),
    (
        "firmware_host/rules/shuffler.py",
        "from firmware_host.durable import write_file",
        "rules and tables touch no hardware",
        "firmware_host.rules.shuffler -> firmware_host.durable",
    ),
    (
        "sim/dealers/paigow.py",
        "from sim.dealers.baccarat import BaccaratDealer",
        "Pai Gow imports no Baccarat",
        "sim.dealers.paigow -> sim.dealers.baccarat",
    ),
]


@pytest.fixture(scope="module")
def broken_copy(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on a copy of the packages and of pyproject.toml with every wrong import
    of :data:`WRONG_IMPORTS` added (the real source is not touched)."""
    root = tmp_path_factory.mktemp("layers")
    for package in PACKAGES:
        shutil.copytree(REPO / package, root / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    for module, line, _, _ in WRONG_IMPORTS:
        with (root / module).open("a") as source:
            source.write(f"\n{line}  # deliberately wrong\n")
    return lint_imports(root)


def test_every_contract_catches_a_wrong_import(broken_copy: subprocess.CompletedProcess[str]) -> None:
    assert broken_copy.returncode == 1, broken_copy.stdout + broken_copy.stderr
    assert f"0 kept, {CONTRACTS} broken" in broken_copy.stdout
    broken = [text for text in broken_copy.stdout.splitlines() if " BROKEN" in text]  # "BROKEN (1 ignored import)"
    assert sorted({contract for _, _, contract, _ in WRONG_IMPORTS}) == sorted(
        next(contract for _, _, contract, _ in WRONG_IMPORTS if text.startswith(contract)) for text in broken
    )


@pytest.mark.parametrize(
    ("module", "line", "contract", "named"), WRONG_IMPORTS, ids=[wrong[3] for wrong in WRONG_IMPORTS]
)
def test_the_report_names_the_wrong_import(
    broken_copy: subprocess.CompletedProcess[str], module: str, line: str, contract: str, named: str
) -> None:
    assert named in broken_copy.stdout, broken_copy.stdout
