"""The ``tablehost`` parser: commands listed from their tables, each imported only when invoked."""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import subprocess
import sys

import pytest

from firmware_host.cli import GROUPS, build_parser, main, register_all
from firmware_host.cli.paigow import TILE_COMMANDS

#: Top-level packages no light command may import (the I/O, the simulators, the service).
HEAVY = (
    "serial",
    "usb",
    "gpiozero",
    "transitions",
    "sim",
    "drivers",
    "firmware_host.wiring",
    "firmware_host.host",
    "firmware_host.tables",
    "firmware_host.config",
)

#: Runs ``main(argv)`` in a fresh interpreter, then prints the imported modules as JSON.
PROBE = """
import json, sys
from firmware_host.cli import main
try:
    status = main(sys.argv[1:])
except SystemExit as exc:
    status = exc.code
print(json.dumps({"status": status, "modules": sorted(sys.modules)}))
"""


def imported_by(*argv: str, stdin: str = "") -> tuple[int, set[str]]:
    """(exit status, modules imported) of ``tablehost argv...`` in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], input=stdin, capture_output=True, text=True, check=True, timeout=60
    )
    report = json.loads(done.stdout.splitlines()[-1])
    return report["status"], set(report["modules"])


def heavy(modules: set[str], packages: tuple[str, ...] = HEAVY) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in packages))


def listed(help_text: str) -> list[str]:
    """The command names a ``--help`` lists (its lines indented by four; wrapped help is indented more)."""
    return [line.split()[0] for line in help_text.splitlines() if line.startswith("    ") and line[4] != " "]


@pytest.mark.parametrize("argv", [["--help"], ["--version"], [], ["sim", "--help"]])
def test_the_program_itself_imports_no_command(argv: list[str]) -> None:
    _, modules = imported_by(*argv)
    assert heavy(modules) == []
    ours = sorted(m for m in modules if m.startswith("firmware_host."))
    # A group's own parser may use the argument checks (firmware_host.cli.checks: argparse and os only).
    group = ["firmware_host.cli.checks", "firmware_host.cli.sim"] if argv[:1] == ["sim"] else []
    assert ours == ["firmware_host.cli", *group]


@pytest.mark.parametrize(
    "argv",
    [
        ["baccarat", "odds", "--decks", "1", "--json"],
        ["baccarat", "resolve"],
    ],
)
def test_baccarat_commands_import_only_the_baccarat_rules(argv: list[str]) -> None:
    status, modules = imported_by(*argv, stdin="9S 2H KD 5C 3D\n")
    assert status == 0
    assert heavy(modules) == []
    assert "firmware_host.rules.baccarat.odds" in modules
    assert heavy(modules, ("firmware_host.rules.paigow_dice", "firmware_host.rules.paigow_tiles")) == []


def test_paigow_start_imports_neither_the_tiles_rules_nor_the_service() -> None:
    status, modules = imported_by("paigow", "start", "--dice", "1,2,3", "--json")
    assert status == 0
    assert heavy(modules) == []
    assert heavy(modules, ("firmware_host.rules.paigow_tiles", "firmware_host.cli.paigow_tiles")) == []


def test_paigow_hand_imports_its_module_when_invoked() -> None:
    status, modules = imported_by("paigow", "hand", "--tiles", "6-6,4-5,1-3,2-2")
    assert status == 0
    assert {"firmware_host.cli.paigow_tiles", "firmware_host.rules.paigow_tiles.houseway"} <= modules
    assert heavy(modules, ("firmware_host.cli.baccarat", "firmware_host.cli.run", "serial", "sim")) == []


def test_help_lists_every_group_in_table_order(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["--help"])
    out = capsys.readouterr().out
    assert caught.value.code == 0
    assert listed(out) == [name for name, _, _ in GROUPS]
    words = " ".join(out.split())
    for name, help_text, _ in GROUPS:
        assert f"{name} {help_text}" in words


def test_a_loaded_command_keeps_its_place_and_help_in_the_listing(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    before = parser.format_help()
    args = parser.parse_args(["paigow", "hand", "--tiles", "6-6,4-5,1-3,2-2"])
    assert (args.group, args.command, args.tiles) == ("paigow", "hand", "6-6,4-5,1-3,2-2")
    assert parser.format_help() == before
    with pytest.raises(SystemExit):
        parser.parse_args(["paigow", "--help"])  # the same parser: hand is loaded, compare is not
    assert (
        listed(capsys.readouterr().out)
        == ["start", *(name for name, _, _ in TILE_COMMANDS)]
        == ["start", "hand", "compare"]
    )


def test_register_all_into_plain_argparse_registers_at_once() -> None:
    parser = argparse.ArgumentParser()
    register_all(parser.add_subparsers(dest="command", required=True), TILE_COMMANDS)
    args = parser.parse_args(["compare", "--player", "a/b", "--dealer", "c/d"])
    assert (args.player, args.dealer, callable(args.func)) == ("a/b", "c/d", True)


def test_version_is_the_installed_distributions(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["--version"])
    assert caught.value.code == 0
    assert capsys.readouterr().out == f"tablehost {importlib.metadata.version('tablehost')}\n"


def test_no_command_prints_the_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == (build_parser().format_help(), "")


def test_an_unknown_command_is_a_usage_error_naming_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["bogus"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'bogus'" in err and "'baccarat'" in err and "'capture'" in err


def test_a_group_without_its_subcommand_is_still_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["journal"])
    assert caught.value.code == 2
    assert "SUBCOMMAND" in capsys.readouterr().err


def test_an_error_of_a_module_the_command_imported_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "shoe", "--faults", "nonsense=2"]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("tablehost: ") and err.count("\n") == 1
