"""``tablehost floor``: the floor collector, and the status and export of what it stored.

``tablehost floor --broker URL --db PATH`` subscribes to every table's feed and stores it
until SIGTERM or SIGINT. ``floor status`` lists each table (last seq, last seen, lag, online,
gaps); ``floor export --table ID --rounds`` prints exactly what ``tablehost journal export
--rounds`` prints on the table. Exit status: 0; 1 ``status`` found a gap or a break; 2 a clear error.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import time
from pathlib import Path

from firmware_host.feed.broker import BrokerSettings, client
from firmware_host.floor.collector import Collector
from firmware_host.floor.store import FloorStore

#: Exit status of ``status`` when a table has a gap or a break.
EXIT_INCOMPLETE = 1


def register(groups: argparse._SubParsersAction, name: str, help_text: str) -> None:  # type: ignore[type-arg]
    """Add ``floor`` (the collector) and its ``status`` and ``export`` sub-commands."""
    parser = groups.add_parser(name, help=help_text, description=__doc__.splitlines()[0])
    parser.add_argument("--broker", metavar="URL", help="mqtt://host:port or mqtts://host:port (collect)")
    parser.add_argument("--db", type=Path, metavar="PATH", help="the floor's SQLite database (collect)")
    parser.add_argument("--topic-prefix", default="tablehost", help="first level of the tables' topics")
    parser.add_argument("--username", help="the collector's MQTT user")
    parser.add_argument("--password-file", type=Path, metavar="F", help="its password (mode 0400/0600)")
    parser.add_argument("--ca-file", type=Path, metavar="F", help="CA certificate of the broker (mqtts://)")
    parser.add_argument("--cert-file", type=Path, metavar="F", help="client certificate (mqtts://)")
    parser.add_argument("--key-file", type=Path, metavar="F", help="client key (mode 0400/0600)")
    parser.add_argument("--client-id", default="tablehost-floor", help="the persistent session's name")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log each connection (-vv: debug)")
    parser.set_defaults(func=run_collect)
    commands = parser.add_subparsers(dest="command", metavar="SUBCOMMAND")

    status = commands.add_parser("status", help="each table: last seq, last seen, lag, online, gaps")
    status.add_argument("--db", type=Path, metavar="PATH", required=True, help="the floor's database")
    status.add_argument("--json", action="store_true", help="one JSON object per table")
    status.set_defaults(func=run_status)

    export = commands.add_parser("export", help="one JSON object per line, as `journal export` prints it")
    export.add_argument("--db", type=Path, metavar="PATH", required=True, help="the floor's database")
    export.add_argument("--table", required=True, metavar="ID", help="the table")
    what = export.add_mutually_exclusive_group(required=True)
    what.add_argument("--rounds", action="store_const", const="round_result", dest="type",
                      help="every finished round (as `journal export --rounds`)")
    what.add_argument("--shoes", action="store_const", const="shoe_result", dest="type",
                      help="every finished shoe (as `journal export --shoes`)")
    what.add_argument("--messages", action="store_const", const=None, dest="type",
                      help="every feed message, as published")
    export.set_defaults(func=run_export)


def run_collect(args: argparse.Namespace) -> int:
    """``floor --broker URL --db PATH``: collect until SIGTERM or SIGINT."""
    if not args.broker or not args.db:
        print("tablehost floor: --broker URL and --db PATH are required to collect", file=sys.stderr)
        return 2
    logging.basicConfig(level=[logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)],
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    settings = BrokerSettings(args.broker, args.username, args.password_file, args.ca_file, args.cert_file,
                              args.key_file)
    client(settings, args.client_id)  # a bad URL, secret or TLS file is a clear error before anything starts
    store = FloorStore(args.db)
    collector = Collector(store, settings, topic_prefix=args.topic_prefix, client_id=args.client_id)
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: collector.stop())
    try:
        collector.run()
    finally:
        store.close()
    counts = ", ".join(f"{n} {kind}" for kind, n in collector.counts.items())
    print(f"floor: stopped ({counts})", flush=True)
    return 0


def run_status(args: argparse.Namespace) -> int:
    """``floor status --db PATH [--json]``."""
    store = FloorStore(args.db, read_only=True)
    incomplete = False
    now = time.time()
    for table in store.tables():
        status = store.status(table)
        incomplete = incomplete or bool(status.gaps) or status.breaks > 0
        if args.json:
            print(json.dumps(status.to_json(), sort_keys=True))
            continue
        online = {True: "online", False: "offline", None: "no status"}[status.online]
        seen = f"{now - status.last_seen:.0f} s ago" if status.last_seen is not None else "never"
        gaps = ", ".join(f"{a}..{b}" for a, b in status.gaps) or "none"
        print(f"{table}: {online}, last seq {status.last_seq} (of {status.max_seq}), last seen {seen}, "
              f"lag {status.lag_s} s, gaps {gaps}, breaks {status.breaks}, refused {status.refused}, "
              f"duplicates {status.duplicates}")
    return EXIT_INCOMPLETE if incomplete else 0


def run_export(args: argparse.Namespace) -> int:
    """``floor export --db PATH --table ID (--rounds | --shoes | --messages)``."""
    store = FloorStore(args.db, read_only=True)
    lines = store.messages(args.table) if args.type is None else store.export(args.table, args.type)
    if args.type in ("round_result", "shoe_result"):  # with theo, odds and the figures, as the journal's export
        from firmware_host.wiring import table_figures

        records = table_figures.feed_records(store.messages(args.table))
        lines = table_figures.rounds_of(records) if args.type == "round_result" else table_figures.shoes_of(records)
    for data in lines:
        sys.stdout.write(json.dumps(data, sort_keys=True, ensure_ascii=False) + "\n")
    return 0
