"""R4.2, R4.5, R4.7, R4.9 and R7.3: the options that make the engine play as OpenSpiel's
``gin_rummy`` (``melds_after_gin``, ``layoff_chain`` ``two``, ``stock_end`` ``wall``,
``openspiel_limits``), each on its own, and the presets left as they were."""

from __future__ import annotations

from ginrummy.actions import DRAW_DISCARD, PASS, Discard, Knock, LayOff
from ginrummy.cards import card_name
from ginrummy.engine import Phase
from ginrummy.errors import InvalidLayoffError, KnockLimitError, WrongPhaseError
from ginrummy.rules import OPENSPIEL_OPTIONS, PRESETS, Ruleset
from ginrummy.scoring import Outcome
from ginrummy.solver import check_layoffs
from ginrummy.solver.openspiel import openspiel_min_deadwood
from helpers import assert_illegal, card, cards, draw_and_discard, make_hand, mask, skip_offer

OPENSPIEL = Ruleset.preset("eaai", **OPENSPIEL_OPTIONS)
EAAI_REDISCARD = Ruleset.preset("eaai", no_rediscard_of_taken_card=False)
MELDED = "As 2s 3s 4h 5h 6h 7c 8c 9c Kd"  # deadwood 10: may knock whatever it draws
JUNK = "Ks Qh Jd 9h 7s 5d 3h Kc Qd Jh"   # no meld, no knock with any one card more


def _to_wall(rules: Ruleset, seat1: str) -> object:
    hand = make_hand(rules, {1: seat1}, dealer=1)
    skip_offer(hand)
    draw_and_discard(hand, 29)  # 31 stock cards; seat 0's 29th draw leaves two
    return hand


def test_R4_7_wall_the_next_player_may_take_the_last_discard_only_to_knock() -> None:
    hand = _to_wall(Ruleset.preset("eaai", stock_end="wall"), MELDED)
    assert hand.wall and hand.phase is Phase.DRAW and hand.to_move == 1 and len(hand.stock) == 2
    assert hand.legal_actions() == [PASS, DRAW_DISCARD]
    assert_illegal(hand, "stock", WrongPhaseError, "wall")
    hand.apply("take")
    assert hand.phase is Phase.DISCARD and hand.legal_actions()
    assert all(isinstance(a, Knock) for a in hand.legal_actions())
    assert_illegal(hand, Discard(card("Kd")), WrongPhaseError, "wall", "knock")
    hand.apply(hand.legal_actions()[0])
    assert not hand.wall and hand.phase in (Phase.LAYOFF, Phase.OVER)


def test_R4_7_wall_a_pass_or_no_possible_knock_voids_the_hand() -> None:
    hand = _to_wall(Ruleset.preset("eaai", stock_end="wall"), JUNK)
    assert hand.legal_actions() == [PASS]
    assert_illegal(hand, "take", KnockLimitError, "only to knock")
    hand.apply("pass")
    assert hand.over and hand.result is not None and hand.result.void
    eaai = _to_wall(Ruleset.preset("eaai"), MELDED)  # void_at_two: no wall at all
    assert eaai.over and eaai.result is not None and eaai.result.void


def test_R4_5_layoff_chain_two_allows_two_cards_beyond_each_end_not_three() -> None:
    run = [cards("5h 6h 7h")]
    assert check_layoffs(run, [(card("8h"), 0), (card("9h"), 0)], "two") is None
    assert check_layoffs(run, [(card("4h"), 0), (card("3h"), 0), (card("8h"), 0)], "two") is None
    problem = check_layoffs(run, [(card(c), 0) for c in ("8h", "9h", "Th")], "two")
    assert problem is not None and "at most two" in problem
    assert check_layoffs(run, [(card(c), 0) for c in ("8h", "9h", "Th")], "own") is None
    assert Ruleset.preset("eaai", layoff_chain="two").layoff_chain.value == "two"


def _gin(hand: object) -> Knock:
    return next(a for a in hand.legal_actions()
                if isinstance(a, Knock) and a.discard == card("Kd"))


