"""Mutual TLS: a Mosquitto that requires client certificates (``require_certificate true``), and one
that also takes the certificate's CN as the user name (``use_identity_as_username true``), so the
ACL of deploy/mosquitto applies to the certificate, whatever the profile's ``username`` says."""

from __future__ import annotations

import logging
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from bench.feed.broker import Broker, ClientCert, TlsFiles, make_ca, make_client_cert, write_secret
from bench.floor.tables import floor_seq, journal_rounds, run_table, start_table, table_profile
from firmware_host.cli import main
from firmware_host.feed.broker import BrokerError, BrokerSettings, client
from firmware_host.floor.collector import Collector
from firmware_host.floor.store import FloorStore
from tests.support.floor_run import collecting, wait_for, wait_for_the_floor

TABLE, OTHER, FLOOR = "SIM-BAC-1", "SIM-BAC-2", "tablehost-floor"
#: The passwords of the broker that checks a password as well as the certificate.
USERS = {TABLE: "table-one-secret", FLOOR: "floor-secret"}


@pytest.fixture
def pki(tmp_path: Path) -> TlsFiles:
    """The floor's CA and the broker's certificate."""
    return make_ca(tmp_path / "pki")


@pytest.fixture
def identity(tmp_path: Path, pki: TlsFiles) -> Iterator[Broker]:
    """A broker that requires a certificate and takes its CN as the user name (no passwords)."""
    with Broker(tmp_path / "broker", tls=pki, require_certificate=True, use_identity_as_username=True) as broker:
        yield broker


def feed_section(broker: Broker, cert: ClientCert | None, extra: str = "") -> str:
    """A ``[feed]`` section: the broker, its CA and the client certificate (None: none)."""
    section = f'broker = "{broker.url}"\nca_file = "{broker.tls.ca}"\nwarn_after_s = 0.2\n{extra}'
    return section + (f'cert_file = "{cert.cert}"\nkey_file = "{cert.key}"\n' if cert else "")


def floor_settings(broker: Broker, cert: ClientCert, password: Path | None = None) -> dict[str, object]:
    """The collector's settings with its own certificate (and password, if the broker wants one)."""
    login = {"username": FLOOR, "password_file": password} if password else {}
    return {"ca_file": broker.tls.ca, "cert_file": cert.cert, "key_file": cert.key, **login}


@pytest.mark.parametrize("login", ["certificate as identity", "certificate and password"])
def test_a_table_with_its_client_certificate_publishes_every_round_over_mutual_tls(
    tmp_path: Path, pki: TlsFiles, login: str
) -> None:
    by_identity = login == "certificate as identity"
    table, floor = (make_client_cert(pki, tmp_path / "certs", cn) for cn in (TABLE, FLOOR))
    db, journal = tmp_path / "floor.sqlite", tmp_path / "journal.sqlite"
    with Broker(
        tmp_path / "broker",
        tls=pki,
        require_certificate=True,
        use_identity_as_username=by_identity,
        users=None if by_identity else USERS,
    ) as broker:
        if by_identity:  # no username, no password: the certificate says who the table is
            table_login, floor_password = "", None
        else:
            password = write_secret(tmp_path / "table.pw", USERS[TABLE])
            table_login = f'username = "{TABLE}"\npassword_file = "{password}"\n'
            floor_password = write_secret(tmp_path / "floor.pw", USERS[FLOOR])
        profile = table_profile(tmp_path, feed=feed_section(broker, table, table_login))
        with collecting(db, broker.url, **floor_settings(broker, floor, floor_password)):
            run_table(profile, journal, 4)
            wait_for_the_floor(db, journal, profile, broker.url, 4)
        log = broker.log.read_text()
    assert journal_rounds(journal) == 4 and floor_seq(db) > 4
    # Mosquitto logs each client's user: the table's is its certificate's CN, the ACL's %u
    assert f"as tablehost-{TABLE} (p5, c1, k15, u'{TABLE}')" in log and f"u'{FLOOR}')" in log


def run_until_said(profile: Path, journal: Path, text: str) -> list[subprocess.CompletedProcess[str]]:
    """Run the table to 3 rounds until its log says ``text``: a stop gives the feed 3 s to
    publish, and on a slow machine the broker's answer may come later, so the table starts
    again (its rounds played, it only publishes), at most twice more."""
    runs = [run_table(profile, journal, 3)]
    while text not in runs[-1].stderr and len(runs) < 3:
        runs.append(run_table(profile, journal, 3))
    return runs


