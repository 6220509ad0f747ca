"""After a shoe: the composition audit and the shuffle-quality watch. Pure functions.

**Composition audit** (:func:`audit_composition`): every card the shoe read (dealt,
burned, read out at the end) and the count of unreadable cards, against what the batch
must hold (its decks, § 541.3(a), (b)(1)). Extra cards are named whenever a card shows up
more often than the decks hold; missing cards can be named only from a complete read
(every card of the batch passed the reader) and exactly only if none was unreadable.

**Shuffle-quality watch** (:class:`ShuffleWatch`): statistics of the dealt order that
would expose a shuffler that is not shuffling, returned as warnings and never blocking:

- *repeated order*: a run of consecutive cards equal to a run of an earlier shoe (or of
  new-deck order, an unshuffled batch). A cut or a different cover-card position changes
  where the run starts, not that it exists, so runs are found wherever they are;
- *long runs of one suit or one rank*.

Every threshold comes from an exact probability and a union bound, so that a fair shuffle
raises a warning with probability at most ``false_alarm`` per shoe per statistic:

- in a uniformly shuffled shoe of ``N = 52 d`` cards, ``r`` given positions hold cards of
  one suit with probability exactly ``4 (13d)_r / (N)_r`` and of one rank
  ``13 (4d)_r / (N)_r`` (``(x)_r`` the falling factorial); a shoe of ``n`` cards has
  ``n - r + 1`` runs of ``r`` positions, so ``P(longest run >= r) <= (n - r + 1) p_r``;
- ``k`` given positions of the shoe equal ``k`` given positions of an independent shoe (or
  any fixed sequence) with probability at most ``prod_{t<k} d / (N - t)``; comparing
  ``n`` positions with ``n`` positions of each of ``H`` earlier shoes and the positions of
  the new-deck orders (:data:`NEW_DECK_ORDERS`, fewer than ``3 N``) makes at most
  ``n (H n + 3 N)`` comparisons.

For 8 decks, 416 cards and ``false_alarm = 1e-6`` this gives a suit run of 15, a rank run
of 9 and a repeated run of 8 cards (a shuffler repeating its order repeats hundreds).
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

from firmware_host.rules.baccarat.cards import CARDS_PER_DECK, RANKS, Card, full_shoe, parse_card, shoe_composition
from firmware_host.rules.baccarat.drawing import falling
from firmware_host.rules.shuffler import FAULT, WARNING, Notice

__all__ = [
    "CompositionAudit", "audit_composition", "Thresholds", "thresholds", "ShuffleWatch", "WatchReport",
    "DEFAULT_FALSE_ALARM", "DEFAULT_HISTORY",
]  # fmt: skip

#: Probability that a fairly shuffled shoe raises each warning (suit run, rank run, repeat).
DEFAULT_FALSE_ALARM = 1e-6
#: Earlier shoes the repeated-order check compares with (four hours of play at one table).
DEFAULT_HISTORY = 64

CardLike = Card | str


def _card(card: CardLike) -> Card:
    return card if isinstance(card, Card) else parse_card(card)


# -- composition audit -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class CompositionAudit:
    """The reconciliation of one shoe's cards with its batch.

    :param expected: cards the batch must hold.
    :param read: cards read with rank and suit.
    :param unreadable: cards that passed the reader unread.
    :param complete: whether every card of the batch passed the reader.
    :param extra: cards beyond what the decks hold, one entry per extra copy (sorted).
    :param missing: cards certainly missing, one entry per copy (complete reads with no
        unreadable card only; otherwise empty).
    :param missing_count: how many cards are missing, from a complete read (else 0); with
        unreadable cards a lower bound (an unreadable card may itself be an extra one).
    :param missing_candidates: with unreadable cards, the cards not seen, among which the
        missing ones are.
    """

    batch: str | None
    expected: int
    read: int
    unreadable: int
    complete: bool
    extra: tuple[str, ...]
    missing: tuple[str, ...]
    missing_count: int
    missing_candidates: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """No extra card, and (for a complete read) no missing card."""
        return not self.extra and self.missing_count == 0

    @property
    def text(self) -> str:
        """One line for the journal and the dealer's view, naming the cards."""
        who = f"batch {self.batch}" if self.batch else "the shoe"
        if self.ok:
            scope = "all" if self.complete else "the cards read"
            return f"{who}: composition correct ({scope}: {self.read} read, {self.unreadable} unreadable)"
        parts = []
        if self.extra:
            parts.append(f"{len(self.extra)} extra card(s): {' '.join(self.extra)}")
        if self.missing:
            parts.append(f"{self.missing_count} missing card(s): {' '.join(self.missing)}")
        elif self.missing_count:
            parts.append(f"{self.missing_count} missing card(s), among: {' '.join(self.missing_candidates)}")
        return f"{who}: " + "; ".join(parts)

    def notice(self) -> Notice | None:
        """A fault notice naming the cards when the composition is wrong, else ``None``."""
        return None if self.ok else Notice("composition", self.text, FAULT, "541.3(b)(1)")


