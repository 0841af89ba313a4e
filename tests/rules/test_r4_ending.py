"""R4. Ending a hand: knock, gin, big gin, layoffs, stock exhaustion, what is shown."""

from __future__ import annotations

import random

import pytest

from ginrummy.actions import Discard, Knock, LayOff, Reshuffle, parse_action
from ginrummy.engine import CHANCE, NOBODY, Hand, Phase
from ginrummy.errors import (
    CardNotHeldError,
    HandOverError,
    IllegalActionError,
    InvalidArrangementError,
    InvalidChanceError,
    InvalidLayoffError,
    KnockLimitError,
    NotYourTurnError,
    WrongPhaseError,
)
from ginrummy.rules import Ruleset
from ginrummy.scoring import Outcome
from ginrummy.views import view
from helpers import (
    assert_cards_conserved,
    assert_illegal,
    card,
    cards,
    draw_and_discard,
    make_hand,
    play,
    play_reshuffle,
)

CLASSIC = Ruleset.preset("classic")
ARENA = Ruleset.preset("arena")
SITE_003 = Ruleset.preset("arena", undercut_ties="defender", payout_threshold=50)


def meld_no(hand: Hand, text: str) -> int:
    """1-based number of the knocker's meld holding ``text`` (for layoff notation)."""
    c = card(text)
    assert hand.knock is not None
    return next(i for i, m in enumerate(hand.knock.melds) if c in m) + 1


# --------------------------------------------------------------------------- R4.1


def test_R4_1_knock_with_deadwood_up_to_the_limit():
    hand = make_hand(CLASSIC, {0: "As 2s 3s 4h 4d 4c 7c 8c 9c Kd"}, stock="Ah")
    play(hand, "stock", "knock Ah [As 2s 3s] [4h 4d 4c] [7c 8c 9c]")
    assert hand.knock.deadwood == 10 and not hand.knock.gin
    assert hand.phase is Phase.LAYOFF and hand.to_move == 1


def test_R4_1_knock_above_the_limit_is_refused():
    # after drawing Kh the least deadwood is 11 (a king and the Ah)
    hand = make_hand(CLASSIC, {0: "As 2s 3s 4s 7c 8c 9c Tc Kd Ah"}, stock="Kh")
    play(hand, "stock")
    assert not any(isinstance(a, Knock) for a in hand.legal_actions())
    assert_illegal(hand, "knock Kh [As 2s 3s 4s] [7c 8c 9c Tc]", KnockLimitError,
                   "deadwood 11", "knock limit 10")


@pytest.mark.parametrize("limit", [0, 4, 5, 6, 10])
def test_R4_1_knock_limit_option(limit):
    rules = CLASSIC.replace(knock_limit=limit)
    # after drawing 5s: melds [As 2s 3s] [4h 4d 4c] [7c 8c 9c]; 5s and 6d loose
    hand = make_hand(rules, {0: "As 2s 3s 4h 4d 4c 7c 8c 9c 6d"}, stock="5s")
    play(hand, "stock")
    for discard, deadwood in (("6d", 5), ("5s", 6)):
        text = f"knock {discard} [As 2s 3s] [4h 4d 4c] [7c 8c 9c]"
        if deadwood <= limit:
            assert hand.is_legal(parse_action(text))
        else:
            assert_illegal(hand, text, KnockLimitError, f"deadwood {deadwood}",
                           f"knock limit {limit}")
    assert any(isinstance(a, Knock) for a in hand.legal_actions()) == (limit >= 5)


def test_R4_1_knock_limit_zero_allows_gin_only():
    rules = CLASSIC.replace(knock_limit=0)
    hand = make_hand(rules, {0: "As 2s 3s 4h 4d 4c 7c 8c 9c Tc"}, stock="Kd")
    play(hand, "stock", "gin Kd [As 2s 3s] [4h 4d 4c] [7c 8c 9c Tc]")
    assert hand.knock.gin and hand.result.outcome is Outcome.GIN


