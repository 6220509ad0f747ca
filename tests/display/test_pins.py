"""PINs: hashed with scrypt in files, checked per role, wrong ones rate-limited (issue 14 item 3)."""

from __future__ import annotations

import io
import stat
import sys
from pathlib import Path

import pytest

from firmware_host.cli import main
from firmware_host.display.pins import (
    LOCKOUT_S, MAX_FAILURES, WINDOW_S, Credentials, Locked, PinError, hash_pin, read_pin_file, verify_pin,
    write_pin_file,
)

N = 2 ** 10  # a cheap scrypt cost for tests


def test_a_pin_file_holds_a_salted_hash_never_the_pin(tmp_path: Path) -> None:
    write_pin_file(tmp_path / "a.pin", "4711", n=N)
    write_pin_file(tmp_path / "b.pin", "4711", n=N)
    a, b = read_pin_file(tmp_path / "a.pin"), read_pin_file(tmp_path / "b.pin")
    # No field of the record is the PIN (its salt and hash are hex, which may contain any digits).
    assert "4711" not in a.split("$") and a != b  # a fresh salt each time
    assert verify_pin("4711", a) and not verify_pin("4712", a)
    assert stat.S_IMODE((tmp_path / "a.pin").stat().st_mode) == 0o600
    assert hash_pin("4711", bytes(16), n=N) == hash_pin("4711", bytes(16), n=N)


@pytest.mark.parametrize("pin", ["123", "12a4", ""])
def test_a_pin_is_four_digits_or_more(tmp_path: Path, pin: str) -> None:
    with pytest.raises(PinError, match="4 or more digits"):
        write_pin_file(tmp_path / "x.pin", pin, n=N)


def test_a_bad_pin_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "plain.pin").write_text("1234\n")
    with pytest.raises(PinError, match=r"plain.pin: not a hashed PIN \(write it with `tablehost display pin`\)"):
        read_pin_file(tmp_path / "plain.pin")
    with pytest.raises(PinError, match="missing.pin: cannot read"):
        read_pin_file(tmp_path / "missing.pin")


def credentials(tmp_path: Path, clock: list[float]) -> Credentials:
    write_pin_file(tmp_path / "d.pin", "1111", n=N)
    write_pin_file(tmp_path / "s.pin", "999999", n=N)
    return Credentials({"dealer": tmp_path / "d.pin", "supervisor": tmp_path / "s.pin"}, clock=lambda: clock[0])


def test_roles(tmp_path: Path) -> None:
    checker = credentials(tmp_path, [0.0])
    assert checker.role("1111", "a") == "dealer"
    assert checker.role("999999", "a") == "supervisor"
    assert checker.role("2222", "a") is None
    assert checker.allows("supervisor", "dealer") and not checker.allows("dealer", "supervisor")


def test_wrong_pins_lock_out_one_client_for_a_while(tmp_path: Path) -> None:
    clock = [100.0]
    checker = credentials(tmp_path, clock)
    for _ in range(MAX_FAILURES):
        assert checker.role("0000", "10.0.0.5") is None
    with pytest.raises(Locked):
        checker.role("1111", "10.0.0.5")  # even the right PIN, while locked out
    assert checker.role("1111", "10.0.0.6") == "dealer"  # another client is not
    clock[0] += LOCKOUT_S
    assert checker.role("1111", "10.0.0.5") == "dealer"


def test_failures_outside_the_window_do_not_add_up(tmp_path: Path) -> None:
    clock = [0.0]
    checker = credentials(tmp_path, clock)
    for _ in range(MAX_FAILURES * 2):
        assert checker.role("0000", "c") is None
        clock[0] += WINDOW_S / (MAX_FAILURES - 1) + 0.1
    assert checker.role("1111", "c") == "dealer"


def test_the_cli_writes_a_pin_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("24680\n"))
    assert main(["display", "pin", "supervisor", str(tmp_path / "s.pin")]) == 0
    assert verify_pin("24680", read_pin_file(tmp_path / "s.pin"))
    assert "the supervisor's PIN, hashed (scrypt)" in capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", io.StringIO("12\n"))
    assert main(["display", "pin", "dealer", str(tmp_path / "d.pin")]) == 2
    assert "a PIN is 4 or more digits" in capsys.readouterr().err
