"""Player and chance actions, with a text notation that round-trips.

Notation (one action per string; cards in the text form of :mod:`ginrummy.cards`):

============================  =================================================
``pass``                      decline the first-turn upcard (R3.5)
``stock``                     draw the top card of the stock
``take``                      take the top card of the discard pile (or the upcard)
``discard 7h``                discard a card, ending the turn
``knock 7h [As 2s 3s] [...]`` discard 7h and lay down these melds; the rest is deadwood
``gin 7h [...] [...]``        a knock whose melds leave no deadwood
``gin [...] [...]``           big gin: all cards melded, no discard (R4.2)
``layoff [...] 6h@1 Jh@1``    a defender's own melds, then cards laid off onto the
                              knocker's melds (1-based, in the order he laid them)
``reshuffle 4c Kd ...``       chance: the new stock order after a reshuffle (R4.7),
                              top card first
============================  =================================================

Every action prints (``str``) in this notation and :func:`parse_action` reads it back as an
equal action; a big gin prints as ``gin [...] [...]`` whether or not it was announced.
``knock [...] [...]`` (melds and no discard) is read as a big gin too: the engine wrote
that for a big gin it had proposed itself before it printed ``gin``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ginrummy.cards import LANE_MASK, Card, card_name, format_cards, parse_card, parse_card_list

Meld = tuple[Card, ...]
Melds = tuple[Meld, ...]


@dataclass(frozen=True, slots=True)
class Pass:
    """Decline the first-turn upcard offer."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class DrawStock:
    """Draw the top card of the stock (the card drawn is not part of the action)."""

    def __str__(self) -> str:
        return "stock"


@dataclass(frozen=True, slots=True)
class DrawDiscard:
    """Take the top card of the discard pile (or the first-turn upcard)."""

    def __str__(self) -> str:
        return "take"


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard a card face up, ending the turn."""

    card: Card

    def __str__(self) -> str:
        return f"discard {card_name(self.card)}"


@dataclass(frozen=True, slots=True)
class Knock:
    """Discard (``None`` for big gin) and lay down ``melds``; the other cards are deadwood.

    ``gin`` is true when the player announced gin (the ``gin`` notation): the engine then
    refuses melds that leave deadwood. It does not take part in comparisons: gin is read from
    the arrangement (R4.3), so a knock leaving no deadwood is a gin either way.
    """

    discard: Card | None
    melds: Melds
    gin: bool = field(default=False, compare=False)

    def __str__(self) -> str:
        # a big gin has no discard: only ``gin`` can say so (``knock`` needs one)
        gin = self.gin or self.discard is None
        return _knock_text("gin" if gin else "knock", self.discard, self.melds)


@dataclass(frozen=True, slots=True)
class LayOff:
    """A defender's own melds and his layoffs as (card, knocker meld index from 0) pairs."""

    melds: Melds
    layoffs: tuple[tuple[Card, int], ...] = ()

    def __str__(self) -> str:
        parts = ["layoff", *(f"[{format_cards(m)}]" for m in self.melds)]
        parts += [f"{card_name(c)}@{i + 1}" for c, i in self.layoffs]
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class Reshuffle:
    """Chance: the new stock after a reshuffle, top card first."""

    order: tuple[Card, ...]

    def __str__(self) -> str:
        return "reshuffle " + format_cards(self.order)


Action = Pass | DrawStock | DrawDiscard | Discard | Knock | LayOff | Reshuffle

PASS = Pass()
DRAW_STOCK = DrawStock()
DRAW_DISCARD = DrawDiscard()
DISCARDS: tuple[Discard, ...] = tuple(Discard(c) for c in range(52))
"""Shared instances (actions are immutable values; equal instances compare equal)."""

# per suit, per 13-bit lane: the shared discards of those cards, built on first use
_LANE_DISCARDS: list[list[tuple[Action, ...] | None]] = [[None] * 8192 for _ in range(4)]


