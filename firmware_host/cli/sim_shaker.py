"""``tablehost sim shaker``: a simulated dice shaker on a pseudo-terminal or a socket."""

from __future__ import annotations

import argparse
import itertools

from drivers.codecs.shaker import Reading
from firmware_host.cli.sim import add_common_options, dealer_loop, endpoint_of
from sim.devices.faults import faults_from
from sim.devices.shaker import SHAKES_REQUIRED, ShakerFaults, SimShaker

#: The keys Enter (or each ``--auto`` tick) presses in turn: a round's shaking
#: (§ 535.8(a)), the reveal (§ 535.8(b)), and covering the shaker again (§ 535.8(f)).
ROUND_STEPS = ("s",) * SHAKES_REQUIRED + ("o", "c")


def describe(reading: Reading) -> str:
    """``3 5 6, 3 in the shaker``; a die not flat shows as ``5 (not flat)``."""
    faces = " ".join(f"{die.face}{'' if die.flat else ' (not flat)'}" for die in reading.dice)
    return f"{faces or 'no dice'}, {reading.dice_in_shaker} in the shaker"


def register(commands: argparse._SubParsersAction, name: str, help_text: str) -> None:  # type: ignore[type-arg]
    """Add ``sim shaker``."""
    shaker = commands.add_parser(name, help=help_text, description=__doc__.splitlines()[0])
    add_common_options(shaker)
    shaker.set_defaults(func=run_shaker)


def run_shaker(args: argparse.Namespace) -> int:
    """Serve a shaker until ``q``: Enter steps through a round (three shakes, lid off, lid on);
    ``s`` shakes, ``o`` takes the lid off, ``c`` puts it on."""
    endpoint, port = endpoint_of(args)
    faults = faults_from(ShakerFaults, args.faults)
    with SimShaker(endpoint=endpoint, port=port, seed=args.seed, faults=faults) as sim:

        def shake() -> str:
            count = sim.shake()
            return "shake not felt" + (" (lid is off)" if sim.lid_open else "") if count is None else f"shake {count}"

        def open_lid() -> str:
            already = "lid was already off" if sim.lid_open else "lid off"
            return f"{already}: {describe(sim.open_lid())}"

        def close_lid() -> str:
            sim.close_lid()
            return "lid on"

        actions = {"s": ("shake", shake), "o": ("take the lid off", open_lid), "c": ("put the lid on", close_lid)}
        steps = itertools.cycle(ROUND_STEPS)

        def next_step() -> str:
            return actions[next(steps)][1]()

        return dealer_loop(sim.url, ("next step of a round (3 shakes, lid off, lid on)", next_step), actions, args.auto)
