"""``intermediate``: its evaluation helpers match their definitions, and it takes, discards
and knocks as docs/bots.md says."""

from __future__ import annotations

import random

from ginrummy.actions import DRAW_DISCARD, DRAW_STOCK, Discard, Knock
from ginrummy.bots import make_bot
from ginrummy.bots.beginner import in_some_meld
from ginrummy.bots.intermediate import (
    IntermediateBot,
    danger,
    layoff_spots,
    meld_completers,
    potential,
)
from ginrummy.bots.tracking import CardTracker, track
from ginrummy.engine import Hand
from ginrummy.rules import Ruleset
from ginrummy.solver import deadwood_mask
from ginrummy.solver.discards import least_deadwood_after_discard
from ginrummy.views import view
from helpers import card, draw_and_discard, make_hand, mask, play


def test_meld_completers_and_potential_match_their_definitions() -> None:
    rng = random.Random(4)
    for _ in range(1500):
        cards = rng.sample(range(52), 40)
        hand, unseen = mask(cards[:10]), mask(cards[10:])
        expected = {u for u in range(52) if not hand >> u & 1 and in_some_meld(hand, u)}
        assert meld_completers(hand) == mask(sorted(expected))
        dw = deadwood_mask(hand)
        brute = sum(dw - least_deadwood_after_discard(hand | 1 << u) for u in cards[10:]) / 30
        assert abs(potential(hand, unseen) - brute) < 1e-9


def test_layoff_spots_count_run_ends_and_fourth_cards() -> None:
    melds = ((card("3h"), card("4h"), card("5h")), (card("Ks"), card("Kh"), card("Kd")))
    assert layoff_spots(melds, mask("2h 6h Kc 7h 9c")) == 3
    assert layoff_spots(melds, mask("7h 9c")) == 0


def _tracker_after(actions: list[str], hands: dict[int, str], upcard: str,
                   stock: str) -> CardTracker:
    hand = make_hand(Ruleset.preset("classic"), hands, upcard=upcard, stock=stock)
    play(hand, *actions)
    return track(view(hand, hand.to_move))


def test_danger_reads_pickups_and_discards() -> None:
    # seat 1 took 7d (known), seat 0 to move: 7-ranks and diamond neighbours are dangerous
    tracker = _tracker_after(
        ["stock", "discard 7d", "take", "discard Qc"],
        {0: "As 2s 3s 4h 5h 9c Tc Jh Kd 8s", 1: "7c 7s 2d 3d 4d 9h Th Js Ks Qc"},
        upcard="Qs", stock="7d")
    assert tracker.seat == 0 and tracker.held_known[1] == mask("7d")
    assert 0.4 < danger(card("7h"), tracker, 1) < 1.0     # one 7 known: not yet a meld
    assert danger(card("8d"), tracker, 1) > danger(card("8h"), tracker, 1)
    # seat 1 discarded Qc: queens are safer than kings of the same standing
    assert danger(card("Qh"), tracker, 1) < danger(card("Kh"), tracker, 1)


def test_danger_is_certain_when_the_card_melds_with_known_cards() -> None:
    # seat 1 took 7d then 7c: any other 7 completes its set
    hand = make_hand(Ruleset.preset("classic"),
                     {0: "As 2s 3s 4h 5h 9c Tc Jh Kd 8s", 1: "2d 3d 4d 9h Th Js Ks Qc Qd 5c"},
                     upcard="Qs", stock="7d 7c 6s")
    play(hand, "stock", "discard 7d", "take", "discard Qc", "stock", "discard 7c", "take",
         "discard Qd")
    tracker = track(view(hand, 0))
    assert danger(card("7h"), tracker, 1) == 1.0
    assert danger(card("2c"), tracker, 1) < 1.0


def test_takes_a_card_that_completes_a_meld_and_leaves_a_useless_one() -> None:
    rules = Ruleset.preset("classic")
    melding = make_hand(rules, {0: "As 2s 3s 7h 7d 4c 5c 9h Jd Qc"}, upcard="7c")
    bot = IntermediateBot(1)
    assert bot.choose(view(melding, 0), melding.legal_actions()) == DRAW_DISCARD
    useless = make_hand(rules, {0: "As 2s 3s 7h 7d 4c 5c 9h Jd Qc"}, upcard="Kh")
    assert bot.choose(view(useless, 0), useless.legal_actions()) == DRAW_STOCK


