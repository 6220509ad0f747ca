"""The kiosk unit (issue 14 item 7): Chromium full screen on the Pi's own display, pointed at loopback."""

from __future__ import annotations

import configparser
import subprocess

from tests.support.paths import REPO

KIOSK = REPO / "deploy" / "kiosk"


def unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # keep systemd's key case
    parser.read(KIOSK / "tablehost-kiosk.service")
    return parser


def test_the_kiosk_runs_chromium_full_screen_at_the_local_display() -> None:
    service = unit()["Service"]
    command = service["ExecStart"].replace("\\\n", " ").split()
    assert command[0] == "/usr/bin/chromium" and "--kiosk" in command and command[-1] == "${KIOSK_URL}"
    for quiet in ("--noerrdialogs", "--disable-sync", "--disable-background-networking", "--disable-component-update"):
        assert quiet in command
    assert service["Environment"] == "KIOSK_URL=http://127.0.0.1:8080/"
    assert service["Restart"] == "always"
    assert "curl -sf" in service["ExecStartPre"]  # waits for tablehost before showing the page


def test_the_kiosk_starts_with_the_desktop_session() -> None:
    parsed = unit()
    assert parsed["Install"]["WantedBy"] == "graphical-session.target"
    assert parsed["Unit"]["PartOf"] == "graphical-session.target"


def test_the_install_script_parses_and_refuses_root() -> None:
    subprocess.run(["sh", "-n", str(KIOSK / "install-kiosk.sh")], check=True)
    text = (KIOSK / "install-kiosk.sh").read_text()
    assert 'if [ "$(id -u)" = 0 ]' in text and "systemctl --user enable --now tablehost-kiosk.service" in text
    assert 'listen = "127.0.0.1:8080"' in (KIOSK / "README.md").read_text()
