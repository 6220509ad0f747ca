"""The journal commands: verify the chain, export rounds or shoes, report theo, drop, win and hold, make an HMAC key, salvage.

Exit status: 0 success; 1 ``verify`` found a broken chain, or ``salvage`` wrote the journal but
records are lost or were refused; 2 a clear error (missing or unreadable journal or key file, a
key file that exists already), printed on stderr.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

from firmware_host.errors import TablehostError
from firmware_host.floor.audit import audit
from firmware_host.floor.store import open_store
from firmware_host.host import segments
from firmware_host.host.journal_keys import KEY_BYTES, load_key, write_key
from firmware_host.host.journal_verify import verify
from firmware_host.text import escaped, json_line

#: Exit status of ``verify`` for a journal that does not verify.
EXIT_BROKEN = 1
#: Exit status of ``export`` and ``report`` when a record could not be read (named on stderr).
EXIT_MALFORMED = 1
#: Malformed records named one by one; the rest are counted.
NAMED = 10


def register(groups: argparse._SubParsersAction, name: str, help_text: str) -> None:  # type: ignore[type-arg]
    """Add the ``journal`` group and its sub-commands."""
    group = groups.add_parser(name, help=help_text, description=__doc__.splitlines()[0])
    commands = group.add_subparsers(dest="command", metavar="SUBCOMMAND", required=True)

    check = commands.add_parser("verify", help="check the hash chain (and MACs); exit 0 only if intact")
    check.add_argument("path", metavar="PATH", help="the journal file")
    check.add_argument("--key-file", metavar="F", help="the table's HMAC key file (required for a keyed journal)")
    check.add_argument(
        "--floor",
        metavar="DB",
        help="also check it against the floor's anchors (cut short, rewritten, swapped; docs/feed.md)",
    )
    check.add_argument("--table", metavar="ID", help="with --floor: the table (default: the journal's)")
    check.add_argument(
        "--floor-password-file",
        type=Path,
        metavar="F",
        help="with --floor postgresql://...: the database user's password (mode 0400/0600)",
    )
    check.add_argument(
        "--deep",
        action="store_true",
        help="also replay the journal from its first record and compare every checkpoint with it",
    )
    check.add_argument(
        "--profile", metavar="P", help="--deep, rotate: the table's profile (default: the one the journal names)"
    )
    check.set_defaults(func=run_verify)

    rotate = commands.add_parser(
        "rotate", help="close the journal's file as a segment and continue in a new one (the table stopped)"
    )
    rotate.add_argument("path", metavar="PATH", help="the journal file")
    rotate.add_argument("--profile", metavar="P", help="the table's profile (default: the one the journal names)")
    rotate.set_defaults(func=run_rotate)

    salvage = commands.add_parser(
        "salvage",
        help="a damaged journal: keep its intact part, restore what follows from the floor's copy (the table stopped)",
    )
    salvage.add_argument("path", metavar="PATH", help="the journal file (kept as PATH.damaged)")
    salvage.add_argument("--key-file", metavar="F", help="the table's HMAC key file (required for a keyed journal)")
    salvage.add_argument("--floor-db", metavar="DB", help="the floor's store: a SQLite path or a postgresql:// DSN")
    salvage.add_argument(
        "--floor-password-file", type=Path, metavar="F", help="with --floor-db postgresql://...: the password file"
    )
    salvage.add_argument(
        "--feed-key", type=Path, metavar="F", help="with --floor-db: the table's feed public key file (PEM)"
    )
    salvage.add_argument("--table", metavar="ID", help="the table's id on the floor (default: the journal's)")
    salvage.add_argument("--profile", metavar="P", help="the table's profile (default: the one the journal names)")
    salvage.set_defaults(func=run_salvage)

    export = commands.add_parser("export", help="one JSON object per line on stdout")
    export.add_argument("path", metavar="PATH", help="the journal file")
    what = export.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--rounds",
        action="store_const",
        const="rounds",
        dest="exporter",
        help="every finished round (round_result decisions) with its odds and each wager's theo",
    )
    what.add_argument(
        "--shoes",
        action="store_const",
        const="shoes",
        dest="exporter",
        help="every finished shoe (shoe_result decisions) with drop, win, theo, hold and pace",
    )
    _add_paigow_edge(export)
    export.set_defaults(func=run_export)

    figures = commands.add_parser(
        "report", help="theo, drop, win, hold and pace per shoe, gaming day or seat (docs/protection.md)"
    )
    figures.add_argument("path", metavar="PATH", help="the journal file")
    figures.add_argument("--by", choices=("shoe", "day", "seat"), default="shoe", help="the groups; default shoe")
    figures.add_argument(
        "--day-starts",
        type=_time_of_day,
        default=None,
        metavar="HH:MM",
        help="--by day: the gaming day starts at this time (in the --profile's time zone, else UTC); "
        "default the --profile's [gaming_day], else 06:00 UTC",
    )
    figures.add_argument("--json", action="store_true", help="one JSON object per group instead of a table")
    _add_paigow_edge(figures)
    figures.set_defaults(func=run_report)

    keygen = commands.add_parser("keygen", help=f"write {KEY_BYTES} random bytes to a new key file, mode 0400")
    keygen.add_argument("path", metavar="PATH", help="the key file to create (never overwritten)")
    keygen.set_defaults(func=run_keygen)


def run_verify(args: argparse.Namespace) -> int:
    """``journal verify PATH [--key-file F]``."""
    key = load_key(args.key_file) if args.key_file else None
    report = verify(args.path, hmac_key=key)
    chain = f"keyed, key id {report.key_id}" if report.keyed else "unkeyed"
    if report.ok:
        in_segments = f" in {len(report.segments)} segments" if len(report.segments) > 1 else ""
        print(
            f"{args.path}: intact: {report.records_checked} records{in_segments} ({chain}); "
            f"last record {report.last_seq} hash {report.last_hash}"
        )
        if args.deep and (status := run_deep(args)) != 0:
            return status
        return 0 if not args.floor else floor_audit(args.path, args.floor, args.table, args.floor_password_file)
    print(escaped(f"{args.path}: {report.finding()}"))
    if report.record is not None:
        sys.stdout.write(json_line(report.record.to_json()))
    return EXIT_BROKEN


def floor_audit(path: str, db: str, table: str | None, password_file: Path | None = None) -> int:
    """``verify PATH --floor DB``: the journal against the floor's anchors; 0 only if they all match."""
    table = table or next((r.data.get("table_id") for r in segments.records(path) if r.type == "table"), None)
    if table is None:
        raise TablehostError(f"{path}: the journal names no table: give --table")
    store = open_store(db, password_file=password_file, read_only=True)
    try:
        found = audit(store.messages(table), segments.records(path))  # every segment's records
    finally:
        store.close()
    if found.ok:
        print(
            f"{path}: matches the floor {db} for table {table}: {found.anchors} anchors, up to record "
            f"{found.matched_seq} of {found.journal_last_seq}"
        )
        return 0
    print(
        f"{path}: {str(found.problem).upper()} against the floor {db} (table {table}): first differing record "
        f"{found.first_seq if found.first_seq == found.last_seq else f'{found.first_seq}..{found.last_seq}'}: "
        f"{found.detail}"
    )
    return EXIT_BROKEN


