"""``tablehost sim shoe``: a simulated card-reading shoe on a pseudo-terminal or a socket."""

from __future__ import annotations

import argparse

from drivers import dialects
from drivers.codecs.shoe_messages import Card, ShoeEmpty, ShoeMessage
from firmware_host.cli.sim import add_common_options, dealer_loop, endpoint_of
from sim.devices.faults import ShoeFaults, faults_from
from sim.devices.shoe import SimShoe


def describe(message: ShoeMessage) -> str:
    """A short line for what the shoe reported: ``card 4S``, ``card 3H (burn)``, ``CutCard``..."""
    if isinstance(message, Card):
        return f"card {message}{' (burn)' if message.burn else ''}"
    return type(message).__name__


def register(commands: argparse._SubParsersAction, name: str, help_text: str) -> None:  # type: ignore[type-arg]
    """Add ``sim shoe``."""
    shoe = commands.add_parser(name, help=help_text, description=__doc__.splitlines()[0])
    shoe.add_argument("--dialect", choices=dialects.names(), default="framed", help="wire dialect (default framed)")
    shoe.add_argument("--decks", type=int, default=8, metavar="N", help="decks in the shoe, 1-8 (default 8)")
    shoe.add_argument(
        "--suit-first-burns",
        type=float,
        default=0.0,
        metavar="P",
        help="share of burn cards the ascii dialect writes suit first, <Card:H3> (default 0: rank first)",
    )
    add_common_options(shoe)
    shoe.set_defaults(func=run_shoe)


def run_shoe(args: argparse.Namespace) -> int:
    """Serve a shoe until ``q``: Enter pulls a card; ``b`` toggles burn mode; ``r`` loads a new shoe.

    With ``--auto S`` it pulls a card every S seconds (loading a new shoe when one is empty) and reads no keys.
    """
    endpoint, port = endpoint_of(args)
    faults = faults_from(ShoeFaults, args.faults)
    with SimShoe(
        dialect=args.dialect,
        endpoint=endpoint,
        port=port,
        seed=args.seed,
        decks=args.decks,
        faults=faults,
        suit_first_burns=args.suit_first_burns,
    ) as sim:

        def pull() -> str:
            draw = sim.draw()
            if isinstance(draw.message, ShoeEmpty) and args.auto is not None:
                sim.reload()
                return f"shoe empty: loaded shoe {sim.shoe_number}"
            return f"drew {draw.card or '--'}, shoe reports {describe(draw.message)}; {sim.remaining()} left"

        def burn() -> str:
            sim.burn_mode = not sim.burn_mode
            return f"burn mode {'on' if sim.burn_mode else 'off'}"

        def reload() -> str:
            sim.reload()
            return f"loaded shoe {sim.shoe_number} ({sim.remaining()} cards)"

        return dealer_loop(
            sim.url, ("pull a card", pull), {"b": ("toggle burn mode", burn), "r": ("new shoe", reload)}, args.auto
        )
