"""Who may scrape ``/metrics`` and what each sees (issue 29 item 3, N2), against the real uvicorn:
off loopback a scraper's credentials (HTTP Basic over TLS, a users file), and the game-protection
counts for surveillance's scraper only, never in the public registry."""

from __future__ import annotations

import base64
import http.client
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from firmware_host.metrics.server import ROLES, MetricsServer, metrics_app
from firmware_host.metrics.table import TableMetrics
from firmware_host.tables.decisions import ADVANTAGE_PLAY, ADVANTAGE_WINDOW, Decision
from firmware_host.web.server import WebError, WebServer
from firmware_host.web.users import Users, add_user, read_users

PROM, SURV = ("prom", "prom-secret-1"), ("sue", "sue-secret-22")


def _alerts(metrics: TableMetrics) -> None:
    """A device alert and two protection alerts, as a step's decisions."""
    decisions = [
        Decision("alert", {"code": "device-lost", "severity": "fault"}, 1),
        Decision("alert", {"code": ADVANTAGE_WINDOW, "severity": "attention", "ev": "3/250"}, 1),
        Decision("alert", {"code": ADVANTAGE_PLAY, "severity": "attention"}, 1),
    ]
    metrics(object(), decisions, 0.001)  # type: ignore[arg-type]


def _scrape(port: int, user: tuple[str, str] | None = None) -> tuple[int, str, dict[str, str]]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Authorization": "Basic " + base64.b64encode(":".join(user).encode()).decode()} if user else {}
    try:
        connection.request("GET", "/metrics", headers=headers)
        answer = connection.getresponse()
        return answer.status, answer.read().decode(), {k.lower(): v for k, v in answer.getheaders()}
    finally:
        connection.close()


def _codes(text: str) -> set[str]:
    return {
        s.labels.get("code", "")
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if "alerts" in s.name
    }


@pytest.fixture
def scrapers(tmp_path: Path) -> Users:
    for (name, secret), role in ((PROM, "monitoring"), (SURV, "surveillance")):
        add_user(tmp_path / "metrics.users", name, role, secret, ROLES, n=2**10)
    return Users(read_users(tmp_path / "metrics.users", ROLES))


@pytest.fixture
def served(scrapers: Users) -> Iterator[int]:
    """A table's metrics as off loopback: every scrape needs a scraper's credentials."""
    metrics = TableMetrics("BAC-01", "baccarat", "0")
    _alerts(metrics)
    server = WebServer(
        metrics_app(metrics.registry, protection=metrics.protection, scrapers=scrapers, require_login=True),
        "127.0.0.1",
        0,
    )
    server.start()
    try:
        yield server.port
    finally:
        server.stop()


def test_the_protection_counts_are_never_in_the_public_registry() -> None:
    metrics = TableMetrics("BAC-01", "baccarat", "0")
    _alerts(metrics)
    public = {s.labels.get("code") for f in metrics.registry.collect() for s in f.samples if "alerts" in s.name}
    protection = {s.labels.get("code") for f in metrics.protection.collect() for s in f.samples if "alerts" in s.name}
    assert public == {"device-lost"}
    assert protection == {ADVANTAGE_WINDOW, ADVANTAGE_PLAY}


def test_off_loopback_a_scrape_needs_credentials_and_only_surveillance_reads_the_protection_counts(served: int) -> None:
    status, _, headers = _scrape(served)
    assert status == 401 and headers["www-authenticate"].startswith("Basic")
    assert _scrape(served, ("prom", "wrong-secret"))[0] == 401
    assert _scrape(served, ("nobody", PROM[1]))[0] == 401
    status, text, _ = _scrape(served, PROM)  # the casino's monitoring: no protection counts
    assert status == 200 and _codes(text) == {"device-lost"} and "tablehost_protection" not in text
    status, text, _ = _scrape(served, SURV)  # surveillance's own scraper
    assert status == 200 and _codes(text) == {"device-lost", ADVANTAGE_WINDOW, ADVANTAGE_PLAY}
    assert "tablehost_protection_alerts_total" in text


def test_on_loopback_without_credentials_the_public_registry_alone(scrapers: Users) -> None:
    metrics = TableMetrics("BAC-01", "baccarat", "0")
    _alerts(metrics)
    server = WebServer(metrics_app(metrics.registry, protection=metrics.protection, scrapers=scrapers), "127.0.0.1", 0)
    server.start()
    try:
        status, text, _ = _scrape(server.port)
        assert status == 200 and _codes(text) == {"device-lost"}
        assert _codes(_scrape(server.port, SURV)[1]) == {"device-lost", ADVANTAGE_WINDOW, ADVANTAGE_PLAY}
    finally:
        server.stop()


def test_wrong_scrapes_meet_the_lockout(served: int) -> None:
    for _ in range(5):
        assert _scrape(served, ("prom", "wrong-secret"))[0] == 401
    assert _scrape(served, PROM)[0] == 429  # this address locked for a minute (no name is locked)
    assert _scrape(served, SURV)[0] == 429  # the address


def test_off_loopback_needs_tls_and_a_users_file(tmp_path: Path) -> None:
    from firmware_host.metrics.table import TableMetrics as Metrics

    registry = Metrics("BAC-01", "baccarat", "0").registry
    tls = (tmp_path / "m.crt", tmp_path / "m.key")
    with pytest.raises(WebError, match="needs TLS certificate and key files .* and a users file of its scrapers"):
        MetricsServer(registry, "0.0.0.0:0")
    with pytest.raises(
        WebError, match=r"needs a users file of its scrapers \(\[metrics\] users_file; --metrics-users\)"
    ):
        MetricsServer(registry, "0.0.0.0:0", tls)


def test_a_scraper_with_a_client_certificate_is_served_and_one_without_never_gets_past_tls(
    tmp_path: Path, scrapers: Users
) -> None:
    import ssl

    from bench.feed.broker import make_ca, make_client_cert

    tls = make_ca(tmp_path / "tls")
    client = make_client_cert(tls, tmp_path / "client", "prometheus")
    metrics = TableMetrics("BAC-01", "baccarat", "0")
    _alerts(metrics)
    server = MetricsServer(
        metrics.registry,
        "127.0.0.1:0",
        (tls.cert, tls.key),
        protection=metrics.protection,
        users_file=tmp_path / "metrics.users",
        client_ca=tls.ca,
    )
    server.start()
    try:

        def scrape(with_cert: bool, user: tuple[str, str] | None = None) -> tuple[int, str]:
            context = ssl.create_default_context(cafile=str(tls.ca))
            if with_cert:
                context.load_cert_chain(str(client.cert), str(client.key))
            connection = http.client.HTTPSConnection("127.0.0.1", server.port, timeout=10, context=context)
            headers = {"Authorization": "Basic " + base64.b64encode(":".join(user).encode()).decode()} if user else {}
            try:
                connection.request("GET", "/metrics", headers=headers)
                answer = connection.getresponse()
                return answer.status, answer.read().decode()
            finally:
                connection.close()

        with pytest.raises((ssl.SSLError, ConnectionError, OSError)):
            scrape(False)  # no certificate: the handshake fails, no app is reached
        status, text = scrape(True)
        assert status == 200 and _codes(text) == {"device-lost"}  # a certificate: monitoring's view
        status, text = scrape(True, SURV)
        assert status == 200 and ADVANTAGE_WINDOW in _codes(text)  # and surveillance's login: the protection counts
    finally:
        server.stop()
    # off loopback a client CA stands for the users file; neither: refused
    MetricsServer(metrics.registry, "0.0.0.0:0", (tls.cert, tls.key), client_ca=tls.ca).stop()
