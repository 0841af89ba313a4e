"""Shared helpers for the rules tests: explicit decks, playing actions, checking illegal ones;
and :func:`soak_except`, which leaves a check's repeats to the soak run.

Deck order convention (docs/rules.md R2.3): cards are dealt one at a time, starting with the player
to the dealer's left and going clockwise, until each player has ``hand_size`` cards; the next
card is the upcard; the rest is the stock, its top first. :func:`build_deck` inverts this: give
it the cards each seat must hold, the upcard and the top cards of the stock, and it returns the
52-card deck order that deals exactly that (unspecified cards filled in a fixed order).

By default :func:`make_hand` makes the last seat deal, so that seat 0 plays first.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from typing import Any

import pytest

from ginrummy.actions import DRAW_DISCARD, Action, Discard, Reshuffle, parse_action
from ginrummy.cards import Card, card_name, cards_of, parse_card, parse_card_list
from ginrummy.engine import CHANCE, Hand, Phase
from ginrummy.errors import IllegalActionError
from ginrummy.match import Match
from ginrummy.rules import Ruleset
from ginrummy.views import PlayerView

CardsLike = str | Sequence[Card]

_FILL_ORDER: tuple[Card, ...] = tuple(random.Random(20261129).sample(range(52), 52))


def cards(text: CardsLike) -> list[Card]:
    """Cards from text (``"As 2s 10h"``) or a sequence of card ints, in order."""
    if isinstance(text, str):
        return parse_card_list(text)
    return list(text)


def card(text: str) -> Card:
    """One card from text."""
    return parse_card(text)


def mask(text: CardsLike) -> int:
    """The bitmask of some cards."""
    out = 0
    for c in cards(text):
        out |= 1 << c
    return out


def names(cs: Iterable[Card]) -> str:
    """Text form of some cards, sorted by index (suit then rank)."""
    return " ".join(card_name(c) for c in sorted(cs))


def build_deck(
    players: int,
    hand_size: int,
    dealer: int,
    hands: Mapping[int, CardsLike] | None = None,
    upcard: str | Card | None = None,
    stock: CardsLike = (),
) -> list[Card]:
    """The deck order (R2.3) that gives ``hands[seat]`` to each seat (a seat's cards may be
    partial: the rest is filled), ``upcard`` as the upcard and ``stock`` as the top of the
    stock, top card first."""
    wanted = {seat: cards(cs) for seat, cs in (hands or {}).items()}
    up = [] if upcard is None else [card(upcard) if isinstance(upcard, str) else upcard]
    top = cards(stock)
    used: list[Card] = [c for cs in wanted.values() for c in cs] + up + top
    if len(set(used)) != len(used):
        dupes = sorted({c for c in used if used.count(c) > 1})
        raise ValueError(f"cards given twice: {names(dupes)}")
    for seat, cs in wanted.items():
        if not 0 <= seat < players:
            raise ValueError(f"no seat {seat} with {players} players")
        if len(cs) > hand_size:
            raise ValueError(f"seat {seat}: {len(cs)} cards for a hand of {hand_size}")
    fill = [c for c in _FILL_ORDER if c not in set(used)]
    fill.reverse()
    seat_cards = {}
    for seat in range(players):
        cs = list(wanted.get(seat, []))
        while len(cs) < hand_size:
            cs.append(fill.pop())
        seat_cards[seat] = cs
    if not up:
        up = [fill.pop()]
    deck: list[Card] = []
    for j in range(hand_size):
        for i in range(players):
            deck.append(seat_cards[(dealer + 1 + i) % players][j])
    deck += up + top
    deck += list(reversed(fill))
    assert sorted(deck) == list(range(52))
    return deck


def make_hand(
    rules: Ruleset,
    hands: Mapping[int, CardsLike] | None = None,
    upcard: str | Card | None = None,
    stock: CardsLike = (),
    dealer: int | None = None,
) -> Hand:
    """A hand dealt from :func:`build_deck`; the dealer is the last seat unless given."""
    if dealer is None:
        dealer = rules.players - 1
    deck = build_deck(rules.players, rules.cards_per_hand, dealer, hands, upcard, stock)
    hand = Hand(rules, dealer, deck)
    for seat, cs in (hands or {}).items():
        assert set(cards(cs)) <= set(hand.hand_of(seat))
    return hand


def start_deck(match: Match, hands: Mapping[int, CardsLike] | None = None,
               upcard: str | Card | None = None, stock: CardsLike = ()) -> Hand:
    """Deal the next hand of ``match`` from an explicit deck (seats are absolute)."""
    rules = match.rules
    deck = build_deck(rules.players, rules.cards_per_hand, match.dealer, hands, upcard, stock)
    return match.start_hand(deck)


def play(target: Hand | Match, *actions: Action | str) -> None:
    """Apply actions in order (text or objects), each for whoever is to move."""
    for action in actions:
        target.apply(action)


def skip_offer(target: Hand | Match) -> None:
    """Pass the first-turn upcard offer (R3.5) until a normal draw is due."""
    hand = target.hand if isinstance(target, Match) else target
    while hand.phase is Phase.OFFER:
        target.apply("pass")


def draw_and_discard(target: Hand | Match, turns: int = 1) -> None:
    """Play ``turns`` turns in which the player to move draws from the stock and discards the
    card he drew (so every hand stays as dealt). Reshuffles (R4.7) due on the way are played
    with the discards in pile order."""
    hand = target.hand if isinstance(target, Match) else target
    for _ in range(turns):
        if hand.phase is Phase.RESHUFFLE:
            target.apply(Reshuffle(tuple(hand.discards[:-1])))
        assert hand.phase is Phase.DRAW, hand.phase
        drawn = hand.stock[-1]
        target.apply("stock")
        target.apply(f"discard {card_name(drawn)}")


def play_reshuffle(target: Hand | Match, order: CardsLike | None = None) -> None:
    """Play the due reshuffle; ``order`` is the new stock top first (default: pile order)."""
    hand = target.hand if isinstance(target, Match) else target
    assert hand.phase is Phase.RESHUFFLE and hand.to_move == CHANCE
    new = tuple(hand.discards[:-1]) if order is None else tuple(cards(order))
    target.apply(Reshuffle(new))


def assert_illegal(
    target: Hand | Match,
    action: Action | str,
    error: type[IllegalActionError],
    *words: str,
    seat: int | None = None,
) -> IllegalActionError:
    """``action`` raises exactly ``error`` whose message contains every one of ``words``
    (case-insensitive), and the hand's snapshot is unchanged."""
    hand = target.hand if isinstance(target, Match) else target
    before = hand.snapshot()
    log_before = list(hand.log)
    with pytest.raises(IllegalActionError) as info:
        target.apply(action, seat)
    exc = info.value
    assert type(exc) is error, f"expected {error.__name__}, got {type(exc).__name__}: {exc}"
    message = str(exc).lower()
    for word in words:
        assert word.lower() in message, f"{word!r} not in {str(exc)!r}"
    assert hand.snapshot() == before
    assert hand.log == log_before
    if isinstance(action, str):
        try:
            action = parse_action(action)
        except ValueError:
            return exc
    assert not hand.is_legal(action, seat)
    return exc


