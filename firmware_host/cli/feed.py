"""``tablehost feed keygen ID``: a table's Ed25519 key pair for signing its floor feed (docs/feed.md).

Writes ``DIR/ID.key`` (the private key, mode 0400: it stays on the table's Pi, named by
``[feed] signing_key``) and ``DIR/ID.pub`` (the public key: copy it into the collector's
``--keys`` directory), and prints the key's id. An existing file is never overwritten.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from firmware_host.errors import TablehostError


def register(groups: argparse._SubParsersAction, name: str, help_text: str) -> None:  # type: ignore[type-arg]
    """Add ``feed`` and its ``keygen`` sub-command."""
    parser = groups.add_parser(name, help=help_text, description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", metavar="SUBCOMMAND", required=True)
    keygen = commands.add_parser("keygen", help="a table's signing key pair: ID.key (0400) and ID.pub")
    keygen.add_argument("table", metavar="ID", help="the table id (the profile's [table] id)")
    keygen.add_argument(
        "--out",
        type=Path,
        default=Path("."),
        metavar="DIR",
        help="where to write ID.key and ID.pub (default: the current directory)",
    )
    keygen.set_defaults(func=run_keygen)


def run_keygen(args: argparse.Namespace) -> int:
    """``feed keygen ID [--out DIR]``."""
    from firmware_host.feed import schema, signing

    if not schema.TABLE_ID.match(args.table):
        raise TablehostError(
            f"table id {args.table!r}: expected 1..64 letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    if not args.out.is_dir():
        raise TablehostError(f"--out {args.out}: not a directory")
    private, public = args.out / f"{args.table}.key", args.out / f"{args.table}{signing.PUBLIC_SUFFIX}"
    kid = signing.keygen(private, public)
    print(f"{private}: the private key of table {args.table} (mode 0400; [feed] signing_key on the table)")
    print(f"{public}: its public key, id {kid} (into the collector's --keys directory)")
    return 0
