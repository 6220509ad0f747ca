"""The dealer display's actions: which role each needs, and the DealerCommand it becomes.

An action is exactly the :class:`~firmware_host.tables.events.DealerCommand` a button or the
dealer console sends (same ``command``, same ``args``), with ``device`` naming where it came
from and who did it: ``display:dealer`` or ``display:supervisor`` — so the journal's input
record says who acted, and a journal written before the display replays unchanged.

Arguments are bounded here, at the HTTP face, before anything is journaled or shown: a text is
at most its :attr:`Action.lengths` (a card: 3 characters), any other text
:data:`MAX_TEXT`, and within the text policy (:mod:`firmware_host.text`: no lone surrogate,
control or bidirectional character), a list or an object at most :data:`MAX_ITEMS` entries,
nested at most two deep.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from firmware_host.errors import TablehostError
from firmware_host.tables.events import DealerCommand
from firmware_host.text import problem

__all__ = [
    "ACTIONS",
    "ROLES",
    "REFUSED_META",
    "Action",
    "ActionError",
    "command_for",
    "needed_role",
    "IDENTITY_CHANGED",
    "MAX_TEXT",
    "MAX_ITEMS",
]

#: Who may act at the display (the PIN files' roles); an action's DealerCommand comes from ``display:<role>``.
ROLES = ("dealer", "supervisor")
#: The journal's meta record of a request the display refused (who tried which action, from where,
#: why), written by the service for the web face.
REFUSED_META = "display_refused"
#: What the controller's refusal of a device says when another unit's serial number needs a
#: supervisor's acknowledgement (issue 6 item 3): acknowledging then is a supervisor action.
IDENTITY_CHANGED = "supervisor must acknowledge"
#: Longest text of an argument without a length of its own (four tiles set high and low: 15).
MAX_TEXT = 32
#: Most entries of a list or an object argument (hands: one per seat, 7 and the dealer's).
MAX_ITEMS = 8


@dataclasses.dataclass(frozen=True)
class Action:
    """One action: the role it needs and the arguments it takes (name -> JSON type)."""

    role: str
    args: Mapping[str, type | tuple[type, ...]] = dataclasses.field(default_factory=dict)
    #: Longest text of a string argument, by name (others: :data:`MAX_TEXT`).
    lengths: Mapping[str, int] = dataclasses.field(default_factory=dict)


#: By game: the actions of the dealer display (issue 14 item 3).
ACTIONS: dict[str, dict[str, Action]] = {
    "baccarat": {
        "no_more_bets": Action("dealer"),
        "reveal": Action("dealer"),
        "card_disclosed": Action("dealer"),
        "card_entered": Action("dealer", {"card": str}, {"card": 3}),  # "9S", "10D": a card, no longer
        "acknowledge": Action("dealer"),
        "void_round": Action("supervisor", {"reason": str}, {"reason": 200}),  # § 541.14: the supervisor's call
    },
    "paigow": {
        "no_more_bets": Action("dealer"),
        "bank": Action("dealer", {"seat": int, "co_bank": bool, "chips_confirmed": bool}),
        "no_bank": Action("dealer"),
        "reveal": Action("dealer"),
        "delivered": Action("dealer"),
        "tiles": Action("dealer", {"dealer": (str, list), "hands": dict}),
        "round_complete": Action("dealer"),
        "new_dice": Action("dealer"),
        "acknowledge": Action("supervisor"),  # only a changed device identity waits for it
        "void_round": Action("supervisor", {"reason": str}, {"reason": 200}),
    },
}


class ActionError(TablehostError, ValueError):
    """An action the display does not offer, or arguments it does not take."""


def needed_role(game: str, command: str, devices: Mapping[str, Mapping[str, Any]]) -> str:
    """The role ``command`` needs now: acknowledging a changed device identity is a supervisor's."""
    action = _action(game, command)
    if command == "acknowledge" and any(IDENTITY_CHANGED in str(d.get("refusal") or "") for d in devices.values()):
        return "supervisor"
    return action.role


def command_for(game: str, command: str, args: Any, role: str) -> DealerCommand:
    """The DealerCommand of an action taken by ``role``; :class:`ActionError` for bad arguments."""
    action = _action(game, command)
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ActionError(f"{command}: arguments are a JSON object")
    for name, value in args.items():
        kind = action.args.get(name)
        if kind is None:
            raise ActionError(f"{command}: no argument {name!r} (takes {', '.join(action.args) or 'none'})")
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ActionError(f"{command}: {name} has the wrong type")
        why = _unbounded(value, action.lengths.get(name, MAX_TEXT), 2)
        if why is not None:
            raise ActionError(f"{command}: {name} {why}")
    return DealerCommand(device=f"display:{role}", command=command, args=dict(args) or None)


def _action(game: str, command: str) -> Action:
    try:
        return ACTIONS[game][command]
    except KeyError:
        raise ActionError(f"{command!r} is not an action of the {game} display") from None


def _unbounded(value: Any, length: int, depth: int) -> str | None:
    """Why ``value``'s texts, lists and objects are not within the limits and the text policy
    (numbers: 0 to 2**31), or None when they are."""
    if isinstance(value, str):
        return problem(value, length)
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return None if 0 <= value < 2**31 else "is out of range"
    if isinstance(value, (list, dict)):
        if depth == 0 or len(value) > MAX_ITEMS:
            return f"nests deeper than 2 or has more than {MAX_ITEMS} entries"
        keys = [problem(k, MAX_TEXT) for k in value] if isinstance(value, dict) else []
        items = value.values() if isinstance(value, dict) else value
        return next((why for why in (*keys, *(_unbounded(v, MAX_TEXT, depth - 1) for v in items)) if why), None)
    return "is not a JSON value"
