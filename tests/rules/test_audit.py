"""Audit: adversarial cases the clause-by-clause tests do not cover (docs/rules.md R2-R6)."""

from __future__ import annotations

import re

import pytest

from ginrummy.actions import parse_action
from ginrummy.cards import card_name
from ginrummy.engine import Hand, Phase
from ginrummy.errors import IllegalActionError, RediscardError
from ginrummy.match import Match
from ginrummy.rules import Ruleset
from ginrummy.scoring import Outcome, split_pool
from ginrummy.views import view
from helpers import card, draw_and_discard, make_hand, play, start_deck

CLASSIC = Ruleset.preset("classic")
ARENA = Ruleset.preset("arena")
SITE_003 = Ruleset.preset("arena", undercut_ties="defender", payout_threshold=50)

# 2 players: the knocker (seat 0, plays first) holds three melds and 5d; he draws Kd and
# knocks it with deadwood 5. The defender holds three melds and 3c (deadwood 3), nothing of
# which fits the knocker's melds.
KNOCKER_2P = "As 2s 3s 7h 7d 7c Jc Qc Kc 5d"
KNOCK_2P = "knock Kd [As 2s 3s] [7h 7d 7c] [Jc Qc Kc]"
DEFENDER_2P = "4h 5h 6h 9s 9d 9c Td Jd Qd 3c"
DEFENCE_2P = "layoff [4h 5h 6h] [9s 9d 9c] [Td Jd Qd]"
# the same knocker one card short of big gin: he draws 5s and melds all eleven cards
BIG_GINNER_2P = "As 2s 3s 4s 7h 7d 7c Jc Qc Kc"
BIG_GIN_2P = "gin [As 2s 3s 4s 5s] [7h 7d 7c] [Jc Qc Kc]"


def _match(rules: Ruleset, first_dealer: int = 1) -> Match:
    return Match(rules, seed=0, first_dealer=first_dealer)


def _undercut_hand(match: Match, upcard: str = "8h") -> None:
    """Seat 0 (first to play) knocks with 5, seat 1 holds 3."""
    start_deck(match, {0: KNOCKER_2P, 1: DEFENDER_2P}, upcard=upcard, stock="Kd")
    play(match, "stock", KNOCK_2P, DEFENCE_2P)


# ---------------------------------------------------------------------------- R5.3 / R5.4


@pytest.mark.parametrize("ties", ["defender", "strict"])
@pytest.mark.parametrize(("upcard", "points"), [("8s", 24), ("8h", 12)])
def test_audit_R5_4_oklahoma_doubles_the_undercut_bonus(ties, upcard, points):
    rules = CLASSIC.replace(oklahoma_spades_double=True, undercut_ties=ties)
    match = _match(rules)
    _undercut_hand(match, upcard)
    result = match.hand.result
    assert result.outcome is Outcome.UNDERCUT
    assert result.winner == 1
    # (K - D + undercut bonus) * 2 = (5 - 3 + 10) * 2 with a spade upcard
    assert result.points == (0, points)
    assert match.scores == [0, points]


def test_audit_R5_5_oklahoma_doubled_undercut_reaching_the_target_exactly_ends_the_match():
    rules = CLASSIC.replace(oklahoma_spades_double=True, target=24)
    match = _match(rules)
    _undercut_hand(match, "8s")
    assert match.over
    assert match.result.winner == 1
    # end-of-match bonuses are not doubled: 24 + game 100 + line 20 + shutout 100
    assert match.result.totals == (0, 244)
    assert match.result.margin == 244


@pytest.mark.parametrize(("upcard", "points"), [("8s", 68), ("8h", 34)])
def test_audit_R5_4_oklahoma_doubles_big_gin(upcard, points):
    rules = CLASSIC.replace(oklahoma_spades_double=True, big_gin=True)
    match = _match(rules)
    start_deck(match, {0: BIG_GINNER_2P, 1: DEFENDER_2P}, upcard=upcard, stock="5s")
    play(match, "stock", BIG_GIN_2P)
    result = match.hand.result
    assert result.outcome is Outcome.BIG_GIN
    assert result.winner == 0
    # (D + big gin bonus 31, not the gin bonus 20), doubled on a spade upcard
    assert result.points == (points, 0)


