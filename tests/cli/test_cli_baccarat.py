"""``tablehost baccarat resolve`` and ``tablehost baccarat odds``: the public CLI contract."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from fractions import Fraction

import pytest

from firmware_host.cli import main
from firmware_host.rules.baccarat.cards import parse_cards
from firmware_host.rules.baccarat.deal import resolve

RESOLVE_FIELDS = [
    "player",
    "banker",
    "player_total",
    "banker_total",
    "winner",
    "natural",
    "player_pair",
    "banker_pair",
    "lucky_six",
    "cards_used",
]


def run_main(
    argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_resolve_writes_one_json_object_per_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run_main(["baccarat", "resolve"], "9S 2H KD 5C 3D\n2s 3h ad 2c 6s 7h\n", monkeypatch, capsys)
    assert (status, err) == (0, "")
    first, second = (json.loads(line) for line in out.splitlines())
    assert list(first) == RESOLVE_FIELDS
    assert first == resolve(parse_cards("9S 2H KD 5C 3D")).to_json_dict()  # literal values: test_deal.py
    assert (second["player"], second["banker"], second["cards_used"]) == (["2S", "AD", "6S"], ["3H", "2C", "7H"], 6)


def test_resolve_commission_free_reports_lucky_six(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    line = "KS 3H KD 3C QS\n"
    _, out, _ = run_main(["baccarat", "resolve", "--variant", "commission-free"], line, monkeypatch, capsys)
    assert json.loads(out)["lucky_six"] == 2
    _, out, _ = run_main(["baccarat", "resolve", "--variant", "standard"], line, monkeypatch, capsys)
    assert json.loads(out)["lucky_six"] is None


def test_resolve_reports_bad_lines_by_number_and_goes_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stdin = "9S 2H KD 5C\n9S ZZ KD 5C\n\n2S 3H\n7S 7H KD KC\n"
    status, out, err = run_main(["baccarat", "resolve"], stdin, monkeypatch, capsys)
    assert status == 1
    assert [json.loads(line)["winner"] for line in out.splitlines()] == ["player", "tie"]
    errors = err.splitlines()
    assert len(errors) == 2
    assert "line 2" in errors[0] and "'ZZ'" in errors[0]
    assert "line 4" in errors[1] and "too few cards" in errors[1]


def test_resolve_refuses_an_unknown_variant(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["baccarat", "resolve", "--variant", "punto"])
    assert caught.value.code == 2
    assert "punto" in capsys.readouterr().err


@pytest.mark.timeout(60)
def test_resolve_streams_each_answer_before_the_next_line_arrives() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "firmware_host", "baccarat", "resolve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin and process.stdout and process.stderr
    try:
        for cards, winner in [("9S 2H KD 5C", "player"), ("2H 9S 5C KD", "banker")]:
            process.stdin.write(cards + "\n")
            process.stdin.flush()
            assert json.loads(process.stdout.readline())["winner"] == winner  # stdin still open
        process.stdin.close()
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()
        process.wait()
        process.stdout.close()
        process.stderr.close()


def test_odds_json_reproduces_the_published_eight_deck_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["baccarat", "odds", "--decks", "8", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    probabilities, edges = report["probabilities"], report["house_edge"]
    assert {k: round(probabilities[k], 6) for k in ("banker", "player", "tie")} == {
        "banker": 0.458597,
        "player": 0.446247,
        "tie": 0.095156,
    }
    assert {"banker_wins_six_two_cards", "banker_wins_six_three_cards", "natural"} <= set(probabilities)
    assert round(edges["standard"]["banker_commission_5"] * 100, 2) == 1.06
    assert round(edges["standard"]["player"] * 100, 2) == 1.24
    assert round(edges["standard"]["tie_8_to_1"] * 100, 2) == 14.36
    assert round(edges["commission-free"]["banker"] * 100, 2) == 1.46
    assert round(edges["commission-free"]["player_pair"] * 100, 2) == 10.36
    assert (report["decks"], report["cards"], report["seen"]) == (8, 416, 0)


def test_odds_table_is_readable(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["baccarat", "odds", "--decks", "8"]) == 0
    table = capsys.readouterr().out
    assert "banker wins" in table and "0.458597" in table
    assert "banker, 5% commission" in table and "1.06%" in table
    assert "14.36%" in table and "10.36%" in table and "1.46%" in table


def test_odds_of_a_mid_shoe_composition(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["baccarat", "odds", "--decks", "1", "--seen", "9S 9H 9D 9C 8S", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["cards"], report["seen"]) == (47, 5)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--decks", "9"], "decks 9: must be a whole number from 1 to 8"),
        (["--decks", "0"], "decks 0"),
        (["--decks", "1", "--seen", "AS AS"], "card AS: not in the remaining cards"),
        (["--seen", "XQ"], "card 'XQ'"),
    ],
)
def test_odds_refuses_bad_input_with_a_clear_error(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["baccarat", "odds", *argv]) == 2
    assert message in capsys.readouterr().err


def test_odds_json_prints_the_ev_object_of_the_odds_decision(capsys: pytest.CaptureFixture[str]) -> None:
    from firmware_host.rules.baccarat.exposure import evs_text, expected_values, remaining_ranks
    from firmware_host.rules.baccarat.rules import RulesSubmission

    seen = "9S 9H 9D 8C 8S 7D AS KD"
    assert (
        main(
            [
                "baccarat",
                "odds",
                "--decks",
                "2",
                "--seen",
                seen,
                "--json",
                "--variant",
                "commission-free",
                "--lucky-six-on-six-six-tie",
                "push",
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    rules = RulesSubmission(variant="commission-free", lucky_six_on_six_six_tie="push")
    assert report["ev"] == evs_text(expected_values(rules, remaining_ranks(2, parse_cards(seen))))
    assert list(report["ev"]) == ["banker", "player", "tie", "player_pair", "banker_pair", "lucky_six"]
    assert report["ev_percent"]["banker"] == round(float(Fraction(report["ev"]["banker"])) * 100, 4)


def test_odds_json_of_a_standard_pay_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["baccarat", "odds", "--json", "--commission", "4", "--tie-payout", "9"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert list(report["ev"]) == ["banker", "player", "tie"]
    assert report["ev_percent"]["tie"] == -4.844  # 9 to 1, 8 decks
    assert report["ev_percent"]["banker"] > -1.06  # 4% commission is the better banker wager


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--variant", "commission-free", "--commission", "4"],
            "commission_percent: applies only to variant 'standard'",
        ),
        (["--tie-payout", "7"], "a tie pays at least 8 to 1"),
        (["--variant", "poker"], "invalid choice"),
    ],
)
def test_odds_refuses_a_pay_table_the_rules_do_not_allow(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with contextlib.suppress(SystemExit):
        assert main(["baccarat", "odds", *argv]) == 2
    assert message in capsys.readouterr().err
