"""A plain ``tablehost run`` imports only what is configured (GUIDE rule 6, issue 23).

The simulated tables of ``make run`` and ``make run-paigow`` play a few rounds in a fresh
interpreter, through the real ``tablehost`` entry point, without ``--http`` and without
``--feed`` (and their profiles have no ``[display] listen`` and no ``[feed]``); then the
interpreter's :data:`sys.modules` is read. Neither the web display (Starlette, uvicorn, anyio,
asyncio) nor the floor feed (paho) may be in it, and a table imports only its own game's rules
and controller.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host.config.profiles import load_table
from tests.support.paths import REPO

#: Runs ``main(argv)`` of the ``tablehost`` command line, then writes sys.modules to the file named first.
PROBE = """
import json, sys
from firmware_host.cli import main
out = sys.argv.pop(1)
status = main(sys.argv[1:])
with open(out, "w") as f:
    json.dump({"status": status, "modules": sorted(sys.modules)}, f)
"""

#: What is off unless configured: the web display's server and the floor feed's client.
OPTIONAL = (
    "starlette",
    "uvicorn",
    "anyio",
    "asyncio",
    "h11",
    "paho",
    "firmware_host.display",
    "firmware_host.web",
    "prometheus_client",
    "firmware_host.metrics",
    "firmware_host.feed",
    "firmware_host.floor",
    "firmware_host.wiring.display",
    "firmware_host.wiring.feed",
    "firmware_host.wiring.webface",
    "firmware_host.wiring.control",
    "firmware_host.wiring.child",
    "usb",  # pyusb: a USB device's (the shuffler's), never a serial table's; drivers.capture loaded it
)
#: What faces the network, which the service's process never imports: its web face (issue 30) is
#: a process of its own.
WEB_FACE = (
    "starlette",
    "uvicorn",
    "h11",
    "firmware_host.display.app",
    "firmware_host.display.follow",
    "firmware_host.web.server",
    "firmware_host.web.guard",
    "firmware_host.web.pins",
    "firmware_host.wiring.display",
    "firmware_host.wiring.webface",
)
BACCARAT = (
    "firmware_host.rules.baccarat",
    "firmware_host.tables.baccarat",
    "firmware_host.rules.shoe_audit",
    "firmware_host.rules.shuffler",
    "sim.dealers.baccarat",
    "firmware_host.wiring.baccarat",
)
PAIGOW = (
    "firmware_host.rules.paigow_tiles",
    "firmware_host.rules.paigow_dice",
    "firmware_host.tables.paigow",
    "sim.dealers.paigow",
    "firmware_host.wiring.paigow",
)


def run_modules(profile: str | Path, tmp_path: Path, *options: str) -> set[str]:
    """The modules a 3-round ``tablehost run --profile profile [options]`` has imported when it ends."""
    out = tmp_path / "modules.json"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            PROBE,
            str(out),
            "run",
            "--profile",
            str(REPO / profile),
            "--rounds",
            "3",
            "--seed",
            "1",
            "--journal",
            str(tmp_path / "journal.sqlite"),
            *options,
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["status"] == 0
    return set(report["modules"])


def under(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in packages))


def test_the_packages_named_exist() -> None:
    """The names checked are real: a misspelt one would never be found imported."""
    for name in (*OPTIONAL, *WEB_FACE, *BACCARAT, *PAIGOW):
        assert importlib.util.find_spec(name) is not None, name


def test_a_plain_baccarat_run_imports_neither_display_nor_feed_nor_pai_gow(tmp_path: Path) -> None:
    modules = run_modules("hardware-profiles/tables/sim-baccarat.toml", tmp_path)
    assert under(modules, ("firmware_host.tables.baccarat.controller", "sim.dealers.baccarat")) != []
    assert under(modules, OPTIONAL) == []
    assert under(modules, PAIGOW) == []


def test_a_plain_paigow_run_imports_neither_display_nor_feed_nor_baccarat(tmp_path: Path) -> None:
    modules = run_modules("hardware-profiles/tables/sim-paigow.toml", tmp_path)
    assert under(modules, ("firmware_host.tables.paigow.controller", "sim.dealers.paigow")) != []
    assert under(modules, OPTIONAL) == []
    assert under(modules, BACCARAT) == []


def test_a_run_with_its_display_imports_no_web_server_into_the_service(tmp_path: Path) -> None:
    # Issue 30: the web face (uvicorn, Starlette, the pages, the PIN checks) runs in a child process.
    tables = tmp_path / "tables"
    tables.mkdir()
    profile = tables / "sim.toml"
    text = (REPO / "hardware-profiles" / "tables" / "sim-baccarat.toml").read_text()
    profile.write_text("\n".join(line for line in text.splitlines() if "_pin_file" not in line))
    shutil.copytree(REPO / "hardware-profiles" / "devices", tmp_path / "devices")
    modules = run_modules(profile, tmp_path, "--http", "127.0.0.1:0")
    assert "firmware_host.wiring.child" in modules  # the web face was started, as a child
    assert under(modules, WEB_FACE) == []


@pytest.mark.parametrize("profile", ["sim-baccarat.toml", "sim-paigow.toml"])
def test_the_profiles_of_make_run_configure_no_display_and_no_feed(profile: str) -> None:
    """The runs above are plain only if these profiles leave the display and the feed off."""
    table = load_table(REPO / "hardware-profiles" / "tables" / profile)
    assert (table.display.listen, table.feed) == (None, None)