def test_R4_1_knocking_is_never_forced():
    hand = make_hand(CLASSIC, {0: "As 2s 3s 4h 4d 4c 7c 8c 9c Kd"}, stock="Ah")
    play(hand, "stock")
    legal = hand.legal_actions()
    assert any(isinstance(a, Knock) for a in legal) and Discard(card("Kd")) in legal
    play(hand, "discard Kd")
    assert hand.phase is Phase.DRAW and hand.to_move == 1 and hand.knock is None


def test_R4_1_the_knock_discard_goes_face_up_on_the_pile():
    hand = make_hand(CLASSIC, {0: "As 2s 3s 4h 4d 4c 7c 8c 9c Kd"}, upcard="Qc", stock="Ah")
    play(hand, "stock", "knock Kd [As 2s 3s] [4h 4d 4c] [7c 8c 9c]")
    assert hand.discards == [card("Qc"), card("Kd")]
    assert hand.top_discard == card("Kd") and hand.knock.discard == card("Kd")
    assert len(hand.hand_of(0)) == 10
    assert view(hand, 1).top_discard == card("Kd")
    assert_cards_conserved(hand)


# --------------------------------------------------------------------------- R4.2

GIN_KNOCKER = "As 2s 3s 4s 5h 5d 5c 9h 9d 9c"
# the defender holds 5s and 6s (they would extend As-4s) and 9s (the fourth nine)
GIN_DEFENDER = "5s 6s 9s Kh Kc Qd Qc Jh 8d 2c"


def test_R4_2_gin_nobody_may_lay_off():
    hand = make_hand(CLASSIC, {0: GIN_KNOCKER, 1: GIN_DEFENDER}, stock="Kd")
    play(hand, "stock", "gin Kd [As 2s 3s 4s] [5h 5d 5c] [9h 9d 9c]")
    assert hand.knock.gin and hand.phase is Phase.OVER and hand.to_move == NOBODY
    defence = hand.defences[0]
    assert defence.seat == 1 and defence.layoffs == ()
    assert hand.result.deadwood == (0, 5 + 6 + 9 + 10 * 5 + 8 + 2)
    assert hand.laid_off == [[], [], []]
    assert_illegal(hand, "layoff 5s@1 6s@1 9s@3", HandOverError, "over")


def test_R4_2_gin_is_a_knock_leaving_no_deadwood():
    hand = make_hand(CLASSIC, {0: GIN_KNOCKER}, stock="Kd")
    play(hand, "stock")
    gins = [a for a in hand.legal_actions() if isinstance(a, Knock) and a.discard == card("Kd")]
    assert len(gins) == 1
    play(hand, gins[0])  # written as a plain knock: gin is read from the arrangement
    assert hand.knock.gin and hand.knock.deadwood == 0
    assert hand.result.outcome is Outcome.GIN
    assert hand.action_log_text()[-1].startswith("gin Kd ")


def test_R4_2_a_false_gin_is_refused():
    hand = make_hand(CLASSIC, {0: "As 2s 3s 4h 4d 4c 7c 8c 9c Kd"}, stock="Ah")
    play(hand, "stock")
    assert_illegal(hand, "gin Kd [As 2s 3s] [4h 4d 4c] [7c 8c 9c]", KnockLimitError,
                   "gin", "deadwood 1")
    play(hand, "knock Kd [As 2s 3s] [4h 4d 4c] [7c 8c 9c]")
    assert not hand.knock.gin


BIG_GIN = CLASSIC.replace(big_gin=True)
BIG_DEFENDER = "Kh Kc Qd Qc Jh Jd 8d 2c 6h 7s"  # no meld: 10 * 6 + 8 + 2 + 6 + 7 = 83