def assert_cards_conserved(hand: Hand) -> None:
    """Each of the 52 cards is in exactly one place: a hand, the stock or the discard pile."""
    places: list[int] = list(hand.hands)
    places.append(sum(1 << c for c in hand.stock))
    places.append(sum(1 << c for c in hand.discards))
    total = 0
    for i, m in enumerate(places):
        assert total & m == 0, f"card in two places: {names(cards_of(total & m))} (place {i})"
        total |= m
    assert len(hand.stock) + len(hand.discards) + sum(m.bit_count() for m in hand.hands) == 52
    assert total == (1 << 52) - 1


class Swapper:
    """Always takes the face-up card and never knocks: two of them pass the same cards back
    and forth for ever (an endless hand, for the decision cap)."""

    name = "swapper"

    def __init__(self, seed: int | None = None, budget_ms: float | None = None) -> None:
        pass

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        if DRAW_DISCARD in legal:
            return DRAW_DISCARD
        return next(a for a in legal if isinstance(a, Discard))


def simple_positions(rules: Ruleset, seeds: Iterable[int]) -> list[Hand]:
    """Copies of simple-vs-simple hands before every decision, one hand per seed (dealer
    ``seed mod players``, reshuffles drawn from the seed)."""
    from ginrummy.bots.simple import SimpleBot
    from ginrummy.views import view

    out = []
    for seed in seeds:
        rng = random.Random(seed)
        hand = Hand.deal(rules, dealer=seed % rules.players, seed=seed)
        while not hand.over:
            if hand.to_move == CHANCE:
                hand.apply(hand.reshuffle_order(rng))
                continue
            out.append(hand.copy())
            hand.apply(SimpleBot().choose(view(hand, hand.to_move), hand.legal_actions()))
    return out


def soak_except(values: Iterable[Any], keep: Container[Any],
                ids: Callable[[Any], str] | None = None) -> list[Any]:
    """``values`` as ``pytest.mark.parametrize`` parameters, every one not in ``keep`` marked
    ``soak``: the default run (scripts/test) checks the cases kept, the most demanding ones,
    and the soak run (scripts/soak, also in .ci/run) the same check on the others (other
    languages, sizes or seeds). A tuple is the parameters of one case."""
    return [pytest.param(*(value if isinstance(value, tuple) else (value,)),
                         id=ids(value) if ids else None,
                         marks=() if value in keep else (pytest.mark.soak,))
            for value in values]
