"""R5. Scoring a 2-player match: gin, knock, undercut, Oklahoma, dealers, end bonuses."""

from __future__ import annotations

import pytest

from ginrummy.cards import card_value
from ginrummy.errors import HandOverError, KnockLimitError
from ginrummy.match import Match
from ginrummy.rules import Ruleset
from ginrummy.scoring import HandResult, Outcome
from ginrummy.solver import deadwood
from ginrummy.views import view
from helpers import (
    assert_illegal,
    card,
    draw_and_discard,
    make_hand,
    mask,
    play,
    skip_offer,
    start_deck,
)

CLASSIC = Ruleset.preset("classic")
PLAYOK = Ruleset.preset("playok")
EAAI = Ruleset.preset("eaai")

# Seat 0 (seat 1 deals) draws the Kd and knocks it: three melds and one loose card.
KNOCKER = "As 2s 3s 4h 4d 4c Jc Qc Kc"
KNOCK = "knock Kd [As 2s 3s] [4h 4d 4c] [Jc Qc Kc]"
# Seat 1: three melds and one loose card; nothing of his fits the knocker's melds.
DEFENDER = "5s 6s 7s 8h 8d 8c Jh Qh Kh"
DEFEND = "layoff [5s 6s 7s] [8h 8d 8c] [Jh Qh Kh]"
# Gin: all ten melded, any draw discarded.
GINNER = "As 2s 3s 4h 4d 4c Tc Jc Qc Kc"
GIN = "gin Kd [As 2s 3s] [4h 4d 4c] [Tc Jc Qc Kc]"
ALL_MELDED = "5s 6s 7s 8s 8h 8d 8c Jh Qh Kh"


def knock_result(rules: Ruleset, k_loose: str, d_loose: str, upcard: str = "Td") -> HandResult:
    hand = make_hand(rules, {0: f"{KNOCKER} {k_loose}", 1: f"{DEFENDER} {d_loose}"},
                     upcard=upcard, stock="Kd")
    skip_offer(hand)
    play(hand, "stock", KNOCK, DEFEND)
    assert hand.result.deadwood == (card_value(card(k_loose)), card_value(card(d_loose)))
    return hand.result


def gin_result(rules: Ruleset, defender: str, upcard: str = "Td") -> HandResult:
    hand = make_hand(rules, {0: GINNER, 1: defender}, upcard=upcard, stock="Kd")
    skip_offer(hand)
    play(hand, "stock", GIN)
    assert hand.result.deadwood == (0, deadwood(mask(defender)))
    return hand.result


# --------------------------------------------------------------------------- R5.1


@pytest.mark.parametrize(("rules", "bonus"), [(CLASSIC, 20), (PLAYOK, 25), (EAAI, 25)],
                         ids=["classic", "playok", "eaai"])
def test_R5_1_gin_scores_the_defenders_deadwood_plus_the_gin_bonus(rules, bonus):
    result = gin_result(rules, f"{DEFENDER} Qd")
    assert result.outcome is Outcome.GIN and result.winner == 0 and result.knocker == 0
    assert result.points == (10 + bonus, 0)
    assert f"gin bonus {bonus}" in result.notes


def test_R5_1_gin_always_wins_even_against_no_deadwood():
    result = gin_result(CLASSIC, ALL_MELDED)
    assert result.outcome is Outcome.GIN and result.winner == 0
    assert result.points == (20, 0) and result.undercutters == ()


# --------------------------------------------------------------------------- R5.2


@pytest.mark.parametrize(("k_loose", "d_loose", "points"),
                         [("Ah", "Qd", 9), ("3h", "9d", 6), ("9h", "Qd", 1), ("Ah", "2d", 1)])
@pytest.mark.parametrize("rules", [CLASSIC, PLAYOK, EAAI], ids=["classic", "playok", "eaai"])
def test_R5_2_knock_scores_the_difference(rules, k_loose, d_loose, points):
    result = knock_result(rules, k_loose, d_loose)
    assert result.outcome is Outcome.KNOCK and result.winner == 0
    assert result.points == (points, 0)


