"""Hardware profiles: device models and tables, read from TOML with :mod:`tomllib`.

A device model lives in ``hardware-profiles/devices/<vendor>-<model>.toml`` and says how
to talk to one kind of device (transport, baud rate, wire dialect, timeouts, USB ids) and
which identities and firmware versions are approved. A table lives in
``hardware-profiles/tables/<table>.toml`` and says which game it runs with which
rules-submission options, which device model sits on which port, and the GPIO pins.
Supporting new hardware means adding a file, not code.

Every problem is reported as one :class:`~firmware_host.errors.ProfileError` naming the
file, the dotted key and what is wrong. Only :mod:`firmware_host.wiring` turns profiles
into objects.
"""

from __future__ import annotations

import dataclasses
import datetime
import tomllib
from pathlib import Path
from typing import Any

from drivers import dialects as shoe_dialects
from drivers.timing import Timing
from firmware_host.config.display import DisplayConfig, display_config
from firmware_host.config.feed import FeedConfig, feed_config
from firmware_host.config.metrics import MetricsConfig, metrics_config
from firmware_host.config.protection import ProtectionConfig, protection_config
from firmware_host.config.sim import dealer_choices, sim_options
from firmware_host.errors import ProfileError, RulesError
from firmware_host.rules.clock import seconds_ns
from firmware_host.rules.devices import ApprovedIdentities
from firmware_host.rules.gaming_day import DEFAULT_STARTS, DEFAULT_ZONE, GamingDay
from firmware_host.text import escaped, problem

__all__ = [
    "ClockConfig",
    "Section",
    "DeviceModel",
    "DeviceSlot",
    "GpioConfig",
    "TableProfile",
    "load_device_model",
    "load_table",
    "check_text",
    "TEXT_LONGEST",
]

#: Device kinds a table can hold, and the game each belongs to (None: either game).
DEVICE_KINDS = {"shoe": "baccarat", "shaker": "paigow", "shuffler": "baccarat"}
GAMES = ("baccarat", "paigow")
#: Values of ``port`` that name a device backend of the wiring (found by name:
#: :data:`firmware_host.wiring.backends.BACKENDS`): ``usb``, a USB device found by its ids,
#: and ``sim``, a simulator. Any other port is a serial URL, for the ``serial`` backend.
NAMED_PORTS = ("usb", "sim")
#: Dealer buttons a table may wire to GPIO pins (PRODUCT.md "GPIO").
BUTTONS = ("no_more_bets", "reveal", "card_disclosed", "void_round", "acknowledge", "new_dice")
LAMP_COLOURS = ("green", "amber", "red")


