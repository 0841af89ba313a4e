"""R6. The single-hand penalty game for 2-4 players: winner, penalties, prize pool."""

from __future__ import annotations

import pytest

from ginrummy.errors import HandOverError
from ginrummy.match import Match
from ginrummy.rules import Ruleset, RulesetError
from ginrummy.scoring import Outcome, split_pool
from helpers import draw_and_discard, play, start_deck

ARENA = Ruleset.preset("arena")  # 000: strict ties, threshold 25
SITE_003 = Ruleset.preset("arena", undercut_ties="defender", payout_threshold=50)

# The knocker plays first (the seat before him deals), draws the Kd and knocks it with six
# spades in one run and one loose card (7 cards; with 2 players 3 more melded cards).
KNOCKER = "As 2s 3s 4s 5s 6s"
KNOCK = "knock Kd [As 2s 3s 4s 5s 6s]"
GINNER = "As 2s 3s 4s 5s 6s 7s"
GIN = "gin Kd [As 2s 3s 4s 5s 6s 7s]"
EXTRA_2P = ("9s Ts Js", "[9s Ts Js]")  # three more melded cards for a 10-card hand

# Defenders: two melds and one loose card (his deadwood); none fits the knocker's run.
A = ("8h 8d 8c Jh Jd Jc", "[8h 8d 8c] [Jh Jd Jc]")
B = ("9h 9d 9c Qh Qd Qc", "[9h 9d 9c] [Qh Qd Qc]")
C = ("Th Td Tc Kh Ks Kc", "[Th Td Tc] [Kh Ks Kc]")
# loose cards by value, from the cards nobody else uses (hearts, diamonds, clubs A-7)
LOOSE = {
    1: ["Ah", "Ad", "Ac"], 2: ["2h", "2d", "2c"], 3: ["3h", "3d", "3c"], 4: ["4h", "4d", "4c"],
    5: ["5h", "5d", "5c"], 6: ["6h", "6d", "6c"], 7: ["7h", "7d", "7c"],
}


def deal(rules: Ruleset, knocker: int, k_loose: int | None, loose: dict[int, int],
         pool: int | None = 10_000, gin: bool = False) -> Match:
    """A single-hand game where ``knocker`` knocks (or goes gin) at once, every defender seat
    with deadwood ``loose[seat]`` and lays off nothing. ``k_loose`` is the knocker's
    deadwood. Returns the finished match."""
    n = rules.players
    used: dict[int, int] = {}

    def pick(value: int) -> str:
        used[value] = used.get(value, 0) + 1
        return LOOSE[value][used[value] - 1]

    hands: dict[int, str] = {}
    texts: dict[int, str] = {}
    extra = EXTRA_2P if n == 2 else ("", "")
    hands[knocker] = GINNER if gin else f"{KNOCKER} {pick(k_loose)}"
    if n == 2:
        hands[knocker] += " " + extra[0]
    for (seat, value), (cards, melds) in zip(sorted(loose.items()), (A, B, C), strict=False):
        hands[seat] = f"{cards} {pick(value)}"
        texts[seat] = f"layoff {melds}"
        if n == 2:
            hands[seat] += " Ks Kh Kc"
            texts[seat] += " [Ks Kh Kc]"
    match = Match(rules, seed=0, first_dealer=(knocker - 1) % n, pool_cents=pool)
    start_deck(match, hands, upcard="Qs", stock="Kd")
    assert match.hand.to_move == knocker
    play(match, "stock", (GIN if gin else KNOCK) + (" " + extra[1] if n == 2 else ""))
    while not match.hand.over:
        play(match, texts[match.hand.to_move])
    assert match.over
    return match


def rules_for(players: int, base: Ruleset = ARENA) -> Ruleset:
    return base.replace(players=players)


# --------------------------------------------------------------------------- R6.1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R6_1_one_hand_decides(players):
    match = deal(rules_for(players), 0, 3, {s: 7 for s in range(1, players)})
    assert match.over and len(match.hands) == 1
    assert match.result.penalties is not None and match.result.payouts is not None
    with pytest.raises(HandOverError):
        match.start_hand()


def test_R6_1_three_or_four_players_always_play_the_single_hand_game():
    for players in (3, 4):
        assert ARENA.replace(players=players).format == "single_hand"
        for preset in ("classic", "playok", "eaai"):
            with pytest.raises(RulesetError) as info:
                Ruleset.preset(preset, players=players)
            assert info.value.option == "format"


