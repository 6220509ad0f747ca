"""``tablehost paigow hand`` and ``tablehost paigow compare``: the public CLI contract."""

from __future__ import annotations

import argparse
import json

import pytest

from firmware_host.cli import main
from firmware_host.cli.paigow_tiles import register
from firmware_host.errors import RulesError
from tests.support.paths import REPO

TAJ = REPO / "hardware-profiles" / "house-ways" / "taj-mahal-two-small-tiles.toml"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["paigow", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_register_adds_hand_and_compare_to_a_group():
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["hand", "--tiles", "6-6,4-5,1-3,2-2", "--json"])
    assert (args.tiles, args.json, callable(args.func)) == ("6-6,4-5,1-3,2-2", True, True)
    args = parser.parse_args(["compare", "--player", "a/b", "--dealer", "c/d"])
    assert (args.player, args.dealer, args.json) == ("a/b", "c/d", False)


def test_535_10_d_hand_prints_every_setting_and_marks_the_house_way(capsys):
    status, out, err = run(capsys, "hand", "--tiles", "6-6,4-5,1-3,2-2")
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        "tiles: 6-6 4-5 1-3 2-2",
        "settings (high / low):",
        "  6-6,4-5 / 1-3,2-2   <- house way",
        "      high: Wong (Twelve and Nine), pair rank 17",
        "      low:  value 8, highest tile Four (1-3), tile rank 4",
        "  6-6,2-2 / 1-3,4-5",
        "      high: value 6, highest tile Twelve (6-6), tile rank 1",
        "      low:  value 3, highest tile Four (1-3), tile rank 4",
        "  6-6,1-3 / 2-2,4-5",
        "      high: value 6, highest tile Twelve (6-6), tile rank 1",
        "      low:  value 3, highest tile Four (2-2), tile rank 7",
        "house way: 6-6,4-5 / 1-3,2-2 (§ 535.10(d)(2): a pair, Wong or Gong is played when possible)",
    ]


def test_535_10_d_hand_json(capsys):
    status, out, _ = run(capsys, "hand", "--tiles", "5-4,6-6,2-2,1-3", "--json")
    data = json.loads(out)
    assert status == 0
    assert data["tiles"] == ["4-5", "6-6", "2-2", "1-3"]
    assert [(s["high"]["tiles"], s["low"]["tiles"]) for s in data["settings"]] == [
        (["6-6", "4-5"], ["1-3", "2-2"]),
        (["6-6", "2-2"], ["1-3", "4-5"]),
        (["6-6", "1-3"], ["2-2", "4-5"]),
    ]
    house_way = data["house_way"]
    assert (house_way["high"]["pair"], house_way["low"]["value"]) == ("Wong (Twelve and Nine)", 8)
    assert (house_way["step"], house_way["section"]) == ("pair_wong_gong", "535.10(d)(2)")
    assert set(house_way["high"]) == {
        "tiles",
        "pair",
        "pair_rank",
        "value",
        "highest_tile",
        "highest_tile_rank",
        "supreme_tile_counted_as",
        "rank",
    }


def test_535_10_h_2_compare_prints_the_result_and_why(capsys):
    status, out, _ = run(capsys, "compare", "--player", "6-6,4-5/1-3,2-2", "--dealer", "6-6,3-6/5-5,1-5")
    assert status == 0
    assert out.splitlines() == [
        "result: tie (§ 535.10(h)(2))",
        "high: player 6-6,4-5  Wong (Twelve and Nine), pair rank 17",
        "      dealer 6-6,3-6  Wong (Twelve and Nine), pair rank 17",
        "      copy hand, both Wong (Twelve and Nine): the dealer wins (§ 535.4(b))",
        "low:  player 1-3,2-2  value 8, highest tile Four (1-3), tile rank 4",
        "      dealer 5-5,1-5  value 6, highest tile Ten (5-5), tile rank 5",
        "      player value 8 beats dealer value 6 (§ 535.4(c))",
    ]