def test_audit_R4_2_R5_1_plain_gin_with_big_gin_on_scores_the_gin_bonus():
    rules = CLASSIC.replace(big_gin=True)
    match = _match(rules)
    start_deck(match, {0: BIG_GINNER_2P, 1: DEFENDER_2P}, upcard="8h", stock="5s")
    # declaring big gin is optional: discarding As leaves a 10-card gin
    play(match, "stock", "gin As [2s 3s 4s 5s] [7h 7d 7c] [Jc Qc Kc]")
    result = match.hand.result
    assert result.outcome is Outcome.GIN
    assert result.points == (3 + 20, 0)


# ---------------------------------------------------------------------------- R6.3 / R6.4

# 3-4 players, 7 cards: the knocker holds As-6s and one loose card, draws Kd and knocks it.
SPADES = "As 2s 3s 4s 5s 6s"
KNOCK_7 = "knock Kd [As 2s 3s 4s 5s 6s]"
SETS = {
    1: ("8h 8d 8c Jh Jd Jc", "layoff [8h 8d 8c] [Jh Jd Jc]"),
    2: ("9h 9d 9c Qh Qd Qc", "layoff [9h 9d 9c] [Qh Qd Qc]"),
    3: ("Th Td Tc Kh Ks Kc", "layoff [Th Td Tc] [Kh Ks Kc]"),
}


def _single(rules: Ruleset, knocker_loose: str, loose: dict[int, str],
            pool: int | None = 10_000, upcard: str = "8s") -> Match:
    """Seat 0 knocks at once with ``knocker_loose`` as his deadwood; each defender holds two
    sets and his ``loose`` card. Returns the finished single-hand game."""
    n = rules.players
    match = Match(rules, seed=0, first_dealer=n - 1, pool_cents=pool)
    hands = {0: f"{SPADES} {knocker_loose}"}
    for seat in range(1, n):
        hands[seat] = f"{SETS[seat][0]} {loose[seat]}"
    start_deck(match, hands, upcard=upcard, stock="Kd")
    play(match, "stock", KNOCK_7)
    for seat in range(1, n):
        play(match, SETS[seat][1])
    assert match.over
    return match


def test_audit_R6_2_defender_ties_two_defenders_tie_the_knocker_nearest_wins():
    rules = SITE_003.replace(players=4)
    match = _single(rules, "5c", {1: "5h", 2: "5d", 3: "7h"})
    result = match.hands[-1].result
    assert result.outcome is Outcome.UNDERCUT
    assert result.winner == 1
    assert result.undercutters == (1, 2)
    # knocker: 5 - 5 + 10; seat 2 ties the winner; seat 3: 7 - 5
    assert result.penalties == (10, 0, 0, 2)


def test_audit_R6_2_strict_two_defenders_tie_the_knocker_who_keeps_it():
    rules = ARENA.replace(players=4)
    match = _single(rules, "5c", {1: "5h", 2: "5d", 3: "7h"})
    result = match.hands[-1].result
    assert result.outcome is Outcome.KNOCK
    assert result.winner == 0
    assert result.undercutters == ()
    assert result.penalties == (0, 0, 0, 2)


def test_audit_R6_2_strict_tie_and_a_lower_defender_the_lower_one_wins():
    rules = ARENA.replace(players=4)
    match = _single(rules, "5c", {1: "5h", 2: "3d", 3: "7h"})
    result = match.hands[-1].result
    assert result.outcome is Outcome.UNDERCUT
    assert result.winner == 2
    assert result.undercutters == (2,)
    # knocker 5 - 3 + 10; seat 1 5 - 3; seat 3 7 - 3
    assert result.penalties == (12, 2, 0, 4)


