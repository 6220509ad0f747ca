"""``tablehost run``: the table service.

With a profile whose devices are simulated it starts the simulators and a simulated
dealer; with ``--rounds N`` it stops once the journal holds N finished rounds (counted from
the start of the journal, so a restarted run finishes the same N) and exits 0. Without
``--rounds`` it runs until SIGTERM or SIGINT, which finish the current journal write and
leave the round resumable.

Under systemd (``Type=notify``) READY comes after the journal's replay; while it replays the
service asks for more start-up time every :data:`~firmware_host.host.service.REPLAY_PROGRESS_EVERY`
steps (``EXTEND_TIMEOUT_USEC``), so a long journal does not exceed ``TimeoutStartSec``.

A reader that closes standard output (``tablehost run ... | head -1``) ends the run as SIGINT
does, after the step being written, quietly and with exit status 141
(:mod:`firmware_host.cli.pipes`). Under systemd standard output is the journal: should it ever
refuse a write, the table plays on, and the dealer view's lines are dropped from then on.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

from drivers.capture import CaptureWriter, read_capture
from firmware_host.cli import checks
from firmware_host.cli.pipes import EXIT_CLOSED_PIPE, PipeOut, stdout_is_journal
from firmware_host.config.feed import FeedConfig
from firmware_host.config.profiles import load_table
from firmware_host.host import cpus
from firmware_host.host.systemd import Notifier
from firmware_host.tables.decisions import Decision
from firmware_host.wiring import build_table

if TYPE_CHECKING:  # imported by --replay only
    from sim.devices.replay import Replay

log = logging.getLogger("tablehost.run")

#: Default journal beside the working directory when neither the CLI nor the profile names one.
DEFAULT_JOURNAL = Path("run/journal.sqlite")
#: A simulated run with more rounds than this shows a progress line instead of every prompt.
QUIET_ABOVE_ROUNDS = 50
#: Rounds between progress lines in a quiet run.
PROGRESS_EVERY = 50
#: After a replay has played its last bytes, the service runs this long before stopping, seconds.
REPLAY_DRAIN_S = 2.0
#: Start-up time asked of systemd before the journal is opened and at each sign of replay
#: progress, seconds beyond now (EXTEND_TIMEOUT_USEC): a stall, not the journal's size, is bounded.
STARTUP_EXTENSION_S = 30.0


def register(groups: Any, name: str, help_text: str) -> None:
    """Add ``tablehost run``."""
    parser = groups.add_parser(name, help=help_text, description=__doc__)
    parser.add_argument(
        "--profile", required=True, type=checks.file_to_read, help="table profile (hardware-profiles/tables/*.toml)"
    )
    parser.add_argument("--rounds", type=_positive, help="stop once the journal holds this many finished rounds")
    parser.add_argument("--seed", type=int, default=0, help="seed of the simulated devices and dealer (default 0)")
    parser.add_argument(
        "--journal", type=checks.file_to_open, help="journal path (default: the profile's, else run/journal.sqlite)"
    )
    parser.add_argument("--quiet", action="store_true", help="show progress lines instead of every prompt")
    parser.add_argument(
        "--replay",
        type=checks.file_to_read,
        metavar="CAPTURE",
        help="play this capture's devices, serial and USB (and the dealer's actions), instead of "
        "their ports or simulators",
    )
    parser.add_argument(
        "--speed",
        type=checks.positive_number,
        default=None,
        help="replay speed: 1.0 the captured timing, 2.0 twice as fast (default: as fast as possible)",
    )
    parser.add_argument(
        "--capture", type=checks.file_to_write, metavar="FILE", help="record every device's traffic and every input"
    )
    parser.add_argument(
        "--spy",
        type=checks.directory_to_fill,
        metavar="DIR",
        help="hexdump every serial device's bytes to DIR/<device>.spy",
    )
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        type=_listen,
        help="serve the dealer display and the scoreboard here (default: the profile's [display] "
        "listen; off without either; 127.0.0.1 unless TLS and PIN files are configured)",
    )
    parser.add_argument(
        "--pace",
        type=_pace,
        default=0.0,
        metavar="SECONDS",
        help="the simulated dealer waits this long before each move (to watch the display), 0-4",
    )
    parser.add_argument(
        "--feed",
        metavar="URL",
        help="publish the floor feed to this broker, mqtt://host:port or "
        "mqtts://host:port (overrides the profile's [feed] broker; docs/feed.md)",
    )
    parser.add_argument(
        "--metrics",
        metavar="HOST:PORT",
        type=_listen,
        help="serve Prometheus's /metrics here (default: the profile's [metrics] listen; off "
        "without either; 127.0.0.1 unless TLS is configured)",
    )
    parser.add_argument(
        "--web-face",
        choices=("child", "external"),
        default="child",
        help="with --http, [display] listen or --metrics: run the web face as a child process, restarted "
        "when it dies (default), or leave it to its own unit (deploy/systemd/tablehost-web.service)",
    )
    parser.add_argument(
        "--web-user",
        metavar="USER",
        help="the user the web face runs as, let in at the control socket (default: the profile's "
        "[display] web_user; the service's own user always is)",
    )
    parser.add_argument(
        "--control-socket",
        type=checks.file_to_write,
        metavar="PATH",
        help="the control socket the web face asks the service through (default: the journal's path + .ctl)",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log driver detail (-vv: debug)")
    parser.set_defaults(func=run)


def _listen(text: str) -> str:
    """A ``HOST:PORT`` of ``--http`` or ``--metrics``, checked before the journal is opened."""
    from firmware_host.web.address import WebError, parse_listen

    try:
        parse_listen(text)
    except WebError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of rounds") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number of rounds")
    return value


#: The slowest pace ``--pace`` takes, seconds (the simulated dealer must stop within 5 s).
MAX_PACE_S = 4.0


def _pace(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value <= MAX_PACE_S:
        raise argparse.ArgumentTypeError(f"{text}: a pace is 0 to {MAX_PACE_S:g} seconds")
    return value


class Progress:
    """Output: one line every :data:`PROGRESS_EVERY` finished rounds, with the rate."""

    def __init__(self, stream: Any, table_id: str, target: int | None) -> None:
        self.stream, self.table_id, self.target = stream, table_id, target
        self.started = time.monotonic()
        self.rounds = 0

    def on_decisions(self, decisions: Sequence[Decision]) -> None:
        """Count finished rounds; print a line every :data:`PROGRESS_EVERY`."""
        for decision in decisions:
            if decision.type == "round_result":
                self.rounds += 1
                if self.rounds % PROGRESS_EVERY == 0:
                    rate = self.rounds / max(time.monotonic() - self.started, 1e-9)
                    of = f"/{self.target}" if self.target else ""
                    self.stream.write(f"[{self.table_id}] round {decision.data['round']}{of} ({rate:.1f} rounds/s)\n")
                    self.stream.flush()


def run(args: argparse.Namespace) -> int:
    """Run the service; 0 on a clean stop."""
    logging.basicConfig(
        level=[logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)],
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    profile = load_table(args.profile)
    if args.feed:
        feed = profile.feed or FeedConfig(broker=args.feed)
        profile = dataclasses.replace(profile, feed=dataclasses.replace(feed, broker=args.feed))
    journal_path = args.journal or profile.journal_path or DEFAULT_JOURNAL
    quiet = args.quiet or (args.rounds or 0) > QUIET_ABOVE_ROUNDS
    out = PipeOut(sys.stdout)  # the dealer view, progress and feed trouble lines: written by the service thread
    plays_on = stdout_is_journal()  # before a closed stdout is pointed at /dev/null
    progress = Progress(out, profile.table_id, args.rounds)
    notifier = Notifier()
    notifier.extend_timeout(STARTUP_EXTENSION_S, f"opening journal {journal_path}")
    with contextlib.ExitStack() as bench:
        replay = bench.enter_context(_replay(args.replay, args.speed)) if args.replay else None
        capture = bench.enter_context(CaptureWriter(args.capture)) if args.capture else None
        if args.spy:
            args.spy.mkdir(parents=True, exist_ok=True)
        table = build_table(
            profile,
            journal_path=journal_path,
            seed=args.seed,
            rounds=args.rounds,
            quiet=quiet,
            extra_outputs=(progress,) if quiet else (),
            capture=capture,
            spy_dir=args.spy,
            replay=replay,
            on_replay_progress=_replay_progress(notifier),
            http=args.http,
            pace=args.pace,
            metrics=args.metrics,
            stream=cast(TextIO, out),
            web_face=args.web_face,
            control_socket=args.control_socket,
            web_user=args.web_user,
            on_web_ready=_say_where(profile.table_id, out),
        )  # the outputs write and flush, all PipeOut has
        if table.control is not None:  # a web face in a process of its own (child or external)
            bench.enter_context(_a_core_kept())
        if replay is not None and not args.rounds:
            threading.Thread(target=_stop_after_replay, args=(replay, table.service), daemon=True).start()
        status = _serve(table, profile, journal_path, notifier, out, plays_on)
        if replay is not None:
            _report_mismatches(replay)
        return status


def _a_core_kept() -> contextlib.AbstractContextManager[None]:
    """With its web face in a process of its own, the service keeps the lowest CPU it may use to
    itself while it serves, and the web face runs on the others (:mod:`firmware_host.host.cpus`: a
    process busy on the loop's CPU halves it, whatever its priority); nothing on one CPU."""
    placed = cpus.split(os.sched_getaffinity(0))
    if placed is None:
        return contextlib.nullcontext()
    log.info("the service on CPU %s, its web face on CPUs %s", min(placed[0]), sorted(placed[1]))
    return cpus.kept_to(placed[0])


def _replay(capture: Path, speed: float | None) -> Replay:
    """The replay of ``capture`` (``--replay``): its simulators are imported only then."""
    from sim.devices.replay import Replay

    return Replay(read_capture(capture), speed=speed)


def _report_mismatches(replay: Replay) -> None:
    """Say on standard error where the replayed host did not do what the captured one did."""
    for mismatch in replay.mismatches:
        print(f"replay {mismatch}", file=sys.stderr)
    if replay.mismatches:
        print(f"replay: {len(replay.mismatches)} mismatch(es) with the capture (docs/bench.md)", file=sys.stderr)


def _replay_progress(notifier: Notifier) -> Callable[[int], None]:
    """A replay progress callback: more start-up time from systemd, and the steps so far as the status."""

    def replaying(steps: int) -> None:
        notifier.extend_timeout(STARTUP_EXTENSION_S, f"replaying journal: {steps} steps")

    return replaying


def _stop_after_replay(replay: Replay, service: Any) -> None:
    """Stop the service once the replay has played everything and the drivers have had time to deliver it."""
    replay.finished.wait()
    time.sleep(REPLAY_DRAIN_S)
    service.stop()


def _serve(table: Any, profile: Any, journal_path: Path, notifier: Notifier, out: PipeOut, plays_on: bool) -> int:
    table.service.heartbeat = notifier.watchdog
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: table.service.stop())
    out.when_gone(_on_closed_stdout(table.service, plays_on))
    if table.replayed:
        print(
            f"[{profile.table_id}] recovered {table.replayed} steps from {journal_path} "
            f"({table.service.rounds_finished} rounds finished)",
            file=out,
            flush=True,
        )
    try:
        table.start()
        notifier.ready(f"table {profile.table_id} running ({profile.game})")
        table.service.run()
        notifier.stopping()
    finally:
        table.stop()
    finished = table.service.rounds_finished
    print(f"[{profile.table_id}] stopped: {finished} rounds in the journal {journal_path}", file=out, flush=True)
    return EXIT_CLOSED_PIPE if out.gone and not plays_on else 0


def _say_where(table_id: str, out: PipeOut) -> Callable[[dict[str, str]], None]:
    """Say once where the web face serves the dealer display (when it first starts serving)."""
    said = threading.Event()

    def ready(urls: dict[str, str]) -> None:
        url = urls.get("display")
        if url is not None and not said.is_set():
            said.set()
            print(f"[{table_id}] dealer display {url}/  scoreboard {url}/scoreboard", file=out, flush=True)

    return ready


def _on_closed_stdout(service: Any, plays_on: bool) -> Callable[[], None]:
    """What a closed standard output does: it stops the service after the step it is writing, as
    SIGINT does; or, with ``plays_on`` (standard output is systemd's journal), it is said once on
    standard error and the table plays on."""

    def closed() -> None:
        if plays_on:
            log.warning(
                "standard output (the systemd journal) refused a write: the dealer view's lines are "
                "dropped from now on; the table plays on"
            )
        else:
            service.stop()

    return closed
