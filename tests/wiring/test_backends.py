"""Device backends found by name (``wiring.backends.BACKENDS``), imported only when a table uses one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host.config.profiles import DeviceSlot, load_table
from firmware_host.errors import ProfileError, TablehostError
from firmware_host.wiring.backends import BACKENDS, DeviceContext, Port, backend, backend_name, open_port
from firmware_host.wiring.devices import build_device
from sim.devices.shoe import SimShoe
from sim.devices.shuffler import SimulatedShuffler
from tests.support.paths import REPO

TABLES = REPO / "hardware-profiles" / "tables"
DEVICES = REPO / "hardware-profiles" / "devices"


def slot_at(tmp_path: Path, port: str, model: str = "tablehost-ts8-2026", game: str = "baccarat") -> DeviceSlot:
    """The one device of a table whose device (a shoe by default) is at ``port``."""
    kind = "shaker" if game == "paigow" else "shoe"
    table = tmp_path / "t.toml"
    table.write_text(f'[table]\nid = "T-1"\ngame = "{game}"\n\n[devices.{kind}]\nmodel = "{model}"\nport = "{port}"\n')
    return load_table(table, DEVICES).devices[kind]


def test_every_backend_is_registered_by_name_and_resolves_to_a_factory() -> None:
    assert set(BACKENDS) == {"serial", "usb", "sim", "replay"}
    for name in BACKENDS:
        assert callable(backend(name)), name


def test_an_unknown_backend_is_an_error_naming_the_known_ones() -> None:
    with pytest.raises(TablehostError, match=r"no device backend 'can' \(known: serial, usb, sim, replay\)"):
        backend("can")


@pytest.mark.parametrize(
    ("port", "name"),
    [
        ("sim", "sim"),
        ("/dev/serial/by-id/usb-tablehost_TS-8_TS8-000123-if00-port0", "serial"),
        ("socket://127.0.0.1:9", "serial"),
    ],
)
def test_the_port_names_the_backend(tmp_path: Path, port: str, name: str) -> None:
    slot = slot_at(tmp_path, port)
    assert (slot.backend, backend_name(slot, DeviceContext(tmp_path, 0))) == (name, name)
    assert slot.simulated == (name == "sim")


def test_a_usb_device_is_found_by_its_ids_or_simulated() -> None:
    shuffler = load_table(TABLES / "sim-baccarat-shuffler.toml").devices["shuffler"]
    assert shuffler.backend == "sim"
    real = DeviceSlot(shuffler.name, shuffler.model, "usb", {})
    assert real.backend == "usb" and open_port(real, DeviceContext(Path("t.toml"), 0)) == Port()


def test_a_serial_device_cannot_take_the_usb_backend(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match='devices.shoe.port: a serial device takes a serial URL or "sim"'):
        slot_at(tmp_path, "usb")


def test_a_serial_port_is_the_url_the_driver_opens(tmp_path: Path) -> None:
    slot = slot_at(tmp_path, "socket://127.0.0.1:9")
    assert open_port(slot, DeviceContext(tmp_path, 0)) == Port(url="socket://127.0.0.1:9")


def test_the_sim_backend_builds_the_simulator_the_driver_reaches(tmp_path: Path) -> None:
    parts = build_device(slot_at(tmp_path, "sim"), lambda event: None, DeviceContext(tmp_path, seed=3, decks=6))
    try:
        assert isinstance(parts.sim, SimShoe) and (parts.sim.seed, parts.sim.decks) == (3, 6)
        assert parts.driver.url == parts.sim.url
    finally:
        parts.sim.stop()


def test_the_sim_backend_gives_a_shuffler_as_the_drivers_pyusb_backend() -> None:
    slot = load_table(TABLES / "sim-baccarat-shuffler.toml").devices["shuffler"]
    port = open_port(slot, DeviceContext(Path("t.toml"), 0))
    assert isinstance(port.sim, SimulatedShuffler) and port.usb is port.sim and port.url == ""


def test_the_replay_backend_needs_a_capture_that_holds_the_device(tmp_path: Path) -> None:
    with pytest.raises(TablehostError, match="device shoe: the replay backend needs a capture"):
        backend("replay")(slot_at(tmp_path, "sim"), DeviceContext(tmp_path, 0))


def test_a_table_of_real_devices_imports_no_simulator(tmp_path: Path) -> None:
    # Backends are imported by name when used: building a real shoe's driver loads no sim device.
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from firmware_host.config.profiles import load_table\n"
        "from firmware_host.wiring.devices import DeviceContext, build_device\n"
        f"profile = load_table(Path({str(TABLES / 'pi-baccarat-example.toml')!r}))\n"
        "context = DeviceContext(profile.path, 0)\n"
        "parts = [build_device(slot, lambda e: None, context) for slot in profile.devices.values()]\n"
        "assert all(p.sim is None for p in parts)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('sim.devices.', 'sim.dealers')))))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert json.loads(out.stdout) == ["sim.devices.resume"]
