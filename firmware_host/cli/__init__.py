"""The ``tablehost`` command line.

Each command group lives in its own module with a ``register(subparsers)`` function that
adds its sub-commands; every sub-command sets ``func`` (``args -> exit status``). Errors
derived from the package roots become one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Sequence

from drivers.errors import DriverError
from firmware_host.errors import TablehostError
from sim.errors import SimError

#: What ``tablehost --help`` says the program is.
DESCRIPTION = "tablehost: the table-side controller for casino table hardware (shoe, dice shaker, shuffler, GPIO)"

#: (group name, help, module with ``register``), in the order ``--help`` lists them.
GROUPS: tuple[tuple[str, str, str], ...] = (
    ("run", "run the table service", "firmware_host.cli.run"),
    ("baccarat", "Baccarat rules: resolve rounds, exact odds", "firmware_host.cli.baccarat"),
    ("paigow", "Pai Gow rules: starting position, delivery, tiles", "firmware_host.cli.paigow"),
    ("journal", "verify and export the journal", "firmware_host.cli.journal"),
    ("sim", "run a simulated device standalone", "firmware_host.cli.sim"),
    ("devices", "list the serial and USB devices this machine can see", "firmware_host.cli.devices"),
    ("capture", "record raw device traffic", "firmware_host.cli.capture"),
    ("display", "the web display's PIN files", "firmware_host.cli.display"),
)


def register_all(subparsers: argparse._SubParsersAction, entries: Sequence[tuple[str, str, str]]) -> None:  # type: ignore[type-arg]
    """Import each ``(name, help, module)`` entry's module and let it ``register`` itself."""
    for name, help_text, module_name in entries:
        importlib.import_module(module_name).register(subparsers, name, help_text)


def build_parser() -> argparse.ArgumentParser:
    """The full ``tablehost`` parser."""
    parser = argparse.ArgumentParser(prog="tablehost", description=DESCRIPTION)
    register_all(parser.add_subparsers(dest="group", metavar="COMMAND", required=True), GROUPS)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tablehost`` console script."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (TablehostError, DriverError, SimError) as exc:
        print(f"tablehost: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`tablehost journal export ... | head`): not an error of ours.
        # Point stdout at /dev/null so the interpreter's final flush does not complain either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
