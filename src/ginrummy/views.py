"""What one seat (or a spectator) may know of a hand: the only thing bots and clients receive.

A view never holds another player's unseen cards or the stock order. It shows the viewer's
own hand, the top discard (the whole pile only if ``discard_history_visible``), the cards each
player took from the discard pile and still holds (everybody saw them taken), counts, the
knock and layoffs once laid down, every hand after a knock (R4.8; none after a void hand) and
the action log with other players' stock draws showing no card.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from ginrummy.cards import Card, card_name, cards_tuple, format_cards
from ginrummy.engine import DefenceInfo, Event, Hand, KnockInfo, Phase
from ginrummy.match import Match
from ginrummy.rules import Ruleset
from ginrummy.scoring import HandResult


@dataclass(frozen=True, slots=True)
class SeatView:
    """Public facts about one seat; ``cards`` only when the viewer may see them."""

    seat: int
    count: int
    known: tuple[Card, ...]
    cards: tuple[Card, ...] | None


class PlayerView(NamedTuple):
    """Everything ``seat`` may know (``seat`` is ``None`` for a spectator).

    An immutable snapshot built in about a microsecond; ``hand`` and ``seats`` are
    materialised when read. It holds nothing the seat may not know: its own cards, counts and
    the public cards of the others (all cards once revealed, R4.8), and its own log.
    """

    seat: int | None
    rules: Ruleset
    phase: Phase
    to_move: int
    dealer: int
    hand_mask: int
    upcard: Card
    top_discard: Card | None
    discard_pile: tuple[Card, ...] | None
    stock_size: int
    knock_limit: int
    taken: Card | None
    reshuffles: int
    knock: KnockInfo | None
    defences: tuple[DefenceInfo, ...]
    laid_off: tuple[tuple[Card, ...], ...]
    result: HandResult | None
    log: tuple[Event, ...]
    """The viewer's log: others' stock draws show no card, reshuffles no order."""
    scores: tuple[int, ...] | None
    hands_won: tuple[int, ...] | None
    hand_number: int
    counts: tuple[int, ...]
    """Cards held, by seat."""
    known_masks: tuple[int, ...]
    """By seat, the cards taken from the discard pile and still held (everybody saw them)."""
    revealed_masks: tuple[int, ...] | None
    """Every seat's cards once they are public (after a knock), else ``None``."""

    @property
    def hand(self) -> tuple[Card, ...]:
        """The viewer's own cards, lowest first (empty for a spectator)."""
        return cards_tuple(self.hand_mask)

    @property
    def seats(self) -> tuple[SeatView, ...]:
        """Counts, cards known to be held (taken from the pile) and, when visible, cards."""
        revealed = self.revealed_masks
        return tuple(
            SeatView(s, count, cards_tuple(self.known_masks[s]),
                     cards_tuple(revealed[s]) if revealed is not None
                     else self.hand if s == self.seat else None)
            for s, count in enumerate(self.counts)
        )

    def __repr__(self) -> str:
        return (f"<PlayerView seat={self.seat} phase={self.phase} to_move={self.to_move} "
                f"hand={format_cards(self.hand)}>")

    @property
    def my_turn(self) -> bool:
        """True when the viewer is to move."""
        return self.seat is not None and self.seat == self.to_move

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values, cards in text form."""

        def names(cards: tuple[Card, ...] | None) -> list[str] | None:
            return None if cards is None else [card_name(c) for c in cards]

        def melds(ms: tuple[tuple[Card, ...], ...]) -> list[list[str]]:
            return [[card_name(c) for c in m] for m in ms]

        gin = self.knock is not None and self.knock.gin
        knock = None
        if self.knock is not None:
            k = self.knock
            knock = {
                "knocker": k.knocker,
                "discard": None if k.discard is None else card_name(k.discard),
                "melds": melds(k.melds),
                "unmatched": names(k.unmatched),
                "deadwood": k.deadwood,
                "gin": k.gin,
                "big_gin": k.big_gin,
            }
        return {
            "seat": self.seat,
            "ruleset": self.rules.to_dict(),
            "phase": self.phase.value,
            "to_move": self.to_move,
            "dealer": self.dealer,
            "hand": names(self.hand),
            "seats": [
                {"seat": s.seat, "count": s.count, "known": names(s.known), "cards": names(s.cards)}
                for s in self.seats
            ],
            "upcard": card_name(self.upcard),
            "top_discard": None if self.top_discard is None else card_name(self.top_discard),
            "discard_pile": names(self.discard_pile),
            "stock_size": self.stock_size,
            "knock_limit": self.knock_limit,
            "taken": None if self.taken is None else card_name(self.taken),
            "reshuffles": self.reshuffles,
            "knock": knock,
            "defences": [
                {"seat": d.seat, "melds": melds(d.melds),
                 "layoffs": [[card_name(c), i] for c, i in d.layoffs],
                 "unmatched": names(d.unmatched), "deadwood": d.deadwood}
                for d in self.defences
            ],
            "laid_off": [names(x) for x in self.laid_off],
            "result": None if self.result is None else self.result.to_dict(),
            "log": [
                {"seat": e.seat, "action": e.text(gin, with_card=False),
                 "card": None if e.card is None else card_name(e.card)}
                for e in self.log
            ],
            "scores": None if self.scores is None else list(self.scores),
            "hands_won": None if self.hands_won is None else list(self.hands_won),
            "hand_number": self.hand_number,
        }


def view(state: Hand | Match, seat: int | None) -> PlayerView:
    """The view of ``seat`` (``None``: a spectator) of a hand or of a match's current hand."""
    if isinstance(state, Match):
        match: Match | None = state
        hand = state.hand
    else:
        match, hand = None, state
    n = hand.players
    if seat is not None and not 0 <= seat < n:
        raise ValueError(f"seat must be 0..{n - 1} or None for a spectator, got {seat}")
    revealed = hand.knock is not None  # R4.8: every hand is shown after a knock
    hands = hand.hands
    discards = hand.discards
    return _new_view(PlayerView, (
        seat,
        hand.rules,
        hand.phase,
        hand.to_move,
        hand.dealer,
        hands[seat] if seat is not None else 0,
        hand.upcard,
        discards[-1] if discards else None,  # Hand.top_discard, inline (hot path)
        tuple(discards) if hand.rules.discard_history_visible else None,
        len(hand.stock),
        hand.knock_limit,
        hand.taken,
        hand.reshuffles,
        hand.knock,
        tuple(hand.defences) if revealed else (),
        tuple(tuple(x) for x in hand.laid_off) if revealed else (),
        hand.result,
        tuple(hand.seat_logs[n if seat is None else seat]),
        tuple(match.scores) if match else None,
        tuple(match.hands_won) if match else None,
        len(match.hands) if match else 1,
        tuple(map(int.bit_count, hands)),
        tuple(hand.known),
        tuple(hands) if revealed else None,
    ))


_new_view = tuple.__new__  # skips the generated NamedTuple.__new__ (a hot path for bots)