def _names(counter: Counter[Card]) -> tuple[str, ...]:
    return tuple(sorted(str(card) for card in counter.elements()))


def audit_composition(decks: int, read: Iterable[CardLike], unreadable: int = 0, *, complete: bool = True,
                      batch: str | None = None) -> CompositionAudit:  # fmt: skip
    """Reconcile the cards a shoe read with ``decks`` standard decks.

    :param read: every card read with rank and suit, in any order: dealt, burned and (for
        a complete read) the remainder read out at the end of the shoe.
    :param unreadable: cards that passed the reader but could not be read.
    :param complete: every card of the batch passed the reader; otherwise the cards below
        the cover card stayed unread and only extras can be named.
    :raises RulesError: for a card that cannot be parsed, or ``decks`` not 1..8.
    """
    composition = shoe_composition(decks)
    seen = Counter(_card(card) for card in read)
    extra = seen - composition
    not_seen = composition - seen
    expected = decks * CARDS_PER_DECK
    total_read = sum(seen.values())
    shortfall = expected - total_read - unreadable + sum(extra.values()) if complete else 0
    missing_count = max(0, shortfall)
    exact = complete and unreadable == 0
    return CompositionAudit(
        batch=batch,
        expected=expected,
        read=total_read,
        unreadable=unreadable,
        complete=complete,
        extra=_names(extra),
        missing=_names(not_seen) if exact else (),
        missing_count=missing_count,
        missing_candidates=_names(not_seen) if missing_count and not exact else (),
    )


# -- shuffle-quality watch ---------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Thresholds:
    """Run lengths at which the watch warns: one suit, one rank, a repeated sequence."""

    suit_run: int
    rank_run: int
    repeat_run: int


@lru_cache(maxsize=64)
def thresholds(decks: int, cards: int, history: int = DEFAULT_HISTORY,
               false_alarm: float = DEFAULT_FALSE_ALARM) -> Thresholds:  # fmt: skip
    """The smallest run lengths whose chance in a fair shoe of ``cards`` cards from
    ``decks`` decks is at most ``false_alarm`` (see the module docstring)."""
    total = decks * CARDS_PER_DECK
    n = max(cards, 1)

    def smallest(bound: object) -> int:
        return next(r for r in range(2, total + 2) if bound(r) <= false_alarm)  # type: ignore[operator]

    def same_suit(r: int) -> float:
        return (n - r + 1) * 4 * falling(13 * decks, r) / falling(total, r)

    def same_rank(r: int) -> float:
        return (n - r + 1) * 13 * falling(4 * decks, r) / falling(total, r)

    def repeated(k: int) -> float:
        return n * (history * n + 3 * total) * math.prod(decks / (total - t) for t in range(k))

    return Thresholds(smallest(same_suit), smallest(same_rank), smallest(repeated))


def _longest_run(cards: Sequence[Card | None], key: str) -> tuple[int, int]:
    """(length, start) of the longest run of cards sharing ``key`` (``rank`` or ``suit``);
    an unreadable card (``None``) ends a run."""
    best, best_start, length, start = 0, 0, 0, 0
    previous = None
    for index, card in enumerate(cards):
        value = getattr(card, key) if card is not None else None
        if value is not None and value == previous:
            length += 1
        else:
            length, start = (1, index) if value is not None else (0, index)
        previous = value
        if length > best:
            best, best_start = length, start
    return best, best_start


def _kgrams(cards: Sequence[Card | None], k: int) -> list[str | None]:
    """The k consecutive cards starting at each position, as one string (None across an unreadable card)."""
    codes = [str(card) if card is not None else None for card in cards]
    out: list[str | None] = []
    for i in range(len(codes) - k + 1):
        window = codes[i : i + k]
        out.append(None if None in window else "".join(window))  # type: ignore[arg-type]
    return out


