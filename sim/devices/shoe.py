"""A simulated card-reading dealing shoe that speaks any registered dialect over a real OS endpoint.

The shoe holds a seeded, shuffled shoe of ``decks`` decks cut as § 541.5(d)-(e) say, or
a scripted list of cards. The in-process simulated dealer pulls cards with
:meth:`SimShoe.draw`; the shoe then sends what it read to the host over a
pseudo-terminal (the host opens ``/dev/pts/N``) or a TCP socket on 127.0.0.1 (the host
opens ``socket://127.0.0.1:PORT``), in a dialect of :mod:`drivers.dialects` (our framed one,
the market shoe's ASCII one, or any other registered). Faults
(:class:`~sim.devices.faults.ShoeFaults`) are seeded, and so is which burn cards a dialect
that writes cards as text (ASCII) writes suit first (``suit_first_burns``; rank first by default).
"""

from __future__ import annotations

import dataclasses
import random
import threading
from collections.abc import Callable, Sequence
from typing import Any

from drivers.codecs.framed import Identity
from drivers.codecs.shoe_messages import (
    RANKS,
    SUITS,
    Card,
    CutCard,
    FaceUp,
    SetBurnMode,
    ShoeEmpty,
    ShoeMessage,
    Unreadable,
)  # fmt: skip
from drivers.dialects import ShoeDialect, UnknownDialect, names, shoe_dialect
from sim.devices.endpoint import open_endpoint
from sim.devices.faults import ShoeFaults
from sim.devices.link import FramedSimLink, SimDevice, TextSimLink
from sim.errors import SimError

__all__ = ["SimShoe", "Draw", "CUT", "build_shoe", "cut_and_cover", "suit_first_share"]

#: The cover (cut) card in a shoe's list of cards.
CUT = "CUT"
#: § 541.5(d): the cover card goes in at least ten cards from the top or the bottom.
CUT_MIN_FROM_END = 10
#: § 541.5(e): the second cover card goes in at least 14 cards above the bottom.
COVER_MIN_FROM_BOTTOM = 14
#: Our reading: the casino places it within this many cards above that minimum
#: (docs/rules-interpretations/shoe-sim.md).
COVER_SPREAD = 6


def build_shoe(decks: int, rng: random.Random, cover_from_bottom: int | None = None) -> list[str]:
    """Shuffle ``decks`` decks, cut them and place the cover card (§ 541.5(d)-(e)).

    :param cover_from_bottom: cards below the cover card; default: a seeded choice in
        14..20 (§ 541.5(e): at least 14).
    :returns: cards (``"4S"``) in the order the dealer draws them, :data:`CUT` among them.
    :raises SimError: for a deck count outside 1..8 or a cover card closer than 14 to the bottom.
    """
    if not 1 <= decks <= 8:
        raise SimError(f"decks: {decks} is not between 1 and 8")
    cards = [rank + suit for _ in range(decks) for suit in SUITS for rank in RANKS]
    rng.shuffle(cards)
    return cut_and_cover(cards, rng, cover_from_bottom)


def cut_and_cover(cards: Sequence[str], rng: random.Random, cover_from_bottom: int | None = None) -> list[str]:
    """Cut shuffled ``cards`` and place the cover card (§ 541.5(d)-(e)), as a shoe is loaded.

    :param cover_from_bottom: as :func:`build_shoe`.
    :returns: the cards in the order the dealer draws them, :data:`CUT` among them.
    :raises SimError: for too few cards to cut, or a cover card closer than 14 to the bottom.
    """
    cards = list(cards)
    if len(cards) < 2 * CUT_MIN_FROM_END:
        raise SimError(f"cut: {len(cards)} cards; § 541.5(d) cuts at least {CUT_MIN_FROM_END} from either end")
    # § 541.5(d)-(e): cover card at least 10 from either end; the cards above it go to the bottom.
    cut = rng.randint(CUT_MIN_FROM_END, len(cards) - CUT_MIN_FROM_END)
    cards = cards[cut:] + cards[:cut]
    # § 541.5(e): the second cover card at least 14 cards above the bottom; the first one
    # ends up at the very bottom, below every card (the shoe then reports itself empty).
    depth = (
        cover_from_bottom
        if cover_from_bottom is not None
        else rng.randint(COVER_MIN_FROM_BOTTOM, COVER_MIN_FROM_BOTTOM + COVER_SPREAD)
    )
    if not COVER_MIN_FROM_BOTTOM <= depth < len(cards):
        raise SimError(
            f"cover card: {depth} cards from the bottom; § 541.5(e) needs at least 14 in a shoe of {len(cards)}"
        )
    cards.insert(len(cards) - depth, CUT)
    return cards


@dataclasses.dataclass(frozen=True)
class Draw:
    """What one pull from the shoe did.

    :param message: what the shoe reported (a card, the cut card, unreadable, face up, empty).
    :param card: the physical card drawn (``"4S"``), ``None`` for the cut card or an empty shoe;
        the simulated dealer uses it to key in an unreadable card.
    """

    message: ShoeMessage
    card: str | None


