"""The simulators' own tables of a profile: ``[devices.<name>.sim]`` and ``[sim.dealer]``.

Parsed here, as every profile section is (docs/architecture.md): the option names each kind of
simulator takes, their types, and the simulated Pai Gow dealer's choices as probabilities. What
the simulators make of them (the fault tables, the shoe's dialect) is theirs to build.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from firmware_host.errors import ProfileError

__all__ = ["SIM_OPTIONS", "sim_options", "dealer_choices"]

_GAMES = {"baccarat": "Baccarat", "paigow": "Pai Gow"}

#: The options of ``[devices.<name>.sim]`` each kind of simulator takes, with their TOML types.
#: Every simulator also takes ``serial`` and ``firmware``: the identity it reports (default: an
#: approved unit of its model), so a profile can present an unapproved unit.
SIM_OPTIONS: dict[str, dict[str, tuple[type, ...]]] = {
    "shoe": {
        "faults": (dict,),
        "endpoint": (str,),
        "suit_first_burns": (int, float),
        "serial": (str,),
        "firmware": (str,),
    },
    "shaker": {"faults": (dict,), "endpoint": (str,), "serial": (str,), "firmware": (str,)},
    "shuffler": {
        "faults": (dict,),
        "recover_after_s": (int, float),
        "shuffle_seconds": (int, float),
        "serial": (str,),
        "firmware": (str,),
    },
}


def sim_options(path: object, where: str, kind: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` (the table at ``where``, e.g. ``devices.shoe.sim``) when a simulated ``kind``
    takes each of them with its type.

    :raises ProfileError: an option it does not take, or of another type, naming the key.
    """
    known = SIM_OPTIONS[kind]
    for key, value in options.items():
        kinds = known.get(key)
        if kinds is None:
            raise ProfileError(path, f"{where}.{key}", f"unknown key (a simulated {kind} takes: {', '.join(known)})")
        if isinstance(value, bool) or not isinstance(value, kinds):
            raise ProfileError(
                path, f"{where}.{key}", f"expected {' or '.join(k.__name__ for k in kinds)}, got {value!r}"
            )
    return dict(options)


def dealer_choices(path: object, game: str, choices: Mapping[str, Any]) -> dict[str, float]:
    """The ``[sim.dealer]`` probabilities of a simulated dealer, checked against the choices it
    makes: a Pai Gow dealer's (:data:`sim.dealers.paigow.CHOICES`), a Baccarat dealer's errors
    (:data:`sim.dealers.baccarat.ERRORS`), the game's imported only when the table names any.

    :raises ProfileError: an unknown choice, or a value that is not a probability, naming the key.
    """
    if not choices:
        return {}
    known: Collection[str]
    if game == "paigow":
        from sim.dealers.paigow import CHOICES as known
    else:
        from sim.dealers.baccarat import ERRORS as known

    checked = {}
    for key, value in choices.items():
        where = f"sim.dealer.{key}"
        if key not in known:
            raise ProfileError(path, where, f"unknown key (a {_GAMES[game]} dealer takes: {', '.join(known)})")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise ProfileError(path, where, f"expected a probability from 0 to 1, got {value!r}")
        checked[key] = float(value)
    return checked