def run_deep(args: argparse.Namespace) -> int:
    """``verify --deep``: every checkpoint is what a replay from the first record gives."""
    from firmware_host.wiring import journal_tools  # builds controllers: only for --deep

    path = Path(args.path)
    deep = journal_tools.verify_deep(path, journal_tools.table_profile(path, args.profile))
    for problem in deep.problems:
        print(f"{args.path}: CHECKPOINT WRONG: {problem}")
    print(
        f"{args.path}: deep: {deep.steps} steps replayed, {deep.checkpoints} checkpoints compared, "
        f"{len(deep.problems)} wrong"
    )
    return EXIT_BROKEN if deep.problems else 0


def run_rotate(args: argparse.Namespace) -> int:
    """``journal rotate PATH [--profile P]``."""
    from firmware_host.wiring import journal_tools

    path = Path(args.path)
    archived = journal_tools.rotate_journal(path, journal_tools.table_profile(path, args.profile))
    print(f"{args.path}: rotated: the old segment is {archived}; {path} continues the journal")
    return 0


def run_salvage(args: argparse.Namespace) -> int:
    """``journal salvage PATH [--floor-db DB --feed-key F]``: 0 the journal was whole and nothing is
    lost; 1 it was damaged (the lines say what was kept, restored, refused and lost)."""
    from firmware_host.feed.signing import load_public_keys
    from firmware_host.wiring.salvage import salvage  # builds a controller: only for salvage

    if args.floor_db and args.feed_key is None:
        raise TablehostError("--floor-db needs --feed-key: the table's feed public key checks every restored record")
    key = load_key(args.key_file) if args.key_file else None
    keys = load_public_keys(args.feed_key) if args.feed_key is not None else None
    store = open_store(args.floor_db, password_file=args.floor_password_file, read_only=True) if args.floor_db else None
    try:
        report = salvage(Path(args.path), key=key, profile=args.profile, floor=store, feed_keys=keys, table=args.table)
    finally:
        if store is not None:
            store.close()
    for line in report.lines():
        print(line)
    refused = report.copy.refused if report.copy is not None else []
    return EXIT_BROKEN if report.finding or report.lost or refused or report.refused_journal else 0


