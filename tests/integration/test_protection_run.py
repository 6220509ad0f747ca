"""The real service on a simulated commission-free table: theo, drop, win and hold from the
journal (docs/protection.md), and a replay of a journal with ``odds`` decisions."""

from __future__ import annotations

import contextlib
import io
import json
from fractions import Fraction
from pathlib import Path

import pytest

from bench.soak.profiles import make_profile
from firmware_host.cli import main
from firmware_host.rules.baccarat.exposure import parse_ev

ROUNDS = 24


def cli(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()


@pytest.fixture(scope="module")
def played(module_tmp_path: Path) -> tuple[Path, Path]:
    profile = make_profile(module_tmp_path, variant="commission-free")
    profile.write_text(profile.read_text() + "\n[protection]\nadvantage_threshold = -0.0124\n")
    journal = module_tmp_path / "j.sqlite"
    cli("run", "--profile", str(profile), "--rounds", str(ROUNDS), "--seed", "5", "--journal", str(journal), "--quiet")
    return profile, journal


def rounds_of(journal: Path) -> list[dict]:
    return [json.loads(line) for line in cli("journal", "export", str(journal), "--rounds").splitlines()]


def test_theo_of_every_wager_is_its_amount_times_minus_the_round_s_ev(played: tuple[Path, Path]) -> None:
    rounds = rounds_of(played[1])
    assert len(rounds) == ROUNDS
    lines = 0
    for round_ in rounds:
        assert round_["odds"]["round"] == round_["round"]
        evs = {kind: parse_ev(text) for kind, text in round_["odds"]["ev"].items()}
        assert set(evs) == {"banker", "player", "tie", "player_pair", "banker_pair", "lucky_six"}
        for line in round_["settlement"]:
            assert line["theo"] == float(line["amount"] * -evs[line["kind"]])
            lines += 1
    assert lines > ROUNDS


def test_the_shoe_s_theo_drop_win_and_hold_sum_its_rounds(played: tuple[Path, Path]) -> None:
    rounds = [r for r in rounds_of(played[1]) if r["status"] == "completed"]
    theo = sum(
        (line["amount"] * -parse_ev(r["odds"]["ev"][line["kind"]]) for r in rounds for line in r["settlement"]),
        Fraction(0),
    )
    drop = sum(line["amount"] for r in rounds for line in r["settlement"])
    win = sum(
        line["commission"]
        + (line["amount"] if line["outcome"] == "lose" else 0)
        - (line["payout"] if line["outcome"] == "win" else 0)
        for r in rounds
        for line in r["settlement"]
    )
    (shoe,) = [json.loads(line) for line in cli("journal", "report", str(played[1]), "--json").splitlines()]
    assert (shoe["shoe"], shoe["rounds"], shoe["drop"], shoe["win"]) == (1, ROUNDS, drop, win)
    assert shoe["theo"] == float(theo) and shoe["hold"] == win / drop
    assert shoe["rounds_per_hour"] > 0
    # the threshold is above the player's -1.2351% at most rounds, never the tie's
    assert shoe["advantage_windows"] >= 1 and shoe["alert_count"] >= shoe["advantage_windows"]


def test_the_report_by_seat_and_by_day_add_up_to_the_shoe(played: tuple[Path, Path]) -> None:
    journal = str(played[1])
    (shoe,) = [json.loads(line) for line in cli("journal", "report", journal, "--json").splitlines()]
    seats = [json.loads(line) for line in cli("journal", "report", journal, "--by", "seat", "--json").splitlines()]
    days = [json.loads(line) for line in cli("journal", "report", journal, "--by", "day", "--json").splitlines()]
    assert sum(s["drop"] for s in seats) == shoe["drop"] and sum(s["win"] for s in seats) == shoe["win"]
    assert abs(sum(s["theo"] for s in seats) - shoe["theo"]) < 1e-6
    assert sum(d["drop"] for d in days) == shoe["drop"] and sum(d["rounds"] for d in days) == ROUNDS
    assert all(1 <= s["seat"] <= 7 for s in seats)
    table = cli("journal", "report", journal, "--by", "seat")
    assert table.splitlines()[0].split()[:4] == ["seat", "rounds", "drop", "win"]


def test_a_journal_with_odds_decisions_replays_identically(played: tuple[Path, Path]) -> None:
    """``tablehost run`` replays the whole journal, refusing any decision that differs (odds
    included), and with ``--rounds`` already played stops at once."""
    profile, journal = played
    before = journal.read_bytes()
    out = cli("run", "--profile", str(profile), "--rounds", str(ROUNDS), "--seed", "5", "--journal", str(journal))
    assert f"({ROUNDS} rounds finished)" in out
    assert cli("journal", "verify", str(journal)).count("intact") == 1
    assert len(journal.read_bytes()) >= len(before)


def test_theo_drop_and_hold_of_a_pai_gow_table_use_the_per_wager_edge(tmp_path: Path) -> None:
    profile = Path(__file__).parents[2] / "hardware-profiles" / "tables" / "sim-paigow.toml"
    journal = tmp_path / "p.sqlite"
    cli("run", "--profile", str(profile), "--rounds", "4", "--seed", "2", "--journal", str(journal), "--quiet")
    rounds = [
        json.loads(line)
        for line in cli("journal", "export", str(journal), "--rounds", "--paigow-edge", "2.5").splitlines()
    ]
    results = [r for round_ in rounds for r in round_["settlement"]["results"]]
    assert results and all(
        r["theo"]
        == (
            0.0
            if round_["settlement"]["bank_position"] is not None
            else float(Fraction(r["amount"]) * Fraction(25, 1000))
        )
        for round_ in rounds
        for r in round_["settlement"]["results"]
    )
    (day,) = [json.loads(line) for line in cli("journal", "report", str(journal), "--by", "day", "--json").splitlines()]
    assert day["rounds"] == 4 and day["drop"] == sum(r["amount"] for r in results)
    # the profile's [protection] paigow_edge_percent, when --paigow-edge is not given
    (tmp_path / "tables").mkdir()
    (tmp_path / "devices").symlink_to(profile.parents[1] / "devices")
    own = tmp_path / "tables" / "own.toml"
    own.write_text(profile.read_text().split("[journal]")[0] + "\n[protection]\npaigow_edge_percent = 2.5\n")
    again = [
        json.loads(line)
        for line in cli("journal", "export", str(journal), "--rounds", "--profile", str(own)).splitlines()
    ]
    assert again == rounds