# --------------------------------------------------------------------------- R5.3


@pytest.mark.parametrize(("rules", "bonus"), [(CLASSIC, 10), (PLAYOK, 20), (EAAI, 25)],
                         ids=["classic", "playok", "eaai"])
def test_R5_3_undercut_defender_scores_difference_plus_bonus(rules, bonus):
    result = knock_result(rules, "7h", "2d")
    assert result.outcome is Outcome.UNDERCUT and result.winner == 1
    assert result.undercutters == (1,)
    assert result.points == (0, 7 - 2 + bonus)


@pytest.mark.parametrize(("rules", "bonus"), [(CLASSIC, 10), (PLAYOK, 20), (EAAI, 25)],
                         ids=["classic", "playok", "eaai"])
def test_R5_3_undercut_ties_defender_a_tie_is_an_undercut(rules, bonus):
    assert rules.undercut_ties == "defender"
    result = knock_result(rules, "5h", "5d")
    assert result.outcome is Outcome.UNDERCUT and result.winner == 1
    assert result.points == (0, bonus)


def test_R5_3_undercut_ties_strict_the_knocker_keeps_a_tie_for_zero():
    rules = CLASSIC.replace(undercut_ties="strict")
    result = knock_result(rules, "5h", "5d")
    assert result.outcome is Outcome.KNOCK and result.winner == 0
    assert result.points == (0, 0)
    # strictly less is still an undercut
    result = knock_result(rules, "7h", "2d")
    assert result.outcome is Outcome.UNDERCUT and result.points == (0, 5 + 10)


# --------------------------------------------------------------------------- R5.4

OKLAHOMA = PLAYOK.replace(oklahoma_spades_double=True)


@pytest.mark.parametrize(("upcard", "factor"), [("9s", 2), ("9h", 1), ("9d", 1), ("9c", 1)])
def test_R5_4_oklahoma_spade_upcard_doubles_the_hand_bonuses_included(upcard, factor):
    knock = knock_result(OKLAHOMA, "Ah", "Qd", upcard=upcard)
    assert knock.points == (9 * factor, 0) and knock.multiplier == factor
    gin = gin_result(OKLAHOMA, f"{DEFENDER} Qd", upcard=upcard)
    assert gin.points == ((10 + 25) * factor, 0)
    undercut = knock_result(OKLAHOMA, "7h", "2d", upcard=upcard)
    assert undercut.points == (0, (7 - 2 + 20) * factor)
    assert any("Oklahoma" in note for note in gin.notes) == (factor == 2)


def test_R5_4_oklahoma_off_a_spade_upcard_changes_nothing():
    assert knock_result(PLAYOK, "Ah", "Qd", upcard="9s").points == (9, 0)


def test_R5_4_oklahoma_end_of_match_bonuses_are_not_doubled():
    rules = CLASSIC.replace(oklahoma_spades_double=True)
    match = Match(rules, seed=1, first_dealer=1)
    start_deck(match, {0: GINNER, 1: "5s 6s 7s 8h 8d 8c Ks Qd Jh 9d"}, upcard="9s",
               stock="Kd")
    play(match, "stock", GIN)
    assert match.hand.result.points == ((39 + 20) * 2, 0)
    result = match.result
    assert result.bonuses[0] == {"game": 100, "line": 20, "shutout": 100}
    assert result.totals == (118 + 220, 0)


OK_LIMIT = PLAYOK.replace(oklahoma_knock_limit=True)


@pytest.mark.parametrize(("upcard", "limit"), [("5c", 5), ("9d", 9), ("Qs", 10), ("2h", 2)])
def test_R5_4_oklahoma_knock_limit_is_the_upcards_value(upcard, limit):
    hand = make_hand(OK_LIMIT, {0: f"{KNOCKER} 6h", 1: f"{DEFENDER} Qd"}, upcard=upcard,
                     stock="Kd")
    assert hand.knock_limit == limit
    assert view(hand, 0).knock_limit == limit and view(hand, None).to_dict()["knock_limit"] == limit
    skip_offer(hand)
    play(hand, "stock")
    if limit < 6:
        assert_illegal(hand, KNOCK, KnockLimitError, "deadwood 6", f"knock limit {limit}")
    else:
        play(hand, KNOCK)
        assert hand.knock.deadwood == 6