class Section:
    """A TOML table with its file and dotted path, whose getters raise :class:`ProfileError`.

    :param path: the profile file the table was read from.
    :param data: the table's contents.
    :param prefix: dotted key of this table inside the file (``""`` for the top level).
    """

    def __init__(self, path: Path, data: dict[str, Any], prefix: str = "") -> None:
        self.path, self.data, self.prefix = path, data, prefix
        self._read: set[str] = set()

    def key(self, name: str) -> str:
        """Dotted key of ``name`` inside this section, for error messages."""
        return f"{self.prefix}.{name}" if self.prefix else name

    def error(self, name: str, why: str) -> ProfileError:
        """A :class:`ProfileError` for key ``name`` of this section."""
        return ProfileError(self.path, self.key(name), why)

    def _get(self, name: str, kinds: tuple[type, ...], kind_name: str, default: Any) -> Any:
        self._read.add(name)
        if name not in self.data:
            if default is _REQUIRED:
                raise self.error(name, f"missing (expected {kind_name})")
            return default
        value = self.data[name]
        # bool is an int subclass in Python, but never a valid number in a profile.
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise self.error(name, f"expected {kind_name}, got {type(value).__name__} {value!r}")
        return value

    def string(self, name: str, default: Any = None, choices: tuple[str, ...] | None = None) -> Any:
        """A string value; ``default=REQUIRED`` makes it mandatory; ``choices`` restricts it."""
        value = self._get(name, (str,), "a string", default)
        if choices is not None and value is not None and value not in choices:
            raise self.error(name, f"{value!r} is not one of {', '.join(choices)}")
        return value

    def integer(self, name: str, default: Any = None, low: int | None = None, high: int | None = None) -> Any:
        """An integer value within ``[low, high]`` when given."""
        value = self._get(name, (int,), "an integer", default)
        if value is not None and ((low is not None and value < low) or (high is not None and value > high)):
            raise self.error(name, f"{value} is outside {low}..{high}")
        return value

    def number(self, name: str, default: Any = None, positive: bool = False) -> Any:
        """A float or integer value, as float."""
        value = self._get(name, (int, float), "a number", default)
        if value is not None and positive and value <= 0:
            raise self.error(name, f"must be positive, got {value}")
        return None if value is None else float(value)

    def time_of_day(self, name: str) -> datetime.time | None:
        """A time of day written ``"HH:MM"`` (None when absent)."""
        text = self.string(name, None)
        if text is None:
            return None
        try:
            return datetime.time.fromisoformat(text)
        except ValueError:
            raise self.error(name, f"{text!r} is not a time of day (HH:MM)") from None

    def boolean(self, name: str, default: Any = None) -> Any:
        """A boolean value."""
        return self._get(name, (bool,), "true or false", default)

    def strings(self, name: str, default: Any = ()) -> tuple[str, ...]:
        """A list of strings, as a tuple."""
        value = self._get(name, (list,), "a list of strings", default)
        if any(not isinstance(v, str) for v in value):
            raise self.error(name, "every entry must be a string")
        return tuple(value)

    def table(self, name: str, required: bool = False) -> Section:
        """A sub-table (an empty one when absent and not ``required``)."""
        value = self._get(name, (dict,), "a table", _REQUIRED if required else {})
        return Section(self.path, value, self.key(name))

    def tables(self) -> dict[str, Section]:
        """Every sub-table of this section by name."""
        out = {}
        for name, value in self.data.items():
            self._read.add(name)
            if not isinstance(value, dict):
                raise self.error(name, f"expected a table, got {type(value).__name__}")
            out[name] = Section(self.path, value, self.key(name))
        return out

    def reject_unknown(self) -> None:
        """Raise for the first key of this section that no getter asked for (a typo, usually)."""
        for name in self.data:
            if name not in self._read:
                raise self.error(name, "unknown key")


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


_REQUIRED: Any = _Required()
REQUIRED: Any = _REQUIRED


#: Longest text of a profile's value or key (a path, a name, an address: far less).
TEXT_LONGEST = 1024


def check_text(path: Path, document: dict[str, Any]) -> dict[str, Any]:
    """``document`` when every key and text in it passes the text policy (:mod:`firmware_host.text`:
    at most :data:`TEXT_LONGEST` characters, no control or bidirectional character: TOML's
    ``\\u001b`` escapes make them), walked without recursion.

    :raises ProfileError: naming the dotted key (escaped) and why.
    """
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        where, value = stack.pop()
        texts = [(where, value)] if isinstance(value, str) else []
        if isinstance(value, dict):
            for name, item in value.items():
                key = f"{where}.{name}" if where else str(name)
                texts.append((key, name))
                stack.append((key, item))
        elif isinstance(value, list):
            stack.extend((f"{where}[{number}]", item) for number, item in enumerate(value))
        for key, text in texts:
            if (why := problem(text, TEXT_LONGEST)) is not None:
                raise ProfileError(path, escaped(key)[:200], f"the text {why}")
    return document


