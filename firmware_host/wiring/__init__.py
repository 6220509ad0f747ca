"""Wiring: the one place that reads a table profile and builds the running table from it.

:func:`build_table` opens the journal, builds the game's controller, replays the journal
into it (crash recovery), builds a driver for every device, connected to the backend its
port names (:mod:`firmware_host.wiring.backends`: serial, USB, a simulator, a replay), the
outputs that carry the controller's device commands to the drivers, the GPIO panel and, on a
simulated table, the simulated dealer. :class:`Table` owns them all, starts them, and stops
them in the right order.

Game-specific parts (the controller, the simulated dealer) come from
:mod:`firmware_host.wiring.baccarat` and :mod:`firmware_host.wiring.paigow`; devices from
:mod:`firmware_host.wiring.devices`.
"""

from __future__ import annotations

import dataclasses
import importlib
import logging
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO, cast

from drivers.capture import CaptureWriter
from drivers.events import DeviceEvent
from drivers.events.lifecycle import DeviceLost
from drivers.gpio import TablePanel, pin_factory
from firmware_host import __version__, durable
from firmware_host.config.profiles import TableProfile
from firmware_host.errors import JournalError, TablehostError
from firmware_host.host import cpus, segments
from firmware_host.host.checkpoint import CheckpointPolicy
from firmware_host.host.clock import SystemClock
from firmware_host.host.journal import Journal
from firmware_host.host.journal_codec import steps_of
from firmware_host.host.journal_keys import load_key
from firmware_host.host.outputs import DealerView, PanelOutput
from firmware_host.host.service import Output, Service
from firmware_host.tables.base import TableController
from firmware_host.tables.events import AllowListLoaded, DealerCommand, RulesInForce, SoftwareStarted
from firmware_host.wiring.devices import DeviceContext, DeviceParts, build_device
from firmware_host.wiring.resume import device_points, points_after
from firmware_host.wiring.start_alarm import alarm_on_failure
from sim.devices.resume import ResumePoints

if TYPE_CHECKING:  # a table of real devices imports no simulator (see wiring.backends)
    # Off unless configured, so imported only when configured (Starlette, uvicorn, asyncio, paho):
    from firmware_host.display.face_file import FaceWriter
    from firmware_host.feed.publisher import FeedPublisher
    from firmware_host.metrics.server import MetricsServer
    from firmware_host.metrics.table import TableMetrics
    from firmware_host.web.control import ControlServer
    from firmware_host.wiring.child import WebFaceChild
    from firmware_host.wiring.display import Display
    from firmware_host.wiring.webface import WebFace
    from sim.dealers.base import SimDealer
    from sim.devices.replay import Replay

__all__ = ["Table", "build_table", "GameWiring", "TABLE_META"]

log = logging.getLogger("tablehost.wiring")

#: Seconds a table that stopped on its journal waits, before it stops its web face, for the web face
#: to have asked and been told (its banner): the web face asks every ``webface.HALT_POLL_S``.
HALT_TOLD_S = 2.0
#: Meta record written once per journal: which table, profile and seed it belongs to.
TABLE_META = "table"
#: Module wiring each game.
GAME_MODULES = {"baccarat": "firmware_host.wiring.baccarat", "paigow": "firmware_host.wiring.paigow"}


class GameWiring(Protocol):
    """What a game's wiring module provides."""

    def controller(self, profile: TableProfile) -> TableController:
        """The game's controller for ``profile``."""

    # Optional: ``outputs(profile, controller, devices) -> list[Output]``, what carries out the
    # controller's ``device_command`` decisions on the drivers (the Baccarat table's shuffler).

    def dealer(
        self,
        profile: TableProfile,
        controller: TableController,
        devices: dict[str, DeviceParts],
        emit: Callable[[DeviceEvent], None],
        press: Callable[[str], None],
        seed: int,
        resume: ResumePoints,
        panel: TablePanel | None,
    ) -> SimDealer:
        """The simulated dealer of a simulated table, resumed where the journal stands (``resume``:
        where its simulated devices stand; ``panel``: the GPIO panel with mock pins, for a dealer
        who lifts a lid on a reed switch)."""


