"""Cards, their text form and sets of cards on an int bitmask.

A card is an int 0-51: ``suit * 13 + rank`` with rank 0 (ace) to 12 (king) and suits in the
order spades, hearts, diamonds, clubs. A set of cards is an int bitmask with one 13-bit lane
per suit (bit ``card``), wrapped by :class:`CardSet` for a set-like API. Runs are looked up per
lane, so they never wrap from a king to the next suit's ace.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

Card = int

RANKS = "A23456789TJQK"
SUITS = "shdc"
SUIT_SYMBOLS = "♠♥♦♣"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
RANK_NAMES = ("ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king")
NUM_CARDS = 52
LANE = 13
LANE_MASK = (1 << LANE) - 1
FULL_DECK_MASK = (1 << NUM_CARDS) - 1

_SUIT_OF_CHAR = {"s": 0, "h": 1, "d": 2, "c": 3, "♠": 0, "♥": 1, "♦": 2, "♣": 3,
                 "♤": 0, "♡": 1, "♢": 2, "♧": 3}
_RANK_OF_TEXT = {r.lower(): i for i, r in enumerate(RANKS)} | {"10": 9}


def make_card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (0 = ace ... 12 = king) and ``suit`` (0-3, s h d c)."""
    if not (0 <= rank < LANE and 0 <= suit < 4):
        raise ValueError(f"no card with rank {rank} and suit {suit}")
    return suit * LANE + rank


def rank_of(card: Card) -> int:
    """0 for an ace up to 12 for a king."""
    return card % LANE


def suit_of(card: Card) -> int:
    """0 spades, 1 hearts, 2 diamonds, 3 clubs."""
    return card // LANE


CARD_VALUES: tuple[int, ...] = tuple(min(rank_of(c) + 1, 10) for c in range(NUM_CARDS))


def card_value(card: Card) -> int:
    """Deadwood value: ace 1, 2-9 face value, ten and court cards 10 (R1.2)."""
    return CARD_VALUES[card]


CARD_NAMES: tuple[str, ...] = tuple(RANKS[rank_of(c)] + SUITS[suit_of(c)] for c in range(52))


def card_name(card: Card) -> str:
    """Text form such as ``As``, ``Td``, ``Kh``."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"not a card: {card!r}")
    return CARD_NAMES[card]


def card_symbol(card: Card) -> str:
    """Display form with a suit symbol and ``10`` for tens: ``A♠``, ``10♦``."""
    rank = RANKS[rank_of(card)]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[suit_of(card)]


def parse_card(token: str) -> Card:
    """One card from text: ``As``, ``td``, ``10h``, ``Q♥``. Raises ``ValueError`` naming it."""
    text = token.strip()
    if len(text) < 2:
        raise ValueError(f"bad card {token!r}: expected a rank and a suit such as 'As' or '10h'")
    rank = _RANK_OF_TEXT.get(text[:-1].lower())
    suit = _SUIT_OF_CHAR.get(text[-1].lower())
    if rank is None or suit is None:
        raise ValueError(
            f"bad card {token!r}: ranks are A 2-9 T (or 10) J Q K, suits s h d c or ♠ ♥ ♦ ♣"
        )
    return suit * LANE + rank


def parse_card_list(text: str) -> list[Card]:
    """Cards in the order written; separators are spaces or commas. Duplicates refused."""
    cards: list[Card] = []
    seen = 0
    for token in text.replace(",", " ").split():
        card = parse_card(token)
        if seen >> card & 1:
            raise ValueError(f"duplicate card {token!r}")
        seen |= 1 << card
        cards.append(card)
    return cards


def parse_cards(text: str) -> CardSet:
    """The cards of a text such as ``"As Td 9c Kh"``, as a :class:`CardSet`.

    Raises ``ValueError`` naming the first bad or repeated token.
    """
    return CardSet.from_cards(parse_card_list(text))


def mask_of(cards: Iterable[Card]) -> int:
    """The bitmask of some cards."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def _lane_tables() -> tuple[tuple[tuple[Card, ...], ...], ...]:
    tables = []
    for suit in range(4):
        table: list[tuple[Card, ...]] = [()]
        for lane in range(1, 1 << LANE):
            low = lane & -lane
            table.append(((low.bit_length() - 1 + LANE * suit),) + table[lane ^ low])
        tables.append(tuple(table))
    return tuple(tables)


_LANE_CARDS = _lane_tables()
_S, _H, _D, _C = _LANE_CARDS


