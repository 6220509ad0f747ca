"""What the rules do with a card that comes out of the shoe when none is due (§ 541.14).

The controller calls :func:`card_out_of_turn` and acts on the
:class:`IrregularityOutcome` it returns; nothing here touches a device or a clock.
"""

from __future__ import annotations

import dataclasses
import enum

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.cards import Card
from firmware_host.rules.baccarat.deal import Deal, Slot


class IrregularityAction(enum.StrEnum):
    """What becomes of a card dealt in error."""

    #: § 541.14(a), and § 541.14(b) when the banker's hand stays: the card is kept aside
    #: and dealt as the first card (the player's first) of the next round.
    NEXT_HAND_FIRST_CARD = "next_hand_first_card"
    #: § 541.14(b): a player's third card dealt in error becomes the banker's third card
    #: because the banker's hand must draw.
    BANKER_THIRD_CARD = "banker_third_card"
    #: § 541.14(c): the card was disclosed; it goes to the discard rack with one more card
    #: drawn face down and not disclosed.
    DISCARD_WITH_ONE_MORE = "discard_with_one_more"


@dataclasses.dataclass(frozen=True)
class IrregularityOutcome:
    """The rules' answer to a card dealt in error.

    :param action: what becomes of the card.
    :param card: the card dealt in error.
    :param deal: the round to continue with: the card placed as the banker's third for
        :attr:`IrregularityAction.BANKER_THIRD_CARD`, otherwise the round unchanged.
    :param extra_discards: cards the dealer must draw face down, undisclosed, straight to
        the discard rack (1 for § 541.14(c), else 0).
    :param section: the regulation applied, for the journal and the dealer display.
    """

    action: IrregularityAction
    card: Card
    deal: Deal
    extra_discards: int
    section: str


def card_out_of_turn(
    deal: Deal, card: Card, *, to_player_third_in_error: bool, disclosed: bool = False
) -> IrregularityOutcome:
    """Apply § 541.14(a)-(c) to ``card``, dealt in error during ``deal``.

    :param deal: the round as it stood before the card.
    :param to_player_third_in_error: the dealer put the card on the player's hand as a
        third card that § 541.11 does not authorise (§ 541.14(b)); False for any other
        card drawn in error (§ 541.14(a)).
    :param disclosed: the card was disclosed when it was dealt (§ 541.14(c)).
    :raises RulesError: if the card was in fact due: a card is due and it is not a player's
        third card dealt in error, or the player's third card was authorised.
    """
    slot = deal.next_slot()
    if to_player_third_in_error:
        if not deal.after_initial:
            raise RulesError(f"card {card}: a third card cannot be dealt in error before the initial four cards")
        if slot is Slot.PLAYER_3:
            raise RulesError(f"card {card}: the player's third card is authorised here (§ 541.11(b)), not in error")
    elif slot is not None:
        raise RulesError(f"card {card}: it is due as the {slot.hand}'s card {slot.position}, not drawn in error")

    if disclosed:
        return IrregularityOutcome(IrregularityAction.DISCARD_WITH_ONE_MORE, card, deal, 1, "541.14(c)")
    if to_player_third_in_error and slot is Slot.BANKER_3:
        return IrregularityOutcome(IrregularityAction.BANKER_THIRD_CARD, card, deal.add(card), 0, "541.14(b)")
    section = "541.14(b)" if to_player_third_in_error else "541.14(a)"
    return IrregularityOutcome(IrregularityAction.NEXT_HAND_FIRST_CARD, card, deal, 0, section)