def test_R4_2_big_gin_all_cards_melded_no_discard():
    hand = make_hand(BIG_GIN, {0: GIN_KNOCKER, 1: BIG_DEFENDER}, upcard="Th", stock="9s")
    play(hand, "stock")
    legal = hand.legal_actions()
    big = [a for a in legal if isinstance(a, Knock) and a.discard is None]
    assert len(big) == 1 and legal.index(big[0]) == min(
        i for i, a in enumerate(legal) if isinstance(a, Knock))
    play(hand, "gin [As 2s 3s 4s] [5h 5d 5c] [9s 9h 9d 9c]")
    assert hand.knock.big_gin and hand.knock.gin and hand.knock.discard is None
    assert hand.discards == [card("Th")]  # nothing discarded
    assert len(hand.hand_of(0)) == 11
    result = hand.result
    assert result.outcome is Outcome.BIG_GIN and result.winner == 0
    assert result.points == (83 + 31, 0)
    assert hand.defences[0].layoffs == ()  # counts as gin: no layoffs
    assert_cards_conserved(hand)


def test_R4_2_declaring_big_gin_is_optional():
    hand = make_hand(BIG_GIN, {0: GIN_KNOCKER, 1: BIG_DEFENDER}, stock="9s")
    play(hand, "stock", "gin 9s [As 2s 3s 4s] [5h 5d 5c] [9h 9d 9c]")
    assert not hand.knock.big_gin and hand.knock.gin
    assert hand.result.outcome is Outcome.GIN
    assert hand.result.points == (83 + 20, 0)


def test_R4_2_big_gin_off_or_incomplete_is_refused():
    hand = make_hand(CLASSIC, {0: GIN_KNOCKER}, stock="9s")
    play(hand, "stock")
    assert not any(isinstance(a, Knock) and a.discard is None for a in hand.legal_actions())
    assert_illegal(hand, "gin [As 2s 3s 4s] [5h 5d 5c] [9s 9h 9d 9c]", IllegalActionError,
                   "big gin")
    hand = make_hand(BIG_GIN, {0: GIN_KNOCKER}, stock="Kd")
    play(hand, "stock")
    assert_illegal(hand, "gin [As 2s 3s 4s] [5h 5d 5c] [9h 9d 9c]", KnockLimitError,
                   "big gin", "every card")


def test_R4_2_big_gin_counts_as_gin_in_the_single_hand_game():
    rules = ARENA.replace(big_gin=True)
    hand = make_hand(rules, {0: GIN_KNOCKER, 1: BIG_DEFENDER}, stock="9s")
    play(hand, "stock", "gin [As 2s 3s 4s] [5h 5d 5c] [9s 9h 9d 9c]")
    assert hand.result.outcome is Outcome.BIG_GIN
    assert hand.result.penalties == (0, 83 + 31)


# --------------------------------------------------------------------------- R4.3


def test_R4_3_knocker_chooses_his_arrangement():
    # after Kd: best is [As 2s 3s] [4s 4h 4d] [9c Tc Jc] with 2d left (2); he lays down
    # [As 2s 3s 4s] [9c Tc Jc] instead, leaving 4h 4d 2d (10)
    hand = make_hand(CLASSIC, {0: "As 2s 3s 4s 4h 4d 9c Tc Jc 2d"}, stock="Kd")
    play(hand, "stock")
    proposed = [a for a in hand.legal_actions() if isinstance(a, Knock)]
    assert proposed[0].discard == card("Kd")
    assert sorted(len(m) for m in proposed[0].melds) == [3, 3, 3]  # the least deadwood
    play(hand, "knock Kd [As 2s 3s 4s] [9c Tc Jc]")
    assert hand.knock.deadwood == 10
    assert set(hand.knock.unmatched) == set(cards("4h 4d 2d"))


def test_R4_3_an_arrangement_above_the_limit_is_refused_even_if_a_better_one_exists():
    hand = make_hand(CLASSIC, {0: "As 2s 3s 4s 4h 4d 9c Tc Jc 2d"}, stock="Kd")
    play(hand, "stock")
    assert_illegal(hand, "knock Kd [As 2s 3s 4s]", KnockLimitError, "deadwood")