def test_R6_1_a_void_hand_is_redealt_by_the_same_dealer_and_the_pool_waits():
    match = Match(ARENA, seed=0, first_dealer=1, pool_cents=1000)
    hand = start_deck(match)
    while not hand.over:  # 31 cards, reshuffled twice (R4.7), then void
        draw_and_discard(match)
    assert hand.result.void and hand.reshuffles == 2
    assert not match.over and match.result is None and match.needs_deal
    assert match.dealer == 1
    # the next hand decides; the pool goes to it
    start_deck(match, {0: f"{KNOCKER} 2h {EXTRA_2P[0]}", 1: f"{A[0]} 7h Ks Kh Kc"},
               upcard="Qs", stock="Kd")
    assert match.hand.dealer == 1
    play(match, "stock", f"{KNOCK} {EXTRA_2P[1]}", f"layoff {A[1]} [Ks Kh Kc]")
    assert match.over and match.result.penalties == (0, 5)
    assert sum(match.result.payouts) == 1000


# --------------------------------------------------------------------------- R6.2


@pytest.mark.parametrize("rules", [ARENA, SITE_003], ids=["000", "003"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_R6_2_the_gin_player_wins(rules, players):
    # even against a defender left with less: after gin nobody lays off, nobody undercuts
    match = deal(rules_for(players, rules), 0, None, {s: 1 for s in range(1, players)},
                 gin=True)
    result = match.hands[-1].result
    assert result.outcome is Outcome.GIN and result.winner == 0 == match.result.winner


@pytest.mark.parametrize("players", [3, 4])
def test_R6_2_otherwise_the_least_deadwood_wins(players):
    loose = {1: 4, 2: 2} | ({3: 6} if players == 4 else {})
    result = deal(rules_for(players), 0, 5, loose).hands[-1].result
    assert result.outcome is Outcome.UNDERCUT and result.winner == 2
    assert result.deadwood == (5, 4, 2, 6)[:players]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R6_2_tie_knocker_defender_strict_the_knocker_keeps_it(players):
    loose = {s: 3 if s == 1 else 6 for s in range(1, players)}
    result = deal(rules_for(players, ARENA), 0, 3, loose).hands[-1].result
    assert result.outcome is Outcome.KNOCK and result.winner == 0
    assert result.penalties[1] == 0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R6_2_tie_knocker_defender_003_the_defender_takes_it(players):
    loose = {s: 3 if s == 1 else 6 for s in range(1, players)}
    result = deal(rules_for(players, SITE_003), 0, 3, loose).hands[-1].result
    assert result.outcome is Outcome.UNDERCUT and result.winner == 1
    assert result.penalties[0] == 0 + 10


@pytest.mark.parametrize(
    ("players", "knocker", "loose", "winner"),
    [
        (3, 0, {1: 2, 2: 2}, 1),
        (3, 1, {2: 2, 0: 2}, 2),
        (3, 2, {0: 2, 1: 2}, 0),
        (4, 2, {3: 5, 0: 2, 1: 2}, 0),  # defenders 3, 0, 1 in turn: 0 is nearer than 1
        (4, 2, {3: 2, 0: 5, 1: 2}, 3),
        (4, 3, {0: 4, 1: 1, 2: 1}, 1),
        (4, 1, {2: 3, 3: 1, 0: 1}, 3),
    ],
)
@pytest.mark.parametrize("rules", [ARENA, SITE_003], ids=["000", "003"])
def test_R6_2_a_tie_between_defenders_goes_to_the_nearest_after_the_knocker(
        rules, players, knocker, loose, winner):
    result = deal(rules_for(players, rules), knocker, 6, loose).hands[-1].result
    assert result.winner == winner
    assert result.penalties[winner] == 0
    tied = [s for s, v in loose.items() if v == loose[winner] and s != winner]
    assert all(result.penalties[s] == 0 for s in tied)


@pytest.mark.parametrize("rules", [ARENA, SITE_003], ids=["000", "003"])
def test_R6_2_a_three_way_tie(rules):
    result = deal(rules_for(3, rules), 0, 2, {1: 2, 2: 2}).hands[-1].result
    assert result.winner == (0 if rules.undercut_ties == "strict" else 1)


# --------------------------------------------------------------------------- R6.3


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R6_3_penalties_after_gin(players):
    loose = {1: 7, 2: 3, 3: 1}
    loose = {s: loose[s] for s in range(1, players)}
    result = deal(rules_for(players), 0, None, loose, gin=True).result
    assert result.penalties == (0, *(v + 25 for v in loose.values()))
    assert result.winner == 0 and result.totals == tuple(-p for p in result.penalties)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R6_3_penalties_after_a_knock_won_by_the_knocker(players):
    loose = {1: 7, 2: 4, 3: 6}
    loose = {s: loose[s] for s in range(1, players)}
    result = deal(rules_for(players), 0, 3, loose).result
    assert result.penalties == (0, *(v - 3 for v in loose.values()))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R6_3_penalties_after_an_undercut(players):
    loose = {1: 2, 2: 6, 3: 1}
    loose = {s: loose[s] for s in range(1, players)}
    winner = 3 if players == 4 else 1
    low = loose[winner]
    result = deal(rules_for(players), 0, 5, loose).result
    expected = [0] * players
    expected[0] = 5 - low + 10
    for s, v in loose.items():
        expected[s] = v - low
    assert result.winner == winner
    assert result.penalties == tuple(expected)


@pytest.mark.parametrize("penalty", [0, 10, 15])
def test_R6_3_knocker_undercut_penalty_option(penalty):
    rules = rules_for(3).replace(knocker_undercut_penalty=penalty)
    result = deal(rules, 0, 5, {1: 6, 2: 2}).result
    assert result.penalties == (5 - 2 + penalty, 4, 0)


def test_R6_3_undercut_bonus_is_only_a_label():
    base = deal(rules_for(4), 0, 5, {1: 6, 2: 2, 3: 4})
    other = deal(rules_for(4).replace(undercut_bonus=50), 0, 5, {1: 6, 2: 2, 3: 4})
    assert base.result.penalties == other.result.penalties == (13, 4, 0, 2)
    assert base.result.payouts == other.result.payouts
    notes = base.hands[-1].result.notes
    # a label for each defender below the knocker: seats 2 and 3 (seat 1 is above)
    assert any("undercut bonus 20" in n and "seat 2" in n for n in notes)
    assert any("undercut bonus 20" in n and "seat 3" in n for n in notes)
    assert not any("seat 1" in n for n in notes)
    assert base.hands[-1].result.points == (0, 0, 0, 0)


# --------------------------------------------------------------------------- R6.4


def expected_shares(pool: int, penalties, winner: int, threshold: int) -> list[int]:
    n = len(penalties)
    shares = [0] * n
    for s, p in enumerate(penalties):
        if s != winner and p < threshold:
            # floor(pool x 25% / (n - 1) x (threshold - penalty) / threshold), exactly
            shares[s] = (pool * 25 * (threshold - p)) // (100 * (n - 1) * threshold)
    shares[winner] = pool - sum(shares)
    return shares


@pytest.mark.parametrize(
    ("pool", "penalties", "winner", "threshold", "shares"),
    [
        (1000, (0, 10), 0, 25, (850, 150)),
        (1000, (0, 0), 0, 25, (750, 250)),
        (1000, (0, 25), 0, 25, (1000, 0)),
        (1000, (30, 0), 1, 50, (100, 900)),
        (1001, (0, 7, 30), 0, 25, (911, 90, 0)),
        (1001, (0, 7, 30), 0, 50, (844, 107, 50)),
        (999, (3, 0, 24, 1), 1, 25, (73, 844, 3, 79)),
        (1, (0, 0), 0, 25, (1, 0)),
        (0, (0, 4, 9), 0, 25, (0, 0, 0)),
    ],
)
def test_R6_4_prize_pool_split_in_integer_cents(pool, penalties, winner, threshold, shares):
    got = split_pool(pool, penalties, winner, threshold)
    assert got == shares == tuple(expected_shares(pool, penalties, winner, threshold))
    assert sum(got) == pool
    assert got[winner] * 4 >= pool * 3  # the winner always gets at least 75%


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("pool", [10_000, 12_345, 7, 0])
def test_R6_4_payouts_of_a_played_hand(players, pool):
    loose = {1: 7, 2: 4, 3: 6}
    loose = {s: loose[s] for s in range(1, players)}
    result = deal(rules_for(players), 0, 3, loose, pool=pool).result
    assert sum(result.payouts) == pool
    assert list(result.payouts) == expected_shares(pool, result.penalties, 0, 25)


def test_R6_4_both_sites():
    # the same cards: seat 1 has a 3-point penalty, seat 2 a 35-point one (no melds)
    def play_site(rules: Ruleset) -> Match:
        match = Match(rules.replace(players=3), seed=0, first_dealer=2, pool_cents=10_000)
        start_deck(match, {0: f"{KNOCKER} 2h", 1: f"{A[0]} 5d",
                           2: "7h 6d 5c 4h 3d 2c Th"}, upcard="Qs", stock="Kd")
        play(match, "stock", KNOCK, f"layoff {A[1]}", "layoff")
        return match

    arena = play_site(ARENA).result
    assert arena.penalties == (0, 3, 35)
    # 000: only penalties below 25 are paid: 10000 x 25% / 2 x 22/25 = 1100
    assert arena.payouts == (8900, 1100, 0)
    site = play_site(SITE_003).result
    assert site.penalties == (0, 3, 35)
    # 003: below 50: 1250 x 47/50 = 1175 and 1250 x 15/50 = 375
    assert site.payouts == (8450, 1175, 375)


def test_R6_4_after_gin_nobody_else_is_paid_in_000():
    for loose in ({1: 1}, {1: 1, 2: 1}, {1: 1, 2: 1, 3: 1}):
        players = len(loose) + 1
        result = deal(rules_for(players), 0, None, loose, gin=True).result
        assert min(result.penalties[1:]) >= 25
        assert result.payouts == (10_000, *([0] * len(loose)))
        site = deal(rules_for(players, SITE_003), 0, None, loose, gin=True).result
        assert site.payouts[1] == 10_000 * 25 * (50 - 26) // (100 * len(loose) * 50)


def test_R6_4_no_pool_no_payouts():
    match = deal(rules_for(3), 0, 3, {1: 7, 2: 4}, pool=None)
    assert match.result.payouts is None and match.result.penalties == (0, 4, 1)


# --------------------------------------------------------------------------- R6.5
# Oklahoma in the single-hand game. ``deal`` turns up the Qs, a spade, as the first upcard.

OKLAHOMA = ARENA.replace(oklahoma_spades_double=True)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R6_5_oklahoma_spade_upcard_doubles_every_penalty(players):
    loose = {1: 7, 2: 4, 3: 6}
    loose = {s: loose[s] for s in range(1, players)}
    plain = deal(rules_for(players), 0, 3, loose).hands[-1].result
    doubled = deal(rules_for(players, OKLAHOMA), 0, 3, loose).hands[-1].result
    assert plain.multiplier == 1 and doubled.multiplier == 2
    assert doubled.winner == plain.winner == 0
    assert doubled.penalties == tuple(2 * p for p in plain.penalties)
    assert doubled.penalties == (0, *(2 * (v - 3) for v in loose.values()))


def test_R6_5_oklahoma_doubles_the_gin_bonus_and_the_knockers_undercut_penalty():
    gin = deal(rules_for(3, OKLAHOMA), 0, None, {1: 7, 2: 3}, gin=True).result
    assert gin.penalties == (0, 2 * (7 + 25), 2 * (3 + 25))
    undercut = deal(rules_for(3, OKLAHOMA), 0, 5, {1: 6, 2: 2}).result
    assert undercut.winner == 2
    assert undercut.penalties == (2 * (5 - 2 + 10), 2 * (6 - 2), 0)


def test_R6_5_the_payout_threshold_applies_after_doubling():
    # undoubled the knocker's penalty would be 5 - 2 + 10 = 13, below the threshold of 25;
    # doubled it is 26, so he is paid nothing; seat 1's 8 (4 doubled) is paid on the 8
    pool = 10_000
    result = deal(rules_for(3, OKLAHOMA), 0, 5, {1: 6, 2: 2}, pool=pool).result
    assert result.penalties == (26, 8, 0)
    assert result.payouts == split_pool(pool, (26, 8, 0), 2, 25)
    assert result.payouts == (0, 850, 9150)
    before_doubling = split_pool(pool, (13, 4, 0), 2, 25)
    assert before_doubling == (600, 1050, 8350) != result.payouts
    assert sum(result.payouts) == pool


def test_R6_5_after_doubling_003s_threshold_of_50_still_pays_a_doubled_penalty():
    result = deal(rules_for(3, SITE_003.replace(oklahoma_spades_double=True)), 0, 5,
                  {1: 6, 2: 2}, pool=10_000).result
    # 003 ties go to the defender; seat 2 (deadwood 2) is below the knocker all the same
    assert result.penalties == (26, 8, 0)
    # floor(10000 x 25% / 2 x (50 - 26) / 50) = 600 and (50 - 8) / 50 -> 1050
    assert result.payouts == (600, 1050, 8350)
