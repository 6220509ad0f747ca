"""``tablehost paigow start``: the public CLI contract (PRODUCT.md)."""

from __future__ import annotations

import json

import pytest

from firmware_host.cli import main
from firmware_host.rules.paigow_dice.delivery import STYLES


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["paigow", "start", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_535_8_c_1_readable_table_for_a_total_of_9(capsys):
    status, out, err = run(capsys, "--dice", "3,5,1")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[:4] == ["total  9  (3+5+1)", "start  dealer", "style  standard", "cut    none"]
    assert lines[5].split() == ["1.", "dealer", "1.1", "1.2", "1.3", "1.4"]
    assert lines[12].split() == ["8.", "dead", "8.1", "8.2", "8.3", "8.4"]


def test_535_8_c_2_json_for_a_total_of_15(capsys):
    status, out, _ = run(capsys, "--dice", "6,6,3", "--json")
    data = json.loads(out)
    assert status == 0
    assert (data["total"], data["start"], data["style"], data["bank_seat"], data["cut"]) == (
        15,
        "6",
        "standard",
        None,
        None,
    )
    assert [hand["position"] for hand in data["plan"]] == ["6", "dead", "dealer", "1", "2", "3", "4", "5"]
    assert data["plan"][0]["tiles"][0] == {"stack": 1, "level": 1, "place": 1}


def test_535_11_j_bank_seat_style_and_cut_in_json(capsys):
    status, out, _ = run(capsys, "--dice", "2,2,1", "--bank-seat", "4", "--style", "chee-yee", "--cut", "2", "--json")
    data = json.loads(out)
    assert status == 0
    # Bank at 4 counts as one: 4, 5, 6, Dead Hand, dealer -> total 5 is the dealer.
    assert (data["total"], data["start"], data["bank_seat"], data["style"]) == (5, "dealer", 4, "chee-yee")
    assert data["arrangement"] == [3, 4, 5, 6, 7, 8, 1, 2]
    assert [(t["stack"], t["level"]) for t in data["plan"][0]["tiles"]] == [(3, 1), (3, 2), (2, 1), (2, 2)]


@pytest.mark.parametrize("style", STYLES)
def test_every_style_is_accepted(capsys, style):
    status, out, _ = run(capsys, "--dice", "1,1,1", "--style", style, "--json")
    assert status == 0 and json.loads(out)["style"] == style


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--dice", "3,7,1"], "'7' is not a face 1 to 6"),
        (["--dice", "0,2,1"], "'0' is not a face 1 to 6"),
        (["--dice", "1,2"], "give exactly 3 faces"),
        (["--dice", "1,2,3,4"], "give exactly 3 faces"),
        (["--dice", "1,2,3", "--bank-seat", "7"], "bank seat 7 is not a betting position"),
        (["--dice", "1,2,3", "--bank-seat", "0"], "bank seat 0 is not a betting position"),
        (["--dice", "1,2,3", "--bank-seat", "two"], "bank seat 'two' is not a betting position"),
        (["--dice", "1,2,3", "--style", "pai-gow"], "unknown delivery style 'pai-gow': use one of standard, "),
        (["--dice", "1,2,3", "--cut", "2"], "only a player bank may cut the tiles"),
        (["--dice", "1,2,3", "--bank-seat", "1", "--cut", "right=1-2"], "leaves every stack where it was"),
        (["--dice", "1,2,3", "--bank-seat", "1", "--cut", "sideways"], "cut 'sideways'"),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_2(capsys, argv, message):
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("tablehost: ") and message in err


def test_paigow_group_holds_start_and_the_tile_commands(capsys):
    with pytest.raises(SystemExit):
        main(["paigow", "--help"])
    out = capsys.readouterr().out
    assert all(command in out for command in ("start", "hand", "compare"))