def test_R4_2_melds_after_gin_the_defender_lays_his_melds_and_nothing_off() -> None:
    rules = EAAI_REDISCARD.replace(melds_after_gin=True)
    hand = make_hand(rules, {0: "As 2s 3s 4h 5h 6h 7c 8c 9c Tc",
                             1: "Js Qs Ks 2d 3d 4d 9h 9d Jc 5c"}, upcard="Kd", dealer=1)
    hand.apply("take")
    hand.apply(_gin(hand))
    assert hand.knock is not None and hand.knock.gin
    assert hand.phase is Phase.LAYOFF and hand.to_move == 1
    (best,) = hand.legal_actions()
    assert isinstance(best, LayOff) and best.layoffs == ()
    assert_illegal(hand, LayOff((), ((card("Jc"), 2),)), InvalidLayoffError, "gin")
    hand.apply(LayOff((tuple(cards("Js Qs Ks")),)))  # keeps 2d 3d 4d as deadwood
    result = hand.result
    assert result is not None and result.outcome is Outcome.GIN
    assert result.deadwood[1] == 2 + 3 + 4 + 9 + 9 + 10 + 5
    assert result.points[0] == result.deadwood[1] + 25
    plain = make_hand(EAAI_REDISCARD, {0: "As 2s 3s 4h 5h 6h 7c 8c 9c Tc",
                                               1: "Js Qs Ks 2d 3d 4d 9h 9d Jc 5c"},
                      upcard="Kd", dealer=1)
    plain.apply("take")
    plain.apply(_gin(plain))
    assert plain.over and plain.result is not None and plain.result.deadwood[1] == 9 + 9 + 10 + 5


def _take_and_keep(hand: object) -> None:
    """Take the top discard and discard another card (the lowest other one)."""
    hand.apply("take")
    taken = hand.taken
    hand.apply(Discard(next(c for c in hand.hand_of(hand.to_move) if c != taken)))


def test_R4_9_the_fiftieth_take_from_the_pile_voids_the_hand() -> None:
    hand = make_hand(OPENSPIEL, {0: JUNK}, dealer=1)
    hand.apply("take")  # the first-turn upcard does not count
    hand.apply(Discard(card("Ks")))
    assert hand.takes == 0
    for _ in range(49):
        _take_and_keep(hand)
    assert not hand.over and hand.takes == 49
    top, held = hand.top_discard, list(hand.hands)
    hand.apply("take")
    assert hand.over and hand.result is not None and hand.result.void
    assert hand.top_discard == top and hand.hands == held
    unlimited = make_hand(EAAI_REDISCARD, {0: JUNK}, dealer=1)
    for _ in range(60):
        _take_and_keep(unlimited)
    assert not unlimited.over


def test_R4_9_two_rediscards_in_a_row_void_the_hand() -> None:
    hand = make_hand(OPENSPIEL, {0: JUNK}, dealer=1)
    skip_offer(hand)
    draw_and_discard(hand, 1)
    top = card_name(hand.top_discard)
    hand.apply("take")
    hand.apply(f"discard {top}")
    assert hand.rediscarded and not hand.over
    draw_and_discard(hand, 1)  # a turn between them resets it
    assert not hand.rediscarded
    top = card_name(hand.top_discard)
    hand.apply("take")
    hand.apply(f"discard {top}")
    hand.apply("take")
    hand.apply(f"discard {top}")
    assert hand.over and hand.result is not None and hand.result.void
    same = make_hand(EAAI_REDISCARD, {0: JUNK}, dealer=1)
    skip_offer(same)
    draw_and_discard(same, 1)
    for _ in range(2):
        top = card_name(same.top_discard)
        same.apply("take")
        same.apply(f"discard {top}")
    assert not same.over


def test_R4_9_a_knock_is_open_only_within_openspiels_estimate() -> None:
    eleven = "3s 4s 5s 6s 2c 3c 5c 4d 5d 6d 6h"
    assert openspiel_min_deadwood(mask(eleven)) == 12
    held = "3s 4s 5s 6s 2c 3c 5c 4d 5d 6d"
    for rules, knocks in ((OPENSPIEL, False), (EAAI_REDISCARD, True)):
        hand = make_hand(rules, {0: held}, upcard="6h", dealer=1)
        hand.apply("take")
        offered = [a for a in hand.legal_actions() if isinstance(a, Knock)]
        assert bool(offered) is knocks
    hand = make_hand(EAAI_REDISCARD, {0: held}, upcard="6h", dealer=1)
    hand.apply("take")
    knock = next(a for a in hand.legal_actions() if isinstance(a, Knock))
    strict = make_hand(OPENSPIEL, {0: held}, upcard="6h", dealer=1)
    strict.apply("take")
    assert_illegal(strict, knock, KnockLimitError, "OpenSpiel's estimate", "R4.9")


def test_R7_3_the_openspiel_options_change_no_preset() -> None:
    for name in PRESETS:
        rules = Ruleset.preset(name)
        assert not rules.melds_after_gin and not rules.openspiel_limits
        assert rules.stock_end.value != "wall" and rules.layoff_chain.value != "two"
    assert OPENSPIEL.to_dict() == Ruleset.preset("eaai").to_dict() | {
        "no_rediscard_of_taken_card": False, "undercut_ties": "strict", "stock_end": "wall",
        "layoff_chain": "two", "melds_after_gin": True, "openspiel_limits": True}