def test_R4_3_gin_is_read_from_the_arrangement_laid_down():
    # he could go gin ([As 2s 3s] [4s 4h 4d] [9c Tc Jc Qc]) but lays down 4h 4d as deadwood:
    # a knock for 8, on which the defender lays off the 5s and the Kc
    hand = make_hand(CLASSIC, {0: "As 2s 3s 4s 4h 4d 9c Tc Jc Qc",
                               1: "5s Kc 7h 7d 7c 2h 3h 8s Js Jd"}, stock="Kd")
    play(hand, "stock", "knock Kd [As 2s 3s 4s] [9c Tc Jc Qc]")
    assert not hand.knock.gin and hand.knock.deadwood == 8
    assert hand.phase is Phase.LAYOFF
    play(hand, f"layoff [7h 7d 7c] 5s@{meld_no(hand, 'As')} Kc@{meld_no(hand, '9c')}")
    assert hand.result.outcome is Outcome.KNOCK
    assert hand.result.deadwood == (8, 2 + 3 + 8 + 10 + 10)


# --------------------------------------------------------------------------- R4.4

# seat 0 knocks with Qs: [2c 3c 4c] [5h 6h 7h] [Ks Kh Kd], Ad loose (1)
LAY_KNOCKER = "5h 6h 7h Ks Kh Kd 2c 3c 4c Ad"
LAY_KNOCK = "knock Qs [2c 3c 4c] [5h 6h 7h] [Ks Kh Kd]"
# the defender: Kc (4th king), 4h 3h (below 5h), 8h 9h (above 7h), 5c (above 4c), Js Jd Jc
LAY_DEFENDER = "Kc 4h 3h 8h 9h 5c Js Jd Jc 6d"


def _lay_hand(rules: Ruleset = CLASSIC) -> Hand:
    hand = make_hand(rules, {0: LAY_KNOCKER, 1: LAY_DEFENDER}, stock="Qs")
    play(hand, "stock", LAY_KNOCK)
    assert hand.phase is Phase.LAYOFF and hand.to_move == 1
    return hand


def test_R4_4_layoff_the_fourth_card_of_a_set():
    hand = _lay_hand()
    play(hand, f"layoff [Js Jd Jc] Kc@{meld_no(hand, 'Ks')}")
    assert hand.laid_off[meld_no(hand, "Ks") - 1] == [card("Kc")]
    assert hand.defences[0].deadwood == 4 + 3 + 8 + 9 + 5 + 6


def test_R4_4_layoff_extends_a_run_at_either_end():
    hand = _lay_hand()
    h = meld_no(hand, "5h")
    c = meld_no(hand, "2c")
    play(hand, f"layoff [Js Jd Jc] 4h@{h} 8h@{h} 5c@{c}")
    assert sorted(hand.laid_off[h - 1]) == cards("4h 8h")
    assert hand.laid_off[c - 1] == [card("5c")]
    assert hand.defences[0].deadwood == 10 + 3 + 9 + 6


def test_R4_4_only_onto_the_knockers_melds():
    hand = _lay_hand()
    h = meld_no(hand, "5h")
    k = meld_no(hand, "Ks")
    assert_illegal(hand, f"layoff [Js Jd Jc] 6d@{h}", InvalidLayoffError, "6d", "suit")
    assert_illegal(hand, f"layoff [Js Jd Jc] 9h@{h}", InvalidLayoffError, "9h", "adjacent")
    assert_illegal(hand, f"layoff [Js Jd Jc] 4h@{k}", InvalidLayoffError, "4h", "rank")
    # there is no fourth knocker meld: not onto his deadwood, nor onto the defender's own melds
    assert_illegal(hand, "layoff [Js Jd Jc] 6d@4", InvalidLayoffError, "no knocker meld")
    assert_illegal(hand, "layoff [Js Jd Jc] Kc@9", InvalidLayoffError, "no knocker meld")


def test_R4_4_layoff_cards_must_be_the_defenders_own_and_laid_once():
    hand = _lay_hand()
    h = meld_no(hand, "5h")
    assert_illegal(hand, f"layoff [Js Jd Jc] 8d@{h}", CardNotHeldError, "8d")
    assert_illegal(hand, f"layoff [Js Jd Jc] 4h@{h} 4h@{h}", InvalidLayoffError, "twice")
    assert_illegal(hand, f"layoff [Js Jd Jc] Jc@{meld_no(hand, 'Ks')}", InvalidArrangementError,
                   "Jc")
    assert_illegal(hand, "layoff [Js Jd Kc]", InvalidArrangementError, "not a meld")
    assert_illegal(hand, "layoff [Js Jd Jc]", NotYourTurnError, "seat 0", seat=0)
    assert_illegal(hand, "stock", WrongPhaseError, "layoff phase")


