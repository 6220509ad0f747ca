"""The floor soak's tables: a few simulated journals, re-issued under many table ids at a real table's pace.

A source journal is played once by ``tablehost run`` on a simulated table (:func:`play_source`);
its feed messages (:func:`firmware_host.feed.schema.derive`, as the table's publisher makes them)
are cut into rounds, each ending at a ``round_result`` (:func:`rounds_of`). :func:`reissue` gives
them to another table: ``table`` rewritten, ``seq`` from 1, ``at`` the round's scheduled publish
time (so decision -> stored means the same for every table), the hash chain recomputed
(:func:`~firmware_host.feed.schema.seal`) and each message signed with the table's own key
(:class:`~firmware_host.feed.signing.Signer`): to the collector it is that table's genuine feed.

The pace (:class:`Pace`): a mini-baccarat table deals 70-80 hands an hour and a Pai Gow table about
30 (the figures table-games managers plan with, e.g. ggbnews.com "Hourly hand decisions in
baccarat"); the soak plays ``speed`` times that.
"""

from __future__ import annotations

import dataclasses
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from firmware_host.feed import schema
from firmware_host.feed.signing import Signer
from firmware_host.host.journal import Journal

__all__ = ["Pace", "PACES", "Burst", "play_source", "rounds_of", "reissue", "schedule", "topic"]

REPO = Path(__file__).resolve().parents[2]
#: The simulated tables' profiles, by game.
PROFILES = {
    "baccarat": REPO / "hardware-profiles" / "tables" / "sim-baccarat.toml",
    "paigow": REPO / "hardware-profiles" / "tables" / "sim-paigow.toml",
}


@dataclasses.dataclass(frozen=True)
class Pace:
    """A game's pace at a real table.

    :param hands_per_hour: rounds an hour at a real table.
    :param dealer_moves: the simulated dealer's waits (``tablehost run --pace``) per round,
        counted in the simulators' journals (prompts answered per round).
    """

    game: str
    hands_per_hour: float
    dealer_moves: float

    def period_s(self, speed: float) -> float:
        """Seconds between two rounds at ``speed`` times the real pace."""
        return 3600.0 / (self.hands_per_hour * speed)

    def run_pace_s(self, speed: float) -> float:
        """``tablehost run --pace`` for a live table at ``speed`` times the real pace."""
        return self.period_s(speed) / self.dealer_moves


#: Mini-baccarat 75 hands/h (70-80 published), Pai Gow 30 hands/h. The dealer's moves: 9.5 waits
#: per Baccarat round, 6.5 per Pai Gow round (``--pace 0.2``: 1.9 s and 1.3 s a round).
PACES = {"baccarat": Pace("baccarat", 75.0, 9.5), "paigow": Pace("paigow", 30.0, 6.5)}


@dataclasses.dataclass(frozen=True)
class Burst:
    """What a table publishes at one moment (a round's messages): ``at`` (time.time()) and the payloads."""

    at: float
    payloads: tuple[bytes, ...]
    hashes: tuple[str, ...]


def topic(table: str) -> str:
    """A table's events topic (the ACL lets the table's user write it)."""
    return f"tablehost/{table}/events"


def play_source(directory: Path, game: str, rounds: int, seed: int = 1) -> Path:
    """A simulated ``game`` table's journal of ``rounds`` rounds, played once (``tablehost run``)."""
    journal = directory / f"source-{game}-{rounds}.sqlite"
    if not journal.exists():
        subprocess.run(
            [sys.executable, "-m", "firmware_host", "run", "--profile", str(PROFILES[game])]
            + ["--rounds", str(rounds), "--seed", str(seed), "--journal", str(journal), "--quiet"],
            check=True,
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    return journal


def rounds_of(journal: Path) -> list[list[dict[str, Any]]]:
    """The journal's feed messages cut into rounds: ``[0]`` what precedes the first round's result,
    then one list per round, each ending at its ``round_result`` (what follows the last one joins it)."""
    with Journal.open(journal) as opened:
        messages = [m for m, _ in schema.derive("SOURCE", opened.records(), schema.FeedState())]
    groups: list[list[dict[str, Any]]] = [[]]
    for message in messages:
        groups[-1].append(message)
        if message["type"] == "round_result":
            groups.append([])
    if not groups[-1]:
        groups.pop()
    elif len(groups) > 1:
        groups[-2].extend(groups.pop())
    return groups


def reissue(groups: list[list[dict[str, Any]]], table: str, signer: Signer, times: list[float]) -> list[Burst]:
    """The messages of ``groups[:len(times)]`` as ``table``'s feed, group ``k`` published at ``times[k]``."""
    bursts, seq, prev = [], 0, schema.GENESIS_HASH
    for group, at in zip(groups, times):
        payloads, hashes = [], []
        for message in group:
            seq += 1
            body = {name: message[name] for name in schema.FIELDS if name != "hash"}
            sealed = schema.seal({**body, "table": table, "seq": seq, "at": at, "prev_hash": prev})
            prev = sealed["hash"]
            payloads.append(schema.encode(signer.sign(sealed)))
            hashes.append(prev)
        bursts.append(Burst(at, tuple(payloads), tuple(hashes)))
    return bursts


def schedule(start: float, period: float, rounds: int, rng: random.Random) -> list[float]:
    """When a table publishes: its opening messages within 2 s of ``start``, then a round every
    ``period`` seconds from a random phase (so the tables' rounds do not all end at once)."""
    phase = rng.uniform(0, period)
    return [start + rng.uniform(0, 2.0)] + [start + phase + k * period for k in range(rounds)]