@pytest.mark.parametrize(("upcard", "factor"), [("8s", 2), ("4d", 1)])
def test_audit_R6_3_oklahoma_doubles_the_knockers_undercut_penalty(upcard, factor):
    rules = ARENA.replace(players=3, oklahoma_spades_double=True)
    match = _single(rules, "5c", {1: "6h", 2: "2d"}, upcard=upcard)
    result = match.hands[-1].result
    assert result.winner == 2
    assert result.penalties == ((5 - 2 + 10) * factor, (6 - 2) * factor, 0)


def _big_gin_3p(rules: Ruleset, upcard: str = "8h", pool: int | None = 10_000) -> Match:
    match = Match(rules, seed=0, first_dealer=2, pool_cents=pool)
    start_deck(match, {0: "As 2s 3s 4s 7h 7d 7c", 1: "9s 9d 9c Td Jd Qd 3c",
                       2: "4h 5h 6h Kh Ks Kc 2d"}, upcard=upcard, stock="5s")
    play(match, "stock", "gin [As 2s 3s 4s 5s] [7h 7d 7c]")
    assert match.over
    return match


@pytest.mark.parametrize(("upcard", "factor"), [("8h", 1), ("8s", 2)])
def test_audit_R6_3_big_gin_penalties_use_the_big_gin_bonus(upcard, factor):
    rules = ARENA.replace(players=3, big_gin=True, oklahoma_spades_double=True)
    result = _big_gin_3p(rules, upcard).hands[-1].result
    assert result.outcome is Outcome.BIG_GIN
    assert result.winner == 0
    assert result.penalties == (0, (3 + 31) * factor, (2 + 31) * factor)


def test_audit_R6_4_big_gin_pool_000_nobody_else_paid_003_both_paid():
    rules_000 = ARENA.replace(players=3, big_gin=True)
    assert _big_gin_3p(rules_000).result.payouts == (10_000, 0, 0)
    rules_003 = SITE_003.replace(players=3, big_gin=True)
    # floor(10000 * 25% / 2 * (50 - 34) / 50) = 400 and (50 - 33) / 50 -> 425
    assert _big_gin_3p(rules_003).result.payouts == (9_175, 400, 425)


def test_audit_R6_4_pool_four_players_at_and_just_below_the_threshold():
    rules = ARENA.replace(players=4)
    match = Match(rules, seed=0, first_dealer=3, pool_cents=10_000)
    start_deck(match, {
        0: f"{SPADES} Ac",
        1: "8h 8d 8c Kh Qc 4c 2h",   # deadwood 26: penalty 25, at the threshold
        2: "9h 9d 9c Jh Qd 3c 2d",   # deadwood 25: penalty 24, just below
        3: "Th Td Tc Ah Ad 3h 3d",   # deadwood 8: penalty 7
    }, upcard="8s", stock="Kd")
    play(match, "stock", KNOCK_7, "layoff [8h 8d 8c]", "layoff [9h 9d 9c]",
         "layoff [Th Td Tc]")
    result = match.result
    assert result.winner == 0
    assert result.penalties == (0, 25, 24, 7)
    # 10000 * 25% / 3 = 833.33 per share: x 1/25 -> 33, x 18/25 -> 600
    assert result.payouts == (9_367, 0, 33, 600)
    assert sum(result.payouts) == 10_000


@pytest.mark.parametrize(("pool", "penalties", "shares"), [
    (10_000, (0, 25, 24, 0), (9_134, 0, 33, 833)),
    (1, (0, 0, 0, 0), (1, 0, 0, 0)),
    (30_001, (0, 1, 2, 3), (23_101, 2_400, 2_300, 2_200)),
    (100, (0, 0, 0), (76, 12, 12)),
])
def test_audit_R6_4_pool_rounding_always_floors_and_adds_up(pool, penalties, shares):
    winner = penalties.index(0)
    got = split_pool(pool, penalties, winner, 25)
    assert got == shares
    assert sum(got) == pool