def test_discards_the_safer_of_two_equal_cards() -> None:
    """Kh and Kd are both loose; seat 1 took Qd, so Kd would help it: Kh goes."""
    rules = Ruleset.preset("classic")
    hand = make_hand(rules, {0: "As 2s 3s 7h 7d 7c 4c 5c Kh Kd",
                             1: "Jd 2h 3h 9s Ts 5d 6s 8c 8h 2c"},
                     upcard="5s", stock="Qd 9d Th")
    play(hand, "stock", "discard Qd", "take", "discard 5d", "stock")
    assert hand.to_move == 0 and hand.hands[0] >> card("9d") & 1
    action = IntermediateBot(1).choose(view(hand, 0), hand.legal_actions())
    assert action in (Discard(card("Kh")), Discard(card("9d")))
    assert action != Discard(card("Kd"))


def test_gins_and_knocks_early() -> None:
    rules = Ruleset.preset("classic")
    gin = make_hand(rules, {0: "As 2s 3s 7h 7d 7c 4c 5c 6c Kd"}, upcard="2h", stock="3c")
    play(gin, "stock")
    action = IntermediateBot(1).choose(view(gin, 0), gin.legal_actions())
    assert isinstance(action, Knock) and action.gin and action.discard == card("Kd")
    early = make_hand(rules, {0: "As 2s 3s 7h 7d 7c 4c 5c 6c 8d"}, upcard="2h", stock="Kh")
    play(early, "stock")
    action = IntermediateBot(1).choose(view(early, 0), early.legal_actions())
    assert isinstance(action, Knock) and action.discard == card("Kh")


def test_does_not_knock_high_deadwood_late() -> None:
    """After many turns an undercut is likely: 9 points of deadwood wait for better."""
    rules = Ruleset.preset("classic")
    hand = make_hand(rules, {0: "As 2s 3s 7h 7d 7c 4c 5c 6c 9d"}, upcard="2h",
                     stock="Kh Qh Jh Th 9h 8h 8s 9s Ts Js Qs Ks 8c 9c Tc Jc Qc Kc Kd")
    draw_and_discard(hand, 18)   # nine turns each, hands unchanged
    play(hand, "stock")          # seat 0 draws Kd
    assert hand.hands[0] >> card("Kd") & 1
    tracker = track(view(hand, 0))
    assert min(tracker.draws) >= 9
    action = IntermediateBot(1).choose(view(hand, 0), hand.legal_actions())
    assert isinstance(action, Discard)
    # the same deadwood knocks in the first turns
    fresh = make_hand(rules, {0: "As 2s 3s 7h 7d 7c 4c 5c 6c 9d"}, upcard="2h", stock="Kd")
    play(fresh, "stock")
    assert isinstance(IntermediateBot(1).choose(view(fresh, 0), fresh.legal_actions()), Knock)


def test_knocks_to_win_the_match_whatever_the_turn() -> None:
    """Near the target with the opponent far behind, any knock ends the match: knock."""
    bot = IntermediateBot(1)
    rules = Ruleset.preset("classic")
    hand = make_hand(rules, {0: "As 2s 3s 7h 7d 7c 4c 5c 6c 9d"}, upcard="2h",
                     stock="Kh Qh Jh Th 9h 8h 8s 9s Ts Js Qs Ks 8c 9c Tc Jc Qc Kc Kd")
    draw_and_discard(hand, 18)
    play(hand, "stock")
    v = view(hand, 0)._replace(scores=(95, 20), hands_won=(3, 1))
    assert isinstance(bot.choose(v, hand.legal_actions()), Knock)


def test_deterministic_and_fast_enough_to_play_a_hand() -> None:
    rules = Ruleset.preset("eaai")
    logs = []
    for _ in range(2):
        hand = Hand.deal(rules, 0, seed=9)
        bots = [make_bot("intermediate", 3), make_bot("beginner", 4)]
        while not hand.over:
            hand.apply(bots[hand.to_move].choose(view(hand, hand.to_move),
                                                 hand.legal_actions()))
        logs.append(hand.action_log_text())
    assert logs[0] == logs[1]


