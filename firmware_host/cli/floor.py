"""``tablehost floor``: the floor collector, and the status and export of what it stored.

``tablehost floor --broker URL --db PATH --keys DIR`` subscribes to every table's feed and
stores what the tables signed until SIGTERM or SIGINT (``--unsigned`` instead of ``--keys``:
unsigned messages, only when asked); with ``--floor-key F`` it acknowledges to each table what
the store holds (``floor keygen`` makes the floor's key pair). ``--db`` is a SQLite file (the embedded default) or a
PostgreSQL DSN, ``postgresql://user@host:port/dbname``, whose password comes from
``--db-password-file F`` (mode 0600) or libpq's passfile, never from the command line; several
collectors, each with its own ``--client-id``, may share one PostgreSQL database. ``floor status`` lists each table (last seq, last seen,
lag, online, gaps, refused); ``floor export --table ID --rounds`` prints exactly what
``tablehost journal export --rounds`` prints on the table (``--role pit``: without the protection
data). ``floor user`` keeps the dashboard's named users and ``floor views`` prints who viewed what
(:mod:`firmware_host.cli.floor_users`). ``floor dashboard --db PATH|DSN --http HOST:PORT --http-dir
DIR`` serves the live dashboard in a process of its own, following the store
(:mod:`firmware_host.cli.floor_dashboard`); ``floor --http`` starts it as a child of the collector,
without the collector's key. Exit status: 0; 1 ``status`` found a
gap, a break, a refused message or a record it cannot read, or ``export`` met such a record
(named on stderr, the rest printed); 2 a clear error.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from firmware_host.cli import floor_dashboard
from firmware_host.feed.broker import BrokerSettings, client
from firmware_host.floor.model import DEFAULT_SKEW_BOUND_S, Unreadable
from firmware_host.text import escaped, json_line

if TYPE_CHECKING:
    from firmware_host.floor.store_sql import SqlStore

#: Exit status of ``status`` when a table has a gap, a break, a refusal or an unreadable record
#: (and of ``export`` when it met an unreadable record).
EXIT_INCOMPLETE = 1


def register(groups: argparse._SubParsersAction, name: str, help_text: str) -> None:  # type: ignore[type-arg]
    """Add ``floor`` (the collector) and its ``status`` and ``export`` sub-commands."""
    parser = groups.add_parser(name, help=help_text, description=__doc__.splitlines()[0])
    parser.add_argument("--broker", metavar="URL", help="mqtt://host:port or mqtts://host:port (collect)")
    add_db_arguments(parser, required=False)
    parser.add_argument("--topic-prefix", default="tablehost", help="first level of the tables' topics")
    parser.add_argument("--username", help="the collector's MQTT user")
    parser.add_argument("--password-file", type=Path, metavar="F", help="its password (mode 0400/0600)")
    parser.add_argument("--ca-file", type=Path, metavar="F", help="CA certificate of the broker (mqtts://)")
    parser.add_argument("--cert-file", type=Path, metavar="F", help="client certificate (mqtts://)")
    parser.add_argument("--key-file", type=Path, metavar="F", help="client key (mode 0400/0600)")
    parser.add_argument(
        "--keys",
        type=Path,
        metavar="DIR",
        help="the tables' public keys, DIR/<table id>.pub "
        "(tablehost feed keygen); a message no key verifies is refused",
    )
    parser.add_argument(
        "--unsigned",
        action="store_true",
        help="store unsigned messages (tests only: anyone who can publish on a table's topic is that table)",
    )
    parser.add_argument(
        "--floor-key",
        type=Path,
        metavar="F",
        help="the floor's private key (tablehost floor keygen; mode 0400): acknowledge to each table "
        "what the store holds; without it the tables that name a floor key never see their messages stored",
    )
    parser.add_argument("--client-id", default="tablehost-floor", help="the persistent session's name")
    parser.add_argument(
        "--metrics",
        metavar="HOST:PORT",
        help="serve Prometheus's /metrics here (off without it; "
        "127.0.0.1 unless --metrics-tls-cert and --metrics-tls-key are given)",
    )
    _add_skew_bound(parser, "/metrics: tablehost_floor_table_clock_skew")
    parser.add_argument("--metrics-tls-cert", type=Path, metavar="F", help="TLS certificate of /metrics")
    parser.add_argument("--metrics-tls-key", type=Path, metavar="F", help="its key")
    parser.add_argument(
        "--metrics-users",
        type=Path,
        metavar="F",
        help="its scrapers (tablehost floor user add NAME --role monitoring --users-file F); "
        "off loopback this or --metrics-client-ca",
    )
    parser.add_argument(
        "--metrics-client-ca", type=Path, metavar="F", help="the CA of its scrapers' client certificates (mutual TLS)"
    )
    floor_dashboard.add_http_arguments(parser)  # the dashboard, as a child process (floor dashboard)
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log each connection (-vv: debug)")
    parser.set_defaults(func=run_collect)
    commands = parser.add_subparsers(dest="command", metavar="SUBCOMMAND")

    status = commands.add_parser("status", help="each table: last seq, last seen, lag, online, gaps, clock skew")
    _add_skew_bound(status, "CLOCK-SKEW, exit 1")
    add_db_arguments(status)
    status.add_argument("--json", action="store_true", help="one JSON object per table")
    status.set_defaults(func=run_status)

    export = commands.add_parser("export", help="one JSON object per line, as `journal export` prints it")
    add_db_arguments(export)
    export.add_argument("--table", required=True, metavar="ID", help="the table")
    what = export.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--rounds",
        action="store_const",
        const="round_result",
        dest="type",
        help="every finished round (as `journal export --rounds`)",
    )
    what.add_argument(
        "--shoes",
        action="store_const",
        const="shoe_result",
        dest="type",
        help="every finished shoe (as `journal export --shoes`)",
    )
    what.add_argument(
        "--messages", action="store_const", const=None, dest="type", help="every feed message, as published"
    )
    what.add_argument(
        "--refused",
        action="store_const",
        const="refused",
        dest="type",
        help="the refusals kept on its topic, newest first (--table '': topics naming no known table)",
    )
    export.add_argument(
        "--role",
        choices=("surveillance", "pit"),
        default="surveillance",
        help="whose view of --rounds: pit's leaves out the odds and the theo computed from them "
        "(tables/protection_policy.py; default surveillance: the whole record)",
    )
    export.set_defaults(func=run_export)

    epoch = commands.add_parser(
        "epoch", help="the store's epochs (docs/feed.md); --begin WHY begins a new one, after restoring a backup"
    )
    add_db_arguments(epoch)
    epoch.add_argument(
        "--begin",
        metavar="WHY",
        help="begin a new epoch, saying why: the tables resend what the store lacks (docs/recovery.md)",
    )
    epoch.set_defaults(func=run_epoch)

    keygen = commands.add_parser("keygen", help="the floor's acknowledgement key pair: floor.key (0400), floor.pub")
    keygen.add_argument(
        "--out", type=Path, default=Path("."), metavar="DIR", help="where to write floor.key and floor.pub"
    )
    keygen.set_defaults(func=run_keygen)

    from firmware_host.cli import floor_users

    floor_users.register(commands, add_db_arguments)
    floor_dashboard.register_dashboard(commands, add_db_arguments, _add_skew_bound)


def add_db_arguments(parser: argparse.ArgumentParser, required: bool = True) -> None:
    """``--db PATH|DSN`` and ``--db-password-file F``."""
    parser.add_argument(
        "--db",
        metavar="PATH|DSN",
        required=required,
        help="the floor's database: a SQLite file, or postgresql://user@host:port/dbname",
    )
    parser.add_argument(
        "--db-password-file",
        type=Path,
        metavar="F",
        help="the PostgreSQL user's password (mode 0400/0600); or libpq's passfile",
    )


def open_db(args: argparse.Namespace, read_only: bool = False) -> SqlStore:
    """The store ``--db`` names (:func:`~firmware_host.floor.store.open_store`)."""
    from firmware_host.floor.store import open_store

    return open_store(args.db, password_file=args.db_password_file, read_only=read_only)


def run_collect(args: argparse.Namespace) -> int:
    """``floor --broker URL --db PATH``: collect until SIGTERM or SIGINT."""
    from firmware_host.feed.signing import Keyring
    from firmware_host.floor.collector import Collector

    if not args.broker or not args.db:
        print("tablehost floor: --broker URL and --db PATH|DSN are required to collect", file=sys.stderr)
        return 2
    if (args.keys is None) == (not args.unsigned):
        print(
            "tablehost floor: give --keys DIR (the tables' public keys), or --unsigned to store unsigned messages",
            file=sys.stderr,
        )
        return 2
    floor_signer = None
    if args.floor_key is not None:  # a bad key file: one line, exit 2
        from firmware_host.feed.ack import ACK_PREFIX
        from firmware_host.feed.signing import Signer

        floor_signer = Signer.from_file(args.floor_key, "floor key", ACK_PREFIX)
    logging.basicConfig(
        level=[logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)],
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    # An unreadable directory: one line, exit 2; a bad file in it is skipped and named in the log.
    keyring = Keyring(args.keys) if args.keys is not None else None
    settings = BrokerSettings(
        args.broker, args.username, args.password_file, args.ca_file, args.cert_file, args.key_file
    )
    client(settings, args.client_id)  # a bad URL, secret or TLS file is a clear error before anything starts
    if args.http:
        floor_dashboard.check_dashboard(args)  # so is a dashboard that would not start
    stop = threading.Event()  # set by a signal, also one while the store opens (PostgreSQL: up to 10 s)
    collectors: list[Collector] = []

    def on_signal(*_: object) -> None:
        stop.set()
        for made in collectors:
            made.stop()

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, on_signal)
    store = open_db(args)
    collector = Collector(
        store, settings, keyring, topic_prefix=args.topic_prefix, client_id=args.client_id, floor_signer=floor_signer
    )
    collectors.append(collector)
    if stop.is_set():
        collector.stop()
    servers: list[Any] = []  # started here, stopped after the collector
    try:
        metrics = _metrics(args, collector, store.engine)
        if metrics is not None:
            servers.append(metrics)
        if args.http:  # its own process, following the store (never given the floor's key), kept running
            dashboard = floor_dashboard.DashboardChild(floor_dashboard.child_command(args))
            dashboard.start()
            servers.append(dashboard)
    except BaseException:
        for server in servers:
            server.stop()
        store.close()
        raise
    try:
        collector.run()
    finally:
        for server in servers:
            server.stop()
        store.close()
    counts = ", ".join(f"{n} {kind}" for kind, n in collector.counts.items())
    print(f"floor: stopped ({counts})", flush=True)
    return 0


def _metrics(args: argparse.Namespace, collector: Any, engine: str) -> Any:
    """The collector's ``/metrics`` (started), or None without ``--metrics``; ``prometheus_client``
    is imported only with it. :class:`~firmware_host.web.server.WebError` for a bad address."""
    if args.metrics is None:
        return None
    from firmware_host import __version__
    from firmware_host.metrics.floor import FloorMetrics
    from firmware_host.metrics.server import MetricsServer
    from firmware_host.web.server import WebError

    if (args.metrics_tls_cert is None) != (args.metrics_tls_key is None):
        raise WebError("metrics: give both --metrics-tls-cert and --metrics-tls-key")
    tls = None if args.metrics_tls_cert is None else (args.metrics_tls_cert, args.metrics_tls_key)
    counted = FloorMetrics(
        collector.stats,
        engine,
        __version__,
        skew_bound_s=args.clock_skew_s,
    )
    server = MetricsServer(
        counted.registry, args.metrics, tls, users_file=args.metrics_users, client_ca=args.metrics_client_ca
    )
    server.start()
    print(f"floor: metrics on {server.url}/metrics", flush=True)
    return server


def run_keygen(args: argparse.Namespace) -> int:
    """``floor keygen [--out DIR]``: the floor's key pair (the same writer as ``feed keygen``)."""
    from firmware_host.errors import TablehostError
    from firmware_host.feed import signing

    if not args.out.is_dir():
        raise TablehostError(f"--out {args.out}: not a directory")
    private, public = args.out / "floor.key", args.out / f"floor{signing.PUBLIC_SUFFIX}"
    kid = signing.keygen(private, public)
    print(f"{private}: the floor's private key (mode 0400; tablehost floor --floor-key on every collector)")
    print(f"{public}: its public key, id {kid} (the tables' [feed] floor_key)")
    return 0