def test_535_10_j_compare_json(capsys):
    status, out, _ = run(capsys, "compare", "--player", "6-6,4-5/1-3,2-2", "--dealer", "5-6,2-6/5-5,1-5", "--json")
    data = json.loads(out)
    assert status == 0
    assert (data["result"], data["section"]) == ("win", "535.10(j)")
    assert (data["high"]["winner"], data["high"]["reason"], data["high"]["section"]) == ("player", "pair", "535.4(a)")
    assert (data["low"]["player"]["value"], data["low"]["dealer"]["value"]) == (8, 6)
    assert data["why"].startswith("win (§ 535.10(j)): high hand: player Wong")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["hand", "--tiles", "6-6,4-5,1-3"], "tablehost: --tiles: tiles '6-6,4-5,1-3': expected 4 tiles, got 3"),
        (["hand", "--tiles", "6-6,4-5,1-3,9-9"], "tablehost: --tiles: tile '9-9': expected two spot counts"),
        (["hand", "--tiles", "4-5,4-5,1-3,2-2"], "tablehost: --tiles: tile 4-5 appears 2 times; a set holds 1"),
        (
            ["compare", "--player", "1-3,2-2/6-6,4-5", "--dealer", "5-6,2-6/5-5,1-5"],
            "tablehost: --player: setting 1-3,2-2/6-6,4-5: the high hand",
        ),
        (["compare", "--player", "6-6,4-5/1-3,2-2", "--dealer", "5-6,2-6"], "tablehost: --dealer: setting '5-6,2-6'"),
        (
            ["compare", "--player", "6-6,4-5/1-3,2-2", "--dealer", "6-6,6-6/5-5,1-5"],
            "tablehost: --player/--dealer: tile 6-6 appears 3 times",
        ),
    ],
)
def test_bad_input_is_one_line_naming_the_option(capsys, argv, message):
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert err.startswith(message) and err.count("\n") == 1


def test_rules_errors_reach_the_caller_of_func():
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(required=True))
    args = parser.parse_args(["hand", "--tiles", "1-1"])
    with pytest.raises(RulesError, match="^--tiles: "):
        args.func(args)


#: Four tiles exception A of the Taj Mahal house way sets otherwise than § 535.10(d)(4) does.
TAJ_A = "1-1,6-6,1-3,5-5"


def paigow_profile(tmp_path, rules: str) -> str:
    """The simulated Pai Gow table's profile with ``rules`` added to its ``[rules]``."""
    (tmp_path / "tables").mkdir()
    (tmp_path / "devices").symlink_to(REPO / "hardware-profiles" / "devices")
    text = (REPO / "hardware-profiles" / "tables" / "sim-paigow.toml").read_text()
    path = tmp_path / "tables" / "t.toml"
    path.write_text(text.replace("[rules]", f"[rules]\n{rules}", 1))
    return str(path)


def test_535_10_b_hand_sets_the_tiles_by_a_casino_house_way(capsys, tmp_path):
    status, out, _ = run(capsys, "hand", "--tiles", TAJ_A, "--json")
    assert (status, json.loads(out)["house_way"]["step"]) == (0, "highest_with_lowest")  # § 535.10(d)(4)
    for casino in (["--house-way", str(TAJ)], ["--profile", paigow_profile(tmp_path, f'house_way = "{TAJ}"')]):
        status, out, _ = run(capsys, "hand", "--tiles", TAJ_A, "--json", *casino)
        way = json.loads(out)["house_way"]
        assert (status, way["step"], way["high"]["tiles"], way["low"]["tiles"]) == (
            0,
            "rules_submission",
            ["6-6", "1-1"],
            ["1-3", "5-5"],
        )


def test_535_10_g_compare_plays_by_the_profiles_zero_value_rule(capsys, tmp_path):
    case = ["--player", "1-3,1-5/1-3,3-3", "--dealer", "3-3,2-2/5-6,4-5", "--json"]
    status, out, _ = run(capsys, "compare", *case)
    assert (status, json.loads(out)["result"]) == (0, "tie")  # § 535.10(h)(1): the low hand's zero only
    profile = paigow_profile(tmp_path, 'zero_value_rule = "both_hands"')
    status, out, _ = run(capsys, "compare", *case, "--profile", profile)
    assert (status, json.loads(out)["result"], json.loads(out)["section"]) == (0, "lose", "535.10(g)")


def test_the_casinos_rules_that_cannot_be_read_are_named(capsys, tmp_path):
    status, _, err = run(capsys, "hand", "--tiles", TAJ_A, "--house-way", str(tmp_path / "none.toml"))
    assert status == 2 and f"cannot read {tmp_path / 'none.toml'}" in err
    baccarat = REPO / "hardware-profiles" / "tables" / "sim-baccarat.toml"
    status, _, err = run(capsys, "hand", "--tiles", TAJ_A, "--profile", str(baccarat))
    assert status == 2 and "table.game: 'baccarat': --profile needs a Pai Gow table" in err
    with pytest.raises(SystemExit):
        main(["paigow", "hand", "--tiles", TAJ_A, "--profile", str(baccarat), "--house-way", str(TAJ)])
    assert "not allowed with argument" in capsys.readouterr().err