def test_R5_4_oklahoma_ace_upcard_means_gin_only():
    hand = make_hand(OK_LIMIT, {0: f"{KNOCKER} Ah"}, upcard="Ac", stock="Kd")
    assert hand.knock_limit == 0
    skip_offer(hand)
    play(hand, "stock")
    assert_illegal(hand, KNOCK, KnockLimitError, "deadwood 1", "knock limit 0")
    gin = make_hand(OK_LIMIT, {0: GINNER}, upcard="Ac", stock="Kd")
    skip_offer(gin)
    play(gin, "stock", GIN)
    assert gin.result.outcome is Outcome.GIN


def test_R5_4_oklahoma_knock_limit_stays_after_the_upcard_is_taken():
    hand = make_hand(OK_LIMIT, {1: "As 2s 3s 4h 4d 4c 7c 8c 9c 6d"}, upcard="5c")
    play(hand, "take")  # the dealer (seat 1) takes the 5c: 5c and 6d loose
    assert hand.knock_limit == 5 and view(hand, 0).knock_limit == 5
    play(hand, "knock 6d [As 2s 3s] [4h 4d 4c] [7c 8c 9c]")
    assert hand.knock.deadwood == 5


def test_R5_4_oklahoma_knock_limit_never_above_the_knock_limit_option():
    # both options: the knock limit in force is the lower of the two (the engine's reading)
    hand = make_hand(OK_LIMIT.replace(knock_limit=7), upcard="Kc")
    assert hand.knock_limit == 7
    hand = make_hand(OK_LIMIT.replace(knock_limit=7), upcard="4c")
    assert hand.knock_limit == 4


# --------------------------------------------------------------------------- R5.5 - R5.7
# Quick hands inside a match: a gin for ``winner`` against ``loser_cards``.

JUNK = "9h"  # drawn and discarded by the first player when he is not the winner


def gin_hand(match: Match, winner: int, loser_cards: str, upcard: str = "Td") -> HandResult:
    first = (match.dealer + 1) % 2
    stock = "Kd" if first == winner else f"{JUNK} Kd"
    hand = start_deck(match, {winner: GINNER, 1 - winner: loser_cards}, upcard=upcard,
                      stock=stock)
    skip_offer(match)
    if first != winner:
        play(match, "stock", f"discard {JUNK}")
    play(match, "stock", GIN)
    assert hand.result is not None
    return hand.result


def void_hand(match: Match) -> HandResult:
    hand = start_deck(match)
    skip_offer(match)
    draw_and_discard(match, 29)
    assert hand.result.void
    return hand.result


D10 = f"{DEFENDER} Ks"  # deadwood 10: a gin scores 30 in classic
D39 = "5s 6s 7s 8h 8d 8c Ks Qd Jh 9d"
D93 = "Ks Kh Qd Qs Jh Jd 9s 9d 8h 7c"


def test_R5_5_the_hand_winner_is_the_player_who_scores():
    match = Match(CLASSIC, seed=1, first_dealer=1)
    result = gin_hand(match, 1, D10)
    assert result.winner == 1 and result.points == (0, 30)
    assert match.scores == [0, 30] and match.hands_won == [0, 1]
    # an undercut is won by the defender
    hand = start_deck(match, {1: f"{KNOCKER} 7h", 0: f"{DEFENDER} 2d"}, stock="Kd")
    assert hand.to_move == 1
    play(match, "stock", KNOCK, DEFEND)
    assert hand.result.winner == 0 and hand.result.points == (15, 0)
    assert match.scores == [15, 30] and match.hands_won == [1, 1]


