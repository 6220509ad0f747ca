"""The floor dashboard's systemd unit (issue 30 item 3): the dashboard alone, under a user of its own
that holds no key, restarted when it dies, hardened as the table's unit is."""

from __future__ import annotations

import configparser
import shlex

from tests.support.paths import REPO

UNIT = REPO / "deploy" / "systemd" / "tablehost-floor-dashboard.service"


def _service() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # keep systemd's key case
    parser.read(UNIT)
    return parser["Service"]


def test_the_unit_runs_the_dashboard_alone_with_no_key_and_no_broker() -> None:
    argv = shlex.split(_service()["ExecStart"])
    assert argv[1:4] == ["floor", "dashboard", "--db"]
    assert "--floor-key" not in argv and "--keys" not in argv and "--broker" not in argv
    assert "--http" in argv and "--http-dir" in argv


def test_the_unit_runs_under_its_own_user_that_cannot_reach_the_collectors_keys() -> None:
    service = _service()
    assert service["User"] == service["Group"] == "tablehost-dashboard"
    assert service["User"] not in ("root", "tablehost", "tablehost-floor")
    assert "/etc/tablehost-floor/collector" in service["InaccessiblePaths"]


def test_the_unit_comes_back_after_a_kill_and_is_hardened() -> None:
    service = _service()
    assert service["Restart"] == "always" and float(service["RestartSec"]) > 0
    for key, value in {
        "NoNewPrivileges": "yes",
        "ProtectSystem": "strict",
        "ProtectHome": "yes",
        "PrivateTmp": "yes",
        "PrivateDevices": "yes",
        "CapabilityBoundingSet": "",
    }.items():
        assert service[key] == value, key