@dataclasses.dataclass
class Table:
    """A running table: the service and everything around it."""

    profile: TableProfile
    journal: Journal
    service: Service
    devices: list[DeviceParts]
    panel: TablePanel | None
    dealer: SimDealer | None
    replayed: int
    #: The web display, when an address is given (``--http`` or ``[display] listen``) and the web
    #: face runs in this process (``web_face="thread"``).
    display: Display | None = None
    feed: FeedPublisher | None = None
    #: Prometheus's ``/metrics``, when an address is given (``--metrics`` or ``[metrics] listen``)
    #: and the web face runs in this process.
    metrics: MetricsServer | None = None
    #: The control socket the web face asks the service through (with a web face).
    control: ControlServer | None = None
    #: The web face in this process (``web_face="thread"``: tests and benches).
    web: WebFace | None = None
    #: The web face as a child process (``web_face="child"``: ``tablehost run``).
    web_child: WebFaceChild | None = None
    #: The face file the web face's display reads instead of the journal (with a display).
    face: FaceWriter | None = None
    #: Set once the web face has been told that the table stopped on its journal (``status``).
    halt_told: threading.Event = dataclasses.field(default_factory=threading.Event)

    def start(self) -> None:
        """Start the simulators, the drivers and the simulated dealer (the service runs in the caller).

        After a restart every device must handshake again before play resumes: the replayed
        controller still believes them connected, so each is first reported lost.
        """
        if self.replayed:
            for parts in self.devices:
                self.service.emit(DeviceLost(device=parts.slot.name, reason="service restarted"))
        for parts in self.devices:
            parts.start_sim()
        for parts in self.devices:
            parts.driver.start()
        if self.face is not None:
            self.face.start()
        if self.control is not None:
            self.control.start()
        if self.web is not None:
            self.web.start()
        if self.web_child is not None:
            self.web_child.start()
        if self.dealer is not None:
            self.dealer.start()
        if self.feed is not None:
            self.feed.start()

    def stop(self) -> None:
        """Stop the dealer, the drivers, the sims and the GPIO; close the journal last."""
        if self.dealer is not None:
            self.dealer.stop()
        if self.service.halted is not None and self.control is not None:
            self.halt_told.wait(HALT_TOLD_S)  # the banner reaches the pages before their server stops
        if self.web_child is not None:
            self.web_child.stop()
        if self.web is not None:
            self.web.stop()
        if self.control is not None:
            self.control.stop()
        if self.face is not None:
            self.face.stop()
        for parts in self.devices:
            parts.driver.stop()
        for parts in self.devices:
            parts.stop_sim()
        if self.feed is not None:  # before the panel: feed trouble may still turn the lamp
            self.feed.stop()
        if self.panel is not None and self.service.halted is None:
            # A table that stopped on its journal keeps its red lamp and its buzzer: closing the
            # pins (gpiozero makes them inputs) would put both out before anyone came.
            self.panel.close()
        self.journal.close()


def game_wiring(game: str) -> GameWiring:
    """The wiring module of ``game``."""
    return cast(GameWiring, importlib.import_module(GAME_MODULES[game]))


def build_table(
    profile: TableProfile,
    *,
    journal_path: Path,
    seed: int = 0,
    rounds: int | None = None,
    stream: TextIO = sys.stdout,
    quiet: bool = False,
    extra_outputs: tuple[Output, ...] = (),
    capture: CaptureWriter | None = None,
    spy_dir: Path | None = None,
    replay: Replay | None = None,
    on_replay_progress: Callable[[int], None] | None = None,
    http: str | None = None,
    pace: float = 0.0,
    metrics: str | None = None,
    web_face: str = "thread",
    control_socket: Path | None = None,
    web_user: str | None = None,
    on_web_ready: Callable[[dict[str, str]], None] | None = None,
) -> Table:
    """Build (but do not start) the table described by ``profile``.

    :param journal_path: the journal; an existing one is replayed and continued.
    :param seed: seeds every simulator and the simulated dealer; a continued journal keeps
        the seed it was started with.
    :param rounds: stop once the journal holds this many finished rounds.
    :param stream: where the dealer's view goes.
    :param quiet: leave routine prompts out of the dealer's view.
    :param on_replay_progress: called with the steps replayed so far while the journal is
        replayed (see :meth:`Service.recover`).
    :param http: serve the web display on ``HOST:PORT`` (default: the profile's ``[display] listen``).
    :param pace: seconds the simulated dealer waits before each move (see ``SimDealer.pace``).
    :param metrics: serve Prometheus's ``/metrics`` on ``HOST:PORT`` (default: the profile's
        ``[metrics] listen``).
    :param web_face: where the web face (the display and ``/metrics``) runs, when either has an
        address: ``"child"`` a child process (``tablehost run``), ``"external"`` a process started
        by someone else (systemd's ``tablehost-web.service``), ``"thread"`` this process (tests,
        benches); every way it reads the face file and asks the service over the control socket.
    :param control_socket: the control socket's path (default: beside the journal, ``.ctl``).
    :param web_user: the user the web face runs as, let in at the control socket besides this
        process's own (default: the profile's ``[display] web_user``).
    :param on_web_ready: called with the child web face's addresses each time one starts serving.
    """
    with alarm_on_failure(profile, stream):  # a journal that cannot be opened: the lamp, the buzzer
        key = load_key(profile.hmac_key_file) if profile.hmac_key_file else None
        _journal_directory(journal_path)
        journal = Journal.open(journal_path, hmac_key=key)
    try:
        table = _build(
            profile, journal, seed, rounds, stream, quiet, extra_outputs, capture, spy_dir, replay, on_replay_progress
        )
        face = WebFaceOptions(
            web_face, journal_path, control_socket, web_user or profile.display.web_user, on_web_ready
        )
        _web_face(table, http, metrics, face)
        if table.dealer is not None:
            table.dealer.pace = pace
        return table
    except BaseException:
        journal.close()
        raise


