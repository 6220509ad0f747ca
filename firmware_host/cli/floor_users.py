"""``tablehost floor user add|remove|list`` (the dashboard's named users) and ``tablehost floor
views`` (who viewed what, from the floor's store).

``user add NAME --role surveillance|pit --http-dir DIR`` reads the user's secret (8 to 128
printable characters) twice from the terminal, or one line from stdin, and writes the users
file ``DIR/users`` durably (:mod:`firmware_host.web.users`); ``--users-file F --role
monitoring|surveillance`` writes a ``/metrics`` users file instead. ``user remove NAME``; ``user
list`` prints each user's name and role (never a hash). ``views --db PATH|DSN [--user NAME] [--since
MINUTES] [--json]`` prints the view log's rows, newest first: one per user, view and minute.
"""

from __future__ import annotations

import argparse
import datetime
import getpass
import json
import sys
import time
from pathlib import Path
from typing import Any

from firmware_host.cli.checks import positive_number

__all__ = ["register"]

#: The dashboard's roles (floor.dashboard.tables.ROLES, without importing the dashboard) and the
#: scrapers' of ``/metrics`` (metrics.server.ROLES, without importing prometheus_client).
_DASHBOARD_ROLES, _METRICS_ROLES = ("pit", "surveillance"), ("monitoring", "surveillance")


def register(commands: argparse._SubParsersAction, add_db_arguments: Any) -> None:  # type: ignore[type-arg]
    """Add ``user`` and ``views`` to ``floor``'s sub-commands."""
    user = commands.add_parser("user", help="the dashboard's named users (add, remove, list)")
    actions = user.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="add a user, or give them a new secret and role (secret from stdin/tty)")
    add.add_argument("name", help="1 to 32 of letters, digits, . _ @ -")
    add.add_argument(
        "--role",
        required=True,
        choices=("pit", "surveillance", "monitoring"),
        help="what the user sees (monitoring: a /metrics scraper, in a --users-file)",
    )
    remove = actions.add_parser("remove", help="remove a user")
    remove.add_argument("name")
    listed = actions.add_parser("list", help="each user's name and role")
    for parser in (add, remove, listed):
        where = parser.add_mutually_exclusive_group(required=True)
        where.add_argument("--http-dir", type=Path, metavar="DIR", help="the dashboard's directory (DIR/users)")
        where.add_argument(
            "--users-file", type=Path, metavar="F", help="a /metrics users file (monitoring, surveillance)"
        )
    add.set_defaults(func=run_add)
    remove.set_defaults(func=run_remove)
    listed.set_defaults(func=run_list)

    views = commands.add_parser("views", help="who viewed what on the dashboard: one row per user, view and minute")
    add_db_arguments(views)
    views.add_argument("--user", metavar="NAME", help="one user's views")
    views.add_argument("--since", type=positive_number, default=24 * 60, metavar="MINUTES", help="default: a day")
    views.add_argument("--limit", type=int, default=10_000, help="rows at most (default 10,000)")
    views.add_argument("--json", action="store_true", help="one JSON object per row")
    views.set_defaults(func=run_views)


def _users_file(args: argparse.Namespace) -> Path:
    return Path(args.http_dir) / "users" if args.http_dir is not None else Path(args.users_file)


def _roles(args: argparse.Namespace) -> tuple[str, ...]:
    return _DASHBOARD_ROLES if args.http_dir is not None else _METRICS_ROLES


def _secret(name: str) -> str:
    from firmware_host.web.pins import PinError

    if sys.stdin.isatty():
        first = getpass.getpass(f"{name}'s secret: ")
        if getpass.getpass(f"{name}'s secret again: ") != first:
            raise PinError("the two secrets differ")
        return first
    return sys.stdin.readline().rstrip("\r\n")


def run_add(args: argparse.Namespace) -> int:
    """Add (or change) a user; 2 with the reason for a bad name, role or secret."""
    from firmware_host.web.users import add_user

    new = add_user(_users_file(args), args.name, args.role, _secret(args.name), _roles(args))
    print(f"{_users_file(args)}: {args.name} ({args.role}) {'added' if new else 'changed'}")
    return 0


def run_remove(args: argparse.Namespace) -> int:
    """Remove a user; 1 if there was none of that name."""
    from firmware_host.web.users import remove_user

    if not remove_user(_users_file(args), args.name, _roles(args)):
        print(f"{_users_file(args)}: no user {args.name}", file=sys.stderr)
        return 1
    print(f"{_users_file(args)}: {args.name} removed (their open sessions end when the dashboard restarts)")
    return 0


def run_list(args: argparse.Namespace) -> int:
    """Each user's name and role."""
    from firmware_host.web.users import read_users

    for user in read_users(_users_file(args), _roles(args)).values():
        print(f"{user.name} {user.role}")
    return 0


def run_views(args: argparse.Namespace) -> int:
    """The view log's rows, newest first."""
    from firmware_host.cli.floor import open_db

    store = open_db(args, read_only=True)
    try:
        rows = store.views(args.user, since=int((time.time() - args.since * 60) // 60), limit=args.limit)
    finally:
        store.close()
    for row in rows:
        if args.json:
            print(json.dumps(row, sort_keys=True, ensure_ascii=False))
        else:
            at = datetime.datetime.fromtimestamp(row["minute"] * 60, datetime.UTC).strftime("%Y-%m-%d %H:%M")
            print(f"{at}Z {row['user']} ({row['role']}): {row['what']} ×{row['count']}")
    return 0
