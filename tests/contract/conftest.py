"""Contract tests' targets: the simulators by default; the devices of ``--hil-profile PATH``.

Each test takes one rig fixture (``shoe``, ``shaker``, ``shuffler``) and is run once per
target of that kind. Without ``--hil-profile`` the targets are the simulators (both shoe
dialects). With it, they are the profile's devices: a ``port = "sim"`` device is simulated,
any other is the real device on that port (``usb``: found by the model's USB ids). On a real
device, a test marked :func:`~tests.contract.bench.needs_person` is also marked ``manual``
and prompts the person at the bench; one marked :func:`~tests.contract.bench.sim_only` is skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.device import Device, Identity
from drivers.shaker import Shaker
from drivers.shoe import shoe_driver
from drivers.shuffler import ShufflerDriver
from firmware_host.config.profiles import load_table
from firmware_host.errors import ProfileError
from sim.devices.shaker import SimShaker
from sim.devices.shoe import CUT, SimShoe
from sim.devices.shuffler import SimulatedShuffler
from tests.contract.bench import Bench, Rig, Target

#: The simulated shoe's cards, in draw order (a card first, the cut card a few cards in).
SCRIPT = ["4S", "KD", "9H", CUT, "AC", "TD", "2C", "3D"]
#: What the ASCII shoe's driver takes from the profile when simulated without one.
ASCII_IDENTITY = Identity("ASCII-SHOE", "PROFILE-SN", "unknown")
#: CI's targets: every simulator.
SIM_TARGETS = [Target("shoe", "framed"), Target("shoe", "ascii"), Target("shaker", "framed"),
               Target("shuffler", "usb-framed")]  # fmt: skip


def _targets(config: pytest.Config, kind: str) -> list[Target]:
    path = config.getoption("--hil-profile")
    if not path:
        return [t for t in SIM_TARGETS if t.kind == kind]
    try:
        profile = load_table(Path(path))
    except ProfileError as exc:
        raise pytest.UsageError(f"--hil-profile: {exc}") from None
    return [Target(kind, slot.model.dialect, slot) for slot in profile.devices.values() if slot.model.kind == kind]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    for kind in ("shoe", "shaker", "shuffler"):
        if kind not in metafunc.fixturenames:
            continue
        params = []
        for target in _targets(metafunc.config, kind):
            marks: list[Any] = [pytest.mark.hil]
            if target.hardware and getattr(metafunc.function, "needs_person", False):
                marks.append(pytest.mark.manual)
            why = getattr(metafunc.function, "sim_only", None)
            if target.hardware and why:
                marks.append(pytest.mark.skip(reason=f"needs the simulator: {why}"))
            params.append(pytest.param(target, id=target.id, marks=marks))
        metafunc.parametrize(kind, params, indirect=True)


@pytest.fixture
def bench(request: pytest.FixtureRequest) -> Any:
    """A factory of :class:`Bench` whose prompts reach the terminal past pytest's capture."""
    capture = request.config.pluginmanager.getplugin("capturemanager")

    def prompt(instruction: str) -> None:
        with capture.global_and_fixture_disabled():
            print(f"\n[bench] {request.node.name}: {instruction}", flush=True)

    return lambda hardware: Bench(hardware, prompt)


def _start(rig: Rig) -> Iterator[Rig]:
    rig.driver.start()
    try:
        yield rig
    finally:
        rig.driver.stop()
        if rig.sim is not None and hasattr(rig.sim, "stop"):
            rig.sim.stop()


@pytest.fixture
def shoe(request: pytest.FixtureRequest, bench: Any) -> Iterator[Rig]:
    """The shoe under test, its driver started."""
    target: Target = request.param
    sim, url, identity = None, "", ASCII_IDENTITY
    if target.hardware:
        assert target.slot is not None
        url, model = target.slot.port, target.slot.model
        identity = Identity(model.model, "unverified", model.approved.firmware[0], verified=False)
    else:
        # A socket, so that an outage is a lost port for either dialect (the ASCII one has no heartbeat).
        sim = SimShoe(dialect=target.dialect, endpoint="socket", seed=7, cards=SCRIPT, ack_timeout=target.timing.ack)
        sim.start()
        url = sim.url

    def make(emit: Any, port: str = url, **options: Any) -> Device:
        options.setdefault("timing", target.timing)
        if target.slot is not None:
            options.setdefault("baudrate", target.slot.model.baudrate)
        return shoe_driver(target.dialect, "shoe", port, emit, identity=identity, **options)

    yield from _start(Rig(target, bench(target.hardware), make, sim))


@pytest.fixture
def shaker(request: pytest.FixtureRequest, bench: Any) -> Iterator[Rig]:
    """The dice shaker under test, its driver started."""
    target: Target = request.param
    sim, url = None, ""
    if target.hardware:
        assert target.slot is not None
        url = target.slot.port
    else:
        sim = SimShaker(endpoint="socket", seed=7, ack_timeout=target.timing.ack)
        sim.start()
        url = sim.url

    def make(emit: Any, port: str = url, **options: Any) -> Device:
        options.setdefault("timing", target.timing)
        return Shaker("shaker", port, emit, **options)

    yield from _start(Rig(target, bench(target.hardware), make, sim))


@pytest.fixture
def shuffler(request: pytest.FixtureRequest, bench: Any) -> Iterator[Rig]:
    """The shuffler under test, its driver started (libusb on hardware, the simulated bus in CI)."""
    target: Target = request.param
    sim = None if target.hardware else SimulatedShuffler(seed=7, decks_per_batch=1)
    ids: dict[str, int] = {}
    if target.slot is not None and target.slot.model.usb_vendor_id is not None:
        ids = {"vendor_id": target.slot.model.usb_vendor_id, "product_id": target.slot.model.usb_product_id or 0}

    def make(emit: Any, **options: Any) -> Device:
        options.setdefault("timing", target.timing)
        return ShufflerDriver("shuffler", emit, backend=sim, **{**ids, **options})

    yield from _start(Rig(target, bench(target.hardware), make, sim))