def _add_paigow_edge(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--paigow-edge",
        type=_percent,
        default=None,
        metavar="PERCENT",
        help="Pai Gow: the house edge per wager theo uses; default the profile's [protection] "
        "paigow_edge_percent, else 2.5820160 (the regulation's house way)",
    )
    parser.add_argument("--profile", metavar="P", help="the table's profile, for its [protection] (docs/protection.md)")


def _paigow_edge(args: argparse.Namespace) -> Fraction:
    """``--paigow-edge``, else the ``--profile``'s ``[protection]``, else the regulation's house way."""
    from firmware_host.config.profiles import load_table
    from firmware_host.config.protection import PAIGOW_HOUSE_WAY_EDGE

    if args.paigow_edge is not None:
        return Fraction(args.paigow_edge)
    return load_table(args.profile).protection.paigow_edge if args.profile else PAIGOW_HOUSE_WAY_EDGE


def _percent(text: str) -> Fraction:
    """A percentage from -100 to 100 (excluded), exactly as written."""
    try:
        value = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not -100 <= value < 100:
        raise argparse.ArgumentTypeError(f"{text!r} is not from -100 to 100 (excluded)")
    return value / 100


def _time_of_day(text: str) -> datetime.time:
    try:
        return datetime.time.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a time of day (HH:MM)") from None


def run_export(args: argparse.Namespace) -> int:
    """``journal export PATH (--rounds | --shoes)``."""
    from firmware_host.host import figures as table_figures

    edge = _paigow_edge(args)
    malformed: list[table_figures.Malformed] = []
    rows = table_figures.export_rounds(args.path, edge, malformed) if args.exporter == "rounds" else \
        table_figures.export_shoes(args.path, malformed)  # fmt: skip
    for data in rows:
        sys.stdout.write(json_line(data))
    return _name_malformed("export", malformed)


def _name_malformed(command: str, malformed: list[Any]) -> int:
    """Name the records the figures could not read on stderr (the first :data:`NAMED`, then how many
    more): 1 if there were any, else 0."""
    for item in malformed[:NAMED]:
        print(f"tablehost journal {command}: MALFORMED {item.named}", file=sys.stderr)
    if len(malformed) > NAMED:
        print(f"tablehost journal {command}: MALFORMED and {len(malformed) - NAMED} more records", file=sys.stderr)
    return EXIT_MALFORMED if malformed else 0


def _gaming_day(args: argparse.Namespace) -> Any:
    """The gaming day ``journal report --by day`` dates by: the ``--profile``'s, its start as
    ``--day-starts`` says (docs/rules-interpretations/clock.md, "One gaming day")."""
    from firmware_host.config.profiles import load_table
    from firmware_host.rules.gaming_day import GamingDay

    day = load_table(args.profile).gaming_day if args.profile else GamingDay()
    return day if args.day_starts is None else GamingDay(args.day_starts, day.time_zone)


def run_report(args: argparse.Namespace) -> int:
    """``journal report PATH [--by shoe|day|seat] [--json]``."""
    from firmware_host.host import figures as table_figures

    edge = _paigow_edge(args)
    malformed: list[table_figures.Malformed] = []
    groups = table_figures.report(args.path, args.by, _gaming_day(args), edge, malformed)
    if args.json:
        for group in groups:
            sys.stdout.write(json_line(group))
        return _name_malformed("report", malformed)
    print(
        f"{args.by:<12}{'rounds':>8}{'drop':>14}{'win':>14}{'theo':>14}{'hold':>9}{'rounds/h':>10}{'windows':>9}"
        f"{'AP alerts':>11}"
    )
    for group in groups:
        hold = "" if group["hold"] is None else f"{group['hold']:.2%}"
        theo = "" if group["theo"] is None else f"{group['theo'] / 100:.2f}"
        pace = "" if group["rounds_per_hour"] is None else f"{group['rounds_per_hour']:.1f}"
        print(
            f"{escaped(str(group[args.by])):<12}{group['rounds']:>8}{group['drop'] / 100:>14.2f}{group['win'] / 100:>14.2f}"
            f"{theo:>14}{hold:>9}{pace:>10}{group['advantage_windows']:>9}{group['advantage_play_alerts']:>11}"
        )
    return _name_malformed("report", malformed)


def run_keygen(args: argparse.Namespace) -> int:
    """``journal keygen PATH``."""
    print(f"{args.path}: new {KEY_BYTES}-byte key, mode 0400, key id {write_key(args.path)}")
    return 0
