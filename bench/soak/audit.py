"""The soak's audit: a (killed and restarted) simulated run's journal checked as a compliance officer would.

:func:`audit` checks the hash chain, the round numbers, the wagers, the cards of every shoe
and every decision's replay; :func:`compare_runs` compares its rounds with an uninterrupted
run of the same seed. The Pai Gow round checks (:func:`check_rolls`, :func:`check_tiles`,
:func:`check_money`) are also the integration tests' checks of every round.
"""

from __future__ import annotations

import dataclasses
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from bench.soak.killloop import DRAWS, Run
from bench.soak.shuffler_audit import batch_shoes
from drivers.events import to_record
from firmware_host.config.profiles import TableProfile, load_table
from firmware_host.errors import JournalError
from firmware_host.host.journal import Journal
from firmware_host.host.journal_export import round_results, shoe_results
from firmware_host.host.journal_verify import verify
from firmware_host.host.service import Step
from firmware_host.rules.baccarat.cards import parse_card, shoe_composition
from firmware_host.rules.baccarat.deal import resolve
from firmware_host.rules.baccarat.variant import Variant
from firmware_host.rules.paigow_dice.position import label, starting_position
from firmware_host.rules.paigow_tiles import Setting
from firmware_host.wiring.journal_tools import verify_deep
from sim.dealers.paigow import PaiGowDealer
from sim.devices.shoe import SimShoe

__all__ = [
    "Audit",
    "audit",
    "replay",
    "seeded_shoe",
    "compare_runs",
    "shoes_played",
    "check_rolls",
    "check_tiles",
    "check_money",
]


@dataclasses.dataclass
class Audit:
    """What :func:`audit` found: ``problems`` is empty for a journal that lost and duplicated nothing."""

    problems: list[str] = dataclasses.field(default_factory=list)
    rounds: int = 0
    shoes: int = 0
    draws: int = 0
    steps_replayed: int = 0

    def check(self, ok: bool, problem: str) -> None:
        """Note ``problem`` unless ``ok``."""
        if not ok:
            self.problems.append(problem)


def audit(run: Run, key: bytes | None = None) -> Audit:
    """Check the journal of a (killed and restarted) simulated run.

    - the hash chain (and MACs) verify;
    - round numbers 1..N each appear exactly once;
    - no wager was placed twice in a round (the simulated players bet once per seat and
      kind in a round: twice means a restarted dealer bet again);
    - every decision replays identically through a fresh controller (:func:`replay`);
    - Baccarat: every completed round's cards give what ``resolve`` gives (§ 541.9-§ 541.12);
      no card lost or counted twice (each shoe's draws are, in order, the seeded shoe's, and
      a card keyed in is the card the shoe held); each wager settled once, for what was placed;
      with a shuffler, each shoe held the batch the shuffler reported, and a composition alert
      only for a batch whose cards the simulator made wrong;
    - Pai Gow: the integration tests' checks of every round (the rolls and the starting
      position, § 535.8(c), § 535.12; the tiles delivered; money conserved, § 535.10).
    """
    found, profile = Audit(), load_table(run.profile)
    report = verify(run.journal, hmac_key=key)
    found.check(report.ok, f"journal verify: {report.problem} at record {report.broken_seq}: {report.detail}")
    rounds = list(round_results(run.journal))
    numbers = [r["round"] for r in rounds]
    found.rounds = len(rounds)
    found.check(
        numbers == list(range(1, run.rounds + 1)),
        f"round numbers are not 1..{run.rounds} once each: {_duplicates_and_gaps(numbers, run.rounds)}",
    )
    with Journal.open(run.journal, hmac_key=key) as journal:
        steps = list(journal.steps())  # parsed once: every check below walks the same steps
    placed = _wagers_placed(steps, found)
    if profile.game == "baccarat":
        _audit_baccarat(steps, run, profile, rounds, placed, found)
    else:
        _audit_paigow(rounds, run.seed, found)
    try:
        found.steps_replayed = replay(run.journal, profile)
    except JournalError as exc:
        found.problems.append(f"replay: {exc}")
    return found


def replay(journal_path: Path, profile: TableProfile) -> int:
    """Replay the journal from its first record through a fresh controller of the profile, every
    decision checked, and compare every checkpoint with the state reached (``journal verify
    --deep``, with the key the profile names); return the steps. :class:`JournalError` names a checkpoint that is not faithful."""
    deep = verify_deep(journal_path, profile)
    if deep.problems:
        raise JournalError("; ".join(deep.problems))
    return deep.steps


def seeded_shoe(seed: int, decks: int, shoe_number: int, draws: int) -> list[str | None]:
    """The first ``draws`` physical cards of the simulator's shoe ``shoe_number`` (None: the cover card)."""
    shoe = SimShoe(seed=seed, decks=decks, shoe_number=shoe_number, endpoint="socket")
    try:
        return [shoe.draw().card for _ in range(draws)]
    finally:
        shoe.stop()


