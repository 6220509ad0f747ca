"""deploy/mosquitto: the floor broker's configuration is one Mosquitto runs, with the shipped ACL."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from bench.feed.broker import MOSQUITTO, TlsFiles, free_port, make_ca, make_client_cert
from tests.support.floor_run import collecting
from tests.support.paths import REPO

DEPLOY = REPO / "deploy" / "mosquitto"
#: The commented lines of tablehost.conf that turn on mutual TLS (deploy/mosquitto/README.md).
MUTUAL_TLS = ("#require_certificate true", "#use_identity_as_username true")


@contextlib.contextmanager
def deployed(
    tmp_path: Path, tls: TlsFiles, uncomment: tuple[str, ...] = ()
) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """Mosquitto running tablehost.conf, its paths moved under ``tmp_path``, on a free port,
    with the ``uncomment`` lines uncommented: ``(the process, its port)``."""
    passwd = tmp_path / "passwd"
    subprocess.run(["mosquitto_passwd", "-c", "-b", str(passwd), "tablehost-floor", "x"], check=True)
    text, port = (DEPLOY / "tablehost.conf").read_text(), free_port()
    moved = {
        "listener 8883": f"listener {port} 127.0.0.1",
        "/etc/mosquitto/certs/floor-ca.crt": str(tls.ca),
        "/etc/mosquitto/certs/broker.crt": str(tls.cert),
        "/etc/mosquitto/certs/broker.key": str(tls.key),
        "/etc/mosquitto/tablehost.passwd": str(passwd),
        "/etc/mosquitto/tablehost.acl": str(DEPLOY / "acl"),
        "/var/lib/mosquitto/": f"{tmp_path}/",
        **{line: line[1:] for line in uncomment},
    }
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
        yield broker, port
    finally:
        broker.terminate()
        broker.wait(10)


def test_the_floor_brokers_config_starts_mosquitto(tmp_path: Path) -> None:
    with deployed(tmp_path, make_ca(tmp_path / "pki")) as (broker, _):
        assert broker.poll() is None


def test_the_floor_brokers_config_with_client_certificates_takes_the_cn_as_the_user(tmp_path: Path) -> None:
    tls = make_ca(tmp_path / "pki")
    floor = make_client_cert(tls, tmp_path / "certs", "tablehost-floor")
    with deployed(tmp_path, tls, MUTUAL_TLS) as (broker, port):
        url = f"mqtts://127.0.0.1:{port}"
        # no username, no password: the certificate's CN is the collector's user, and the ACL lets it subscribe
        with collecting(tmp_path / "floor.sqlite", url, ca_file=tls.ca, cert_file=floor.cert, key_file=floor.key):
            pass
        broker.terminate()
        _, log = broker.communicate(timeout=10)
    assert "u'tablehost-floor'" in log


def test_the_acl_confines_each_table_to_its_own_id_and_lets_the_collector_only_read() -> None:
    rules = [line.split() for line in (DEPLOY / "acl").read_text().splitlines() if line and not line.startswith("#")]
    assert ["pattern", "write", "tablehost/%u/events"] in rules and ["pattern", "write", "tablehost/%u/status"] in rules
    assert ["pattern", "read", "tablehost/%u/ack"] in rules  # a table reads only its own acknowledgement
    collector = rules[rules.index(["user", "tablehost-floor"]) + 1 :]
    assert collector == [
        ["topic", "read", "tablehost/+/events"],
        ["topic", "read", "tablehost/+/status"],
        # only the collector writes one; it reads them back to check them against its store (the
        # store's epoch: docs/feed.md)
        ["topic", "readwrite", "tablehost/+/ack"],
    ]


def test_the_broker_drops_a_packet_the_collector_would_refuse_unread() -> None:
    # Issue 20: the collector refuses payloads over MAX_PAYLOAD; the broker's max_packet_size
    # disconnects the sender first, leaving room only for the topic and the packet's headers.
    from firmware_host.feed.schema import MAX_PAYLOAD

    text = (DEPLOY / "tablehost.conf").read_text()
    limit = next(int(line.split()[1]) for line in text.splitlines() if line.startswith("max_packet_size "))
    assert MAX_PAYLOAD < limit <= MAX_PAYLOAD + 4096