# ---------------------------------------------------------------------------- R2.2 / R5.6


def _void(match: Match) -> None:
    match.start_hand()
    hand = match.hand
    while not hand.over:
        draw_and_discard(match)
    assert hand.result.void


@pytest.mark.parametrize(("rule", "after_first"), [("winner", 1), ("loser", 0),
                                                   ("alternate", 0)])
def test_audit_R2_2_R5_6_void_hands_keep_the_dealer_under_every_rule(rule, after_first):
    rules = CLASSIC.replace(next_dealer=rule, target=500)
    match = _match(rules, first_dealer=1)
    _void(match)
    assert match.dealer == 1
    _undercut_hand(match)               # seat 1 undercuts: the winner
    assert match.hand.result.winner == 1
    assert match.dealer == after_first
    _void(match)
    _void(match)
    assert match.dealer == after_first
    assert match.hands_won == [0, 1]


# ---------------------------------------------------------------------------- R5.7


def test_audit_R5_7_shutout_when_the_loser_won_only_void_hands():
    rules = CLASSIC.replace(target=10)
    match = _match(rules)
    _void(match)
    _void(match)
    _undercut_hand(match)
    assert match.over
    result = match.result
    assert result.winner == 1
    assert result.hand_points == (0, 12)
    assert result.bonuses[1] == {"line": 20, "game": 100, "shutout": 100}
    assert result.bonuses[0] == {"line": 0}
    assert result.totals == (0, 232)


def test_audit_R5_7_a_strict_tie_won_by_the_loser_prevents_the_shutout():
    rules = CLASSIC.replace(target=5, undercut_ties="strict")
    match = _match(rules)
    # seat 0 knocks with 5 (5d) and seat 1 holds 5 (5c): strict, the knocker wins for 0
    start_deck(match, {0: KNOCKER_2P, 1: DEFENDER_2P.replace("3c", "5c")}, upcard="8h",
               stock="Kd")
    play(match, "stock", KNOCK_2P, DEFENCE_2P)
    first = match.hand.result
    assert first.winner == 0 and first.points == (0, 0)
    assert match.hands_won == [1, 0]
    assert match.dealer == 0 and not match.over
    # seat 1 now plays first: he knocks with 5 against seat 0's 10 (Kh)
    start_deck(match, {1: KNOCKER_2P, 0: DEFENDER_2P.replace("3c", "Kh")}, upcard="8h",
               stock="Kd")
    play(match, "stock", KNOCK_2P, DEFENCE_2P)
    assert match.over
    result = match.result
    assert result.winner == 1
    assert result.hand_points == (0, 5)
    assert result.bonuses[1] == {"line": 20, "game": 100}
    assert result.bonuses[0] == {"line": 20}
    assert result.totals == (20, 125)
    assert result.margin == 105


# ---------------------------------------------------------------------------- R4.4 / R4.5

# the knocker lays 5h 6h 7h and two sets; the defender holds cards at both ends of the run
RUN_KNOCKER = "5h 6h 7h Js Jd Jc Qs Qd Qc 2c"
RUN_KNOCK = "knock Kd [5h 6h 7h] [Js Jd Jc] [Qs Qd Qc]"


def _run_hand(rules: Ruleset, defender: str) -> Hand:
    hand = make_hand(rules, {0: RUN_KNOCKER, 1: defender}, upcard="Ah", stock="Kd")
    play(hand, "stock", RUN_KNOCK)
    assert hand.phase is Phase.LAYOFF and hand.to_move == 1
    return hand


DEFENDER_ENDS = "3h 4h 8h 9h 2s 3s 4s 9d 9c 9s"


def test_audit_R4_5_chain_own_both_ends_two_deep():
    hand = _run_hand(CLASSIC, DEFENDER_ENDS)
    assert hand.best_defence(1).deadwood == 0
    play(hand, "layoff [2s 3s 4s] [9d 9c 9s] 4h@1 3h@1 8h@1 9h@1")
    assert hand.result.deadwood[1] == 0
    assert hand.result.outcome is Outcome.UNDERCUT


