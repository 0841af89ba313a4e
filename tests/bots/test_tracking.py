"""Card tracking replays a seat's view into what it knows of the other hands."""

from __future__ import annotations

import random

import pytest

from ginrummy.bots import RandomBot, SimpleBot
from ginrummy.bots.tracking import CardTracker, track
from ginrummy.cards import FULL_DECK_MASK
from ginrummy.engine import CHANCE, Hand
from ginrummy.rules import Ruleset
from ginrummy.views import view
from helpers import card, draw_and_discard, make_hand, mask, play, play_reshuffle


def _bits(*texts: str) -> int:
    return mask(" ".join(texts))


def test_offer_passes_draws_and_a_pickup_two_players() -> None:
    rules = Ruleset.preset("eaai")  # non-dealer first offer; seat 1 deals, seat 0 starts
    hand = make_hand(rules, {0: "As 2s 3s 7h 7d 7c Kd 9c 4h 5h",
                             1: "Qs Qh Qd 2c 3c 4c 8s 9s Th Jh"},
                     upcard="Kc", stock="6c 5s 2d")
    play(hand, "pass", "pass", "stock", "discard 6c", "take", "discard 8s")
    mine = track(view(hand, 0))
    assert mine.seat == 0 and mine.players == 2 and mine.next_seat == 1
    assert mine.opponents == (1,)
    assert mine.top == card("8s") == view(hand, 0).top_discard
    assert mine.taken[1] == _bits("6c") and mine.held_known[1] == _bits("6c")
    assert mine.declined[1] == _bits("Kc")          # passed the upcard
    assert mine.declined[0] == _bits("Kc")          # passed it, then drew from the stock
    assert mine.discarded == (_bits("6c"), _bits("8s"))
    assert mine.dead == _bits("Kc")
    assert mine.draws == (1, 1) and mine.stock_draws == (1, 0)
    assert mine.hand == hand.hands[0]
    located = hand.hands[0] | _bits("Kc 8s 6c")
    assert mine.unseen == FULL_DECK_MASK & ~located
    assert mine.unseen_count == 52 - 13
    assert mine.unknown_count(1) == 9 and mine.counts == (10, 10)
    assert mine.unseen >> card("5s") & 1            # still in the stock
    theirs = track(view(hand, 1))
    assert theirs.hand & theirs.unseen == 0 and theirs.unseen & hand.hands[0] == hand.hands[0]


def test_a_retaken_card_leaves_held_known_when_discarded_again() -> None:
    rules = Ruleset.preset("classic")  # no offer: seat 0 draws first
    hand = make_hand(rules, {0: "As 2s 3s 7h 7d 7c Kd 9c 4h 5h"}, upcard="Ks",
                     stock="Qd 8h 8d")
    play(hand, "take", "discard Kd", "stock", "discard Qd", "stock", "discard Ks")
    mine = track(view(hand, 1))
    assert mine.taken[0] == _bits("Ks")
    assert mine.held_known[0] == 0                 # Ks came back out
    assert mine.discarded[0] == _bits("Kd Ks")
    assert mine.declined[1] == _bits("Kd")
    assert mine.declined[0] == _bits("Qd")
    assert mine.dead == _bits("Kd Qd") and mine.top == card("Ks")


def test_three_player_arena_hand_with_reshuffle() -> None:
    rules = Ruleset.preset("arena", players=3)  # 7 cards each, stock 30, reshuffles
    hand = make_hand(rules, {0: "As 2s 3s 7h 7d 7c Kd", 1: "Qs Qh Qd 2c 3c 4c 8s",
                             2: "9s Ts Jh Th 5c 6d 4d"}, upcard="Kc", stock="Jc")
    play(hand, "stock", "discard Jc", "take", "discard 8s")
    t0 = track(view(hand, 0))
    assert t0.taken == (0, _bits("Jc"), 0) and t0.held_known[1] == _bits("Jc")
    assert t0.declined == (_bits("Kc"), 0, 0)
    assert t0.next_seat == 1 and t0.opponents == (1, 2)
    # seat 2 draws and discards until the stock runs out: everything but Kc, Jc went by
    pile_before = list(hand.discards)
    draw_and_discard(hand, len(hand.stock))
    assert hand.to_move == CHANCE                    # a reshuffle is due
    t2 = track(view(hand, 2))
    assert t2.dead == mask(hand.discards[:-1]) and t2.recycled == 0
    play_reshuffle(hand)
    for seat in range(3):
        t = track(view(hand, seat))
        assert t.reshuffles == 1 and t.dead == 0
        recycled = mask(pile_before + list(hand.stock)) & ~(1 << hand.discards[-1])
        assert t.recycled == recycled & ~t.hand & ~(1 << card("Jc"))
        assert t.recycled & t.unseen == t.recycled       # back in play for everybody
        assert t.held_known[1] == _bits("Jc") or seat == 1


def test_spectators_have_no_tracker() -> None:
    hand = Hand.deal(Ruleset.preset("classic"), seed=1)
    with pytest.raises(ValueError, match="spectator"):
        track(view(hand, None))


def _check(tracker: CardTracker, hand: Hand, seat: int) -> None:
    """Invariants that hold at every decision of every hand."""
    assert tracker.held_known[seat] == hand.hands[seat] == tracker.hand
    assert tracker.top == hand.top_discard
    assert tracker.dead == mask(hand.discards[:-1])
    located = tracker.hand | tracker.dead | (1 << tracker.top if tracker.top is not None else 0)
    for s in range(hand.players):
        assert tracker.held_known[s] & ~hand.hands[s] == 0   # known cards are really held
        assert tracker.held_known[s] & hand.known[s] == hand.known[s]
        assert tracker.taken[s] & hand.known[s] == hand.known[s]
        located |= tracker.held_known[s]
        # every card of another hand is either named or unseen
        assert hand.hands[s] & ~tracker.held_known[s] & ~tracker.unseen == 0
    assert tracker.unseen == FULL_DECK_MASK & ~located
    assert mask(hand.stock) & ~tracker.unseen == 0
    assert tracker.recycled & ~tracker.unseen == 0
    assert tracker.counts == tuple(m.bit_count() for m in hand.hands)
    assert tracker.stock_size == len(hand.stock)


@pytest.mark.parametrize(("preset", "players"), [
    ("classic", 2), ("playok", 2), ("eaai", 2), ("arena", 2), ("arena", 3), ("arena", 4)])
def test_invariants_over_whole_hands(preset: str, players: int) -> None:
    # arena hands run out of stock and reshuffle; with the history visible, the view's
    # own pile must agree with the one the tracker rebuilt from the log
    rules = Ruleset.preset(preset, players=players,
                           discard_history_visible=preset == "arena")
    reshuffles = 0
    for seed in range(12):
        rng = random.Random(seed)
        hand = Hand.deal(rules, dealer=seed % players, rng=rng)
        # random players alone every third hand: they rarely knock, so stocks run out
        bots = [SimpleBot(s) if (s + seed) % 2 and seed % 3 else RandomBot(s)
                for s in range(players)]
        while not hand.over:
            if hand.to_move == CHANCE:
                hand.apply(hand.reshuffle_order(rng))
                reshuffles += 1
                continue
            seat = hand.to_move
            v = view(hand, seat)
            tracker = track(v)
            _check(tracker, hand, seat)
            if v.discard_pile is not None:
                assert mask(v.discard_pile[:-1]) == tracker.dead
            hand.apply(bots[seat].choose(v, hand.legal_actions()))
    assert reshuffles or preset != "arena"
