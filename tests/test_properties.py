"""Hypothesis properties of whole hands played at random on random decks, presets and tables.

After every action: the 52 cards are each in exactly one place; an illegal attempt raises an
``IllegalActionError`` and changes nothing; no view leaks a card its seat may not know
(docs/rules.md R4.8). After the hand: replaying its log, as objects or as notation, on
the same deck reproduces every intermediate snapshot.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ginrummy.actions import (
    Action,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    LayOff,
    Pass,
    Reshuffle,
    parse_action,
)
from ginrummy.cards import card_name, cards_of
from ginrummy.engine import CHANCE, Hand, Phase, deal_order
from ginrummy.errors import IllegalActionError
from ginrummy.rules import Ruleset
from ginrummy.scoring import score_hand, split_pool
from ginrummy.solver import best_arrangements, best_melds
from ginrummy.views import view
from helpers import assert_cards_conserved

MAX_ACTIONS = 3000


@st.composite
def rulesets(draw: st.DrawFn) -> Ruleset:
    """A preset with some options overridden; 2-4 players for arena."""
    name = draw(st.sampled_from(["classic", "playok", "arena", "arena", "arena", "eaai"]))
    o: dict[str, object] = {}
    if name == "arena":
        players = draw(st.sampled_from([2, 3, 3, 4, 4]))
        o["players"] = players
        o["undercut_ties"] = draw(st.sampled_from(["strict", "defender"]))
        o["layoff_chain"] = draw(st.sampled_from(["none", "own"]))
        o["max_reshuffles"] = draw(st.integers(0, 2))
        o["upcard_offer"] = draw(st.sampled_from(["none", "non_dealer_first"]))
    else:
        players = 2
        o["oklahoma_spades_double"] = draw(st.booleans())
        o["oklahoma_knock_limit"] = draw(st.booleans())
        o["upcard_offer"] = draw(st.sampled_from(["none", "non_dealer_first", "dealer_first"]))
        o["stock_end"] = draw(st.sampled_from(["void_at_two", "reshuffle"]))
        o["layoff_chain"] = draw(st.sampled_from(["none", "own"]))
    o["big_gin"] = draw(st.booleans())
    o["no_rediscard_of_taken_card"] = draw(st.booleans())
    o["discard_history_visible"] = draw(st.booleans())
    o["knock_limit"] = draw(st.sampled_from([10, 10, 10, 5, 0]))
    # small hands end sooner and knock more often
    o["hand_size"] = draw(st.sampled_from([None, None, 3, 5, 7]))
    if o["hand_size"] is None:
        o["hand_size"] = 10 if players == 2 else 7
    return Ruleset.preset(name, **o)


@st.composite
def games(draw: st.DrawFn) -> tuple[Ruleset, int, list[int]]:
    rules = draw(rulesets())
    dealer = draw(st.integers(0, rules.players - 1))
    deck = deal_order(draw(st.integers(0, 2**32 - 1)))
    return rules, dealer, deck


# --------------------------------------------------------------------------- random play


def choose(hand: Hand, rng: random.Random) -> Action:
    """A random legal action; knocks in other valid arrangements and layoffs other than the
    proposed one are tried too."""
    if hand.to_move == CHANCE:
        return hand.reshuffle_order(rng)
    legal = hand.legal_actions()
    if hand.phase is Phase.DISCARD:
        knocks = [a for a in legal if isinstance(a, Knock)]
        if knocks and rng.random() < 0.6:
            knock = rng.choice(knocks)
            mask = hand.hands[hand.to_move]
            if knock.discard is not None:
                mask &= ~(1 << knock.discard)
            melds = list(rng.choice(best_arrangements(mask)).melds)
            rng.shuffle(melds)  # any order, cards in any order, long runs split
            out = []
            for meld in melds:
                meld = list(meld)
                if len(meld) >= 6 and rng.random() < 0.5 and len({c // 13 for c in meld}) == 1:
                    meld.sort()
                    cut = rng.randrange(3, len(meld) - 2)
                    out += [tuple(meld[:cut]), tuple(meld[cut:])]
                    continue
                rng.shuffle(meld)
                out.append(tuple(meld))
            gin = best_melds(mask).deadwood == 0 and rng.random() < 0.5
            alternative = Knock(knock.discard, tuple(out), gin=gin)
            assert hand.is_legal(alternative), alternative
            return alternative
        others = [a for a in legal if not isinstance(a, Knock)]
        return rng.choice(others)
    if hand.phase is Phase.LAYOFF and rng.random() < 0.3:
        own = LayOff(best_melds(hand.hands[hand.to_move]).melds, ())
        assert hand.is_legal(own)
        return own
    return rng.choice(legal)


def random_attempt(hand: Hand, rng: random.Random) -> tuple[Action | str, int | None]:
    """Something a careless or malicious player might send."""
    n = hand.players
    seat = None
    if rng.random() < 0.15:
        seat = rng.choice([s for s in range(n) if s != hand.to_move] or [0])
    mover = hand.to_move if hand.to_move >= 0 else 0
    held = cards_of(hand.hands[mover])
    anything = rng.randrange(52)
    pick = rng.randrange(9)
    if pick == 0:
        return Discard(rng.choice([anything, *held])), seat
    if pick == 1:
        return rng.choice([DrawStock(), DrawDiscard(), Pass()]), seat
    if pick in (2, 3):
        discard = rng.choice([None, anything, *held])
        cards = list(held)
        rng.shuffle(cards)
        melds: list[tuple[int, ...]] = []
        while cards and rng.random() < 0.8:
            k = rng.randint(1, min(5, len(cards)))
            melds.append(tuple(cards[:k]))
            cards = cards[k:]
        if rng.random() < 0.3:
            melds.append((anything, (anything + 13) % 52, (anything + 26) % 52))
        return Knock(discard, tuple(melds), gin=rng.random() < 0.3), seat
    if pick in (4, 5):
        melds = []
        if held and rng.random() < 0.5:
            melds.append(tuple(rng.sample(held, min(3, len(held)))))
        layoffs = tuple((rng.choice([anything, *held]), rng.randrange(-1, 5))
                        for _ in range(rng.randrange(3)))
        return LayOff(tuple(melds), layoffs), seat
    if pick == 6:
        pool = [*hand.discards, anything]
        rng.shuffle(pool)
        return Reshuffle(tuple(pool[: rng.randrange(len(pool) + 1)])), seat
    if pick == 7:
        return rng.choice(["", "knock", "gin 5h", "discard Zz", "layoff 5h@0", "take 5h",
                           "reshuffle Xx", "discard 5h 6h", "knock 5h [5h 6h 7h"]), seat
    return rng.choice([Discard(c) for c in held] or [Pass()]), seat


def check_illegal(hand: Hand, rng: random.Random) -> None:
    attempt, seat = random_attempt(hand, rng)
    if not isinstance(attempt, str) and hand.is_legal(attempt, seat):
        return
    before = hand.snapshot()
    log = list(hand.log)
    # the seat logs and the discard history are not in the snapshot: they only grow
    lengths = [len(x) for x in hand.seat_logs], len(hand.discard_history)
    deep = rng.random() < 0.1
    views = [view(hand, s).to_dict() for s in [*range(hand.players), None]] if deep else []
    try:
        hand.apply(attempt, seat)
    except IllegalActionError as exc:
        assert str(exc)
    else:
        raise AssertionError(f"{attempt!r} by {seat} was accepted but is_legal said no")
    assert hand.snapshot() == before
    assert hand.log == log
    assert ([len(x) for x in hand.seat_logs], len(hand.discard_history)) == lengths
    if deep:
        assert [view(hand, s).to_dict() for s in [*range(hand.players), None]] == views


def play_random(hand: Hand, rng: random.Random, illegal: bool = True,
                views: bool = False) -> list[tuple[object, ...]]:
    """Play to the end; returns the snapshot after the deal and after every action."""
    snapshots = [hand.snapshot()]
    for step in range(MAX_ACTIONS):
        if hand.over:
            break
        if illegal and rng.random() < 0.5:
            check_illegal(hand, rng)
        hand.apply(choose(hand, rng))
        assert_cards_conserved(hand)
        if views:
            # the JSON text is checked every few actions (its log grows with the hand) and
            # whenever the phase is about to change hands or reveal them
            check_views(hand, json_text=step % 4 == 0 or hand.phase not in _ROUTINE)
        snapshots.append(hand.snapshot())
    assert hand.over, "every hand ends (R4.7)"
    return snapshots


# --------------------------------------------------------------------------- views


_ROUTINE = (Phase.DRAW, Phase.DISCARD)


def check_views(hand: Hand, json_text: bool = True) -> None:
    """No view holds a card its seat may not know, nor the stock (R4.8)."""
    n = hand.players
    revealed = hand.knock is not None
    public = set(hand.discard_history)  # every card ever face up (the upcard first)
    for viewer in [*range(n), None]:
        v = view(hand, viewer)
        hidden = set(hand.stock)
        for s in range(n):
            if s != viewer and not revealed:
                hidden |= set(cards_of(hand.hands[s] & ~hand.known[s]))
        hidden -= public
        own = tuple(cards_of(hand.hands[viewer])) if viewer is not None else ()
        assert v.hand == own
        for sv in v.seats:
            assert sv.count == hand.hands[sv.seat].bit_count()
            assert sv.known == tuple(cards_of(hand.known[sv.seat]))
            if revealed or sv.seat == viewer:
                assert sv.cards == tuple(cards_of(hand.hands[sv.seat]))
            else:
                assert sv.cards is None
        for event in v.log[-4:] if not json_text else v.log:
            if event.card is not None:
                assert event.seat == viewer and isinstance(event.action, DrawStock)
            if isinstance(event.action, Reshuffle):
                assert event.action.order == ()
        if not revealed:
            assert v.knock is None and v.defences == () and v.laid_off == ()
        if not json_text:
            continue
        data = v.to_dict()
        assert "stock" not in data
        text = json.dumps(data)
        leaked = [card_name(c) for c in hidden if f'"{card_name(c)}"' in text]
        assert not leaked, f"seat {viewer} sees {leaked}"
        for entry in data["log"]:
            if entry["action"].startswith("reshuffle"):
                assert entry["action"] == "reshuffle"


# --------------------------------------------------------------------------- properties


@settings(max_examples=200)
@given(game=games(), seed=st.integers(0, 2**32 - 1))
def test_cards_conserved_and_illegal_actions_change_nothing(game, seed):
    rules, dealer, deck = game
    rng = random.Random(seed)
    hand = Hand(rules, dealer, deck)
    assert_cards_conserved(hand)
    play_random(hand, rng, illegal=True)
    for _ in range(3):  # after the end, everything is refused
        check_illegal(hand, rng)
    result = hand.result
    assert result is not None and len(result.deadwood) == rules.players
    if result.void:
        assert hand.knock is None and result.winner is None
    else:
        assert result.winner is not None


@settings(max_examples=150)
@given(game=games(), seed=st.integers(0, 2**32 - 1))
def test_replay_reproduces_every_snapshot(game, seed):
    rules, dealer, deck = game
    rng = random.Random(seed)
    hand = Hand(rules, dealer, deck)
    snapshots = play_random(hand, rng, illegal=False)
    replay = Hand(rules, dealer, deck)
    assert replay.snapshot() == snapshots[0]
    for (seat, action), expected in zip(hand.log, snapshots[1:], strict=True):
        replay.apply(action, seat)
        assert replay.snapshot() == expected
    # the notation replays too (as in records), and copy() is the same replay
    text = Hand(rules, dealer, deck)
    for line, expected in zip(hand.action_log_text(), snapshots[1:], strict=True):
        assert str(parse_action(line)) == line or line.startswith("reshuffle")
        text.apply(line)
        assert text.snapshot() == expected
    assert hand.copy().snapshot() == snapshots[-1]
    assert text.result == hand.result
    # what the snapshot leaves out replays too: the discard history and every seat's log
    for again in (replay, text):
        assert again.discard_history == hand.discard_history
        assert again.seat_logs == hand.seat_logs


@pytest.mark.slow
@settings(max_examples=80)
@given(game=games(), seed=st.integers(0, 2**32 - 1))
def test_no_view_leaks(game, seed):
    rules, dealer, deck = game
    rng = random.Random(seed)
    hand = Hand(rules, dealer, deck)
    check_views(hand)
    play_random(hand, rng, illegal=False, views=True)
    if hand.result.void:
        for seat in [*range(rules.players), None]:
            assert all(s.cards is None for s in view(hand, seat).seats if s.seat != seat)


@settings(max_examples=300)
@given(
    pool=st.integers(0, 10**9),
    penalties=st.lists(st.integers(0, 200), min_size=2, max_size=4),
    data=st.data(),
    threshold=st.integers(1, 100),
)
def test_prize_pool_always_sums_to_the_pool(pool, penalties, data, threshold):
    n = len(penalties)
    winner = data.draw(st.integers(0, n - 1))
    penalties[winner] = 0
    shares = split_pool(pool, penalties, winner, threshold)
    assert sum(shares) == pool and all(s >= 0 for s in shares)
    assert shares[winner] * 4 >= pool * 3  # the winner gets at least 75% (R6.4)
    for seat, (share, penalty) in enumerate(zip(shares, penalties, strict=True)):
        if seat == winner:
            continue
        assert share == (0 if penalty >= threshold else
                         pool * 25 * (threshold - penalty) // (100 * (n - 1) * threshold))


@settings(max_examples=300)
@given(game=games(), data=st.data())
def test_scoring_gives_points_to_the_winner_only(game, data):
    rules, _, _ = game
    n = rules.players
    knocker = data.draw(st.integers(0, n - 1))
    deadwood = data.draw(st.lists(st.integers(0, 98), min_size=n, max_size=n))
    gin = data.draw(st.booleans())
    if gin:
        deadwood[knocker] = 0
    else:
        deadwood[knocker] = data.draw(st.integers(0, 10))
    big = gin and data.draw(st.booleans())
    result = score_hand(rules, knocker, deadwood, gin, big, data.draw(st.booleans()))
    winner = result.winner
    assert winner is not None
    assert min(deadwood) == deadwood[winner] or gin
    if rules.format == "match":
        assert all(p == 0 for s, p in enumerate(result.points) if s != winner)
        assert result.points[winner] >= 0
    else:
        assert result.penalties[winner] == 0 and min(result.penalties) >= 0
        assert all(p == 0 for p in result.points)