def test_cards_an_opponent_took_count_as_progress() -> None:
    """Four draws each is early, but an opponent who took three cards is further along."""
    rules = Ruleset.preset("classic")
    hand = make_hand(rules, {0: "As 2s 3s 7h 7d 7c 4c 5c 6c 9d",
                             1: "Qs Qh Qd 2d 3d 9s Ts Js 5h 6h"},
                     upcard="2c", stock="Kh Qc Jh 8s 2h Kd")
    play(hand, "stock", "discard Kh", "take", "discard 5h", "stock", "discard Qc", "take",
         "discard 6h", "stock", "discard Jh", "take", "discard 2d", "stock", "discard 8s",
         "stock", "discard 2h", "stock")
    v = view(hand, 0)
    assert track(v).draws == (5, 4) and track(v).held_known[1] == mask("Kh Qc Jh")
    assert isinstance(IntermediateBot(1).choose(v, hand.legal_actions()), Discard)
    blind = IntermediateBot(1)
    blind.KNOWN_CARD_DRAWS = 0                     # draws alone: still early, it knocks
    assert isinstance(blind.choose(v, hand.legal_actions()), Knock)


def test_more_caution_when_the_opponent_nears_the_target() -> None:
    rules = Ruleset.preset("classic")
    hand = make_hand(rules, {0: "As 2s 3s 7h 7d 7c 4c 5c 6c 4d"}, upcard="2h",
                     stock="Kh Qh Jh Th 9h 8h 8s 9s Ts Js Qs Ks 8c 9c Kd")
    draw_and_discard(hand, 14)                     # seven draws each: late
    play(hand, "stock")
    assert hand.hands[0] >> card("Kd") & 1
    bot = IntermediateBot(1)
    v = view(hand, 0)
    assert isinstance(bot.choose(v._replace(scores=(20, 40)), hand.legal_actions()), Knock)
    assert isinstance(bot.choose(v._replace(scores=(20, 90)), hand.legal_actions()), Discard)


def _eight_of_clubs_comes_back(dealt_to: int) -> Hand:
    """Seat 0 holds 9c Tc when 8c (which makes the run 8c 9c Tc) is back on the pile.
    ``dealt_to`` 0: seat 0 was dealt 8c and threw it; 1: seat 0 took 8c from seat 1 once."""
    rules = Ruleset.preset("classic")
    if dealt_to == 0:
        hand = make_hand(rules, {0: "As 2s 3s 7h 7d 7s 4h 5d Kh 8c",
                                 1: "Qh Jd 2h 3h 9s Ts 5s 6s 8d Kd"},
                         upcard="Qd", stock="2d Js Tc 9c Ks")
        play(hand, "stock", "discard Kh", "stock", "discard Js", "stock", "discard 8c",
             "take", "discard 2h", "stock", "discard 5d", "stock", "discard 8c")
    else:
        hand = make_hand(rules, {0: "As 2s 3s 7h 7d 7s 4h 5d Kh Qh",
                                 1: "8c Jd 2h 3h 9s Ts 5s 6s 8d Kd"},
                         upcard="Qd", stock="2d Js Qs Tc 9c Ks")
        play(hand, "stock", "discard Qh", "stock", "discard 8c", "take", "discard Kh",
             "stock", "discard Qs", "stock", "discard 8c", "take", "discard 2h",
             "stock", "discard 5d", "stock", "discard 8c")
    assert hand.to_move == 0 and hand.discards[-1] == card("8c")
    assert (hand.hands[0] & mask("9c Tc")) == mask("9c Tc")
    return hand


def test_never_takes_a_card_it_already_took_this_hand() -> None:
    """8c would complete a run: a card seat 0 only threw away is taken back, but not one it
    took once before (passing cards back and forth must not go on for ever)."""
    for dealt_to, expected in ((0, DRAW_DISCARD), (1, DRAW_STOCK)):
        hand = _eight_of_clubs_comes_back(dealt_to)
        seen = view(hand, 0)
        for spec in ("intermediate", "expert"):
            bot = make_bot(spec, 1)
            assert bot.choose(seen, hand.legal_actions()) == expected, (spec, dealt_to)
