"""Resume points are folds over the journal's steps: one pass gives each device's point, and a
point saved part way (a checkpoint's) continues with the steps after it."""

from __future__ import annotations

import dataclasses
import json

import pytest

from drivers.events.dice import LidChanged, ShakeDetected
from drivers.events.lifecycle import DeviceLost
from drivers.events.shoe import CardRead, CardUnreadable, CutCard
from drivers.events.shuffler import BatchLoaded
from firmware_host.tables.decisions import Decision
from sim.devices.resume import (
    RESTARTED,
    ResumePoints,
    ShakerResumePoint,
    ShoeResumePoint,
    ShufflerFact,
    resume_points,
    shaker_resume_point,
    shoe_resume_point,
    shuffler_resume_point,
)

SHOE = Decision("announce", {"announce": "shoe", "batch": "A"})
PAUSED = Decision("alert", {"code": "table-paused"})
SHUFFLE = Decision(
    "device_command", {"device": "shuffler", "command": "start_shuffle", "batch": "B", "expected_cards": 416}
)
STEPS = [
    (1.0, BatchLoaded(device="shuffler", batch="A", decks=8, back_colour="red"), [SHUFFLE]),
    (2.0, CardRead(device="shoe", rank="9", suit="S"), [SHOE]),  # the shoe accepted: draws start again
    (3.0, CardRead(device="shoe", rank="T", suit="H"), []),
    (4.0, CardUnreadable(device="shoe"), []),
    (5.0, LidChanged(device="shaker", open=True), []),
    (6.0, ShakeDetected(device="shaker", count=2), []),
    (7.0, LidChanged(device="shaker", open=False), []),
    (8.0, ShakeDetected(device="shaker", count=1), []),
    (9.0, LidChanged(device="shaker", open=True), [PAUSED]),  # ignored while paused
    (10.0, DeviceLost(device="shuffler", reason=RESTARTED), []),
    (11.0, CutCard(device="shoe"), []),
]


def test_each_fold_reads_only_steps_with_duck_typed_decisions() -> None:
    assert shoe_resume_point(STEPS) == ShoeResumePoint(shoes_loaded=1, draws=3)
    assert shaker_resume_point(STEPS) == ShakerResumePoint(lid_open=False, covering=2, shakes=1)
    assert shuffler_resume_point(STEPS).facts == (
        ShufflerFact("loaded", "A"),
        ShufflerFact("asked_shuffle", "B", cards=416),
        ShufflerFact("shoe", "A"),
        ShufflerFact("restarted"),
    )


def test_one_pass_gives_the_points_of_the_kinds_asked_only() -> None:
    points = resume_points(iter(STEPS), {"shoe", "shuffler"})
    assert points == ResumePoints(shoe_resume_point(STEPS), ShakerResumePoint(), shuffler_resume_point(STEPS))
    assert resume_points(iter(STEPS), ()) == ResumePoints()


@pytest.mark.parametrize("cut", range(len(STEPS) + 1))
def test_a_point_saved_part_way_continues_with_the_steps_after_it(cut: int) -> None:
    kinds = {"shoe", "shaker", "shuffler"}
    saved = resume_points(STEPS[:cut], kinds)
    assert resume_points(STEPS[cut:], kinds, since=saved) == resume_points(STEPS, kinds)


def test_a_resumed_simulator_takes_its_points_arguments() -> None:
    assert ShoeResumePoint().sim_options() == {"shoe_number": 1, "position": 0}
    assert ShoeResumePoint(3, 17).sim_options() == {"shoe_number": 3, "position": 17}
    assert ShakerResumePoint(True, 2, 4).sim_options() == {"lid_open": True, "covering": 2, "shakes": 4}


def test_points_round_trip_through_json_for_the_kinds_kept() -> None:
    points = resume_points(STEPS, {"shoe", "shaker", "shuffler"})
    kept = json.loads(json.dumps(points.to_json(["shoe", "shuffler"])))
    assert ResumePoints.from_json(kept) == dataclasses.replace(points, shaker=ShakerResumePoint())
    assert ResumePoints.from_json(None) == ResumePoints()
