"""What one seat (or a spectator) may know of a hand: the only thing bots and clients receive.

A view never holds another player's unseen cards or the stock order. It shows the viewer's
own hand, the top discard (the whole pile only if ``discard_history_visible``), the cards each
player took from the discard pile and still holds (everybody saw them taken), counts, the
knock and layoffs once laid down, every hand after a knock (R4.8; none after a void hand) and
the action log with other players' stock draws showing no card.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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


class PlayerView:
    """Everything ``seat`` may know (``seat`` is ``None`` for a spectator).

    Built in constant time: the cards, seats and log are materialised when first read. It
    holds nothing the seat may not know: its own cards, counts and public cards of the others
    (all cards once revealed, R4.8), and its own log (a list the engine only appends to, read
    up to the length it had when the view was taken).
    """

    __slots__ = (
        "_counts", "_known", "_log", "_log_len", "_revealed",
        "dealer", "defences", "discard_pile", "hand_mask", "hand_number", "hands_won",
        "knock", "knock_limit", "laid_off", "phase", "reshuffles", "result", "rules",
        "scores", "seat", "stock_size", "taken", "to_move", "top_discard", "upcard",
    )

    _counts: tuple[int, ...]
    _known: tuple[int, ...]
    _revealed: tuple[int, ...] | None
    _log: list[Event]
    _log_len: int
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
    scores: tuple[int, ...] | None
    hands_won: tuple[int, ...] | None
    hand_number: int

    @property
    def hand(self) -> tuple[Card, ...]:
        """The viewer's own cards, lowest first (empty for a spectator)."""
        return cards_tuple(self.hand_mask)

    @property
    def seats(self) -> tuple[SeatView, ...]:
        """Counts, cards known to be held (taken from the pile) and, when visible, cards."""
        revealed = self._revealed
        return tuple(
            SeatView(s, count, cards_tuple(self._known[s]),
                     cards_tuple(revealed[s]) if revealed is not None
                     else self.hand if s == self.seat else None)
            for s, count in enumerate(self._counts)
        )

    @property
    def log(self) -> tuple[Event, ...]:
        """The viewer's log: others' stock draws show no card, reshuffles no order."""
        return tuple(self._log[: self._log_len])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PlayerView):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

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
    match = state if isinstance(state, Match) else None
    hand = state.hand if isinstance(state, Match) else state
    n = hand.players
    if seat is not None and not 0 <= seat < n:
        raise ValueError(f"seat must be 0..{n - 1} or None for a spectator, got {seat}")
    revealed = hand.knock is not None  # R4.8: every hand is shown after a knock
    hands = hand.hands
    v = object.__new__(PlayerView)
    v.seat = seat
    v.rules = hand.rules
    v.phase = hand.phase
    v.to_move = hand.to_move
    v.dealer = hand.dealer
    v.hand_mask = hands[seat] if seat is not None else 0
    v._counts = tuple(map(int.bit_count, hands))
    v._known = tuple(hand.known)
    v._revealed = tuple(hands) if revealed else None
    v.upcard = hand.upcard
    v.top_discard = hand.discards[-1] if hand.discards else None
    v.discard_pile = tuple(hand.discards) if hand.rules.discard_history_visible else None
    v.stock_size = len(hand.stock)
    v.knock_limit = hand.knock_limit
    v.taken = hand.taken
    v.reshuffles = hand.reshuffles
    v.knock = hand.knock
    if revealed:
        v.defences = tuple(hand.defences)
        v.laid_off = tuple(tuple(x) for x in hand.laid_off)
    else:
        v.defences = v.laid_off = ()
    v.result = hand.result
    log = hand.seat_logs[n if seat is None else seat]
    v._log = log
    v._log_len = len(log)
    v.scores = tuple(match.scores) if match else None
    v.hands_won = tuple(match.hands_won) if match else None
    v.hand_number = len(match.hands) if match else 1
    return v