def _audit_draws(steps: Sequence[Step], run: Run, profile: TableProfile, found: Audit) -> None:
    """Each shoe's journaled draws are the seeded shoe's (at a shuffler table: its batch's, as the
    seeded shuffler released it, see :mod:`bench.soak.shuffler_audit`), in order, once each;
    a card the shoe could not read and the dealer keyed in is the card the shoe held there."""
    shoes: list[list[str | None]] = []
    unread: list[tuple[int, int]] = []  # (shoe, draw index) of cards waiting to be keyed in
    for _, event, decisions in steps:
        name, data = to_record(event)
        if any(d.type == "announce" and d.data.get("announce") == "shoe" for d in decisions):
            shoes.append([])  # a shoe_loaded the table accepted (one refused, while paused say, loads nothing)
            unread.clear()
        elif name == "DealerCommand" and data["command"] == "card_entered" and unread and not _refused(decisions):
            shoe, index = unread.pop(0)
            shoes[shoe][index] = str((data["args"] or {}).get("card"))
        elif name in DRAWS:
            if not shoes:
                shoes.append([])  # cards before the first shoe_loaded come from the sim's first shoe
            rank, suit = data.get("rank"), data.get("suit")
            shoes[-1].append(None if name == "CutCard" else f"{rank}{suit}" if rank and suit else "?")
            if any(d.type == "alert" and d.data.get("code") == "card-unreadable" for d in decisions):
                unread.append((len(shoes) - 1, len(shoes[-1]) - 1))
    found.shoes, found.draws = len(shoes), sum(map(len, shoes))
    composition = shoe_composition(profile.decks)
    batches, problems = batch_shoes(steps, run.journal, run.seed, profile)  # a shuffler table's shoes hold its batches
    found.problems.extend(problems)
    for number, drawn in enumerate(shoes, start=1):
        if batches is not None:
            expected, composition = batches.held(number, len(drawn)), batches.composition(number)
        else:
            expected = seeded_shoe(run.seed, profile.decks, number, len(drawn))
        for position, (card, physical) in enumerate(zip(drawn, expected), start=1):
            # "?": unread and not keyed in (a burn or discard card, whose identity does not matter).
            found.check(
                card in ("?", physical), f"shoe {number} draw {position}: journal has {card}, the shoe held {physical}"
            )
        counted = Counter(parse_card(card) for card in drawn if card not in (None, "?"))
        found.check(
            all(n <= composition[card] for card, n in counted.items()),
            f"shoe {number}: a card counted more often than the shoe holds it",
        )


def _refused(decisions: list[Any]) -> bool:
    """Whether the controller refused the step's input (a warning alert instead of acting)."""
    return any(
        d.type == "alert" and d.data.get("code") in ("refused-input", "wrong-state", "wager-refused") for d in decisions
    )


Placed = dict[int, dict[tuple[int, str], list[int]]]


def _wagers_placed(steps: Sequence[Step], found: Audit) -> Placed:
    """The wagers each round accepted, by ``(seat, kind)``; none may have been placed twice."""
    placed: Placed = defaultdict(lambda: defaultdict(list))
    finished = 0
    for _, event, decisions in steps:
        if type(event).__name__ == "WagerPlaced" and not _refused(decisions):
            placed[finished + 1][(event.seat, event.kind)].append(event.amount)  # type: ignore[attr-defined]
        finished += sum(1 for d in decisions if d.type == "round_result")
    for number, wagers in placed.items():
        twice = sorted(key for key, amounts in wagers.items() if len(amounts) > 1)
        found.check(not twice, f"round {number}: wagers placed twice at {twice}")
    return placed


def _audit_baccarat(
    steps: Sequence[Step], run: Run, profile: TableProfile, rounds: list[dict[str, Any]], placed: Placed, found: Audit
) -> None:
    variant = Variant.parse(profile.rules.data.get("variant", "standard"))
    for record in rounds:
        number = record["round"]
        if record["status"] == "completed":
            expected = resolve([parse_card(c) for c in record["cards"]], variant).to_json_dict()
            actual = {key: record[key] for key in expected}
            found.check(actual == expected, f"round {number}: {actual} is not resolve()'s {expected}")
        lines = Counter((line["seat"], line["kind"]) for line in record["settlement"])
        found.check(all(n == 1 for n in lines.values()), f"round {number}: a wager settled twice: {lines}")
        settled = {(line["seat"], line["kind"]): line["amount"] for line in record["settlement"]}
        wagers = {key: sum(amounts) for key, amounts in placed.get(number, {}).items()}
        found.check(settled == wagers, f"round {number}: settled {settled}, placed {wagers}")
    _audit_draws(steps, run, profile, found)