def _read_toml(path: Path) -> Section:
    try:
        with path.open("rb") as handle:
            return Section(path, check_text(path, tomllib.load(handle)))
    except FileNotFoundError:
        raise ProfileError(path, "(file)", "no such file") from None
    except OSError as exc:
        raise ProfileError(path, "(file)", f"cannot be read: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(path, "(syntax)", f"not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ProfileError(path, "(syntax)", f"not valid TOML: not UTF-8 text (byte {exc.start})") from None


@dataclasses.dataclass(frozen=True)
class DeviceModel:
    """One device model (``hardware-profiles/devices/<name>.toml``).

    :param timeouts: its ``[timeouts]``, as the timing its driver keeps.
    """

    name: str
    path: Path
    kind: str
    vendor: str
    model: str
    transport: str
    dialect: str
    baudrate: int
    timeouts: Timing
    approved: ApprovedIdentities
    usb_vendor_id: int | None = None
    usb_product_id: int | None = None


def _timeouts(section: Section) -> Timing:
    base = Timing()
    out = Timing(
        ack=section.number("ack_s", base.ack, positive=True),
        retries=section.integer("retries", base.retries, low=0, high=100),
        heartbeat=section.number("heartbeat_s", base.heartbeat, positive=True),
        handshake=section.number("handshake_s", base.handshake, positive=True),
        reconnect_initial=section.number("reconnect_initial_s", base.reconnect_initial, positive=True),
        reconnect_max=section.number("reconnect_max_s", base.reconnect_max, positive=True),
    )
    section.reject_unknown()
    return out


#: Wire dialects each kind of device speaks but the shoe, whose are :mod:`drivers.dialects`' registry.
DIALECTS = {"shaker": ("framed",), "shuffler": ("usb-framed",)}


def dialects_of(kind: str) -> tuple[str, ...]:
    """The wire dialects a device of ``kind`` may speak."""
    return shoe_dialects.names() if kind == "shoe" else DIALECTS[kind]


def load_device_model(path: Path) -> DeviceModel:
    """Read and validate one device model file."""
    top = _read_toml(path)
    device = top.table("device", required=True)
    kind = device.string("kind", REQUIRED, choices=tuple(DEVICE_KINDS))
    transport = device.string("transport", REQUIRED, choices=("serial", "usb"))
    model = DeviceModel(
        name=path.stem,
        path=path,
        kind=kind,
        vendor=device.string("vendor", REQUIRED),
        model=device.string("model", REQUIRED),
        transport=transport,
        dialect=device.string("dialect", REQUIRED, choices=dialects_of(kind)),
        baudrate=device.integer("baudrate", 115200, low=1200, high=4_000_000),
        timeouts=_timeouts(top.table("timeouts")),
        approved=_approved(top.table("approved", required=True)),
        usb_vendor_id=device.integer("usb_vendor_id", None, low=0, high=0xFFFF),
        usb_product_id=device.integer("usb_product_id", None, low=0, high=0xFFFF),
    )
    if transport == "usb" and (model.usb_vendor_id is None or model.usb_product_id is None):
        raise device.error("usb_vendor_id", "a USB device needs usb_vendor_id and usb_product_id")
    device.reject_unknown()
    top.reject_unknown()
    return model


def _approved(section: Section) -> ApprovedIdentities:
    approved = ApprovedIdentities(
        models=section.strings("models", REQUIRED),
        firmware=section.strings("firmware", REQUIRED),
        serials=section.strings("serials", ()),
    )
    if not approved.models:
        raise section.error("models", "list at least one approved model")
    if not approved.firmware:
        raise section.error("firmware", "list at least one approved firmware version")
    section.reject_unknown()
    return approved


@dataclasses.dataclass(frozen=True)
class DeviceSlot:
    """One device at a table: its model, where it is plugged in, and (if simulated) the sim's options.

    :param port: a serial URL for :func:`serial.serial_for_url` (``/dev/serial/by-id/...``,
        ``socket://host:port``), or a backend's name (:data:`NAMED_PORTS`): ``usb`` for a USB
        device found by its ids, ``sim`` for a simulator.
    :param sim: the ``[devices.<name>.sim]`` table (seed offset, faults) of a simulated device.
    """

    name: str
    model: DeviceModel
    port: str
    sim: dict[str, Any]

    @property
    def backend(self) -> str:
        """The name of the device backend the port names (``serial`` for a serial URL)."""
        return self.port if self.port in NAMED_PORTS else "serial"

    @property
    def simulated(self) -> bool:
        """Whether the wiring starts a simulator for this device."""
        return self.backend == "sim"


@dataclasses.dataclass(frozen=True)
class GpioConfig:
    """GPIO pins (BCM numbers) and the pin factory (``mock`` for simulated tables, ``lgpio`` on a Pi)."""

    pin_factory: str | None
    buttons: dict[str, int]
    lamp: dict[str, int]
    buzzer: int | None
    lid: int | None
    lid_source: str


#: The live segment's default bound in MB (``[journal] rotate_mb``): about 1,300 Baccarat rounds
#: (900 at a shuffler table, whose checkpoints are larger), which ``run`` verifies at every start
#: in about 0.2 s of CPU here (bench/bench_restart.py --flat).
ROTATE_MB = 8.0


@dataclasses.dataclass(frozen=True)
class JournalUpkeep:
    """``[journal]``: when the service checkpoints and rotates its journal (docs/recovery.md).

    :param checkpoint_every_steps: a checkpoint at the first moment between rounds after this
        many steps (``checkpoint_every_steps``; 0: none).
    :param rotate_bytes: a new segment once the file is this large (``rotate_mb``, default
        :data:`ROTATE_MB`; ``0``: never). The bound keeps a restart flat: ``run`` verifies the
        whole live segment at every start (docs/recovery.md, "What a restart costs").
    :param gaming_day_starts: a new segment at each gaming day's start, local time
        (``gaming_day_starts = "06:00"``).
    """

    checkpoint_every_steps: int = 1000
    rotate_bytes: int | None = int(ROTATE_MB * 1_000_000)
    gaming_day_starts: datetime.time | None = None


def _upkeep(section: Section) -> JournalUpkeep:
    every = section.integer("checkpoint_every_steps", JournalUpkeep.checkpoint_every_steps, low=0)
    megabytes = section.number("rotate_mb", ROTATE_MB)
    if megabytes < 0:
        raise section.error("rotate_mb", f"must be 0 (never) or positive, got {megabytes:g}")
    day_start = section.time_of_day("gaming_day_starts")
    return JournalUpkeep(every, int(megabytes * 1_000_000) or None, day_start)


@dataclasses.dataclass(frozen=True)
class ClockConfig:
    """``[clock]``: the table's clocks (docs/rules-interpretations/clock.md).

    :param step_tolerance_s: a change of the wall-minus-monotonic offset beyond this (and beyond
        the kernel's 500 ppm slew in the time between) is journaled as a ``clock-step`` alert.
    """

    step_tolerance_s: float = 2.0

    @property
    def step_tolerance_ns(self) -> int:
        """:attr:`step_tolerance_s` in whole nanoseconds."""
        return seconds_ns(self.step_tolerance_s)


def _gaming_day(section: Section, upkeep: JournalUpkeep, protection: ProtectionConfig) -> GamingDay:
    """``[gaming_day]`` (``starts = "06:00"``, ``time_zone = "UTC"``): the one gaming day of the table.

    ``[journal] gaming_day_starts`` and ``[protection] day_starts`` are its older spellings: each
    gives the start when ``[gaming_day]`` does not, and must agree with it when both are given.
    """
    own = section.time_of_day("starts")
    zone_name = section.string("time_zone", DEFAULT_ZONE)
    section.reject_unknown()
    starts = DEFAULT_STARTS if own is None else own
    older = [("journal.gaming_day_starts", upkeep.gaming_day_starts)]
    if protection.detection is not None:
        older.append(("protection.day_starts", protection.detection.gaming_day.starts))
    for key, given in older:
        if given is None or given == DEFAULT_STARTS:
            continue
        if own is not None and given != own:
            raise section.error("starts", f"{own:%H:%M} differs from {key} = {given:%H:%M}: give it once")
        starts = given
    try:
        return GamingDay(starts, zone_name)
    except RulesError as exc:
        raise section.error("time_zone" if "zone" in str(exc) else "starts", str(exc)) from None


def _clock(section: Section) -> ClockConfig:
    config = ClockConfig(section.number("step_tolerance_s", ClockConfig.step_tolerance_s, positive=True))
    if not config.step_tolerance_s <= 3600:  # NaN too
        raise section.error("step_tolerance_s", f"{config.step_tolerance_s}: a number of seconds up to 3600")
    section.reject_unknown()
    return config


@dataclasses.dataclass(frozen=True)
class SimPlayers:
    """The simulated players (``[sim.players]`` of a simulated Baccarat table).

    :param counters: seats whose players count the exposed cards: they bet ``10 x minimum``
        on each offered wager whose EV is positive, and sit the round out otherwise.
    :param minimum: the table minimum in cents (default: ``[display] limits.min``, else 2500).
    """

    counters: tuple[int, ...] = ()
    minimum: int = 2500


def _sim_players(section: Section, display: DisplayConfig) -> SimPlayers:
    value = section._get("counters", (list,), "a list of seat numbers", [])
    if any(isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= 7 for seat in value):
        raise section.error("counters", f"{value!r}: every entry must be a seat number 1 to 7 (§ 541.2(a))")
    if len(set(value)) != len(value):
        raise section.error("counters", f"{value!r}: a seat is named twice")
    default = display.limits["min"] if display.limits and display.limits["min"] > 0 else SimPlayers.minimum
    minimum = section.integer("minimum", default, low=1, high=10_000_000)
    section.reject_unknown()
    return SimPlayers(tuple(value), minimum)


@dataclasses.dataclass(frozen=True)
class TableProfile:
    """One table (``hardware-profiles/tables/<name>.toml``).

    :param decks: Baccarat: decks in a shoe, or in each shuffler batch (§ 541.3).
    :param rules: the raw ``[rules]`` table; the game's rules module validates it.
    :param dealer: the simulated Pai Gow dealer's choices, ``[sim.dealer]``, as probabilities
        (:func:`~firmware_host.config.sim.dealer_choices`).
    """

    name: str
    path: Path
    table_id: str
    game: str
    decks: int
    rules: Section
    devices: dict[str, DeviceSlot]
    gpio: GpioConfig
    journal_path: Path | None
    hmac_key_file: Path | None
    tick_seconds: float
    dealer: dict[str, float]
    journal_upkeep: JournalUpkeep = JournalUpkeep()
    #: The ``[display]`` table (the web display is off unless it or ``--http`` gives an address).
    display: DisplayConfig = DisplayConfig()
    #: The floor feed (``[feed]``, docs/feed.md); None: off.
    feed: FeedConfig | None = None
    #: The ``[metrics]`` table (Prometheus is off unless it or ``--metrics`` gives an address).
    metrics: MetricsConfig = MetricsConfig()
    #: Game protection (``[protection]``, docs/protection.md).
    protection: ProtectionConfig = ProtectionConfig()
    #: The simulated players (``[sim.players]``).
    players: SimPlayers = SimPlayers()
    #: The table's clocks (``[clock]``).
    clock: ClockConfig = ClockConfig()
    #: The gaming day (``[gaming_day]``): rotation, reports, the table-day, the floor.
    gaming_day: GamingDay = GamingDay()

    @property
    def simulated(self) -> bool:
        """Whether every device of the table is simulated."""
        return all(slot.simulated for slot in self.devices.values())


def _gpio(section: Section, game: str) -> GpioConfig:
    buttons_section = section.table("buttons")
    buttons = {name: buttons_section.integer(name, None, low=0, high=27) for name in BUTTONS}
    buttons_section.reject_unknown()
    lamp_section = section.table("lamp")
    lamp = {name: lamp_section.integer(name, None, low=0, high=27) for name in LAMP_COLOURS}
    lamp_section.reject_unknown()
    config = GpioConfig(
        pin_factory=section.string("pin_factory", None, choices=("mock", "lgpio", "rpigpio", "native")),
        buttons={k: v for k, v in buttons.items() if v is not None},
        lamp={k: v for k, v in lamp.items() if v is not None},
        buzzer=section.integer("buzzer", None, low=0, high=27),
        lid=section.integer("lid", None, low=0, high=27),
        lid_source=section.string("lid_source", "shaker", choices=("shaker", "gpio")),
    )
    if config.lid_source == "gpio" and config.lid is None:
        raise section.error("lid", 'lid_source = "gpio" needs the lid reed switch pin')
    if config.lid_source == "gpio" and game != "paigow":
        raise section.error("lid_source", "only a Pai Gow table has a shaker lid")
    pins = [*config.buttons.values(), *config.lamp.values(), config.buzzer, config.lid]
    used = [p for p in pins if p is not None]
    if len(used) != len(set(used)):
        duplicate = next(p for p in used if used.count(p) > 1)
        raise section.error("(pins)", f"GPIO{duplicate} is assigned twice")
    section.reject_unknown()
    return config


def load_table(path: Path | str, devices_dir: Path | None = None) -> TableProfile:
    """Read and validate a table profile and every device model it names.

    :param devices_dir: where device models live; default ``../devices`` beside the table file.
    """
    path = Path(path)
    devices_dir = devices_dir or path.resolve().parent.parent / "devices"
    top = _read_toml(path)
    table = top.table("table", required=True)
    game = table.string("game", REQUIRED, choices=GAMES)
    slots: dict[str, DeviceSlot] = {}
    devices_section = top.table("devices", required=True)
    for name, slot in devices_section.tables().items():
        model_name = slot.string("model", REQUIRED)
        model_path = devices_dir / f"{model_name}.toml"
        if not model_path.is_file():
            raise slot.error("model", f"no device model file {model_path}")
        model = load_device_model(model_path)
        if DEVICE_KINDS[model.kind] != game:
            raise slot.error("model", f"a {model.kind} does not belong at a {game} table")
        port = slot.string("port", REQUIRED)
        if model.transport == "usb" and port not in NAMED_PORTS:
            raise slot.error("port", 'a USB device takes port = "usb" (found by its ids) or "sim"')
        if model.transport == "serial" and port == "usb":
            raise slot.error("port", 'a serial device takes a serial URL or "sim", not "usb"')
        options = sim_options(path, slot.key("sim"), model.kind, slot.table("sim").data)
        slot.reject_unknown()
        slots[name] = DeviceSlot(name=name, model=model, port=port, sim=options)
    kinds = [slot.model.kind for slot in slots.values()]
    required_kind = "shoe" if game == "baccarat" else "shaker"
    if kinds.count(required_kind) != 1:
        raise devices_section.error("(devices)", f"a {game} table needs exactly one {required_kind}")
    journal = top.table("journal")
    journal_path = journal.string("path", None)
    key_file = journal.string("hmac_key_file", None)
    upkeep = _upkeep(journal)
    journal.reject_unknown()
    service = top.table("service")
    tick = service.number("tick_s", 1.0, positive=True)
    service.reject_unknown()
    sim = top.table("sim")
    dealer = dealer_choices(path, game, sim.table("dealer").data)
    display = display_config(top.table("display"), path)
    players = _sim_players(sim.table("players"), display)
    if players.counters and game != "baccarat":
        raise sim.error("players.counters", "card counters play at a Baccarat table")
    sim.reject_unknown()
    profile = TableProfile(
        name=path.stem,
        path=path,
        table_id=table.string("id", REQUIRED),
        game=game,
        decks=table.integer("decks", 8, low=1, high=8),
        rules=top.table("rules"),
        devices=slots,
        gpio=_gpio(top.table("gpio"), game),
        journal_path=_relative(path, journal_path),
        hmac_key_file=_relative(path, key_file),
        tick_seconds=tick,
        dealer=dealer,
        journal_upkeep=upkeep,
        display=display,
        feed=feed_config(top.table("feed"), _relative),
        metrics=metrics_config(top.table("metrics"), path),
        protection=protection_config(top.table("protection")),
        players=players,
        clock=_clock(top.table("clock")),
    )
    profile = dataclasses.replace(profile, gaming_day=_gaming_day(top.table("gaming_day"), upkeep, profile.protection))
    table.reject_unknown()
    top.reject_unknown()
    return profile


def _relative(profile_path: Path, value: str | None) -> Path | None:
    """A path from a profile: absolute as written, relative to the profile's folder otherwise."""
    if value is None:
        return None
    candidate = Path(value)
    return candidate if candidate.is_absolute() else (profile_path.resolve().parent / candidate).resolve()