def _build(
    profile: TableProfile,
    journal: Journal,
    seed: int,
    rounds: int | None,
    stream: TextIO,
    quiet: bool,
    extra_outputs: tuple[Output, ...],
    capture: CaptureWriter | None = None,
    spy_dir: Path | None = None,
    replay: Replay | None = None,
    on_replay_progress: Callable[[int], None] | None = None,
) -> Table:
    with alarm_on_failure(profile, stream):  # the table record cannot be written: the lamp, the buzzer
        table_meta = _table_meta(profile, journal, seed)
    seed = int(table_meta.get("seed", seed))
    game = game_wiring(profile.game)
    controller = game.controller(profile)
    outputs: list[Output] = [DealerView(stream, profile.table_id, quiet_prompts=quiet), *extra_outputs]
    upkeep = profile.journal_upkeep
    service = Service(
        controller,
        journal,
        outputs,
        tick_seconds=profile.tick_seconds,
        stop_after_rounds=rounds,
        clocks=SystemClock(),
        version=__version__,
        table_meta=table_meta,
        device_points=device_points(profile),
        policy=CheckpointPolicy(
            upkeep.checkpoint_every_steps,
            upkeep.rotate_bytes,
            profile.gaming_day if upkeep.gaming_day_starts is not None else None,
        ),
    )
    profile_list = {
        name: {
            "models": list(slot.model.approved.models),
            "firmware": list(slot.model.approved.firmware),
            "serials": list(slot.model.approved.serials),
        }
        for name, slot in profile.devices.items()
    }
    with alarm_on_failure(profile, stream):  # a journal this version would decide differently
        replayed = service.recover(on_replay_progress, started_by=table_meta.get("version"))
    if service.recovered_from is not None:
        log.info(
            "journal %s: started from the checkpoint at record %d, replayed %d step(s) after it",
            journal.path,
            service.recovered_from.seq,
            service.replayed_steps,
        )
    if service.journal_version != __version__:  # an upgrade: the journal says from which step on
        log.warning(
            "journal %s was written by tablehost %s; continuing it with %s (%d replayed step(s) worded differently)",
            journal.path,
            service.journal_version,
            __version__,
            service.reworded_steps,
        )
        service.emit(SoftwareStarted(device="tablehost", version=__version__))
    # Replay decided with the allow-list each step was decided under (it is journaled as an
    # input); the profile's list applies from now on, journaled when it is new or changed.
    if controller.identities.allow_list() != profile_list or not replayed:
        service.emit(AllowListLoaded(device="profile", approved=profile_list))
    # The Rules Submission options in force, journaled when new or changed: every hand after
    # it was played under them (they are the profile's, so a replay never reads them back).
    rules = controller.rules_in_force()
    if controller.rules_journaled != rules:
        service.emit(RulesInForce(device="profile", rules=rules))
    emit = service.emit if capture is None else capture.tap_events(service.emit)
    emit = emit if replay is None else replay.inputs(emit)
    panel = _panel(profile, emit)
    feed, lamp = _feed(profile, journal, stream, panel, service.emit)  # the lamp shows feed trouble too
    if panel is not None:
        service.outputs.append(PanelOutput(lamp))
    # Simulated devices resume where the journal left them, as real ones would stand.
    resume = _resume_points(profile, service, journal) if replayed else ResumePoints()
    context = DeviceContext(
        profile.path,
        seed,
        profile.decks,
        resume,
        lid_from_shaker=profile.gpio.lid_source == "shaker",
        capture=capture,
        spy_dir=spy_dir,
        replay=replay,
    )
    devices = {name: build_device(slot, emit, context) for name, slot in profile.devices.items()}
    device_outputs = getattr(game, "outputs", None)  # optional: a game whose controller commands devices
    if device_outputs is not None:
        service.outputs.extend(device_outputs(profile, controller, devices))
    dealer = None
    if profile.simulated and replay is None:  # a replay plays the recorded dealer's actions
        dealer = game.dealer(profile, controller, devices, emit, _presser(panel, emit), seed, resume, panel)
        service.outputs.append(dealer)
    if feed is not None:
        service.outputs.append(feed)
    return Table(profile, journal, service, list(devices.values()), panel, dealer, replayed, feed=feed)


