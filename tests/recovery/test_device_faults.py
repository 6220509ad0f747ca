"""Issue 6 items 3 and 4 on the real ``tablehost run``: a shoe or a shaker lost mid-round, an
unapproved device, a unit with another serial number.

The table pauses while its shoe is away (red tower lamp, a fault alert for the dealer) and
resumes where it stood once the driver has handshaken again, with no card lost. A device
whose model, firmware or serial number is not on its profile's allow-list keeps the table
closed, and the journal says why; a shoe that comes back as another unit is refused until
a supervisor acknowledges it.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import pytest

from bench.soak.audit import audit
from bench.soak.killloop import FOREVER, Run, Tracker, follow, run_to_end
from bench.soak.profiles import PAIGOW_SEED, SHOE_MODEL, paigow_profile, quick_links, set_approved, write_profile
from firmware_host.config.profiles import load_table
from firmware_host.host.journal import Journal
from firmware_host.host.journal_verify import verify
from firmware_host.host.service import Service
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import DealerCommand
from firmware_host.wiring import game_wiring

#: An outage of the simulated shoe now and then (one draw in 20).
OUTAGES = "disconnect = 0.05, disconnect_seconds = 0.5"
#: How long a refused table is watched for anything it should not do.
WATCH_SECONDS = 1.0
APPROVED_SERIALS = 'models = ["TS-8"]\nfirmware = ["2.1.0", "2.1.1"]\nserials = ["TS8-0001"]'


def steps(journal_path: Path) -> list[tuple[str, dict[str, Any], list[Decision]]]:
    """Every step of the journal as (input type, its fields, its decisions)."""
    with Journal.open(journal_path) as journal:
        return [(type(event).__name__, vars(event), decisions) for _, event, decisions in journal.steps()]


def of(decisions: list[Decision], type_: str) -> list[dict[str, Any]]:
    return [d.data for d in decisions if d.type == type_]


@pytest.mark.parametrize(
    "endpoint",
    [
        "socket",  # the shoe's cable pulled: the connection closes at once
        pytest.param("pty", marks=pytest.mark.slow),  # the shoe falls silent: the driver misses its heartbeats
    ],
)
def test_shoe_lost_mid_round_pauses_red_with_an_alert_and_resumes_after_the_handshake(
    ram_path: Path, endpoint: str
) -> None:
    profile = write_profile(ram_path, faults=OUTAGES, shoe_sim=f'endpoint = "{endpoint}"')
    quick_links(ram_path)  # each of the pty run's 14 or so outages: lost after 0.9 s, not 3 s
    run = Run(profile, ram_path / "journal.sqlite", rounds=30 if endpoint == "socket" else 60, seed=2)
    assert run_to_end(run) == 0
    assert audit(run).problems == []  # every draw is the shoe's next card: none lost, none twice
    resumed = paused_and_resumed(run.journal)
    assert len(resumed) >= 1 and "deal" in resumed, resumed


def paused_and_resumed(journal_path: Path) -> list[str]:
    """Check every device lost in the journal: it paused the table (red lamp, a fault alert,
    the ``wait`` prompt), nothing but wagers came until its new handshake, and the handshake
    gave the prompt back where it stood; return those prompts' actions."""
    journal, prompt, resumed = steps(journal_path), None, []
    for index, (name, _, decisions) in enumerate(journal):
        if name == "DeviceLost":
            assert of(decisions, "device")[0]["online"] is False
            assert [(a["code"], a["severity"]) for a in of(decisions, "alert")] == [("device-lost", "fault")]
            assert of(decisions, "lamp") == [{"colour": "red"}]
            assert of(decisions, "prompt")[-1]["action"] == "wait"
            found = next(i for i in range(index + 1, len(journal)) if journal[i][0] == "DeviceIdentified")
            assert all(step[0] == "DeviceLost" or "Wager" in step[0] for step in journal[index + 1 : found])
            back = journal[found][2]  # the driver handshook again
            assert of(back, "device")[0]["online"] is True and of(back, "device")[0]["refusal"] is None
            assert of(back, "lamp") != [{"colour": "red"}]
            assert prompt is not None and of(back, "prompt") == [prompt]  # the table resumes where it stood
            resumed.append(prompt["action"])
        elif of(decisions, "prompt") and of(decisions, "prompt")[-1]["action"] != "wait":
            prompt = of(decisions, "prompt")[-1]
    return resumed


def test_535_the_shaker_lost_mid_round_pauses_the_table_and_resumes_it_after_the_handshake(ram_path: Path) -> None:
    # The shaker's link goes down now and then (one shake in 20), mid-shaking and mid-reveal too.
    profile = paigow_profile(ram_path)
    text = profile.read_text().replace("disconnect = 0.001", OUTAGES)
    profile.write_text(
        text.replace("[devices.shaker.sim]", '[devices.shaker.sim]\nendpoint = "socket"')
    )  # a pulled cable
    run = Run(profile, ram_path / "journal.sqlite", rounds=40, seed=PAIGOW_SEED)
    assert run_to_end(run) == 0
    assert audit(run).problems == []  # every round's rolls, start, tiles and money check out
    resumed = paused_and_resumed(run.journal)
    # An outage follows a shake: the table was shaking, revealing or closing the round.
    assert resumed and set(resumed) <= {"shake", "reshake", "reveal", "read_dice", "collect_and_cover", "set_hands"}, (
        resumed
    )