def test_R4_4_layoffs_are_the_defenders_choice():
    hand = _lay_hand()
    best = hand.legal_actions()
    assert len(best) == 1 and isinstance(best[0], LayOff)
    laid = {c for c, _ in best[0].layoffs}
    assert laid == set(cards("Kc 4h 3h 8h 9h 5c"))  # the least deadwood: 6d alone
    copy = hand.copy()
    play(copy, best[0])
    assert copy.result.deadwood == (1, 6)
    play(hand, "layoff [Js Jd Jc]")  # he keeps everything: allowed
    assert hand.result.deadwood == (1, 10 + 4 + 3 + 8 + 9 + 5 + 6)


def test_R4_4_layoff_index_counts_the_knockers_melds_in_the_order_laid():
    # actions.py: "cards laid off onto the knocker's melds (1-based, in the order he laid them)"
    hand = make_hand(CLASSIC, {0: LAY_KNOCKER, 1: LAY_DEFENDER}, stock="Qs")
    play(hand, "stock", "knock Qs [Ks Kh Kd] [5h 6h 7h] [2c 3c 4c]")
    play(hand, "layoff [Js Jd Jc] Kc@1 8h@2 5c@3")
    assert hand.result.deadwood == (1, 4 + 3 + 9 + 6)


# 3 players, arena (7 cards): seat 0 knocks, seat 1 then seat 2 defend
THREE = ARENA.replace(players=3)
THREE_KNOCKER = "5h 6h 7h Ks Kh Kd 2c"  # draws Qs, knocks with 2c loose
THREE_D1 = "8h Ts Td Tc 3d 9d Ac"  # lays off 8h, melds the tens
THREE_D2 = "9h 4h Kc Js Jd Jc 2s"  # may not put 9h on the 8h; 4h and Kc are fine


def _three(rules: Ruleset = THREE) -> Hand:
    hand = make_hand(rules, {0: THREE_KNOCKER, 1: THREE_D1, 2: THREE_D2}, stock="Qs",
                     dealer=2)
    play(hand, "stock", "knock Qs [5h 6h 7h] [Ks Kh Kd]")
    return hand


@pytest.mark.parametrize("chain", ["none", "own"])
def test_R4_4_never_onto_cards_laid_off_by_an_earlier_defender(chain):
    hand = _three(THREE.replace(layoff_chain=chain))
    h = meld_no(hand, "5h")
    k = meld_no(hand, "Ks")
    assert hand.to_move == 1
    play(hand, f"layoff [Ts Td Tc] 8h@{h}")
    assert hand.to_move == 2
    assert_illegal(hand, f"layoff [Js Jd Jc] 9h@{h}", InvalidLayoffError, "9h", "earlier defender")
    proposal = hand.legal_actions()[0]
    assert card("9h") not in {c for c, _ in proposal.layoffs}
    play(hand, f"layoff [Js Jd Jc] 4h@{h} Kc@{k}")
    assert hand.phase is Phase.OVER
    assert hand.result.deadwood == (2, 3 + 9 + 1, 9 + 2)


def test_R4_4_four_players_both_ends_closed_by_earlier_defenders():
    rules = ARENA.replace(players=4, layoff_chain="own")
    hand = make_hand(rules, {0: THREE_KNOCKER, 1: THREE_D1, 2: "4h Js Jd Jc 2s 5c 6c",
                             3: "9h 3h Qs Qd Qc Ad 7d"}, stock="Qh",
                     dealer=3)
    play(hand, "stock", "knock Qh [5h 6h 7h] [Ks Kh Kd]")
    play(hand, "layoff [Ts Td Tc] 8h@1", "layoff [Js Jd Jc] 4h@1")
    assert hand.to_move == 3
    assert_illegal(hand, "layoff [Qs Qd Qc] 9h@1", InvalidLayoffError, "earlier defender")
    assert_illegal(hand, "layoff [Qs Qd Qc] 3h@1", InvalidLayoffError, "earlier defender")
    assert hand.legal_actions()[0].layoffs == ()
    play(hand, "layoff [Qs Qd Qc]")
    assert hand.laid_off == [[card("8h"), card("4h")], []]