class SimShoe(SimDevice):
    """A simulated shoe.

    :param dialect: a registered dialect (:func:`drivers.dialects.names`): ``"framed"``, ``"ascii"``...
    :param endpoint: ``"pty"`` or ``"socket"``.
    :param port: TCP port for ``"socket"`` (0: any free port).
    :param seed: seeds the shuffle (with the shoe number), the cut, and the fault dice.
    :param decks: decks in a shuffled shoe (1..8).
    :param cards: a scripted shoe instead: cards in draw order, :data:`CUT` for the cover card.
    :param position: draws already made from this shoe (to resume a restarted sim).
    :param shoe_number: which shoe of the seeded sequence to start with.
    :param faults: the faults to inject.
    :param identity: what the framed dialect's IDENTITY answers (anything with ``model``,
        ``serial``, ``firmware``, e.g. :class:`drivers.device.Identity`).
    :param heartbeat: default heartbeat interval (the driver's IDENTIFY usually sets it).
    :param ack_timeout: retransmission timeout, seconds.
    :param retries: fast retransmissions before the shoe slows down (it never gives up).
    :param cover_from_bottom: fixed cover-card depth (default: seeded, 14..20).
    :param suit_first_burns: share (0..1) of burn cards the ASCII dialect writes suit first
        (`` [Manual Burn Cards]<Card:H3> ``), as the market shoe has been seen to; the others,
        and every game card, are written rank first. Seeded per draw. Default 0.
    :raises SimError: for a bad dialect, endpoint, script, position or share.
    """

    def __init__(
        self,
        *,
        dialect: str = "framed",
        endpoint: str = "pty",
        port: int = 0,
        seed: int = 0,
        decks: int = 8,
        cards: Sequence[str] | None = None,
        position: int = 0,
        shoe_number: int = 1,
        faults: ShoeFaults = ShoeFaults(),
        identity: Any = Identity("TS-8", "SIM-0001", "2.1.0"),
        heartbeat: float = 1.0,
        ack_timeout: float = 0.25,
        retries: int = 5,
        cover_from_bottom: int | None = None,
        suit_first_burns: float = 0.0,
    ) -> None:
        entry = _dialect(dialect)
        self.suit_first_burns = suit_first_share(suit_first_burns, dialect)
        self.dialect, self.seed, self.decks, self.faults = dialect, seed, decks, faults
        self._cover_from_bottom = cover_from_bottom
        self._scripted = list(cards) if cards is not None else None
        self._lock = threading.Lock()
        self._burn = False
        self.shoe_number = shoe_number
        self._cards = self._load(shoe_number)
        self._position = _checked_position(position, self._cards)
        self._emptied = False
        where = open_endpoint(endpoint, port)
        if entry.framer is not None:
            self.link = FramedSimLink(
                "shoe",
                where,
                faults,
                seed,
                framer=entry.framer,
                identity=identity,
                on_command=self._on_command,
                heartbeat=heartbeat,
                ack_timeout=ack_timeout,
                retries=retries,
            )
        else:
            self.link = TextSimLink("shoe", where, faults, seed, encode=_text_frame(entry))

    def _load(self, shoe_number: int) -> list[str]:
        if self._scripted is not None:
            for card in self._scripted:
                if card != CUT and not _is_card(card):
                    raise SimError(f"scripted card {card!r} is not a rank {RANKS} and a suit {SUITS}, nor {CUT}")
            return list(self._scripted)
        return build_shoe(self.decks, random.Random(f"{self.seed}-shoe-{shoe_number}"), self._cover_from_bottom)

    @property
    def position(self) -> int:
        """Draws made from the current shoe so far (cut card included)."""
        return self._position

    @property
    def burn_mode(self) -> bool:
        """Whether drawn cards are flagged as burn cards (the shoe's burn button)."""
        return self._burn

    @burn_mode.setter
    def burn_mode(self, on: bool) -> None:
        self._burn = on

    def remaining(self) -> int:
        """Cards left before the bottom of the shoe (the cut card not counted)."""
        with self._lock:
            return sum(1 for card in self._cards[self._position :] if card != CUT)

    def reload(self) -> None:
        """Load the next shuffled shoe of the seeded sequence (or the script again)."""
        with self._lock:
            self.shoe_number += 1
            self._cards = self._load(self.shoe_number)
            self._position, self._emptied = 0, False

    def load(self, cards: Sequence[str], *, shoe_number: int | None = None, position: int = 0) -> None:
        """Load ``cards`` shuffled elsewhere (a shuffler's batch, in the order it released
        them): the shoe cuts them and places the cover card as :func:`build_shoe` does
        (§ 541.5(d)-(e)), seeded by the shoe's number. Every card is kept, including an extra
        or a wrong one.

        :param shoe_number: which shoe of the sequence this is (default: the next one; the shoe
            the simulator was built with is the first, so a table's first batch is shoe 2).
        :param position: draws already made from it: a restarted simulator resumes the batch
            in play where the journal left it, as a physical shoe still holds its cards.
        :raises SimError: for a card that is not a rank and a suit, too few cards to cut, or a
            position beyond the shoe's last draw.
        """
        for card in cards:
            if not _is_card(card):
                raise SimError(f"card {card!r} to load is not a rank {RANKS} and a suit {SUITS}")
        with self._lock:
            number = self.shoe_number + 1 if shoe_number is None else shoe_number
            rng = random.Random(f"{self.seed}-shoe-{number}-cut")
            loaded = cut_and_cover(cards, rng, self._cover_from_bottom)
            self._position, self._emptied = _checked_position(position, loaded), False
            self.shoe_number, self._cards = number, loaded

    def draw(self) -> Draw:
        """The dealer pulls the next card: the shoe reads it and tells the host."""
        with self._lock:
            draw, suit_first = self._next()
        self.link.send(_SuitFirst(draw.message) if suit_first and isinstance(draw.message, Card) else draw.message)
        if not isinstance(draw.message, ShoeEmpty):
            self.link.roll_disconnect()
        return draw

    def card_at(self, index: int) -> str | None:
        """The physical card of draw ``index`` of the current shoe (None for the cover card)."""
        with self._lock:
            card = self._cards[index]
        return None if card == CUT else card

    def _next(self) -> tuple[Draw, bool]:
        """The next draw, and whether its card goes on the wire suit first."""
        # The fault dice of each draw are seeded by its place in the seeded sequence of shoes,
        # so a simulator restarted mid-shoe (after a crash of the host) faults alike.
        dice = random.Random(f"{self.seed}-shoe-{self.shoe_number}-draw-{self._position}")
        if self._emptied or self._position >= len(self._cards) or dice.random() < self.faults.empty_early:
            self._emptied = True
            return Draw(ShoeEmpty(), None), False
        card = self._cards[self._position]
        self._position += 1
        if card == CUT:
            return Draw(CutCard(), None), False
        rank, suit = card[0], card[1]
        unreadable = dice.random() < self.faults.unreadable_card
        face_up = dice.random() < self.faults.face_up_card
        if face_up:
            return Draw(FaceUp(rank, suit), card), False
        if unreadable:
            return Draw(Unreadable(self._burn), card), False
        # Rolled last, so the fault dice above come out as they did before the option existed.
        suit_first = self._burn and dice.random() < self.suit_first_burns
        return Draw(Card(rank, suit, self._burn), card), suit_first

    def _on_command(self, message: Any) -> None:
        if isinstance(message, SetBurnMode):
            self._burn = message.on


