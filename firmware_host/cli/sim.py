"""``tablehost sim``: run a simulated device standalone and print the port to open.

Each device's sub-command lives in its own module (listed in :data:`DEVICES`) with a
``register(commands, name, help_text)`` function, as the command groups do. Shared here: the endpoint, seed and fault options, and the
dealer's loop (Enter for the device's main action, a letter for the others, or ``--auto``).
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable

from firmware_host.cli import checks, register_all

#: (sub-command, help, module with ``register``), in the order ``--help`` lists them.
DEVICES: tuple[tuple[str, str, str], ...] = (
    ("shoe", "a card-reading dealing shoe (framed or ascii dialect)", "firmware_host.cli.sim_shoe"),
    ("shaker", "a dice shaker with dice sensor", "firmware_host.cli.sim_shaker"),
)

#: One dealer action: (help shown at start, action returning the line to print).
Action = tuple[str, Callable[[], str]]


def register(groups: argparse._SubParsersAction, name: str, help_text: str) -> None:  # type: ignore[type-arg]
    """Add the ``sim`` group and one sub-command per device module."""
    group = groups.add_parser(name, help=help_text, description=__doc__.splitlines()[0])
    register_all(group.add_subparsers(dest="device", metavar="DEVICE", required=True), DEVICES)


def add_common_options(parser: argparse.ArgumentParser) -> None:
    """``--seed``, ``--socket``, ``--faults``, ``--auto``: the options every device sim takes."""
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="seed of everything random (default 0)")
    parser.add_argument(
        "--socket",
        type=checks.port,
        default=None,
        metavar="PORT",
        help="listen on TCP 127.0.0.1:PORT (0: any free port) instead of a pseudo-terminal",
    )
    parser.add_argument(
        "--faults",
        default=None,
        metavar="NAME=P,...",
        help="faults to inject, e.g. corrupt_byte=0.05,drop_frame=0.02,disconnect=0.01",
    )
    parser.add_argument(
        "--auto",
        type=checks.positive_number,
        default=None,
        metavar="SECONDS",
        help="act by itself every SECONDS instead of waiting for Enter (no keys are read)",
    )


def endpoint_of(args: argparse.Namespace) -> tuple[str, int]:
    """``(endpoint kind, port)`` from ``--socket``."""
    return ("pty", 0) if args.socket is None else ("socket", args.socket)


def dealer_loop(url: str, main: Action, others: dict[str, Action], auto: float | None) -> int:
    """Print ``url`` (first line of stdout, for scripts), then act until ``q``, end of input or Ctrl-C.

    With ``auto`` the loop acts every ``auto`` seconds and reads no keys, so it offers none.

    :param main: what Enter (or each ``--auto`` tick) does.
    :param others: letter -> action.
    """
    print(url, flush=True)
    try:
        if auto is not None:
            print(f"open {url} from the host; every {auto:g} s: {main[0]}; Ctrl-C: quit", file=sys.stderr, flush=True)
            stop = threading.Event()
            while not stop.wait(auto):
                print(main[1](), flush=True)
            return 0
        keys = ", ".join(f"{key} + Enter: {text}" for key, (text, _) in others.items())
        print(f"open {url} from the host; Enter: {main[0]}; {keys}; q: quit", file=sys.stderr, flush=True)
        for line in sys.stdin:
            key = line.strip().lower()
            if key == "q":
                break
            if key and key not in others:
                print(f"unknown key {key!r}; {keys}; q: quit", file=sys.stderr, flush=True)
                continue
            print((others[key] if key else main)[1](), flush=True)
    except KeyboardInterrupt:
        pass
    return 0