def test_R4_4_never_onto_another_defenders_melds():
    hand = _three()
    play(hand, "layoff [Ts Td Tc]")
    # seat 2 cannot reach seat 1's tens (there is no third knocker meld)
    assert_illegal(hand, "layoff [Js Jd Jc] 9h@3", InvalidLayoffError, "no knocker meld")


@pytest.mark.parametrize(("players", "dealer", "knocker"), [(3, 0, 1), (4, 2, 3), (4, 0, 1)])
def test_R4_4_defenders_lay_off_in_turn_after_the_knocker(players, dealer, knocker):
    rules = ARENA.replace(players=players)
    hand = make_hand(rules, {knocker: "As 2s 3s 4h 4d 4c 5c"}, stock="Kd", dealer=dealer)
    assert hand.to_move == knocker
    play(hand, "stock", "knock Kd [As 2s 3s] [4h 4d 4c]")
    order = []
    while hand.phase is Phase.LAYOFF:
        order.append(hand.to_move)
        play(hand, hand.legal_actions()[0])
    assert order == [(knocker + i) % players for i in range(1, players)]
    assert [d.seat for d in hand.defences] == order


# --------------------------------------------------------------------------- R4.5


def test_R4_5_layoff_chain_own_several_cards_at_each_end():
    hand = _lay_hand(CLASSIC)
    h = meld_no(hand, "5h")
    play(hand, f"layoff [Js Jd Jc] 8h@{h} 9h@{h} 4h@{h} 3h@{h}")
    assert sorted(hand.laid_off[h - 1]) == cards("3h 4h 8h 9h")
    assert hand.defences[0].deadwood == 10 + 5 + 6


def test_R4_5_layoff_chain_none_only_cards_adjacent_to_the_knockers():
    rules = ARENA  # layoff_chain none (000/003)
    hand = _lay_hand(rules)
    h = meld_no(hand, "5h")
    assert_illegal(hand, f"layoff [Js Jd Jc] 8h@{h} 9h@{h}", InvalidLayoffError, "9h",
                   "adjacent")
    assert_illegal(hand, f"layoff [Js Jd Jc] 4h@{h} 3h@{h}", InvalidLayoffError, "3h")
    proposal = hand.legal_actions()[0]
    assert {c for c, _ in proposal.layoffs} == set(cards("Kc 4h 8h 5c"))
    play(hand, proposal)
    assert hand.result.deadwood == (1, 3 + 9 + 6)


@pytest.mark.parametrize(("chain", "ok"), [("own", True), ("none", False)])
def test_R4_5_layoff_chain_applies_at_every_table_size(chain, ok):
    # 3 players: the first defender holds 8h and 9h
    rules = THREE.replace(layoff_chain=chain)
    hand = make_hand(rules, {0: THREE_KNOCKER, 1: "8h 9h Ts Td Tc 3d Ac"}, stock="Qs",
                     dealer=2)
    play(hand, "stock", "knock Qs [5h 6h 7h] [Ks Kh Kd]")
    h = meld_no(hand, "5h")
    text = f"layoff [Ts Td Tc] 8h@{h} 9h@{h}"
    if ok:
        play(hand, text)
        assert hand.defences[0].deadwood == 3 + 1
    else:
        assert_illegal(hand, text, InvalidLayoffError, "9h")
        play(hand, f"layoff [Ts Td Tc] 8h@{h}")
        assert hand.defences[0].deadwood == 9 + 3 + 1


# --------------------------------------------------------------------------- R4.6

EXAMPLE_KNOCKER = "7h 8h 9h Th Qs Qd Qc As 2d 3c"  # draws Kc, shows 7h-Th and the queens
EXAMPLE_DEFENDER = "5c 6c 7c 9s 9d 9c Jh 6h 4s 4d"  # two melds; Jh 6h 4s 4d = 24