@dataclasses.dataclass(frozen=True)
class WatchReport:
    """What the watch found in one shoe (all warnings; nothing here blocks play)."""

    shoe: int
    thresholds: Thresholds
    longest_suit_run: int
    longest_rank_run: int
    repeated_run: int
    repeated_from: int | None  # the earlier shoe (0: new-deck order), if a repeat was found
    notices: tuple[Notice, ...]


#: Shoe number under which new-deck orders are reported.
NEW_DECK_ORDER = 0


def _new_deck_orders(decks: int) -> list[list[Card | None]]:
    """Orders of unshuffled cards: the simulator's loaded order (rank by rank, as
    :func:`~firmware_host.rules.baccarat.cards.full_shoe`), and suit by suit ace to king and king
    to ace as new decks come from their makers (the suits' order does not matter: a run
    within a suit is found wherever the suit lies)."""
    by_suit = sorted(full_shoe(1), key=lambda c: (c.suit, RANKS.index(c.rank)))
    return [list(full_shoe(decks)), list(by_suit), list(reversed(by_suit))]


@dataclasses.dataclass(frozen=True)
class ShuffleWatch:
    """The memory of the shuffle-quality watch: the dealt orders of the latest shoes.

    Immutable: :meth:`observe` returns the report and the watch with the shoe added.

    :param decks: decks per shoe (batch).
    :param history: how many earlier shoes a shoe is compared with.
    :param false_alarm: see :func:`thresholds`.
    """

    decks: int
    history: int = DEFAULT_HISTORY
    false_alarm: float = DEFAULT_FALSE_ALARM
    shoes: tuple[tuple[int, tuple[str, ...]], ...] = ()  # (shoe number, card codes in dealt order)

    def observe(self, shoe: int, cards: Sequence[CardLike | None]) -> tuple[ShuffleWatch, WatchReport]:
        """Check the cards of shoe number ``shoe`` (>= 1) in the order the shoe read them,
        burns included, ``None`` for an unreadable card."""
        dealt = [None if c is None else _card(c) for c in cards]
        limits = thresholds(self.decks, len(dealt), self.history, self.false_alarm)
        suit_run, suit_at = _longest_run(dealt, "suit")
        rank_run, rank_at = _longest_run(dealt, "rank")
        repeat_run, repeat_from = self._longest_repeat(dealt, limits.repeat_run)
        notices = []
        if suit_run >= limits.suit_run:
            notices.append(Notice("shuffle-suit-run", f"shoe {shoe}: {suit_run} cards of one suit in a row from card "
                                  f"{suit_at + 1} (chance in a fair shuffle below {self.false_alarm:g})", WARNING, "541.5(a)"))  # fmt: skip
        if rank_run >= limits.rank_run:
            notices.append(Notice("shuffle-rank-run", f"shoe {shoe}: {rank_run} cards of one rank in a row from card "
                                  f"{rank_at + 1} (chance in a fair shuffle below {self.false_alarm:g})", WARNING, "541.5(a)"))  # fmt: skip
        if repeat_from is not None:
            source = "new-deck order (not shuffled)" if repeat_from == NEW_DECK_ORDER else f"shoe {repeat_from}"
            notices.append(Notice("shuffle-repeated-order", f"shoe {shoe}: {repeat_run} cards in the same order as "
                                  f"{source}", WARNING, "541.5(a)"))  # fmt: skip
        report = WatchReport(shoe, limits, suit_run, rank_run, repeat_run, repeat_from, tuple(notices))
        codes = tuple(str(c) if c is not None else "??" for c in dealt)
        kept = (self.shoes + ((shoe, codes),))[-self.history :]
        return dataclasses.replace(self, shoes=kept), report

    def _references(self) -> list[tuple[int, list[Card | None]]]:
        earlier = [(number, [None if c == "??" else parse_card(c) for c in codes]) for number, codes in self.shoes]
        return [(NEW_DECK_ORDER, order) for order in _new_deck_orders(self.decks)] + earlier

    def _longest_repeat(self, dealt: list[Card | None], k: int) -> tuple[int, int | None]:
        """The longest run of this shoe found in a reference, if at least ``k`` cards long."""
        grams = _kgrams(dealt, k)
        best, best_from = 0, None
        for number, reference in self._references():
            known = {g for g in _kgrams(reference, k) if g is not None}
            length = 0
            for gram in grams:
                length = length + 1 if gram is not None and gram in known else 0
                if length and length + k - 1 > best:
                    best, best_from = length + k - 1, number
        return (best, best_from) if best_from is not None else (0, None)
