"""``tablehost run --http HOST:PORT``: the display served by the table service itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_host.cli import main
from tests.support.paths import REPO

PROFILE = REPO / "hardware-profiles" / "tables" / "sim-baccarat.toml"


def test_run_serves_the_display_and_says_where(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["run", "--profile", str(PROFILE), "--rounds", "2", "--seed", "3", "--quiet",
                   "--journal", str(tmp_path / "j.sqlite"), "--http", "127.0.0.1:0"])
    out = capsys.readouterr().out
    assert status == 0
    line = next(line for line in out.splitlines() if "dealer display" in line)
    assert line.startswith("[SIM-BAC-1] dealer display http://127.0.0.1:") and line.endswith("/scoreboard")


def test_an_address_off_loopback_needs_tls_and_pins(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["run", "--profile", str(PROFILE), "--rounds", "1", "--journal", str(tmp_path / "j.sqlite"),
                   "--http", "0.0.0.0:0"])
    assert status == 2
    assert "display on 0.0.0.0, which other machines can reach, needs TLS certificate" in capsys.readouterr().err


def test_a_pace_out_of_range_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--profile", str(PROFILE), "--pace", "9", "--journal", str(tmp_path / "j.sqlite")])
    assert "a pace is 0 to 4 seconds" in capsys.readouterr().err