@pytest.mark.parametrize("rules", [ARENA, SITE_003, CLASSIC], ids=["arena", "003", "classic"])
def test_R4_6_worked_layoff_example(rules):
    hand = make_hand(rules, {0: EXAMPLE_KNOCKER, 1: EXAMPLE_DEFENDER}, stock="Kc")
    play(hand, "stock", "knock Kc [7h 8h 9h Th] [Qs Qd Qc]")
    assert hand.knock.deadwood == 6  # As 2d 3c
    run = meld_no(hand, "7h")
    best = hand.best_defence(1)
    assert best.deadwood == 8
    assert sorted(c for c, _ in best.layoffs) == sorted(cards("6h Jh"))
    play(hand, f"layoff [5c 6c 7c] [9s 9d 9c] 6h@{run} Jh@{run}")
    assert hand.laid_off[run - 1] == cards("6h Jh")
    defence = hand.defences[0]
    assert set(defence.unmatched) == set(cards("4s 4d")) and defence.deadwood == 8
    result = hand.result
    assert result.deadwood == (6, 8)
    assert result.winner == 0 and result.outcome is Outcome.KNOCK
    if rules.format == "match":
        assert result.points == (2, 0)
    else:
        assert result.penalties == (0, 2)


# --------------------------------------------------------------------------- R4.7

READY = "As 2s 3s 4h 4d 4c 7c 8c 9c 2d"  # knocks whatever it draws


def test_R4_7_void_at_two_the_player_leaving_two_may_knock():
    hand = make_hand(CLASSIC, {0: READY})
    draw_and_discard(hand, 28)
    assert len(hand.stock) == 3 and hand.to_move == 0 and not hand.over
    play(hand, "stock")
    assert len(hand.stock) == 2
    knock = min((a for a in hand.legal_actions() if isinstance(a, Knock)),
                key=lambda a: a.discard)
    play(hand, knock)
    assert hand.knock is not None and hand.phase is Phase.LAYOFF
    play(hand, hand.legal_actions()[0])
    assert not hand.result.void


def test_R4_7_void_at_two_a_discard_voids_the_hand_at_once():
    hand = make_hand(CLASSIC, {0: READY})
    draw_and_discard(hand, 28)
    drawn = hand.stock[-1]
    play(hand, "stock", Discard(drawn))
    assert hand.phase is Phase.OVER and hand.result.void
    assert hand.result.outcome is Outcome.VOID and hand.result.winner is None
    assert hand.result.points == (0, 0)
    assert hand.top_discard == drawn
    assert_illegal(hand, "take", HandOverError, "over")  # nobody may take that discard
    assert_illegal(hand, "stock", HandOverError, "over")
    assert len(hand.stock) == 2
    assert_cards_conserved(hand)


def test_R4_7_void_at_two_taking_the_discard_does_not_count():
    hand = make_hand(CLASSIC)
    draw_and_discard(hand, 28)  # 3 cards left; seat 0 takes the discard instead
    play(hand, "take")
    draw_after = max(c for c in hand.hand_of(0) if c != hand.taken)
    play(hand, Discard(draw_after))
    assert not hand.over and len(hand.stock) == 3
    draw_and_discard(hand)  # seat 1's draw leaves two: his discard ends the hand
    assert hand.result.void


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R4_7_reshuffle_when_the_stock_runs_out(players):
    rules = ARENA.replace(players=players)
    hand = make_hand(rules)
    size = len(hand.stock)
    draw_and_discard(hand, size)
    last = (rules.players - 1 + size) % players  # who drew the last card
    assert hand.stock == [] and hand.phase is Phase.RESHUFFLE and hand.to_move == CHANCE
    assert hand.legal_actions() == []
    top = hand.top_discard
    below = hand.discards[:-1]
    order = list(reversed(below))
    play_reshuffle(hand, order)
    assert hand.reshuffles == 1
    assert hand.discards == [top]  # his discard alone starts the new pile
    assert hand.stock == list(reversed(order)) and hand.stock[-1] == order[0]
    assert hand.phase is Phase.DRAW and hand.to_move == (last + 1) % players
    assert_cards_conserved(hand)
    # the next player may take that discard
    assert set(hand.legal_actions()) >= {parse_action("take"), parse_action("stock")}