def suit_first_share(share: object, dialect: str) -> float:
    """``share`` as the ``suit_first_burns`` of a shoe of ``dialect``, checked.

    :raises SimError: for a share outside 0..1, or one above 0 for a dialect without card text.
    """
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0.0 <= share <= 1.0:
        raise SimError(f"suit_first_burns: {share!r} is not a share between 0 and 1")
    if share and not _dialect(dialect).card_text:
        with_text = [name for name in names() if shoe_dialect(name).card_text]
        raise SimError(
            f"suit_first_burns: the {dialect} dialect sends a card as fixed fields (rank byte, suit byte), "
            f"so it has no suit-first order (dialects with one: {', '.join(with_text)})"
        )
    return float(share)


def _checked_position(position: int, cards: Sequence[str]) -> int:
    """``position`` (draws made) if a shoe of ``cards`` has that many draws.

    :raises SimError: for a position beyond the shoe's last draw.
    """
    if not 0 <= position <= len(cards):
        raise SimError(f"position {position} is outside a shoe of {len(cards)} draws")
    return position


def _is_card(card: str) -> bool:
    """Whether ``card`` is a rank and a suit (``"4S"``)."""
    return len(card) == 2 and card[0] in RANKS and card[1] in SUITS


def _dialect(name: str) -> ShoeDialect:
    """The registered dialect ``name``; :class:`SimError` if there is none."""
    try:
        return shoe_dialect(name)
    except UnknownDialect as exc:
        raise SimError(str(exc)) from None


@dataclasses.dataclass(frozen=True)
class _SuitFirst:
    """A burn card the ASCII dialect writes suit first (PRODUCT.md: the market shoe has been seen to)."""

    card: Card


def _text_frame(dialect: ShoeDialect) -> Callable[[ShoeMessage | _SuitFirst], bytes]:
    """A talk-only dialect's frames: cards rank first, unless the draw chose suit first for a burn."""
    encode = dialect.encode
    assert encode is not None  # drivers.dialects.register: a talk-only dialect has one

    def frame(message: ShoeMessage | _SuitFirst) -> bytes:
        if isinstance(message, _SuitFirst):
            return encode(message.card, suit_first=True)
        return encode(message)

    return frame
