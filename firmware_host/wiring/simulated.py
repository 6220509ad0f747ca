"""The ``sim`` device backend: a simulator for each device whose port is ``sim``.

The simulator's options come from the profile's ``[devices.<name>.sim]`` table; an option
the kind does not know is a :class:`~firmware_host.errors.ProfileError` naming the key. A
simulated device reports an approved identity of its model unless the profile gives its
``serial``/``firmware``, and a restarted one resumes where the journal left it
(:attr:`DeviceContext.resume`). Each kind's simulator is imported when a slot of its kind is
built.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from drivers.codecs import framed
from firmware_host.config.profiles import DeviceSlot, TableProfile
from firmware_host.errors import ProfileError
from firmware_host.wiring.backends import DeviceContext, Port
from sim.devices.faults import ShoeFaults, faults_from
from sim.errors import SimError

if TYPE_CHECKING:  # a Pai Gow table imports nothing of Baccarat (tests/architecture/test_lean_run.py)
    from firmware_host.rules.baccarat.cards import Card
    from firmware_host.rules.baccarat.rules import RulesSubmission
    from sim.devices.shuffler import SimulatedShuffler

__all__ = ["sim_port", "shuffler_sim", "sim_players", "COUNTER_STAKE_MINIMUMS"]

#: A simulated counter bets this many table minimums (issue 21, item 4).
COUNTER_STAKE_MINIMUMS = 10


def sim_port(slot: DeviceSlot, context: DeviceContext) -> Port:
    """A simulator of ``slot``'s device kind, and the port its driver reaches it at."""
    return _SIMULATORS[slot.model.kind](slot, context)


def _sim_identity(slot: DeviceSlot) -> framed.Identity:
    """What a simulator reports: the profile's ``serial``/``firmware``, else an approved unit of its model."""
    approved = slot.model.approved
    serial = slot.sim.get("serial", approved.serials[0] if approved.serials else "SIM-0001")
    return framed.Identity(slot.model.model, str(serial), str(slot.sim.get("firmware", approved.firmware[-1])))


def _faults(slot: DeviceSlot, context: DeviceContext, cls: type, spec: Any) -> Any:
    try:
        return faults_from(cls, spec)
    except SimError as exc:
        raise ProfileError(context.table_path, f"devices.{slot.name}.sim.faults", str(exc)) from None


def _shoe(slot: DeviceSlot, context: DeviceContext) -> Port:
    from sim.devices.shoe import SimShoe, suit_first_share

    model, options = slot.model, dict(slot.sim)
    try:
        suit_first = suit_first_share(options.get("suit_first_burns", 0.0), model.dialect)
    except SimError as exc:
        raise ProfileError(context.table_path, f"devices.{slot.name}.sim.suit_first_burns", str(exc)) from None
    sim = SimShoe(
        dialect=model.dialect,
        endpoint=options.get("endpoint", "pty"),
        seed=context.seed,
        decks=context.decks,
        faults=_faults(slot, context, ShoeFaults, options.get("faults")),
        suit_first_burns=suit_first,
        identity=_sim_identity(slot),
        heartbeat=model.timeouts.heartbeat,
        ack_timeout=model.timeouts.ack,
        **context.resume.shoe.sim_options(),
    )
    return Port(url=sim.url, sim=sim)


def _shaker(slot: DeviceSlot, context: DeviceContext) -> Port:
    from sim.devices.shaker import ShakerFaults, SimShaker

    model, options = slot.model, dict(slot.sim)
    sim = SimShaker(
        endpoint=options.get("endpoint", "pty"),
        seed=context.seed,
        faults=_faults(slot, context, ShakerFaults, options.get("faults")),
        identity=_sim_identity(slot),
        heartbeat=model.timeouts.heartbeat,
        ack_timeout=model.timeouts.ack,
        **context.resume.shaker.sim_options(),
    )
    return Port(url=sim.url, sim=sim)


def shuffler_sim(slot: DeviceSlot, context: DeviceContext) -> SimulatedShuffler:
    """The simulated shuffler of ``slot`` (``port = "sim"``), from its ``[devices.<name>.sim]``:
    the same seed and settings give the same shuffles (a restarted one resumes with them).

    :raises ProfileError: for an option or fault the simulator does not know.
    """
    from sim.devices.shuffler import SimulatedShuffler

    model, options, identity = slot.model, dict(slot.sim), _sim_identity(slot)
    vendor, product = model.usb_vendor_id, model.usb_product_id
    assert vendor is not None and product is not None  # load_table requires both of a USB device
    try:
        return SimulatedShuffler(
            context.seed,
            decks_per_batch=context.decks,
            fault_rates=options.get("faults"),
            recover_after_s=options.get("recover_after_s", 2.0),
            shuffle_seconds=float(options.get("shuffle_seconds", 0.0)),
            model=identity.model,
            serial=identity.serial,
            firmware=identity.firmware,
            vendor_id=vendor,
            product_id=product,
        )
    except SimError as exc:
        raise ProfileError(context.table_path, f"devices.{slot.name}.sim", str(exc)) from None


def _shuffler(slot: DeviceSlot, context: DeviceContext) -> Port:
    sim = shuffler_sim(slot, context)
    return Port(usb=sim, sim=sim)


_SIMULATORS: dict[str, Callable[[DeviceSlot, DeviceContext], Port]] = {
    "shoe": _shoe,
    "shaker": _shaker,
    "shuffler": _shuffler,
}


def sim_players(profile: TableProfile, rules: RulesSubmission, exposed: Iterable[Card] = ()) -> dict[str, Any]:
    """The Baccarat dealer's players from ``[sim.players]``: the counters' seats, what they know of
    the shoe (:class:`~sim.dealers.counter.CardCounter`) and their stake, 10 x the table minimum.

    :param exposed: the cards the table has shown in the shoe in play (a restart mid-shoe).
    """
    players = profile.players
    if not players.counters:
        return {}
    from sim.dealers.counter import CardCounter

    counter = CardCounter(rules, profile.decks)
    counter.resume(exposed)
    return {"counters": players.counters, "counter": counter, "counter_stake": COUNTER_STAKE_MINIMUMS * players.minimum}