@dataclasses.dataclass(frozen=True)
class WebFaceOptions:
    """How the web face runs (see :func:`build_table`)."""

    mode: str
    journal_path: Path
    control_socket: Path | None
    web_user: str | None
    on_ready: Callable[[dict[str, str]], None] | None


def _web_face(table: Table, http: str | None, metrics: str | None, face: WebFaceOptions) -> None:
    """The web face, when the display or ``/metrics`` has an address (``--http``, ``[display]
    listen``, ``--metrics``, ``[metrics] listen``): the control socket and the table's metrics on
    this side, the face itself in a child process, elsewhere or in this process. Without an
    address none of it (Starlette, uvicorn, asyncio, ``prometheus_client``) is imported."""
    profile = table.profile
    shows = http or profile.display.listen
    counts = metrics or profile.metrics.listen
    if shows is None and counts is None:
        return
    if face.mode not in WEB_FACE_MODES:
        raise TablehostError(f"web face {face.mode!r}: one of {', '.join(WEB_FACE_MODES)}")
    from firmware_host.wiring.control import control_server

    socket_path = face.control_socket or control_socket_path(face.journal_path)
    counted = _counted(table) if counts is not None else None
    table.control = control_server(
        socket_path, profile.game, table.service, table.journal, counted, face.web_user, table.halt_told
    )
    if shows is not None:
        table.face = _face_file(table)
    if face.mode == "thread":
        from firmware_host.wiring.webface import build_webface

        table.web = build_webface(profile, face.journal_path, socket_path, http, metrics)
        table.display, table.metrics = table.web.display, table.web.metrics
        if table.display is not None and table.face is not None:
            table.display.hub.catch_up = _both(table.face.sync, table.display.follower.sync)
    elif face.mode == "child":
        from firmware_host.wiring.child import WebFaceChild, argv_of

        models = {slot.model.path.parent for slot in profile.devices.values()}
        argv = argv_of(
            profile=profile.path,
            devices_dir=models.pop() if len(models) == 1 else None,
            journal=face.journal_path,
            socket=socket_path,
            http=shows,  # given, so that a restarted child takes the first one's ports (see WebFaceChild)
            metrics=counts,
        )
        placed = cpus.split(os.sched_getaffinity(0))  # the service keeps the first (tablehost run)
        own = ["--cpus", ",".join(map(str, sorted(placed[1])))] if placed is not None else []
        table.web_child = WebFaceChild(
            [*argv, "--parent", str(os.getpid()), "--nice", str(WEB_FACE_NICE), "--yield-cpu", *own], face.on_ready
        )


def _face_file(table: Table) -> FaceWriter:
    """The face file beside the journal, rebuilt from it now (before the web face reads it), then
    kept by an output of the service: what the display may show, so that the web face need not
    read the journal (:mod:`firmware_host.display.face_file`)."""
    from firmware_host.display.face_file import FaceWriter

    writer = FaceWriter(table.journal)
    writer.rebuild()
    table.service.outputs.append(writer)
    return writer


def _both(first: Callable[[float], bool], then: Callable[[float], bool]) -> Callable[[float], bool]:
    """Wait for ``first``, then for ``then``, each within the timeout."""
    return lambda timeout: first(timeout) and then(timeout)


#: How much lower the web face child's priority is than the service's (``nice``, and its autogroup's)
#: while it starts; once it serves, every thread of it and its autogroup at nice 19 (``--yield-cpu``,
#: :func:`firmware_host.cli.webface.yield_cpu`): a flooded web face leaves the loop 98.5% of a core
#: they both want (deploy/systemd/tablehost-web.service: ``Nice=19``, ``CPUWeight=1``).
WEB_FACE_NICE = 10
#: Where the web face may run (``tablehost run --web-face``).
WEB_FACE_MODES = ("child", "external", "thread")