def test_audit_R4_5_chain_none_one_card_at_each_end():
    rules = CLASSIC.replace(layoff_chain="none")
    hand = _run_hand(rules, DEFENDER_ENDS)
    for bad in ("layoff [2s 3s 4s] [9d 9c 9s] 4h@1 3h@1 8h@1 9h@1",
                "layoff [2s 3s 4s] [9d 9c 9s] 8h@1 9h@1",
                "layoff [2s 3s 4s] [9d 9c 9s] 4h@1 3h@1"):
        assert not hand.is_legal(parse_action(bad))
    # 3h stays loose, 9h joins his nines
    assert hand.best_defence(1).deadwood == 3
    play(hand, "layoff [2s 3s 4s] [9h 9d 9c 9s] 4h@1 8h@1")
    assert hand.result.deadwood[1] == 3
    assert hand.result.outcome is Outcome.KNOCK


def test_audit_R4_4_a_layoff_card_cannot_also_stay_in_the_defenders_meld():
    # 8h fits the knocker's run and the defender's own set of eights: one or the other
    hand = _run_hand(CLASSIC, "8h 8d 8c 2s 3s 4s 9d 9c 9s Ks")
    before = hand.snapshot()
    with pytest.raises(IllegalActionError):
        hand.apply("layoff [8h 8d 8c] [2s 3s 4s] [9d 9c 9s] 8h@1")
    assert hand.snapshot() == before
    best = hand.best_defence(1)
    assert best.deadwood == 10 and best.layoffs == ()
    play(hand, "layoff [8h 8d 8c] [2s 3s 4s] [9d 9c 9s]")
    assert hand.result.deadwood[1] == 10


def test_audit_R4_4_no_layoff_through_the_knockers_own_deadwood():
    # the knocker keeps 8h as deadwood (R4.3); the defender's 9h is then not adjacent
    knocker = "5h 6h 7h 8h Js Jd Jc Qs Qd Qc"
    hand = make_hand(CLASSIC, {0: knocker, 1: "9h Th 2s 3s 4s 9d 9c 9s Ks Kc"},
                     upcard="Ah", stock="Kh")
    play(hand, "stock", "knock Kh [5h 6h 7h] [Js Jd Jc] [Qs Qd Qc]")
    assert hand.knock.deadwood == 8
    assert not hand.is_legal(parse_action("layoff [2s 3s 4s] [9d 9c 9s] 9h@1"))
    assert not hand.is_legal(parse_action("layoff [2s 3s 4s] [9d 9c 9s] 9h@1 Th@1"))
    assert hand.best_defence(1).layoffs == ()


def test_audit_R4_4_a_set_of_four_laid_by_the_knocker_takes_nothing():
    knocker = "7s 7h 7d 7c 2h 3h 4h As Ac 2c"
    hand = make_hand(CLASSIC, {0: knocker, 1: "5h 8s 8h 8d Ts Td Th 9c Ks Kc"},
                     upcard="Ah", stock="Kh")
    play(hand, "stock", "knock Kh [7s 7h 7d 7c] [2h 3h 4h]")
    assert hand.knock.deadwood == 4
    # 8s/8h/8d cannot go on the sevens; 5h extends the run
    assert not hand.is_legal(parse_action("layoff [Ts Td Th] 8s@1"))
    best = hand.best_defence(1)
    assert [(card_name(c), i) for c, i in best.layoffs] == [("5h", 1)]
    play(hand, "layoff [8s 8h 8d] [Ts Td Th] 5h@2")
    assert hand.result.deadwood[1] == 9 + 10 + 10


# ---------------------------------------------------------------------------- R3.3 / R3.5