def _lane_discards(suit: int, lane: int) -> tuple[Action, ...]:
    found = tuple(DISCARDS[13 * suit + r] for r in range(13) if lane >> r & 1)
    _LANE_DISCARDS[suit][lane] = found
    return found


def discards_of(mask: int) -> list[Action]:
    """The shared :class:`Discard` of every card of a bitmask, lowest card first."""
    s, h, d, c = _LANE_DISCARDS
    a = s[mask & LANE_MASK] or _lane_discards(0, mask & LANE_MASK)
    b = h[mask >> 13 & LANE_MASK] or _lane_discards(1, mask >> 13 & LANE_MASK)
    e = d[mask >> 26 & LANE_MASK] or _lane_discards(2, mask >> 26 & LANE_MASK)
    f = c[mask >> 39] or _lane_discards(3, mask >> 39)
    return [*a, *b, *e, *f]


def _knock_text(word: str, discard: Card | None, melds: Melds) -> str:
    parts = [word]
    if discard is not None:
        parts.append(card_name(discard))
    parts += [f"[{format_cards(m)}]" for m in melds]
    return " ".join(parts)


def action_text(action: Action, gin: bool = False) -> str:
    """The notation of ``action``; a knock is written ``gin`` when ``gin`` is true."""
    if gin and isinstance(action, Knock):
        return _knock_text("gin", action.discard, action.melds)
    return str(action)


_MELD_RE = re.compile(r"\[([^\]]*)\]")


def _parse_melds(text: str, what: str) -> tuple[Melds, str]:
    melds: list[Meld] = []
    for body in _MELD_RE.findall(text):
        cards = parse_card_list(body)
        if not cards:
            raise ValueError(f"{what}: empty meld []")
        melds.append(tuple(cards))
    rest = _MELD_RE.sub(" ", text)
    if "[" in rest or "]" in rest:
        raise ValueError(f"{what}: unbalanced brackets in {text!r}")
    return tuple(melds), rest


def parse_action(text: str) -> Action:
    """Parse the notation above. Raises ``ValueError`` naming what is wrong.

    ``gin`` parses to a :class:`Knock` with ``gin`` set; the engine checks that it leaves no
    deadwood.
    """
    stripped = text.strip()
    if not stripped:
        raise ValueError("empty action")
    word, _, rest = stripped.partition(" ")
    word = word.lower()
    rest = rest.strip()
    if word in ("pass", "stock", "take"):
        if rest:
            raise ValueError(f"{word!r} takes no argument, got {rest!r}")
        simple: dict[str, Action] = {"pass": PASS, "stock": DRAW_STOCK, "take": DRAW_DISCARD}
        return simple[word]
    if word == "discard":
        if not rest or " " in rest:
            raise ValueError(f"discard needs exactly one card, got {rest!r}")
        return Discard(parse_card(rest))
    if word in ("knock", "gin"):
        melds, loose = _parse_melds(rest, word)
        tokens = loose.split()
        if len(tokens) > 1:
            raise ValueError(f"{word}: expected one discard then [melds], got {loose.strip()!r}")
        discard = parse_card(tokens[0]) if tokens else None
        if discard is None and word == "knock" and not melds:
            raise ValueError("knock needs a discard (only big gin has none: write 'gin [...]')")
        return Knock(discard, melds, gin=word == "gin")
    if word == "layoff":
        melds, loose = _parse_melds(rest, word)
        layoffs: list[tuple[Card, int]] = []
        for token in loose.split():
            card_text, at, index_text = token.partition("@")
            if not at or not index_text.isdigit() or int(index_text) < 1:
                raise ValueError(
                    f"layoff: bad layoff {token!r}; write CARD@N with N the knocker's meld (1..)"
                )
            layoffs.append((parse_card(card_text), int(index_text) - 1))
        return LayOff(melds, tuple(layoffs))
    if word == "reshuffle":
        return Reshuffle(tuple(parse_card_list(rest)))
    raise ValueError(
        f"unknown action {word!r}; expected pass, stock, take, discard, knock, gin, layoff"
    )