@pytest.mark.parametrize("case", ["no client certificate", "a certificate signed by another CA"])
def test_a_table_the_broker_refuses_for_its_certificate_plays_on_and_says_why(
    tmp_path: Path, pki: TlsFiles, identity: Broker, case: str
) -> None:
    rogue = case == "a certificate signed by another CA"
    cert = make_client_cert(make_ca(tmp_path / "rogue"), tmp_path / "rogue", TABLE) if rogue else None
    profile = table_profile(tmp_path, feed=feed_section(identity, cert))
    db, journal = tmp_path / "floor.sqlite", tmp_path / "journal.sqlite"
    said = f"broker {identity.url} closed the connection before its CONNACK"
    with collecting(db, identity.url, **floor_settings(identity, make_client_cert(pki, tmp_path / "certs", FLOOR))):
        runs = run_until_said(profile, journal, said)
    done = runs[-1]
    assert journal_rounds(journal) == 3 and "WARNING: floor feed down" in runs[0].stdout
    assert said in done.stderr
    assert (
        f"does this to one it does not accept: is {cert.cert} signed by the broker's CA"
        if rogue
        else "does this to a client without one (cert_file, key_file)"
    ) in done.stderr
    assert floor_seq(db) == 0
    assert ("certificate verify failed" if rogue else "peer did not return a certificate") in identity.log.read_text()


def test_a_collector_without_its_certificate_is_refused_and_says_why(
    tmp_path: Path, identity: Broker, caplog: pytest.LogCaptureFixture
) -> None:
    store = FloorStore(tmp_path / "floor.sqlite")
    collector = Collector(store, BrokerSettings(identity.url, ca_file=identity.tls.ca), None)
    caplog.set_level(logging.WARNING, "tablehost.floor")
    thread = threading.Thread(target=collector.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: "closed the connection before its CONNACK" in caplog.text, what="the collector's warning")
    finally:
        collector.stop()
        thread.join(10)
        store.close()
    assert "a client without one (cert_file, key_file)" in caplog.text and not collector.subscribed.is_set()


def play_until_logged(profile: Path, journal: Path, said: str, shown: str, timeout: float = 60) -> tuple[str, str]:
    """Play until the table's log says ``said`` and its dealer view shows ``shown``, then stop it
    as systemd does: the broker's answer is awaited, not a fixed number of rounds (on a loaded
    machine it may come after any number). Returns the table's stdout and stderr."""
    table = start_table(profile, journal, 1_000_000, pace=0.02)  # a dealer's pace, not a flood of rounds
    outputs: dict[str, list[str]] = {"out": [], "err": []}
    seen = {"out": threading.Event(), "err": threading.Event()}

    def read(name: str, stream: IO[str], text: str) -> None:
        for line in stream:
            outputs[name].append(line)
            if text in line:
                seen[name].set()

    readers = [
        threading.Thread(target=read, args=("out", table.stdout, shown), daemon=True),
        threading.Thread(target=read, args=("err", table.stderr, said), daemon=True),
    ]
    for reader in readers:
        reader.start()
    try:
        wait_for(lambda: all(event.is_set() for event in seen.values()) or table.poll() is not None, timeout, said)
    except AssertionError as exc:
        heard = [name for name, event in seen.items() if event.is_set()]
        raise AssertionError(f"{exc} (heard on: {heard}); stderr: {''.join(outputs['err'])[-1500:]}") from None
    finally:
        table.send_signal(signal.SIGTERM)
        table.wait(60)
        for reader in readers:
            reader.join(10)
    assert table.returncode == 0, "".join(outputs["err"])[-3000:]
    return "".join(outputs["out"]), "".join(outputs["err"])