def test_audit_R3_5_non_dealer_first_four_players_third_player_takes():
    rules = ARENA.replace(players=4, upcard_offer="non_dealer_first")
    hand = make_hand(rules, {2: "2c 3c 4c 9d 9h 9s Kh"}, upcard="Kd")
    assert hand.phase is Phase.OFFER and hand.to_move == 0
    play(hand, "pass", "pass")
    assert hand.to_move == 2
    play(hand, "take")
    assert hand.phase is Phase.DISCARD and hand.to_move == 2
    with pytest.raises(RediscardError):
        hand.apply("discard Kd")
    play(hand, "discard Kh")
    # the dealer plays next and may take the Kh or draw
    assert hand.phase is Phase.DRAW and hand.to_move == 3
    assert set(hand.legal_actions()) == {parse_action("stock"), parse_action("take")}


def test_audit_R3_3_knock_after_taking_the_upcard_discards_another_card():
    rules = CLASSIC.replace(upcard_offer="dealer_first")
    # the dealer (seat 1) takes the 5d upcard and could knock it for 3, but may not
    hand = make_hand(rules, {1: "As 2s 3s 7h 7d 7c Jc Qc Kc 3d"}, upcard="5d")
    play(hand, "take")
    assert hand.to_move == 1
    assert not hand.is_legal(parse_action("knock 5d [As 2s 3s] [7h 7d 7c] [Jc Qc Kc]"))
    legal = hand.legal_actions()
    assert parse_action("discard 5d") not in legal
    assert all(getattr(a, "discard", None) != card("5d") for a in legal)
    play(hand, "knock 3d [As 2s 3s] [7h 7d 7c] [Jc Qc Kc]")
    assert hand.knock.deadwood == 5


# ---------------------------------------------------------------------------- R4.7


def test_audit_R4_7_reshuffle_last_stock_card_knock_ends_the_hand_without_reshuffle():
    hand = make_hand(ARENA, {0: "As 2s 3s 7h 7d 7c Jc Qc Kc 5d"})
    size = len(hand.stock)
    # each turn draws and discards the drawn card; seat 0 draws the odd cards
    draw_and_discard(hand, size - 1)
    assert len(hand.stock) == 1 and hand.to_move == 0
    last = hand.stock[-1]
    play(hand, "stock")
    assert hand.stock == []
    play(hand, f"knock {card_name(last)} [As 2s 3s] [7h 7d 7c] [Jc Qc Kc]")
    assert hand.knock is not None and hand.reshuffles == 0
    assert hand.phase is Phase.LAYOFF


def test_audit_R4_7_void_at_two_taking_from_the_pile_at_three_then_next_draw_voids():
    hand = make_hand(CLASSIC)
    draw_and_discard(hand, len(hand.stock) - 3)
    assert len(hand.stock) == 3
    mover = hand.to_move
    play(hand, "take")
    taken = hand.taken
    other = next(c for c in hand.hand_of(mover) if c != taken)
    play(hand, f"discard {card_name(other)}")
    assert not hand.over and len(hand.stock) == 3
    draw_and_discard(hand)
    assert hand.over and hand.result.void and len(hand.stock) == 2


# ---------------------------------------------------------------------------- R4.8 / views


def _tokens(value: object) -> set[str]:
    out: set[str] = set()
    if isinstance(value, dict):
        for k, v in value.items():
            out |= _tokens(k) | _tokens(v)
    elif isinstance(value, list | tuple):
        for v in value:
            out |= _tokens(v)
    elif isinstance(value, str):
        out |= {t for t in re.split(r"[\s\[\]@(),]+", value) if t}
    return out


def _stock_names(hand: Hand) -> set[str]:
    return {card_name(c) for c in hand.stock}