@pytest.mark.parametrize(
    "approved, shoe_sim, why",
    [
        (None, 'firmware = "2.0.9"', "firmware '2.0.9' is not approved (approved: 2.1.0, 2.1.1)"),
        ('models = ["TS-9"]\nfirmware = ["2.1.0", "2.1.1"]', "", "model 'TS-8' is not approved (approved: TS-9)"),
        (APPROVED_SERIALS, 'serial = "TS8-0666"', "serial number 'TS8-0666' is not on the approved list"),
    ],
    ids=["firmware", "model", "serial"],
)
def test_an_unapproved_shoe_keeps_the_table_closed_and_the_journal_says_why(
    ram_path: Path, approved: str | None, shoe_sim: str, why: str
) -> None:
    profile = write_profile(ram_path, approved=approved, shoe_sim=shoe_sim)
    run = Run(profile, ram_path / "journal.sqlite", rounds=5, seed=1)
    proc, tracker = run.fork(), Tracker(run)
    follow(proc, tracker, FOREVER, lambda: tracker.refusal is not None)
    time.sleep(WATCH_SECONDS)  # the table would have opened by now
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    assert verify(run.journal).ok
    decided = [d for _, _, decisions in steps(run.journal) for d in decisions]
    assert [d["refusal"] for d in of(decided, "device")] == [why]
    assert {(a["code"], a["severity"]) for a in of(decided, "alert")} == {("device-refused", "fault")}
    assert of(decided, "lamp")[-1] == {"colour": "red"}
    assert {p["action"] for p in of(decided, "prompt")} == {"wait"}  # never load_shoe: the table did not open
    assert not of(decided, "announce") and not of(decided, "round_result")


def test_a_shoe_with_another_serial_number_is_refused_until_a_supervisor_acknowledges_it(ram_path: Path) -> None:
    profile = write_profile(ram_path, shoe_sim='serial = "TS8-0001"')
    assert run_to_end(Run(profile, ram_path / "journal.sqlite", rounds=3, seed=6)) == 0
    profile.write_text(profile.read_text().replace('serial = "TS8-0001"', 'serial = "TS8-0002"'))  # another unit
    run = Run(profile, ram_path / "journal.sqlite", rounds=6, seed=6)
    proc, tracker = run.fork(), Tracker(run)
    follow(proc, tracker, FOREVER, lambda: tracker.refusal is not None)
    time.sleep(WATCH_SECONDS)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    tracker.settle()
    assert tracker.rounds == 3 and tracker.prompt == "wait"
    assert tracker.refusal == "serial number changed from 'TS8-0001' to 'TS8-0002': supervisor must acknowledge"
    # The supervisor acknowledges at the table: the command goes through the same service and journal.
    table = load_table(profile)
    with Journal.open(run.journal) as journal:
        service = Service(game_wiring(table.game).controller(table), journal)
        service.recover()
        acknowledged = service.step(DealerCommand(device="console", command="acknowledge"))
    assert of(acknowledged, "device") == [
        {
            "device": "shoe",
            "online": True,
            "model": "TS-8",
            "serial": "TS8-0002",
            "firmware": "2.1.1",
            "refusal": None,
            "acknowledged": True,
        }
    ]
    assert run_to_end(run) == 0
    assert audit(run).problems == []


@pytest.mark.parametrize(
    "shoe_sim, refusal",
    [("", None), ('firmware = "2.1.1"', "firmware '2.1.1' is not approved (approved: 2.2.0)")],
    ids=["shoe-upgraded", "shoe-not-upgraded"],
)
def test_an_allow_list_changed_between_runs_resumes_the_journal_and_checks_the_shoe_again(
    ram_path: Path, shoe_sim: str, refusal: str | None
) -> None:
    # The shoe ran firmware 2.1.1; the casino approves 2.2.0 only and upgrades the shoe (or not yet).
    profile = write_profile(ram_path)
    assert run_to_end(Run(profile, ram_path / "journal.sqlite", rounds=3, seed=8)) == 0
    set_approved(ram_path / "devices" / f"{SHOE_MODEL}.toml", 'models = ["TS-8"]\nfirmware = ["2.2.0"]')
    profile.write_text(profile.read_text().replace("[devices.shoe.sim]\n", f"[devices.shoe.sim]\n{shoe_sim}\n"))
    run = Run(profile, ram_path / "journal.sqlite", rounds=5, seed=8)
    if refusal is None:
        assert run_to_end(run) == 0
        assert audit(run).problems == []
        return
    proc, tracker = run.fork(), Tracker(run)
    follow(proc, tracker, FOREVER, lambda: tracker.refusal is not None or proc.poll() is not None)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    assert tracker.refusal == refusal and tracker.rounds == 3