def cards_of(mask: int) -> list[Card]:
    """The cards of a bitmask, lowest index first."""
    return [
        *_S[mask & LANE_MASK],
        *_H[mask >> 13 & LANE_MASK],
        *_D[mask >> 26 & LANE_MASK],
        *_C[mask >> 39 & LANE_MASK],
    ]


def cards_tuple(mask: int) -> tuple[Card, ...]:
    """The cards of a bitmask as a tuple, lowest index first."""
    return (
        _S[mask & LANE_MASK]
        + _H[mask >> 13 & LANE_MASK]
        + _D[mask >> 26 & LANE_MASK]
        + _C[mask >> 39 & LANE_MASK]
    )


def format_cards(cards: Iterable[Card]) -> str:
    """Space-separated text form, in the order given."""
    return " ".join(CARD_NAMES[c] for c in cards)


def sort_key_suit(card: Card) -> tuple[int, int]:
    """Sort by suit, then rank."""
    return suit_of(card), rank_of(card)


def sort_key_rank(card: Card) -> tuple[int, int]:
    """Sort by rank, then suit."""
    return rank_of(card), suit_of(card)


class CardSet:
    """An immutable set of cards on an int bitmask (bit ``card``), iterated lowest card first."""

    __slots__ = ("mask",)
    mask: int

    def __init__(self, mask: int = 0) -> None:
        if mask < 0 or mask > FULL_DECK_MASK:
            raise ValueError(f"not a card mask: {mask!r}")
        object.__setattr__(self, "mask", mask)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("CardSet is immutable")

    @classmethod
    def from_cards(cls, cards: Iterable[Card]) -> CardSet:
        """A set of the given cards (repeats collapse)."""
        return cls(mask_of(cards))

    @classmethod
    def parse(cls, text: str) -> CardSet:
        """Same as :func:`parse_cards`."""
        return parse_cards(text)

    @classmethod
    def full_deck(cls) -> CardSet:
        """All 52 cards."""
        return cls(FULL_DECK_MASK)

    def __iter__(self) -> Iterator[Card]:
        return iter(cards_of(self.mask))

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __contains__(self, card: object) -> bool:
        return isinstance(card, int) and 0 <= card < NUM_CARDS and bool(self.mask >> card & 1)

    def __bool__(self) -> bool:
        return self.mask != 0

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CardSet):
            return self.mask == other.mask
        if isinstance(other, (set, frozenset)):
            return all(isinstance(c, int) for c in other) and self.mask == mask_of(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.mask)

    def _other_mask(self, other: object) -> int:
        if isinstance(other, CardSet):
            return other.mask
        if isinstance(other, Iterable):
            return mask_of(other)
        raise TypeError(f"cannot combine CardSet with {type(other).__name__}")

    def __or__(self, other: CardSet | Iterable[Card]) -> CardSet:
        return CardSet(self.mask | self._other_mask(other))

    def __and__(self, other: CardSet | Iterable[Card]) -> CardSet:
        return CardSet(self.mask & self._other_mask(other))

    def __sub__(self, other: CardSet | Iterable[Card]) -> CardSet:
        return CardSet(self.mask & ~self._other_mask(other))

    def __xor__(self, other: CardSet | Iterable[Card]) -> CardSet:
        return CardSet(self.mask ^ self._other_mask(other))

    def __le__(self, other: CardSet) -> bool:
        return self.mask & ~other.mask == 0

    def __ge__(self, other: CardSet) -> bool:
        return other.mask & ~self.mask == 0

    def add(self, card: Card) -> CardSet:
        """A new set with ``card`` added."""
        return CardSet(self.mask | 1 << card)

    def remove(self, card: Card) -> CardSet:
        """A new set without ``card``; ``KeyError`` if it is not there."""
        if not self.mask >> card & 1:
            raise KeyError(card_name(card))
        return CardSet(self.mask ^ 1 << card)

    def isdisjoint(self, other: CardSet | Iterable[Card]) -> bool:
        """No card in common."""
        return self.mask & self._other_mask(other) == 0

    def lane(self, suit: int) -> int:
        """The 13-bit rank mask of one suit."""
        return self.mask >> (suit * LANE) & LANE_MASK

    def value(self) -> int:
        """Sum of the cards' deadwood values."""
        return sum(CARD_VALUES[c] for c in cards_of(self.mask))

    def sorted(self, by: str = "suit") -> list[Card]:
        """The cards sorted by ``"suit"`` (then rank) or by ``"rank"`` (then suit)."""
        key = sort_key_rank if by == "rank" else sort_key_suit
        return sorted(cards_of(self.mask), key=key)

    def __str__(self) -> str:
        return format_cards(self.sorted())

    def __repr__(self) -> str:
        return f"CardSet.parse({str(self)!r})"