def control_socket_path(journal_path: Path) -> Path:
    """The control socket's default path: beside the journal (a path too long for a Unix socket,
    in a private temporary directory instead)."""
    from firmware_host.web.control import MAX_PATH

    beside = journal_path.absolute().with_name(journal_path.name + ".ctl")
    if len(os.fsencode(beside)) <= MAX_PATH:
        return beside
    import tempfile

    return Path(tempfile.mkdtemp(prefix="tablehost-")) / "control.sock"  # made 0700, for this user only


def _counted(table: Table) -> TableMetrics:
    """The table's metrics, counted by a step observer of the service (``prometheus_client`` is
    imported only with an address for ``/metrics``)."""
    from firmware_host.metrics.table import TableMetrics

    counted = TableMetrics(table.profile.table_id, table.profile.game, __version__)
    counted.watch_journal(table.journal.path)
    counted.watch_face_file(lambda: table.face.failures if table.face is not None else 0)  # made after this
    feed = table.feed
    if feed is not None:
        journal = table.journal
        counted.watch_feed(
            lambda: max(0, journal.last_seq - feed.acked.journal_seq), lambda: feed.acked.seq, lambda: feed.taken.seq
        )
    table.service.observer = counted
    return counted


def _feed(
    profile: TableProfile,
    journal: Journal,
    stream: TextIO,
    panel: TablePanel | None,
    emit: Callable[[DeviceEvent], None],
) -> tuple[FeedPublisher | None, Any]:
    """The floor feed's publisher and the panel the lamp output drives (see :func:`build_feed`);
    without ``[feed]`` there is none, and no MQTT client (paho) is imported."""
    if profile.feed is None:
        return None, panel
    from firmware_host.wiring.feed import build_feed

    return build_feed(profile, journal, stream, panel, emit)


def _table_meta(profile: TableProfile, journal: Journal, seed: int) -> dict[str, Any]:
    """The journal's ``table`` meta: which table, profile, seed and first version (written on first
    use; a later segment carries it in its opening checkpoint)."""
    first = recorded_table_meta(journal)
    if first is None:
        first = {
            "table_id": profile.table_id,
            "game": profile.game,
            "profile": str(profile.path),
            "seed": seed,
            "version": __version__,
        }
        journal.append_meta(TABLE_META, first)
        return first
    if first.get("table_id") != profile.table_id:
        raise TablehostError(f"journal belongs to table {first.get('table_id')!r}, not {profile.table_id!r}")
    if first.get("seed") != seed:
        log.warning("journal was started with seed %s; continuing with it (not %s)", first.get("seed"), seed)
    return first


def recorded_table_meta(journal: Journal) -> dict[str, Any] | None:
    """The journal's ``table`` meta as recorded: in its first segment, or in this segment's opening checkpoint."""
    first = journal.first_meta(TABLE_META)
    if first is None and journal.first_record.seq > 1:
        first = journal.first_record.data.get(TABLE_META)
    return first


def _journal_directory(journal_path: Path) -> None:
    """The journal's directory, made durably if it is missing.

    :raises JournalError: it cannot be made (a read-only disk).
    """
    try:
        durable.make_directories(journal_path.parent)
    except OSError as exc:
        why = exc.strerror or exc
        raise JournalError(f"journal {journal_path}: cannot make the directory {journal_path.parent}: {why}") from exc


def _resume_points(profile: TableProfile, service: Service, journal: Journal) -> ResumePoints:
    """The simulated devices' points: the recovered checkpoint's, advanced by the steps after it."""
    start = service.recovered_from
    if start is not None:
        return points_after(profile, start.data.get("devices"), journal.steps(after_seq=start.seq))
    steps = journal.steps() if journal.first_record.seq == 1 else steps_of(segments.records(journal.path))
    return points_after(profile, None, steps)


def _panel(profile: TableProfile, emit: Callable[[DeviceEvent], None]) -> TablePanel | None:
    gpio = profile.gpio
    if not (gpio.buttons or gpio.lamp or gpio.lid is not None):
        return None
    lid = gpio.lid if gpio.lid_source == "gpio" else None
    return TablePanel(
        emit, gpio.buttons, gpio.lamp, gpio.buzzer, lid, pin_factory(gpio.pin_factory), button_event=DealerCommand
    )


def _presser(panel: TablePanel | None, emit: Callable[[DeviceEvent], None]) -> Callable[[str], None]:
    """Press a dealer button: its mock GPIO pin when it has one, else the console."""

    def press(name: str) -> None:
        if panel is not None and panel.simulated and name in panel.buttons:
            pin: Any = panel.buttons[name].pin
            pin.drive_low()
            pin.drive_high()
        else:
            emit(DealerCommand(device="console", command=name))

    return press
