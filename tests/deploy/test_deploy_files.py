"""The deployment files say what issue 6 requires of them, and the install script parses."""

from __future__ import annotations

import configparser
import re
import subprocess

from firmware_host.cli.webface import YIELD_NICE
from firmware_host.web.server import ConnectionLimits
from tests.support.paths import REPO

DEPLOY = REPO / "deploy"


def _unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # keep systemd's key case
    parser.read(DEPLOY / "systemd" / "tablehost.service")
    return parser


def test_unit_is_type_notify_with_watchdog_and_restart_on_failure() -> None:
    service = _unit()["Service"]
    assert service["Type"] == "notify"
    assert int(service["WatchdogSec"]) > 0
    assert service["Restart"] == "on-failure"
    assert service["RestartPreventExitStatus"] == "2"  # tablehost's "a person must look" status


def test_unit_runs_as_a_dedicated_user_in_a_writable_working_directory() -> None:
    service = _unit()["Service"]
    assert service["User"] == "tablehost"
    assert service["WorkingDirectory"] == "/var/lib/tablehost"
    assert service["StateDirectory"] == "tablehost"  # systemd creates it writable for the user


def test_unit_is_hardened() -> None:
    service = _unit()["Service"]
    for key, value in {
        "NoNewPrivileges": "yes",
        "ProtectSystem": "strict",
        "ProtectHome": "yes",
        "PrivateTmp": "yes",
        "DevicePolicy": "closed",
    }.items():
        assert service[key] == value, key


def test_unit_gives_descriptors_beyond_the_displays_connection_cap() -> None:
    # Issue 20: with systemd's default 1,024 descriptors a flood of streams took the dealer's own /api/state.
    limit = int(_unit()["Service"]["LimitNOFILE"])
    assert limit >= 4 * ConnectionLimits().max_connections and limit >= 4096


def test_udev_rules_give_the_tablehost_group_access_without_root() -> None:
    rules = "\n".join(p.read_text() for p in (DEPLOY / "udev").glob("*.rules"))
    device_lines = [line for line in rules.splitlines() if line and not line.startswith("#") and "idVendor" in line]
    assert device_lines
    assert all(re.search(r'GROUP="tablehost", MODE="0660"', line) for line in device_lines)


def test_install_script_is_valid_bash() -> None:
    subprocess.run(["bash", "-n", str(DEPLOY / "install.sh")], check=True)


def test_udev_rules_write_usb_ids_in_lower_case_as_sysfs_reports_them() -> None:
    # udev compares ATTRS{idVendor}/{idProduct} as strings; sysfs prints lower-case hex.
    rules = "\n".join(p.read_text() for p in (DEPLOY / "udev").glob("*.rules"))
    ids = re.findall(r'ATTRS?\{id(?:Vendor|Product)\}=="([^"]+)"', rules)
    assert ids and all(value == value.lower() for value in ids)


def test_unit_waits_for_a_synchronised_clock_for_a_bounded_time_and_may_read_it() -> None:
    unit = _unit()
    assert "time-sync.target" in unit["Unit"]["After"] and "time-sync.target" in unit["Unit"]["Wants"]
    assert "ProtectClock" not in unit["Service"]  # its seccomp filter denies adjtimex(2), even to read
    assert unit["Service"]["CapabilityBoundingSet"] == ""  # so the clock cannot be set (no CAP_SYS_TIME)
    drop_in = configparser.ConfigParser(interpolation=None)
    drop_in.read(DEPLOY / "systemd" / "systemd-time-wait-sync.service.d" / "tablehost.conf")
    assert 0 < int(drop_in["Service"]["TimeoutStartSec"]) <= 300
    install = (DEPLOY / "install.sh").read_text()
    assert "systemctl enable systemd-time-wait-sync.service" in install


def _web_unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str
    parser.read(DEPLOY / "systemd" / "tablehost-web.service")
    return parser


def test_the_web_face_runs_as_its_own_user_who_reads_the_face_file_and_not_the_journal_or_the_keys() -> None:
    # Issue 30: the network's process holds no key and cannot read the journal (nothing early).
    web, table = _web_unit()["Service"], _unit()["Service"]
    assert web["User"] == "tablehost-web" != table["User"]
    assert web["SupplementaryGroups"] == "tablehost"  # the face file's group: it reads, never writes
    assert "firmware_host.cli.webface" in web["ExecStart"] and "key" not in web["ExecStart"]
    assert "--cpus auto" in web["ExecStart"]  # off the CPU the service keeps (firmware_host.host.cpus)
    assert (
        "/etc/tablehost/journal.key" in web["InaccessiblePaths"] and "/etc/tablehost/feed" in web["InaccessiblePaths"]
    )
    assert web["Restart"] == "always" and web["CapabilityBoundingSet"] == ""
    assert "--web-face external --web-user tablehost-web" in table["ExecStart"]  # the service starts no child then
    assert table["UMask"] == "0077"  # the journal 0600: the service's alone (the face file is made 0640)
    install = (DEPLOY / "install.sh").read_text()
    assert "chmod 0600" in install and "chmod 0640" not in install  # an older journal made the service's alone
    assert "--groups tablehost" in install and "tablehost-web.service" in install
    assert "install -m 0400 -o tablehost -g tablehost" in install  # the journal key: the service user's alone


def test_the_web_face_unit_yields_the_cpu_to_the_tables() -> None:
    # Issue 30 item 4: the web face yields the CPU to the table's loop, as the child of `tablehost run`
    # does once it serves (--yield-cpu): nice 19 for its processes and, each unit being a cgroup of
    # its own weighed against the table's whatever its tasks' nice, the least cgroup weight (1
    # against the table's default 100); never an idle policy or cgroup, which would leave it no floor.
    web, table = _web_unit()["Service"], _unit()["Service"]
    assert web["CPUWeight"] == "1" and "CPUSchedulingPolicy" not in web
    assert "CPUSchedulingPolicy" not in table and "CPUWeight" not in table  # the table's: the defaults
    assert int(web["Nice"]) == YIELD_NICE == 19 > int(table.get("Nice", "0"))
