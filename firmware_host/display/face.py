"""What the web face may be told of the table: the one filter between the journal and the face file.

The web face faces the network and reads no journal (issue 30, and the rule "nothing early": no
card, nor anything derived from an unexposed card, leaves the controller before it is exposed at
the table; protection data reaches surveillance only). The service writes it a face file
(:mod:`.face_file`) that holds, of each journal record, what :func:`shown` returns, and nothing
else: a whitelist by record kind and decision type, and of each type only the fields the
display's view (:mod:`.view`) reads, which reads them from here. Anything unknown is left out.

What that keeps, and why none of it names a card before it is exposed:

- no ``input`` record (a shoe's ``CardRead``, a card keyed in, dice read, a shuffler's order, a
  wager): the controller decides what of them is exposed; no ``meta`` record but the service's
  ``halted`` (its reason: a journal error's text);
- no protection data (``odds``, the advantage alerts: :func:`~firmware_host.tables.decisions.for_surveillance_only`),
  no ``device_command``, ``allow_list`` or any type the view does not fold;
- a ``prompt``'s action, text, positions and counts (a card's place in a hand or in the shoe,
  never its rank or suit), and a Baccarat ``deal`` prompt's ``exposed`` hands: the cards as they
  lie face up (§ 541.9(c)(1) as each is placed, § 541.10(c) each third card), None while any is
  face down (§ 541.9(c)(2) until the reveal, § 541.10(a));
- an ``announce``'s text and the fields of the announcements the view shows: the burn card shown
  (§ 541.5(g)), the point counts once the initial cards are face up (§ 541.10(a)), the outcome
  (§ 541.12(a)); at Pai Gow the dice rolled in the open (§ 535.8(a), (b)), the dealer's hands as
  set face up (§ 535.10(c)) and the results (§ 535.10(f));
- an ``alert``'s code, text and severity, a device-bytes alert's text withheld
  (:func:`~firmware_host.tables.decisions.for_outputs`: a garbled frame may be a card still in the shoe);
- a ``round_result``'s public fields only (:meth:`~firmware_host.tables.round_record.RecordFields.public_of`:
  a void round's cards may still be face down, § 541.14(e)), a ``shoe_result``'s number and
  rounds (its alerts may name a card discarded unseen, § 541.14(c)).

The journal seq of a kept record stays its id; the seqs left out show only that records were
(a card came out of the shoe, which the table sees), never what they held. No journal hash is
copied: a record's hash over a few unknown cards could be searched for them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from firmware_host.host.service import HALTED_META
from firmware_host.tables.decisions import HALTED, Decision, for_outputs, for_surveillance_only
from firmware_host.tables.round_record import RECORDS

__all__ = [
    "JournalRecord",
    "shown",
    "halted_text",
    "PROMPT_FIELDS",
    "BACCARAT_PROMPT_FIELDS",
    "PAIGOW_PROMPT_FIELDS",
    "EXPOSED_FIELDS",
    "DEVICE_FIELDS",
    "ANNOUNCED_FIELDS",
]

#: Every prompt's fields a display shows: what to do, in words.
PROMPT_FIELDS = ("action", "text")
#: A Baccarat prompt's: card numbers in the shoe or a hand, counts, the hand to deal to.
BACCARAT_PROMPT_FIELDS = ("to", "card", "count", "face", "remaining", "last_hand")
#: A Pai Gow prompt's: seats, stack positions and counts (the tiles are never read by the table).
PAIGOW_PROMPT_FIELDS = (
    "order",
    "by",
    "at_least",
    "reason",
    "start",
    "style",
    "hands",
    "to_dead_hand",
    "positions",
    "dealer",
    "bank",
    "clock",
)
#: The fields of a Baccarat ``deal`` prompt's ``exposed`` hands (§ 541.9(c)(1), § 541.10(c)).
EXPOSED_FIELDS = ("player", "banker", "player_total", "banker_total")
#: The fields of a ``device`` decision the display shows.
DEVICE_FIELDS = ("online", "model", "serial", "firmware", "refusal")
#: Of each announcement the display shows, its fields besides ``announce`` and ``text``.
ANNOUNCED_FIELDS: dict[str, tuple[str, ...]] = {
    "shoe": ("shoe",),
    "burn_card": ("card",),  # § 541.5(g): the first burn card is shown
    "point_counts": EXPOSED_FIELDS,  # § 541.10(a): the initial cards are face up
    "outcome": ("player_total", "banker_total", "winner"),  # § 541.12(a)
    "new_dice": ("registered_at", "expires_at"),
    "bank_offer": ("order",),
    "bank": ("seat", "co_bank"),
    "style": ("style",),
    "total": ("dice", "total", "start"),  # § 535.8(b): the dice are seen by all
    "house_way": ("setting",),  # § 535.10(c): the dealer's hands are set face up
    "results": ("results",),  # § 535.10(f): each player's hands are exposed
}
#: Decision types kept with a fixed list of fields.
_FIELDS: dict[str, tuple[str, ...]] = {
    "lamp": ("colour",),
    "device": ("device", *DEVICE_FIELDS),
    "alert": ("code", "text", "severity"),
    "clock": ("synced",),
    "shoe_result": ("shoe", "rounds"),
}
_PROMPT = PROMPT_FIELDS + BACCARAT_PROMPT_FIELDS + PAIGOW_PROMPT_FIELDS


class JournalRecord(Protocol):
    """What :func:`shown` reads of a journal record (:class:`~firmware_host.host.journal_codec.Record`)."""

    @property
    def kind(self) -> str: ...

    @property
    def type(self) -> str: ...

    @property
    def round(self) -> int | None: ...

    @property
    def data(self) -> Mapping[str, Any]: ...


def halted_text(reason: str) -> str:
    """The banner of a table stopped on its journal (the words of the service's ``halted`` decision)."""
    return f"TABLE STOPPED: the journal cannot be written; call a supervisor ({reason})"


def shown(record: JournalRecord) -> Decision | None:
    """What the web face may be told of ``record``: the decision as the display reads it, narrowed
    to the fields it shows, or None when nothing of it may leave the service (see the module)."""
    if record.kind == "meta":
        if record.type != HALTED_META:
            return None
        reason = str(record.data.get("reason", ""))
        return Decision(HALTED, {"reason": reason, "text": halted_text(reason)})
    if record.kind != "decision" or record.type == HALTED:
        return None
    decision = Decision(record.type, dict(record.data), record.round)
    if for_surveillance_only(decision):
        return None
    data = for_outputs(decision).data
    kept: dict[str, Any]
    if record.type == "prompt":
        kept = _pick(data, _PROMPT)
        exposed = data.get("exposed")
        if data.get("action") == "deal" and isinstance(exposed, Mapping):
            kept["exposed"] = _pick(exposed, EXPOSED_FIELDS)
    elif record.type == "announce":
        kept = _pick(data, ("announce", "text", *ANNOUNCED_FIELDS.get(str(data.get("announce")), ())))
    elif record.type == "round_result":
        fields = RECORDS.get(str(data.get("game")))
        if fields is None:
            return None
        kept = fields.public_of(data)
    elif record.type in _FIELDS:
        kept = _pick(data, _FIELDS[record.type])
    else:
        return None
    return Decision(record.type, kept, record.round)


def _pick(data: Mapping[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    return {name: data[name] for name in names if name in data}