def _audit_paigow(rounds: list[dict[str, Any]], seed: int, found: Audit) -> None:
    checks: tuple[tuple[Callable[..., None], tuple[int, ...]], ...] = (
        (check_rolls, ()),
        (check_tiles, (seed,)),
        (check_money, ()),
    )
    for record in rounds:
        for check, args in checks:
            try:
                check(record, *args)
            except AssertionError as exc:
                found.problems.append(f"round {record['round']}: {check.__name__}: {exc}")


def _duplicates_and_gaps(numbers: list[int], expected: int) -> str:
    counts = Counter(numbers)
    twice = sorted(n for n, c in counts.items() if c > 1)
    missing = sorted(set(range(1, expected + 1)) - set(counts))
    return f"twice {twice[:10]}, missing {missing[:10]}, {len(numbers)} rounds"


def compare_runs(
    killed: Path, uninterrupted: Path, shoes: Callable[[Path], Iterable[dict[str, Any]]] = shoe_results
) -> list[str]:
    """Where the killed run's rounds and shoes (as ``shoes`` exports them; :func:`shoes_played`
    at a shuffler table) differ from the uninterrupted run's (empty: identical)."""
    differences = []
    for name, export in (("round", round_results), ("shoe", shoes)):
        a, b = list(export(killed)), list(export(uninterrupted))
        if len(a) != len(b):
            differences.append(f"{len(a)} {name}s after kills, {len(b)} uninterrupted")
        for x, y in zip(a, b):
            if x != y:
                changed = sorted(k for k in set(x) | set(y) if x.get(k) != y.get(k))
                differences.append(f"{name} {x.get(name, '?')}: {', '.join(changed)} differ")
    return differences


def shoes_played(journal: Path) -> list[dict[str, Any]]:
    """Each finished shoe as ``journal export --shoes`` gives it, but its alerts: a restart adds
    its own (the devices lost and found again, a shuffle abandoned when the host died)."""
    return [{key: value for key, value in shoe.items() if key != "alerts"} for shoe in shoe_results(journal)]


# --------------------------------------------------------------------------- Pai Gow rounds


def check_rolls(result: dict[str, Any]) -> None:
    """§ 535.8(c), § 535.11(j), § 535.12(a),(b): the last reading is the roll, every other one was reshaken."""
    rolls = result["rolls"]
    assert rolls, f"round {result['round']} completed without a reading"
    *reshaken, roll = rolls
    assert all(not earlier["valid"] and earlier["reason"] for earlier in reshaken), result
    assert roll["valid"] and roll["reason"] is None, result
    # A valid reading: three dice, each flat and showing 1-6, all in the shaker.
    assert roll["dice_in_shaker"] == 3 and roll["flat"] == [True] * 3, roll
    assert all(face in range(1, 7) for face in roll["dice"]), roll
    assert result["dice"] == roll["dice"] and result["total"] == sum(roll["dice"])
    assert result["start"] == label(starting_position(result["total"], result["bank_seat"])), result


def check_tiles(result: dict[str, Any], seed: int) -> None:
    """The hands keyed in hold exactly the tiles the plan delivered from the shuffle of the dealer of ``seed``."""
    dealer = PaiGowDealer(lambda event: None, lambda name: None, seed, None, None, dict)  # type: ignore[arg-type]
    dealer.round = result["round"]
    dealer.deal(result["plan"])
    settlement = result["settlement"]
    entered = {position: hands for position, hands in settlement["hands"].items() if hands not in ("surrender", "void")}
    if settlement["bank"] is not None:
        entered[str(result["bank_seat"])] = settlement["bank"]["setting"]
    if settlement["dealer"] is not None:
        entered["dealer"] = settlement["dealer"]["setting"]
    for position, setting in entered.items():
        tiles = sorted(tile.text for tile in Setting.parse(setting).tiles)
        assert tiles == sorted(tile.text for tile in dealer.dealt[position]), (result["round"], position)


def check_money(result: dict[str, Any]) -> None:
    """§ 535.10, § 535.11(n)-(r): what leaves one party arrives at another, to the cent."""
    settlement = result["settlement"]
    assert settlement is not None, f"round {result['round']} was not settled from its tiles"
    assert sum(settlement["nets"].values()) == 0, settlement["nets"]
    nets: Counter[str] = Counter()
    for movement in settlement["ledger"]:
        assert isinstance(movement["amount"], int) and movement["amount"] > 0, movement
        nets[movement["source"]] -= movement["amount"]
        nets[movement["destination"]] += movement["amount"]
    assert {party: net for party, net in nets.items() if net} == {p: n for p, n in settlement["nets"].items() if n}
    for wager in settlement["results"]:
        net = settlement["nets"].get(f"position {wager['position']}", 0)
        assert net == wager["net"], (result["round"], wager)
