"""The real service on a simulated Baccarat table: sims over pseudo-terminals, faults injected.

Every test runs ``tablehost run`` in-process (the same code path as the console script),
then reads the journal back: it must verify, and every completed round must equal
``resolve`` on its cards (§ 541.9-§ 541.12; § 541.12(c) reconstruction).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from bench.soak.profiles import make_profile, quick_links
from firmware_host.cli import main
from firmware_host.host.journal import Journal
from firmware_host.host.journal_export import round_results, shoe_results
from firmware_host.host.journal_verify import verify
from firmware_host.rules.baccarat.cards import parse_card, shoe_composition
from tests.support.sim_runs import check_rounds_against_resolve


def run_table(profile: Path, journal: Path, rounds: int, seed: int = 3) -> None:
    status = main(
        [
            "run",
            "--profile",
            str(profile),
            "--rounds",
            str(rounds),
            "--seed",
            str(seed),
            "--journal",
            str(journal),
            "--quiet",
        ]
    )
    assert status == 0


def test_541_12_c_every_round_of_a_simulated_run_is_reconstructable(tmp_path: Path) -> None:
    profile = make_profile(tmp_path, faults="corrupt_byte = 0.03, drop_frame = 0.03, duplicate_frame = 0.03")
    journal = tmp_path / "j.sqlite"
    run_table(profile, journal, rounds=25)
    assert verify(journal).ok
    rounds = check_rounds_against_resolve(journal)
    assert [r["round"] for r in rounds] == list(range(1, 26))
    assert all(r["game"] == "baccarat" and r["shoe"] == 1 for r in rounds)


def test_commission_free_run_reports_lucky_six_and_pairs(tmp_path: Path) -> None:
    profile = make_profile(tmp_path, variant="commission-free")
    journal = tmp_path / "j.sqlite"
    run_table(profile, journal, rounds=20, seed=11)
    rounds = check_rounds_against_resolve(journal, "commission-free")
    assert len(rounds) == 20
    kinds = {line["kind"] for r in rounds for line in r["settlement"]}
    assert "banker" in kinds and kinds <= {"banker", "player", "tie", "player_pair", "banker_pair", "lucky_six"}


def test_ascii_dialect_shoe_runs_the_same_service(tmp_path: Path) -> None:
    # The market shoe's dialect has no checksum, no sequence numbers and no retransmission:
    # a corrupted or duplicated card frame cannot be told from a real one, so only the
    # device's own faults are injected here (docs/protocols/shoe.md, "ASCII dialect").
    # Half its burn cards (§ 541.5(g)) are written suit first, as the market shoe has been seen to.
    profile = make_profile(
        tmp_path,
        model="generic-ascii-shoe-2019",
        faults="unreadable_card = 0.02, face_up_card = 0.01",
        shoe_sim="suit_first_burns = 0.5",
    )
    journal = tmp_path / "j.sqlite"
    run_table(profile, journal, rounds=20)
    assert verify(journal).ok
    assert len(check_rounds_against_resolve(journal)) == 20
    with Journal.open(journal) as opened:
        records = list(opened.records())
    assert any(r.type == "IdentityUnverified" for r in records)
    assert any(r.type == "CardRead" and r.data["burn"] for r in records)  # read whichever order they came in


@pytest.mark.parametrize(
    ("model", "share", "why"),
    [
        ("generic-ascii-shoe-2019", "1.5", "1.5 is not a share between 0 and 1"),
        ("tablehost-ts8-2026", "0.5", "the framed dialect sends a card as fixed fields"),
    ],
)
def test_suit_first_burns_in_the_profile_is_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: str, share: str, why: str
) -> None:
    profile = make_profile(tmp_path, model=model, shoe_sim=f"suit_first_burns = {share}")
    status = main(
        ["run", "--profile", str(profile), "--rounds", "1", "--journal", str(tmp_path / "j.sqlite"), "--quiet"]
    )
    err = capsys.readouterr().err
    assert status == 2 and "devices.shoe.sim.suit_first_burns" in err and why in err


def test_a_continued_journal_finishes_the_same_number_of_rounds(tmp_path: Path) -> None:
    profile = make_profile(tmp_path)
    journal = tmp_path / "j.sqlite"
    run_table(profile, journal, rounds=5)
    run_table(profile, journal, rounds=12)
    rounds = check_rounds_against_resolve(journal)
    assert [r["round"] for r in rounds] == list(range(1, 13))


@pytest.mark.slow
def test_whole_shoes_with_every_fault_injected(tmp_path: Path) -> None:
    """Several shoes (cover card, last hand, reshuffle) with every shoe fault and dealer error."""
    profile = make_profile(
        tmp_path,
        faults=(
            "corrupt_byte = 0.02, drop_frame = 0.02, duplicate_frame = 0.02, unreadable_card = 0.01, "
            "face_up_card = 0.005, empty_early = 0.0015, disconnect = 0.002, disconnect_seconds = 0.5"
        ),
        dealer="card_drawn_in_error = 0.02\ncard_disclosed = 0.5",
    )
    quick_links(tmp_path)  # the shoe's dropped frames and outages: less waiting for each
    journal = tmp_path / "j.sqlite"
    run_table(profile, journal, rounds=250, seed=5)
    assert verify(journal).ok
    rounds = check_rounds_against_resolve(journal)
    assert [r["round"] for r in rounds] == list(range(1, 251))
    shoes = list(shoe_results(journal))
    assert len(shoes) >= 2, "250 rounds span several shoes"
    codes = Counter(a["code"] for shoe in shoes for a in shoe["alerts"])
    assert codes["card-unreadable"] and codes["card-face-up"] and codes["card-drawn-in-error"], codes
    # No card counted twice: within a shoe no card appears more often than the shoe holds it.
    per_shoe: dict[int, Counter] = {}
    for record in rounds:
        per_shoe.setdefault(record["shoe"], Counter()).update(record["cards"])
    limit = shoe_composition(8)
    for shoe, seen in per_shoe.items():
        assert all(count <= limit[parse_card(card)] for card, count in seen.items()), shoe
    assert json.dumps(shoes)  # the shoe records are plain JSON


def test_a_captured_run_replays_to_the_same_rounds(tmp_path: Path) -> None:
    """Issue 7: `tablehost run --replay` plays a capture through the whole service again."""
    profile = make_profile(tmp_path, faults="corrupt_byte = 0.03, duplicate_frame = 0.03")
    capture, spy = tmp_path / "cap.jsonl", tmp_path / "spy"
    assert (
        main(
            [
                "run",
                "--profile",
                str(profile),
                "--rounds",
                "10",
                "--seed",
                "9",
                "--journal",
                str(tmp_path / "a.sqlite"),
                "--quiet",
                "--capture",
                str(capture),
                "--spy",
                str(spy),
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "run",
                "--profile",
                str(profile),
                "--journal",
                str(tmp_path / "b.sqlite"),
                "--quiet",
                "--replay",
                str(capture),
            ]
        )
        == 0
    )
    assert list(round_results(tmp_path / "b.sqlite")) == list(round_results(tmp_path / "a.sqlite"))
    assert (spy / "shoe.spy").stat().st_size > 0