def test_a_certificate_with_another_tables_cn_cannot_publish_to_this_tables_topic(
    tmp_path: Path, pki: TlsFiles, identity: Broker
) -> None:
    certs = tmp_path / "certs"
    # SIM-BAC-1's profile with SIM-BAC-2's certificate; its username says SIM-BAC-1, to no avail
    profile = table_profile(
        tmp_path, feed=feed_section(identity, make_client_cert(pki, certs, OTHER), f'username = "{TABLE}"\n')
    )
    db = tmp_path / "floor.sqlite"
    refused = f"the broker refused seq 1 on tablehost/{TABLE}/events (reason code 0x87"  # Not authorized
    with collecting(db, identity.url, **floor_settings(identity, make_client_cert(pki, certs, FLOOR))):
        out, err = play_until_logged(profile, tmp_path / "journal.sqlite", refused, "WARNING: floor feed down")
    assert "WARNING: floor feed down" in out
    assert refused in err
    assert floor_seq(db, TABLE) == 0 and floor_seq(db, OTHER) == 0
    assert f"u'{OTHER}')" in identity.log.read_text() and f"u'{TABLE}')" not in identity.log.read_text()


def test_a_table_whose_client_key_others_can_read_does_not_start(
    tmp_path: Path, pki: TlsFiles, identity: Broker
) -> None:
    cert = make_client_cert(pki, tmp_path / "certs", TABLE)
    cert.key.chmod(0o644)
    table = start_table(table_profile(tmp_path, feed=feed_section(identity, cert)), tmp_path / "journal.sqlite", 1)
    _, err = table.communicate(timeout=60)
    assert table.returncode == 2
    assert f"client key file {cert.key}: mode 0644 lets others read it; chmod 0400 {cert.key}" in err


def _encrypted(key: Path) -> Path:
    encrypted = key.with_name("encrypted.key")
    subprocess.run(
        ["openssl", "ec", "-in", str(key), "-aes256", "-passout", "pass:x", "-out", str(encrypted)],
        check=True,
        capture_output=True,
    )
    return encrypted


@pytest.mark.parametrize(
    "case",
    [
        "certificate without key",
        "key without certificate",
        "missing certificate",
        "missing CA",
        "CA not a certificate",
        "another certificate's key",
        "certificate not PEM",
        "encrypted key",
    ],
)
def test_bad_tls_files_are_clear_errors_naming_the_file(tmp_path: Path, pki: TlsFiles, case: str) -> None:
    cert = make_client_cert(pki, tmp_path / "certs", TABLE)
    other = make_client_cert(pki, tmp_path / "certs", OTHER)
    junk = write_secret(tmp_path / "junk.pem", "not PEM at all")
    missing = tmp_path / "missing.pem"
    ca, cert_file, key_file, why = {
        "certificate without key": (pki.ca, cert.cert, None, "a client certificate needs its key file"),
        "key without certificate": (pki.ca, None, cert.key, "and a key its certificate file"),
        "missing certificate": (pki.ca, missing, cert.key, f"client certificate file {missing}: cannot read: No such"),
        "missing CA": (missing, cert.cert, cert.key, f"CA file {missing}: cannot read: No such file"),
        "CA not a certificate": (junk, cert.cert, cert.key, f"CA file {junk}: no PEM certificate in it"),
        "another certificate's key": (
            pki.ca,
            cert.cert,
            other.key,
            f"client key file {other.key}: not the key of the client certificate",
        ),
        "certificate not PEM": (
            pki.ca,
            junk,
            cert.key,
            f"client certificate file {junk}, key file {cert.key}: cannot load them",
        ),
        "encrypted key": (pki.ca, cert.cert, _encrypted(cert.key), "encrypted.key: encrypted with a pass phrase"),
    }[case]
    with pytest.raises(BrokerError) as raised:
        client(BrokerSettings("mqtts://127.0.0.1:1", ca_file=ca, cert_file=cert_file, key_file=key_file), "x")
    assert why in str(raised.value)


def test_the_collector_with_a_certificate_and_no_key_stops_before_it_opens_the_floor(
    tmp_path: Path, pki: TlsFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    cert = make_client_cert(pki, tmp_path / "certs", FLOOR)
    db = tmp_path / "floor.sqlite"
    assert (
        main(
            [
                "floor",
                "--broker",
                "mqtts://127.0.0.1:1",
                "--db",
                str(db),
                "--ca-file",
                str(pki.ca),
                "--cert-file",
                str(cert.cert),
                "--unsigned",
            ]
        )
        == 2
    )
    assert "a client certificate needs its key file" in capsys.readouterr().err and not db.exists()