def test_R4_7_reshuffle_is_a_chance_action_checked_like_any_other():
    hand = make_hand(ARENA)
    draw_and_discard(hand, 31)
    below = list(hand.discards[:-1])
    top = hand.top_discard
    assert_illegal(hand, Reshuffle(tuple(below[1:])), InvalidChanceError, "reshuffle")
    assert_illegal(hand, Reshuffle((*below[1:], top)), InvalidChanceError, "below the top")
    assert_illegal(hand, Reshuffle((*below, below[0])), InvalidChanceError, "reshuffle")
    assert_illegal(hand, "stock", WrongPhaseError, "reshuffle phase")
    assert_illegal(hand, "stock", NotYourTurnError, "chance", seat=0)
    chance = hand.reshuffle_order(random.Random(3))
    assert sorted(chance.order) == sorted(below)
    hand.apply(chance, CHANCE)
    assert hand.phase is Phase.DRAW and hand.stock == list(reversed(chance.order))


def test_R4_7_reshuffle_the_last_drawer_may_knock_instead():
    hand = make_hand(ARENA, {0: READY})  # seat 0 draws the 1st, 3rd, ... 31st card
    draw_and_discard(hand, 30)
    assert hand.to_move == 0 and len(hand.stock) == 1
    play(hand, "stock")
    knock = next(a for a in hand.legal_actions() if isinstance(a, Knock))
    play(hand, knock)
    assert hand.phase is Phase.LAYOFF and hand.reshuffles == 0


@pytest.mark.parametrize("limit", [0, 1, 2, 3])
def test_R4_7_max_reshuffles_then_void(limit):
    rules = ARENA.replace(max_reshuffles=limit)
    hand = make_hand(rules)
    turns = 0
    while not hand.over:
        draw_and_discard(hand)
        turns += 1
        assert_cards_conserved(hand)
    assert hand.result.void and hand.reshuffles == limit
    # 31 cards in the first stock, then 31 after each reshuffle (all discards but the top)
    assert turns == 31 * (limit + 1)
    assert_illegal(hand, "take", HandOverError, "over")


def test_R4_7_reshuffle_orders_are_hidden_from_every_view():
    hand = make_hand(ARENA)
    draw_and_discard(hand, 31)
    play_reshuffle(hand)
    for seat in (0, 1, None):
        v = view(hand, seat)
        event = v.log[-1]
        assert event.seat == CHANCE and event.text() == "reshuffle"
        assert v.to_dict()["log"][-1]["action"] == "reshuffle"
        assert v.stock_size == 31


# --------------------------------------------------------------------------- R4.8


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R4_8_after_a_knock_every_hand_is_shown(players):
    rules = ARENA.replace(players=players)
    two = players == 2
    hand = make_hand(rules, {0: "As 2s 3s 4h 4d 4c 5c" + (" 7c 8c 9c" if two else "")},
                     stock="Kd")
    play(hand, "stock")
    for seat in [*range(players), None]:
        v = view(hand, seat)
        for s in v.seats:
            assert (s.cards is not None) == (s.seat == seat)
    play(hand, "knock Kd [As 2s 3s] [4h 4d 4c]" + (" [7c 8c 9c]" if two else ""))
    while True:
        for seat in [*range(players), None]:
            v = view(hand, seat)
            for s in v.seats:
                assert s.cards == tuple(hand.hand_of(s.seat))
            assert v.to_dict()["seats"][1]["cards"] is not None
        if hand.over:
            break
        play(hand, hand.legal_actions()[0])


def test_R4_8_after_a_void_hand_no_hand_is_shown():
    hand = make_hand(CLASSIC)
    draw_and_discard(hand, 29)
    assert hand.result.void
    for seat in (0, 1, None):
        v = view(hand, seat)
        for s in v.seats:
            assert (s.cards is not None) == (s.seat == seat)
        assert v.knock is None and v.defences == ()
