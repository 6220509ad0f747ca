"""``tablehost display``: the web display's PIN files.

``tablehost display pin ROLE FILE`` asks for a PIN twice (or reads one line from stdin when it
is not a terminal) and writes its scrypt hash to FILE, mode 0600. Name the file in the table
profile (``[display] dealer_pin_file`` / ``supervisor_pin_file``); the PIN itself is never stored.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path

from firmware_host.web.pins import ROLES, PinError, write_pin_file


def register(groups: argparse._SubParsersAction, name: str, help_text: str) -> None:  # type: ignore[type-arg]
    """Add ``tablehost display pin``."""
    parser = groups.add_parser(name, help=help_text, description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", metavar="SUBCOMMAND", required=True)
    pin = commands.add_parser(
        "pin",
        help="write a role's PIN, hashed, to a file",
        description="Write the dealer's or the supervisor's PIN, scrypt-hashed, to FILE (0600).",
    )
    pin.add_argument("role", choices=ROLES, help="whose PIN")
    pin.add_argument("file", type=Path, help="the PIN file to write (replaced if it exists)")
    pin.set_defaults(func=run_pin)


def run_pin(args: argparse.Namespace) -> int:
    """Read the PIN and write its hash; 2 (with the reason) if it is not a PIN or the two differ."""
    if sys.stdin.isatty():
        first = getpass.getpass(f"{args.role} PIN: ")
        if getpass.getpass(f"{args.role} PIN again: ") != first:
            raise PinError("the two PINs differ")
    else:
        first = sys.stdin.readline().strip()
    write_pin_file(args.file, first)
    print(
        f"{args.file}: the {args.role}'s PIN, hashed (scrypt); name it in the profile's [display] {args.role}_pin_file"
    )
    return 0
