"""The kill loop's audit at a table with an automatic shuffler (§ 541.3(b)).

A shoe there holds a batch as the shuffler released it, cut as the shoe cut it
(§ 541.5(d)-(e)), not a shoe the simulated shoe shuffled. :func:`batch_shoes` rebuilds
the seeded shuffler's orders from the journal (as a restarted simulator does) and checks
them against what the device itself reported: each shoe's batch order has the order digest
the shuffler reported for that batch before the shoe was loaded, the replay accounts for
every report, and a shoe whose composition audit failed (§ 541.3(b)(1)) was loaded with a
batch whose cards were wrong (a missing or extra card the simulator injected).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from drivers.codecs.shuffler import order_digest
from firmware_host.config.profiles import TableProfile
from firmware_host.host.journal import Journal
from firmware_host.host.journal_export import shoe_results
from firmware_host.host.service import Step
from firmware_host.rules.baccarat.cards import Card, parse_card, shoe_composition
from firmware_host.wiring.backends import DeviceContext
from firmware_host.wiring.simulated import shuffler_sim
from sim.devices.resume import RESTARTED, shuffler_resume_point
from sim.devices.shoe import SimShoe

__all__ = ["BatchShoes", "batch_shoes", "shuffler_troubles"]


@dataclasses.dataclass(frozen=True)
class BatchShoes:
    """The batch order each shoe of a shuffler table was loaded with (shoe 1 first)."""

    seed: int
    orders: tuple[tuple[str, ...], ...]

    def held(self, number: int, draws: int) -> list[str | None]:
        """The first ``draws`` physical cards of shoe ``number`` (None: the cover card), cut as
        the simulated shoe cut them (its first batch is its second shoe)."""
        shoe = SimShoe(seed=self.seed, endpoint="socket")
        try:
            shoe.load(self.orders[number - 1], shoe_number=number + 1)
            return [shoe.card_at(index) for index in range(draws)]
        finally:
            shoe.stop()

    def composition(self, number: int) -> Counter[Card]:
        """The cards of shoe ``number``'s batch."""
        return Counter(parse_card(card) for card in self.orders[number - 1])


def batch_shoes(
    steps: Sequence[Step], journal: Path, seed: int, profile: TableProfile
) -> tuple[BatchShoes | None, list[str]]:
    """The shoes' batch orders of a shuffler table (``steps``: the journal's, as
    :meth:`Journal.steps` gives them), and the problems found with them (``None`` and no
    problems at a table without a shuffler)."""
    slot = next((s for s in profile.devices.values() if s.model.kind == "shuffler"), None)
    if slot is None:
        return None, []
    resumed = shuffler_sim(slot, DeviceContext(profile.path, seed, profile.decks)).resume(
        shuffler_resume_point(steps, slot.name)
    )
    problems = [f"shuffler replay: {problem}" for problem in resumed.unexplained]
    reported = _reported_digests(steps, slot.name)
    if len(reported) != len(resumed.shoes):
        problems.append(f"{len(reported)} shoes loaded from batches, the replay loaded {len(resumed.shoes)}")
    for number, (order, digest) in enumerate(zip(resumed.shoes, reported), start=1):
        if order_digest(order).hex() != digest:
            problems.append(f"shoe {number}: its batch's order is not the one the shuffler reported ({digest[:12]})")
    full = shoe_composition(profile.decks)
    shoes = BatchShoes(seed, resumed.shoes)
    for result in shoe_results(journal):
        number = result["shoe"]
        injected = number <= len(shoes.orders) and shoes.composition(number) != full
        if not result["composition_ok"] and not injected:
            problems.append(f"shoe {number}: composition alert, but its batch held exactly {profile.decks} decks")
    return shoes, problems


def _reported_digests(steps: Sequence[Step], device: str) -> list[str]:
    """For each shoe loaded from a batch: the order digest the shuffler last reported for it."""
    latest: dict[str, str] = {}
    digests = []
    for _, event, decisions in steps:
        digest = getattr(event, "order_digest", "")
        if getattr(event, "device", None) == device and digest:
            latest[event.batch] = digest
        for decision in decisions:
            if decision.type == "announce" and decision.data.get("announce") == "shoe" and decision.data.get("batch"):
                digests.append(latest.get(decision.data["batch"], ""))
    return digests


def shuffler_troubles(journal: Path, key: bytes) -> Counter[str]:
    """The shuffler's faults and losses (a pulled cable, not a restart) in the journal."""
    troubles: Counter[str] = Counter()
    with Journal.open(journal, hmac_key=key) as opened:
        for _, event, _ in opened.steps():
            name, device = type(event).__name__, getattr(event, "device", None)
            if name == "ShufflerFault":
                troubles[event.code] += 1
            elif name == "DeviceLost" and device == "shuffler" and event.reason != RESTARTED:
                troubles["lost"] += 1
    return troubles
