"""The arguments of dealer commands, checked where they enter a controller (issue 20 item 3).

A ``DealerCommand`` comes from the dealer's console, a GPIO button or the display: a face a
hostile peer may reach. Each game declares, per command, the arguments it takes and a
:data:`Check` for each (:func:`whole`, :func:`boolean`, :func:`text`, :func:`list_of`,
:func:`map_of`, :func:`either`); :func:`check_command` applies them before any handler runs,
so a handler only ever sees arguments of the right type, in range and of a bounded size:

- the command's name is text of at most :data:`NAME_LONGEST` characters and one the game knows;
- ``args`` is absent or a JSON object whose keys are the command's own (an unknown one is refused);
- every value passes its check: integers (never ``True``/``False``) within their bounds,
  text no longer than its limit and within the text policy (:mod:`firmware_host.text`: no lone
  surrogate, control or bidirectional character), lists and objects no longer than theirs, item by item.

Every refusal is a :class:`~firmware_host.errors.RulesError` whose words quote the offending
value through :func:`quoted`, which never prints more than :data:`QUOTE_LONGEST` characters and
never walks a container, so a refusal's text (journaled, shown on the dealer's view) is bounded
whatever was sent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from firmware_host.errors import RulesError
from firmware_host.text import problem

__all__ = [
    "Check",
    "NAME_LONGEST",
    "QUOTE_LONGEST",
    "check_command",
    "boolean",
    "either",
    "list_of",
    "map_of",
    "named",
    "quoted",
    "text",
    "whole",
]

#: A check of one argument's value: raises :class:`RulesError` naming ``what`` and why.
Check = Callable[[object, str], None]

#: The longest command name (the longest known is 19 characters).
NAME_LONGEST = 32
#: The most characters of an offending value a refusal quotes.
QUOTE_LONGEST = 40
#: Integers beyond this (in magnitude) are never described by their digits (Python refuses
#: to print an integer of more than 4,300 digits, and a refusal need not).
_SHOWN_MAGNITUDE = 10**18


def quoted(value: object) -> str:
    """``value`` as a refusal names it: short text and numbers as written (text cut at
    :data:`QUOTE_LONGEST` characters), containers and other values by their kind and size."""
    if isinstance(value, str):
        return (
            repr(value)
            if len(value) <= QUOTE_LONGEST
            else repr(value[:QUOTE_LONGEST]) + f"... ({len(value)} characters)"
        )
    if value is None or isinstance(value, (bool, float)):
        return repr(value)
    if isinstance(value, int):
        return str(value) if abs(value) <= _SHOWN_MAGNITUDE else f"an integer of {value.bit_length()} bits"
    if isinstance(value, list):
        return f"a list of {len(value)} items"
    if isinstance(value, dict):
        return f"an object of {len(value)} keys"
    return f"a {type(value).__name__}"


def named(command: object) -> str:
    """A command's name as a refusal names it: as sent when it looks like a name, else :func:`quoted`."""
    if isinstance(command, str) and command.isidentifier() and len(command) <= NAME_LONGEST:
        return command
    return quoted(command)


def whole(lowest: int, highest: int) -> Check:
    """An integer from ``lowest`` to ``highest`` (``True`` and ``False`` are not integers here)."""

    def check(value: object, what: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise RulesError(f"{what} must be a whole number from {lowest} to {highest}, not {quoted(value)}")
        if not lowest <= value <= highest:
            raise RulesError(f"{what} {quoted(value)}: must be {lowest} to {highest}")

    return check


def boolean() -> Check:
    """``true`` or ``false``."""

    def check(value: object, what: str) -> None:
        if not isinstance(value, bool):
            raise RulesError(f"{what} must be true or false, not {quoted(value)}")

    return check


def text(longest: int) -> Check:
    """Text of at most ``longest`` characters that passes the text policy (:mod:`firmware_host.text`:
    Unicode text, no control or bidirectional character)."""

    def check(value: object, what: str) -> None:
        if not isinstance(value, str):
            raise RulesError(f"{what} must be text, not {quoted(value)}")
        why = problem(value, longest)
        if why is not None:
            raise RulesError(f"{what} {quoted(value)}: {why}")

    return check


def list_of(item: Check, longest: int) -> Check:
    """A list of at most ``longest`` items, each passing ``item``."""

    def check(value: object, what: str) -> None:
        if not isinstance(value, list):
            raise RulesError(f"{what} must be a list, not {quoted(value)}")
        if len(value) > longest:
            raise RulesError(f"{what}: {quoted(value)}, more than {longest}")
        for number, each in enumerate(value, 1):
            item(each, f"{what} item {number}")

    return check


def map_of(key: Check, value: Check, longest: int) -> Check:
    """A JSON object of at most ``longest`` keys, each key and value passing its check."""

    def check(mapping: object, what: str) -> None:
        if not isinstance(mapping, dict):
            raise RulesError(f"{what} must be a JSON object, not {quoted(mapping)}")
        if len(mapping) > longest:
            raise RulesError(f"{what}: {quoted(mapping)}, more than {longest}")
        for name, each in mapping.items():
            key(name, f"{what} key")
            value(each, f"{what}[{quoted(name)}]")

    return check


def either(*checks: Check, expected: str) -> Check:
    """A value that passes one of ``checks``; refused as not the ``expected`` (words for people)."""

    def check(value: object, what: str) -> None:
        for each in checks:
            try:
                each(value, what)
                return
            except RulesError:
                continue
        raise RulesError(f"{what}: expected {expected}, not {quoted(value)}")

    return check


def check_command(command: object, args: object, takes: Mapping[str, Mapping[str, Check]]) -> dict[str, Any]:
    """Check a dealer command against the arguments each command ``takes``; return its args.

    :param command: the ``DealerCommand.command`` as received.
    :param args: its ``args`` as received (``None``: none).
    :param takes: by command name, each argument's :data:`Check`.
    :raises RulesError: for an unknown command, args that are not an object, an argument the
        command does not take, or a value its check refuses.
    """
    if not isinstance(command, str) or len(command) > NAME_LONGEST or command not in takes:
        raise RulesError(f"dealer command {named(command)}: not one of {', '.join(takes)}")
    if args is None:
        return {}
    if not isinstance(args, dict):
        raise RulesError(f"{command}: arguments must be a JSON object, not {quoted(args)}")
    known = takes[command]
    for name, value in args.items():
        check = known.get(name) if isinstance(name, str) else None
        if check is None:
            offered = ", ".join(known) or "none"
            raise RulesError(f"{command}: unknown argument {quoted(name)} (it takes {offered})")
        check(value, f"{command} {name}")
    return args