def _add_skew_bound(parser: argparse.ArgumentParser, where: str) -> None:
    """``--clock-skew-s S``: the bound of a table's clock skew (issue 28 item 6)."""
    parser.add_argument(
        "--clock-skew-s",
        type=_skew_bound,
        default=DEFAULT_SKEW_BOUND_S,
        metavar="S",
        help=f"a table whose last message's time differs from the floor's by more than S seconds has a "
        f"wrong clock ({where}); default {DEFAULT_SKEW_BOUND_S:g}",
    )


def _skew_bound(text: str) -> float:
    """``--clock-skew-s``: a positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < 1e9:  # NaN and inf too
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    return value


def run_epoch(args: argparse.Namespace) -> int:
    """``floor epoch --db PATH|DSN [--begin WHY]``: every epoch of the store, the current one last."""
    store = open_db(args, read_only=args.begin is None)
    try:
        if args.begin is not None:
            store.new_epoch(store.epoch(), f"begun by hand: {args.begin}")
        for row in store.epochs():
            made = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(row["made_at"]))
            print(escaped(f"{row['epoch']} {made} {row['why']}"))
    finally:
        store.close()
    return 0


def run_status(args: argparse.Namespace) -> int:
    """``floor status --db PATH|DSN [--json]``."""
    store = open_db(args, read_only=True)
    try:
        incomplete = False
        now = time.time()
        for table in store.tables():
            status = store.status(table)
            skewed = status.clock_skew(args.clock_skew_s)
            incomplete = (
                incomplete or skewed or bool(status.gaps or status.breaks or status.refused or status.unreadable)
            )
            if args.json:
                sys.stdout.write(json_line(status.to_json(args.clock_skew_s)))
                continue
            online = {True: "online", False: "offline", None: "no status"}[status.online]
            seen = f"{now - status.last_seen:.0f} s ago" if status.last_seen is not None else "never"
            gaps = ", ".join(f"{a}..{b}" for a, b in status.gaps) or "none"
            refused = f"refused {status.refused}" + (f" (last: {status.last_refusal})" if status.refused else "")
            print(
                escaped(
                    f"{table}: {online}, last seq {status.last_seq} (of {status.max_seq}), last seen {seen}, "
                    f"lag {status.shown_lag_s} s, gaps {gaps}, breaks {status.breaks}, {refused}, "
                    f"duplicates {status.duplicates}"
                )
            )
            if skewed and status.lag_s is not None:
                ahead = "ahead of" if status.lag_s < 0 else "behind"
                print(f"{table}: CLOCK-SKEW its last message's time is {abs(status.lag_s):.3f} s {ahead} the floor's")
            for what in status.unreadable[:10]:
                print(escaped(f"{table}: UNREADABLE {what}"))
            if len(status.unreadable) > 10:
                print(f"{table}: UNREADABLE and {len(status.unreadable) - 10} more records")
        unknown = store.refused_unknown()
        incomplete = incomplete or unknown > 0
        if args.json and unknown:
            print(json.dumps({"table": None, "refused": unknown}, sort_keys=True))
        elif unknown:
            print(f"(topics naming no known table): refused {unknown}")
    finally:
        store.close()
    return EXIT_INCOMPLETE if incomplete else 0


def run_export(args: argparse.Namespace) -> int:
    """``floor export --db PATH|DSN --table ID (--rounds | --shoes | --messages | --refused)``: rounds and
    shoes with theo, odds and the figures, as ``journal export`` prints them."""
    from firmware_host.floor import store as store_module

    store = open_db(args, read_only=True)
    unreadable = 0
    malformed: list[Any] = []  # records the figures could not read: named as unreadable ones are
    try:
        if args.type == "refused":
            for row in store.refusals(args.table, limit=store_module.REFUSED_KEPT_TOTAL):
                sys.stdout.write(json_line(row))
            return 0
        messages = []
        for data in store.read(args.table):
            if isinstance(data, Unreadable):
                unreadable += 1
                print(escaped(f"tablehost floor export: UNREADABLE {data}"), file=sys.stderr)
            else:
                messages.append(data)
        lines: Any = messages
        if args.type in ("round_result", "shoe_result"):
            from firmware_host.host import figures as table_figures
            from firmware_host.tables.protection_policy import round_record, sees_protection

            records = table_figures.feed_records(messages)
            if args.type == "round_result":
                lines = (
                    round_record(line, args.role) for line in table_figures.rounds_of(records, malformed=malformed)
                )
            else:  # a shoe's figures count its protection alerts: not the pit's
                shoes = table_figures.shoes_of(records, malformed)
                lines = shoes if sees_protection(args.role) else (round_record(s, args.role) for s in shoes)
        for data in lines:
            sys.stdout.write(json_line(data))
        for item in malformed:
            print(f"tablehost floor export: UNREADABLE {item.named}", file=sys.stderr)
    finally:
        store.close()
    return EXIT_INCOMPLETE if unreadable or malformed else 0
