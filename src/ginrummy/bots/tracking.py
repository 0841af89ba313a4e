"""Card tracking: what a seat can infer about the others' hands from its own view.

:func:`track` (or :meth:`CardTracker.from_view`) replays the viewer's log, a pure function of
the view, into card bitmasks per seat:

- ``taken``: cards the seat picked up from the discard pile this hand (upcard included);
- ``declined``: face-up cards it passed on (a first-turn ``pass``) or left on the pile when it
  drew from the stock;
- ``discarded``: cards it discarded (knock discard included);
- ``held_known``: cards known to be in its hand now (taken and not discarded since; every
  card of every hand once the hands are shown after a knock).

and for everybody:

- ``dead``: the discard pile below the top card: nobody can take them, and they stay out of
  play unless a reshuffle (R4.7) turns them into a new stock;
- ``recycled``: the cards that went back into the stock through a reshuffle this hand. They
  count as ``unseen`` again (they may be drawn by anyone) but we know they were in the pile,
  not in an opponent's hand, when the reshuffle happened;
- ``unseen``: the cards the viewer has not located: the candidates for the others' unknown
  cards and for the stock.

Seat-indexed tuples cover every seat, the viewer's own included (its entries are exact).
Everything is int bitmasks over cards 0-51; building a tracker costs one pass over the log.
"""

from __future__ import annotations

from typing import NamedTuple

from ginrummy.actions import Discard, DrawDiscard, DrawStock, Knock, Pass, Reshuffle
from ginrummy.cards import FULL_DECK_MASK
from ginrummy.views import PlayerView

__all__ = ["CardTracker", "track"]


class CardTracker(NamedTuple):
    """The card knowledge of ``seat`` at one moment of a hand (see the module docstring)."""

    seat: int
    players: int
    hand: int
    """The viewer's own cards."""
    top: int | None
    """The face-up card that may be taken, if any."""
    taken: tuple[int, ...]
    declined: tuple[int, ...]
    discarded: tuple[int, ...]
    held_known: tuple[int, ...]
    dead: int
    recycled: int
    unseen: int
    counts: tuple[int, ...]
    """Cards held, by seat."""
    draws: tuple[int, ...]
    """Draws made this hand, by seat (stock or pile)."""
    stock_draws: tuple[int, ...]
    """Draws from the stock this hand, by seat."""
    stock_size: int
    reshuffles: int

    @classmethod
    def from_view(cls, view: PlayerView) -> CardTracker:
        """The tracker of ``view.seat`` (a seat, not a spectator)."""
        return track(view)

    @property
    def next_seat(self) -> int:
        """The seat that plays after the viewer: the only one that can take its discard."""
        return (self.seat + 1) % self.players

    @property
    def opponents(self) -> tuple[int, ...]:
        """The other seats, in turn order after the viewer."""
        return tuple((self.seat + i) % self.players for i in range(1, self.players))

    def unknown_count(self, seat: int) -> int:
        """How many of ``seat``'s cards the viewer cannot name."""
        return self.counts[seat] - self.held_known[seat].bit_count()

    @property
    def unseen_count(self) -> int:
        """How many cards the viewer has not located."""
        return self.unseen.bit_count()


def track(view: PlayerView) -> CardTracker:
    """Replay ``view.log`` into a :class:`CardTracker` for ``view.seat``."""
    seat = view.seat
    if seat is None:
        raise ValueError("card tracking needs a seat's view, not a spectator's")
    n = len(view.counts)
    taken = [0] * n
    declined = [0] * n
    discarded = [0] * n
    held = [0] * n
    draws = [0] * n
    stock_draws = [0] * n
    pile = [view.upcard]
    recycled = 0
    for event in view.log:
        action = event.action
        kind = type(action)
        who = event.seat
        if kind is DrawStock:
            if pile:
                declined[who] |= 1 << pile[-1]
            draws[who] += 1
            stock_draws[who] += 1
        elif kind is Discard:
            card = action.card  # type: ignore[union-attr]
            bit = 1 << card
            pile.append(card)
            discarded[who] |= bit
            held[who] &= ~bit
        elif kind is DrawDiscard:
            card = pile.pop()
            bit = 1 << card
            taken[who] |= bit
            held[who] |= bit
            draws[who] += 1
        elif kind is Pass:
            declined[who] |= 1 << pile[-1]
        elif kind is Knock:
            card_or_none = action.discard  # type: ignore[union-attr]
            if card_or_none is not None:
                bit = 1 << card_or_none
                pile.append(card_or_none)
                discarded[who] |= bit
                held[who] &= ~bit
        elif kind is Reshuffle:
            for card in pile[:-1]:
                recycled |= 1 << card
            del pile[:-1]
    # the engine's public record of held pile cards is authoritative (and equal to ours)
    known = view.known_masks
    for s in range(n):
        held[s] = known[s]
    revealed = view.revealed_masks
    if revealed is not None:
        for s in range(n):
            held[s] = revealed[s]
    hand = view.hand_mask
    held[seat] = hand
    dead = 0
    for card in pile[:-1]:
        dead |= 1 << card
    top = pile[-1] if pile else None
    located = hand | dead
    if top is not None:
        located |= 1 << top
    for mask in held:
        located |= mask
    return CardTracker(
        seat=seat,
        players=n,
        hand=hand,
        top=top,
        taken=tuple(taken),
        declined=tuple(declined),
        discarded=tuple(discarded),
        held_known=tuple(held),
        dead=dead,
        recycled=recycled & ~located,
        unseen=FULL_DECK_MASK & ~located,
        counts=tuple(view.counts),
        draws=tuple(draws),
        stock_draws=tuple(stock_draws),
        stock_size=view.stock_size,
        reshuffles=view.reshuffles,
    )
