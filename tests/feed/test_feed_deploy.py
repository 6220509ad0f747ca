"""deploy/mosquitto: the floor broker's configuration is one Mosquitto runs, with the shipped ACL."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

from bench.feed.broker import MOSQUITTO, free_port, make_ca
from tests.support.paths import REPO

DEPLOY = REPO / "deploy" / "mosquitto"


def test_the_floor_brokers_config_starts_mosquitto(tmp_path: Path) -> None:
    tls = make_ca(tmp_path / "pki")
    passwd = tmp_path / "passwd"
    subprocess.run(["mosquitto_passwd", "-c", "-b", str(passwd), "tablehost-floor", "x"], check=True)
    text, port = (DEPLOY / "tablehost.conf").read_text(), free_port()
    moved = {"listener 8883": f"listener {port} 127.0.0.1", "/etc/mosquitto/certs/floor-ca.crt": str(tls.ca),
             "/etc/mosquitto/certs/broker.crt": str(tls.cert), "/etc/mosquitto/certs/broker.key": str(tls.key),
             "/etc/mosquitto/tablehost.passwd": str(passwd), "/etc/mosquitto/tablehost.acl": str(DEPLOY / "acl"),
             "/var/lib/mosquitto/": f"{tmp_path}/"}
    for old, new in moved.items():
        assert old in text, old
        text = text.replace(old, new)
    (tmp_path / "mosquitto.conf").write_text(text + "user root\n")
    broker = subprocess.Popen([MOSQUITTO, "-c", str(tmp_path / "mosquitto.conf")], stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert broker.poll() is None, broker.stderr.read()
                assert time.monotonic() < deadline, "mosquitto did not listen"
                time.sleep(0.05)
    finally:
        broker.terminate()
        broker.wait(10)


def test_the_acl_confines_each_table_to_its_own_id_and_lets_the_collector_only_read() -> None:
    rules = [line.split() for line in (DEPLOY / "acl").read_text().splitlines() if line and not line.startswith("#")]
    assert ["pattern", "write", "tablehost/%u/events"] in rules and ["pattern", "write", "tablehost/%u/status"] in rules
    collector = rules[rules.index(["user", "tablehost-floor"]) + 1:]
    assert collector == [["topic", "read", "tablehost/+/events"], ["topic", "read", "tablehost/+/status"]]
