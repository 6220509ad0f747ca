"""PINs: hashed with scrypt in files, checked per role, wrong ones rate-limited (issue 14 item 3)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import io
import stat
import sys
from pathlib import Path

import pytest

from firmware_host.cli import main
from firmware_host.web.lockout import Lockout, LockoutPolicy
from firmware_host.web.pins import (
    LOCKOUT_S,
    MAX_FAILURES,
    WINDOW_S,
    Credentials,
    Locked,
    PinError,
    hash_pin,
    read_pin_file,
    verify_pin,
    write_pin_file,
)

N = 2**10  # a cheap scrypt cost for tests


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
    lockout = Lockout(LockoutPolicy(MAX_FAILURES, WINDOW_S, LOCKOUT_S), clock=lambda: clock[0])
    return Credentials({"dealer": tmp_path / "d.pin", "supervisor": tmp_path / "s.pin"}, lockout)


def role(checker: Credentials, pin: str, client: str) -> str | None:
    """``checker.role`` on a loop of its own thread (a Playwright test may leave this one's running)."""
    with concurrent.futures.ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, checker.role(pin, client)).result()


def test_roles(tmp_path: Path) -> None:
    checker = credentials(tmp_path, [0.0])
    assert role(checker, "1111", "a") == "dealer"
    assert role(checker, "999999", "a") == "supervisor"
    assert role(checker, "2222", "a") is None
    assert checker.allows("supervisor", "dealer") and not checker.allows("dealer", "supervisor")


def test_wrong_pins_lock_out_one_client_for_a_while(tmp_path: Path) -> None:
    clock = [100.0]
    checker = credentials(tmp_path, clock)
    for _ in range(MAX_FAILURES):
        assert role(checker, "0000", "10.0.0.5") is None
    with pytest.raises(Locked):
        role(checker, "1111", "10.0.0.5")  # even the right PIN, while locked out
    assert role(checker, "1111", "10.0.0.6") == "dealer"  # another client is not
    clock[0] += LOCKOUT_S
    assert role(checker, "1111", "10.0.0.5") == "dealer"


def test_failures_outside_the_window_do_not_add_up(tmp_path: Path) -> None:
    clock = [0.0]
    checker = credentials(tmp_path, clock)
    for _ in range(MAX_FAILURES * 2):
        assert role(checker, "0000", "c") is None
        clock[0] += WINDOW_S / (MAX_FAILURES - 1) + 0.1
    assert role(checker, "1111", "c") == "dealer"


def test_what_is_not_a_pin_is_wrong_without_a_hash(tmp_path: Path) -> None:
    checker = credentials(tmp_path, [0.0])
    for junk in ("", "1" * 33, "١١١١", "11 11"):
        assert checker.match(junk) is None
    assert checker.lockout.checked == 0 and role(checker, "1" * 5000, "c") is None  # counted, never hashed


@pytest.mark.parametrize(
    "cost, why",
    [("3$8$1", "unusable scrypt cost N=3"), ("1048576$8$1", "N=1048576"), ("1024$0$1", "r=0"), ("1024$8$99", "p=99")],
)
def test_an_unusable_pin_file_is_refused_at_start_naming_it(tmp_path: Path, cost: str, why: str) -> None:
    # Issue 20: such a file passed the format check, and the first wrong PIN met it as an uncounted 500.
    (tmp_path / "bad.pin").write_text(f"scrypt${cost}${'ab' * 16}${'cd' * 32}\n")
    with pytest.raises(PinError, match=f"PIN file {tmp_path / 'bad.pin'}: .*{why}"):
        Credentials({"dealer": tmp_path / "bad.pin"})


def test_a_pin_file_that_cannot_be_written_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 20: `tablehost display pin dealer /proc/nope/p.pin` ended in a traceback.
    monkeypatch.setattr(sys, "stdin", io.StringIO("24680\n"))
    assert main(["display", "pin", "dealer", "/proc/nope/p.pin"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "PIN file /proc/nope/p.pin: cannot write" in err and "Traceback" not in err


def test_the_cli_writes_a_pin_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("24680\n"))
    assert main(["display", "pin", "supervisor", str(tmp_path / "s.pin")]) == 0
    assert verify_pin("24680", read_pin_file(tmp_path / "s.pin"))
    assert "the supervisor's PIN, hashed (scrypt)" in capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", io.StringIO("12\n"))
    assert main(["display", "pin", "dealer", str(tmp_path / "d.pin")]) == 2
    assert "a PIN is 4 or more digits" in capsys.readouterr().err
