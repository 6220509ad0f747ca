"""The server: loopback unless told otherwise; off loopback TLS and credentials (issue 14 item 5)."""

from __future__ import annotations

import base64
import shutil
import ssl
import subprocess
from pathlib import Path

import httpx2
import pytest
from starlette.testclient import TestClient

from firmware_host.display.app import build_app
from firmware_host.display.hub import DisplayHub
from firmware_host.display.server import DisplayError, DisplayServer, check_listen, is_loopback, parse_listen
from firmware_host.display.view import BaccaratView
from firmware_host.web.pins import Credentials, write_pin_file


def test_listen_addresses() -> None:
    assert parse_listen("127.0.0.1:8080") == ("127.0.0.1", 8080)
    assert parse_listen("[::1]:0") == ("::1", 0)
    for bad in ("8080", "host:", ":80", "h:99999", "h:x"):
        with pytest.raises(DisplayError, match="expected HOST:PORT"):
            parse_listen(bad)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.20") and not is_loopback("table.local")


def test_off_loopback_needs_tls_and_pin_files(tmp_path: Path) -> None:
    check_listen("127.0.0.1", None, False)  # the kiosk on the Pi: nothing needed
    with pytest.raises(
        DisplayError,
        match=r"needs TLS certificate and key files \(\[display\] tls_cert, tls_key\) "
        r"and PIN files",
    ):
        check_listen("0.0.0.0", None, False)
    with pytest.raises(DisplayError, match="needs PIN files"):
        check_listen("0.0.0.0", (tmp_path / "c", tmp_path / "k"), False)
    with pytest.raises(DisplayError, match="TLS file .*/c: no such file"):
        check_listen("0.0.0.0", (tmp_path / "c", tmp_path / "k"), True)


def login_app(tmp_path: Path) -> TestClient:
    write_pin_file(tmp_path / "d.pin", "1357", n=2**10)
    hub = DisplayHub(BaccaratView("T"), lambda: 0)
    app = build_app(
        hub,
        "baccarat",
        lambda event: None,
        Credentials({"dealer": tmp_path / "d.pin"}),
        lambda data: None,
        require_login=True,
    )
    return TestClient(app)


def basic(pin: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"dealer:{pin}".encode()).decode()}


def test_off_loopback_the_dealer_pages_need_credentials_the_board_does_not(tmp_path: Path) -> None:
    client = login_app(tmp_path)
    for path in ("/", "/api/state", "/api/stream?view=dealer"):
        answer = client.get(path)
        assert answer.status_code == 401 and answer.headers["www-authenticate"].startswith("Basic")
        assert client.get(path, headers=basic("0000")).status_code == 401
    assert client.get("/api/state", headers=basic("1357")).json()["table"] == "T"
    for path in ("/scoreboard", "/api/roads", "/api/scoreboard", "/static/display.css"):
        assert client.get(path).status_code == 200


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl (make deps installs it)")
def test_the_display_serves_tls(tmp_path: Path) -> None:
    cert, key = tmp_path / "display.crt", tmp_path / "display.key"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )
    hub = DisplayHub(BaccaratView("T"), lambda: 0)
    server = DisplayServer(
        build_app(hub, "baccarat", lambda event: None, None, lambda data: None), "127.0.0.1", 0, (cert, key)
    )
    server.start()
    try:
        assert server.url.startswith("https://127.0.0.1:")
        answer = httpx2.get(server.url + "/api/roads", verify=ssl.create_default_context(cafile=str(cert)))
        assert answer.json()["rounds"] == 0
        with pytest.raises(httpx2.HTTPError):
            httpx2.get(server.url.replace("https", "http") + "/api/roads")
    finally:
        server.stop()


def test_a_taken_port_is_named() -> None:
    hub = DisplayHub(BaccaratView("T"), lambda: 0)
    app = build_app(hub, "baccarat", lambda event: None, None, lambda data: None)
    first = DisplayServer(app, "127.0.0.1", 0)
    try:
        with pytest.raises(DisplayError, match=f"cannot listen on 127.0.0.1:{first.port}"):
            second = DisplayServer(app, "127.0.0.1", first.port)
            second.stop()
    finally:
        first.stop()


def test_without_pin_files_the_display_takes_no_action(tmp_path: Path) -> None:
    hub = DisplayHub(BaccaratView("T"), lambda: 0)
    client = TestClient(build_app(hub, "baccarat", lambda event: None, None, lambda data: None))
    answer = client.post("/api/action", json={"command": "reveal", "pin": "1234"})
    assert answer.status_code == 403 and "no PIN files are configured" in answer.json()["error"]
    assert client.get("/api/house_way?tiles=6-6,4-4,1-5,3-4").status_code == 404