def test_R5_5_a_void_hand_has_no_winner_and_changes_nothing():
    match = Match(CLASSIC, seed=1, first_dealer=0)
    gin_hand(match, 0, D10)
    before = (list(match.scores), list(match.hands_won), match.dealer)
    result = void_hand(match)
    assert result.winner is None and result.points == (0, 0) and result.outcome is Outcome.VOID
    assert (match.scores, match.hands_won, match.dealer) == before
    assert not match.over and match.needs_deal
    assert [r.void for _, r in match.score_sheet()] == [False, True]


@pytest.mark.parametrize("target", [100, 200, 500])
def test_R5_5_the_match_ends_when_a_total_reaches_the_target(target):
    match = Match(PLAYOK.replace(target=target), seed=1, first_dealer=0)
    hands = 0
    while not match.over:
        gin_hand(match, 0, D93)  # 93 + 25 = 118 a hand
        hands += 1
    assert hands == -(-target // 118)
    assert match.scores[0] == 118 * hands >= target > 118 * (hands - 1)
    assert match.result.winner == 0
    with pytest.raises(HandOverError):
        match.start_hand()


def test_R5_5_reaching_the_target_exactly_ends_the_match():
    rules = CLASSIC.replace(target=30)
    match = Match(rules, seed=1, first_dealer=0)
    gin_hand(match, 1, D10)  # 10 + 20 = 30
    assert match.over and match.result.winner == 1


@pytest.mark.parametrize(
    ("rule", "first_dealer", "winner", "next_dealer"),
    [("alternate", 0, 0, 1), ("alternate", 0, 1, 1), ("alternate", 1, 0, 0),
     ("winner", 0, 0, 0), ("winner", 0, 1, 1), ("winner", 1, 0, 0),
     ("loser", 0, 0, 1), ("loser", 0, 1, 0), ("loser", 1, 1, 0)],
)
def test_R5_6_next_dealer(rule, first_dealer, winner, next_dealer):
    match = Match(CLASSIC.replace(next_dealer=rule), seed=1, first_dealer=first_dealer)
    gin_hand(match, winner, D10)
    assert match.dealer == next_dealer
    void_hand(match)  # a void hand keeps the dealer (R2.2)
    assert match.dealer == next_dealer
    assert match.hands[-1].dealer == next_dealer
    gin_hand(match, 1 - winner, D10)
    expected = {"alternate": 1 - next_dealer, "winner": 1 - winner, "loser": winner}[rule]
    assert match.dealer == expected


def test_R5_7_end_of_match_bonuses_with_a_shutout():
    match = Match(CLASSIC, seed=1, first_dealer=1)
    gin_hand(match, 0, D93)
    result = match.result
    assert result.winner == 0 and result.hand_points == (113, 0)
    assert result.bonuses[0] == {"game": 100, "line": 20, "shutout": 100}
    assert sum(result.bonuses[1].values()) == 0
    assert result.totals == (333, 0) and result.margin == 333


def test_R5_7_end_of_match_bonuses_without_a_shutout():
    match = Match(CLASSIC, seed=1, first_dealer=1)
    gin_hand(match, 1, D10)   # seat 1: 30
    void_hand(match)          # no line bonus for a void hand
    gin_hand(match, 1, D10)   # seat 1: 60
    gin_hand(match, 0, D93)   # seat 0: 113, the match
    result = match.result
    assert result.winner == 0 and result.hand_points == (113, 60)
    assert result.bonuses[0] == {"game": 100, "line": 20}
    assert result.bonuses[1] == {"line": 40}
    assert result.totals == (233, 100)
    assert result.margin == 133


@pytest.mark.parametrize("rules", [PLAYOK, EAAI], ids=["playok", "eaai"])
def test_R5_7_presets_without_end_bonuses(rules):
    match = Match(rules, seed=1, first_dealer=1)
    gin_hand(match, 1, D10)
    gin_hand(match, 0, D93)
    result = match.result
    assert result.totals == result.hand_points == (118, 35)
    assert all(sum(b.values()) == 0 for b in result.bonuses)
    assert result.margin == 83
