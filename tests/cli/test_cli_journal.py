"""``tablehost journal``: exit 0 only for an intact chain, 1 for a broken one, 2 for a clear error."""

from __future__ import annotations

import json
import os
import pathlib
import stat

import pytest

from firmware_host.cli import main
from firmware_host.errors import JournalError
from firmware_host.host.journal_export import round_results, shoe_results
from firmware_host.host.journal_keys import key_id, load_key
from tests.support.journal_forge import KEY, build, execute


def write_key_file(path: pathlib.Path, key: bytes = KEY, mode: int = 0o400) -> pathlib.Path:
    path.write_bytes(key)
    path.chmod(mode)
    return path


def test_verify_exits_0_for_an_intact_chain(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    build(tmp_path / "j.sqlite")
    assert main(["journal", "verify", str(tmp_path / "j.sqlite")]) == 0
    assert "intact: 11 records" in capsys.readouterr().out


def test_verify_exits_0_for_a_keyed_chain_with_its_key_file(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build(tmp_path / "k.sqlite", key=KEY)
    key_file = write_key_file(tmp_path / "table.key")
    assert main(["journal", "verify", str(tmp_path / "k.sqlite"), "--key-file", str(key_file)]) == 0
    assert f"key id {key_id(KEY)}" in capsys.readouterr().out


def test_verify_exits_1_and_prints_the_first_broken_record_and_why(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build(tmp_path / "j.sqlite")
    execute(tmp_path / "j.sqlite", "UPDATE records SET data = '{\"amount\":1}' WHERE seq = 3")
    assert main(["journal", "verify", str(tmp_path / "j.sqlite")]) == 1
    first_line, record_line = capsys.readouterr().out.splitlines()
    assert "BROKEN at record 3: changed content" in first_line
    assert json.loads(record_line)["seq"] == 3


def test_verify_of_a_keyed_journal_without_the_key_exits_1(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build(tmp_path / "k.sqlite", key=KEY)
    assert main(["journal", "verify", str(tmp_path / "k.sqlite")]) == 1
    assert "key needed" in capsys.readouterr().out


@pytest.mark.parametrize("content", [None, b"plain text, not SQLite" * 50])
def test_verify_of_a_missing_or_unreadable_file_exits_2_with_a_clear_error(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], content: bytes | None
) -> None:
    path = tmp_path / "j.sqlite"
    if content is not None:
        path.write_bytes(content)
    assert main(["journal", "verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablehost: journal ") and str(path) in err and "Traceback" not in err


def test_verify_with_a_missing_key_file_exits_2(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    build(tmp_path / "k.sqlite", key=KEY)
    assert main(["journal", "verify", str(tmp_path / "k.sqlite"), "--key-file", str(tmp_path / "none.key")]) == 2
    assert "none.key: cannot read" in capsys.readouterr().err


def test_541_12_c_export_rounds_prints_every_round_result_as_one_json_line(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build(tmp_path / "j.sqlite")
    assert main(["journal", "export", str(tmp_path / "j.sqlite"), "--rounds"]) == 0
    lines = capsys.readouterr().out.splitlines()
    exported = [json.loads(line) for line in lines]
    for round_ in exported:  # what 0.3.0 adds (docs/protection.md): the round's odds, each wager's theo
        assert round_.pop("odds") is None  # the forged journal has no odds decision
        assert all(line.pop("theo") is None for line in round_.get("settlement", []))
    assert exported == list(round_results(tmp_path / "j.sqlite"))
    assert [round_["winner"] for round_ in exported] == ["banker"]


def test_export_shoes_prints_every_shoe_result(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    build(tmp_path / "j.sqlite")
    assert main(["journal", "export", str(tmp_path / "j.sqlite"), "--shoes"]) == 0
    figures = {
        "drop": 0,
        "win": 0,
        "theo": 0.0,
        "hold": None,
        "advantage_windows": 0,
        "advantage_play_alerts": 0,
        "alert_count": 0,
    }  # what 0.3.0 adds (docs/protection.md); the shoe's own round count stays
    exported = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [{k: v for k, v in shoe.items() if k != "rounds_per_hour"} for shoe in exported] == [
        {"shoe": 1, "rounds": 7, **figures}
    ]
    assert list(shoe_results(tmp_path / "j.sqlite")) == [{"shoe": 1, "rounds": 7}]


def test_export_of_a_missing_journal_exits_2(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["journal", "export", str(tmp_path / "none.sqlite"), "--rounds"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_keygen_writes_32_random_bytes_readable_by_the_owner_only(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "table.key"
    assert main(["journal", "keygen", str(path)]) == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o400
    key = load_key(path)
    assert len(key) == 32 and key != bytes(32)
    assert key_id(key) in capsys.readouterr().out


def test_keygen_refuses_to_overwrite_a_key(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_key_file(tmp_path / "table.key")
    assert main(["journal", "keygen", str(path)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert path.read_bytes() == KEY


def test_a_key_file_others_can_read_is_refused(tmp_path: pathlib.Path) -> None:
    with pytest.raises(JournalError, match="chmod 0400"):
        load_key(write_key_file(tmp_path / "table.key", mode=0o644))


def test_a_short_key_file_is_refused(tmp_path: pathlib.Path) -> None:
    with pytest.raises(JournalError, match="at least 32"):
        load_key(write_key_file(tmp_path / "table.key", key=os.urandom(16)))
