"""``tablehost run --http HOST:PORT``: the display served by the table service itself."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host.cli import main
from firmware_host.web.pins import write_pin_file
from tests.display.conftest import DEALER_PIN, TEST_SCRYPT_N
from tests.support.paths import REPO

PROFILE = REPO / "hardware-profiles" / "tables" / "sim-baccarat.toml"


def sim_profile(tmp_path: Path) -> Path:
    """The simulated Baccarat profile in ``tmp_path``, its PIN files there too."""
    shutil.copytree(REPO / "hardware-profiles" / "devices", tmp_path / "devices")
    (tmp_path / "tables").mkdir()
    write_pin_file(tmp_path / "d.pin", DEALER_PIN, n=TEST_SCRYPT_N)
    text = (
        PROFILE.read_text().replace("../../run/dealer.pin", "../d.pin").replace("../../run/supervisor.pin", "../d.pin")
    )
    (tmp_path / "tables" / "sim.toml").write_text(text)
    return tmp_path / "tables" / "sim.toml"


def test_run_serves_the_display_and_says_where(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = os.sched_getaffinity(0)
    status = main(
        [
            "run",
            "--profile",
            str(sim_profile(tmp_path)),
            "--rounds",
            "2",
            "--seed",
            "3",
            "--quiet",
            "--journal",
            str(tmp_path / "j.sqlite"),
            "--http",
            "127.0.0.1:0",
        ]
    )
    out = capsys.readouterr().out
    assert status == 0
    line = next(line for line in out.splitlines() if "dealer display" in line)
    assert line.startswith("[SIM-BAC-1] dealer display http://127.0.0.1:") and line.endswith("/scoreboard")
    assert os.sched_getaffinity(0) == before  # the core it kept while it served is given back


def run_one_round(profile: Path, tmp_path: Path, http: str) -> int:
    """``tablehost run`` of one round with the display on ``http``: its exit status."""
    return main(
        ["run", "--profile", str(profile), "--rounds", "1", "--journal", str(tmp_path / "j.sqlite"), "--http", http]
    )


def test_an_address_off_loopback_needs_tls_and_pins(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = run_one_round(PROFILE, tmp_path, "0.0.0.0:0")
    assert status == 2
    assert "display on 0.0.0.0, which other machines can reach, needs TLS certificate" in capsys.readouterr().err


def test_a_missing_pin_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile = sim_profile(tmp_path)
    (tmp_path / "d.pin").unlink()
    status = run_one_round(profile, tmp_path, "127.0.0.1:0")
    assert status == 2
    assert f"PIN file {tmp_path / 'd.pin'}: cannot read: No such file or directory" in capsys.readouterr().err


def test_a_pace_out_of_range_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--profile", str(PROFILE), "--pace", "9", "--journal", str(tmp_path / "j.sqlite")])
    assert "a pace is 0 to 4 seconds" in capsys.readouterr().err


def test_an_unusable_pin_file_is_refused_at_start_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 20: a PIN file that passed the format check but was unusable was found only at the first
    # wrong PIN, as an uncounted 500 (so the lockout never started).
    profile = sim_profile(tmp_path)
    (tmp_path / "d.pin").write_text(f"scrypt$1048576$8$1${'ab' * 16}${'cd' * 32}\n")
    status = run_one_round(profile, tmp_path, "127.0.0.1:0")
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1
    assert f"PIN file {tmp_path / 'd.pin'}: unusable scrypt cost N=1048576 r=8 p=1" in err


def test_an_external_web_face_is_not_started_and_an_unknown_web_user_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 30: under systemd the web face is a unit of its own (deploy/systemd/tablehost-web.service).
    profile = sim_profile(tmp_path)
    args = ["run", "--profile", str(profile), "--rounds", "1", "--journal", str(tmp_path / "j.sqlite")]
    assert main([*args, "--http", "127.0.0.1:0", "--web-face", "external"]) == 0
    assert "dealer display" not in capsys.readouterr().out  # no child serving it
    assert main([*args, "--http", "127.0.0.1:0", "--web-user", "no-such-user-here"]) == 2
    err = capsys.readouterr().err
    assert err == "tablehost: web user 'no-such-user-here': no such user on this machine\n"


TWO_CPUS = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs this process may use")


def _affinities(pid: int) -> set[frozenset[int]]:
    return {frozenset(os.sched_getaffinity(int(task.name))) for task in Path(f"/proc/{pid}/task").iterdir()}


@TWO_CPUS
def test_tablehost_run_keeps_the_lowest_cpu_and_its_web_face_runs_on_the_others(tmp_path: Path) -> None:
    allowed = os.sched_getaffinity(0)
    argv = [sys.executable, "-m", "firmware_host", "run", "--profile", str(sim_profile(tmp_path))]
    argv += ["--rounds", "500", "--pace", "0.5", "--journal", str(tmp_path / "j.sqlite"), "--http", "127.0.0.1:0"]
    service = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert service.stdout is not None
        for line in service.stdout:  # said once the web face serves
            if "dealer display" in line:
                break
        children = Path(f"/proc/{service.pid}/task/{service.pid}/children").read_text().split()
        assert len(children) == 1
        assert _affinities(service.pid) == {frozenset({min(allowed)})}
        assert _affinities(int(children[0])) == {frozenset(allowed - {min(allowed)})}
    finally:
        service.send_signal(signal.SIGTERM)
        service.communicate(timeout=60)