def test_audit_R4_8_views_never_hold_stock_cards_three_players_through_layoffs():
    rules = ARENA.replace(players=3)
    match = Match(rules, seed=0, first_dealer=2)
    start_deck(match, {0: f"{SPADES} 5c", 1: f"{SETS[1][0]} 6h", 2: f"{SETS[2][0]} 7d"},
               upcard="8s", stock="2h 3h 4h Kd")
    hand = match.hand

    def check() -> None:
        stock = _stock_names(hand)
        for seat in (0, 1, 2, None):
            data = view(match, seat).to_dict()
            assert not _tokens(data) & stock, (seat, _tokens(data) & stock)

    check()
    play(match, "stock", "discard 2h")
    check()
    play(match, "stock", "discard 3h")
    check()
    play(match, "stock", "discard 4h")
    check()
    play(match, "stock", KNOCK_7)
    assert hand.phase is Phase.LAYOFF and hand.to_move == 1
    check()
    # R4.8: during the layoffs every hand is shown to every seat and spectator
    for seat in (0, 1, 2, None):
        v = view(match, seat)
        for s in range(3):
            assert v.seats[s].cards is not None
            assert set(v.seats[s].cards) == set(hand.hand_of(s))
    play(match, SETS[1][1])
    check()
    play(match, SETS[2][1])
    check()
    assert match.over


def test_audit_R4_8_other_seats_stock_draws_stay_hidden_in_to_dict():
    hand = make_hand(CLASSIC, stock="2h 3h")
    play(hand, "stock")
    drawn = card("2h")
    for seat in (1, None):
        data = view(hand, seat).to_dict()
        assert card_name(drawn) not in _tokens(data)
        assert data["seats"][0]["cards"] is None
    mine = view(hand, 0).to_dict()
    assert mine["log"][-1]["card"] == "2h"


# ---------------------------------------------------------------------------- R4.4 (4 players)


def test_audit_R4_4_four_players_knocker_not_first_seat_layoffs_in_turn_order():
    rules = ARENA.replace(players=4)  # layoff_chain none, strict ties
    match = Match(rules, seed=0, first_dealer=1, pool_cents=None)
    start_deck(match, {
        2: "5h 6h 7h Js Jd Jc Ac",      # the knocker, first to play: deadwood 1
        3: "8h 2s 3s 4s 9s 9d 9c",
        0: "4h Ts Td Tc Qs Qd Qc",
        1: "9h 2d 3d 4d Ks Kh Kc",
    }, upcard="Ah", stock="Kd")
    hand = match.hand
    assert hand.to_move == 2
    play(match, "stock", "knock Kd [5h 6h 7h] [Js Jd Jc]")
    assert hand.to_move == 3
    assert (card("8h"), 0) in hand.legal_actions()[0].layoffs
    play(match, "layoff [2s 3s 4s] [9s 9d 9c] 8h@1")
    assert hand.to_move == 0
    assert hand.legal_actions()[0].layoffs == ((card("4h"), 0),)
    play(match, "layoff [Ts Td Tc] [Qs Qd Qc] 4h@1")
    assert hand.to_move == 1
    # 9h: that end was extended by seat 3, and with chain none only 8h was ever adjacent
    assert hand.legal_actions()[0].layoffs == ()
    assert not hand.is_legal(parse_action("layoff [2d 3d 4d] [Ks Kh Kc] 9h@1"))
    play(match, "layoff [2d 3d 4d] [Ks Kh Kc]")
    result = match.result
    assert hand.result.outcome is Outcome.UNDERCUT
    # seats 3 and 0 both reach 0: the one nearest after the knocker (seat 3) wins
    assert result.winner == 3
    assert hand.result.undercutters == (3, 0)
    assert result.penalties == (0, 9, 1 - 0 + 10, 0)


@pytest.mark.parametrize(("rule", "dealer"), [("winner", 0), ("loser", 1), ("alternate", 0)])
def test_audit_R5_6_a_strict_zero_point_win_decides_the_next_dealer(rule, dealer):
    rules = CLASSIC.replace(undercut_ties="strict", next_dealer=rule)
    match = _match(rules, first_dealer=1)
    start_deck(match, {0: KNOCKER_2P, 1: DEFENDER_2P.replace("3c", "5c")}, upcard="8h",
               stock="Kd")
    play(match, "stock", KNOCK_2P, DEFENCE_2P)
    assert match.hand.result.winner == 0
    assert match.hand.result.points == (0, 0)
    assert match.dealer == dealer
