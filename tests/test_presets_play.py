"""Every preset played to the end many times by the bots, with invariants on the results."""

from __future__ import annotations

import itertools
import random

import pytest

from ginrummy.bots import make_bot
from ginrummy.cards import CARD_VALUES, suit_of
from ginrummy.engine import Hand
from ginrummy.gameloop import Stats, play_hand, play_match, reshuffles_from
from ginrummy.match import Match
from ginrummy.rules import Ruleset
from ginrummy.scoring import Outcome, split_pool

CONFIGS = {
    "classic": Ruleset.preset("classic"),
    "classic-big-gin": Ruleset.preset("classic", big_gin=True),
    "playok": Ruleset.preset("playok"),
    "playok-200": Ruleset.preset("playok", target=200),
    "playok-oklahoma": Ruleset.preset("playok", oklahoma_spades_double=True),
    "playok-oklahoma-limit": Ruleset.preset("playok", oklahoma_spades_double=True,
                                            oklahoma_knock_limit=True),
    "arena-2": Ruleset.preset("arena"),
    "arena-3": Ruleset.preset("arena", players=3),
    "arena-4": Ruleset.preset("arena", players=4),
    "arena-003-4": Ruleset.preset("arena", players=4, undercut_ties="defender",
                                  payout_threshold=50),
    "eaai": Ruleset.preset("eaai"),
    "eaai-winner-deals": Ruleset.preset("eaai", next_dealer="winner"),
    "classic-loser-deals": Ruleset.preset("classic", next_dealer="loser"),
}
LINEUPS = {"simple": ("simple",), "mixed": ("random", "simple"), "random": ("random",)}
GAMES = 12


def lineup(kind: str, players: int, seed: int) -> list:
    names = LINEUPS[kind]
    return [make_bot(names[(seed + i) % len(names)], seed * 7 + i) for i in range(players)]


def check_hand(rules: Ruleset, hand) -> None:
    result = hand.result
    assert result is not None
    n = rules.players
    if result.void:
        assert hand.knock is None and result.winner is None
        assert result.points == (0,) * n
        return
    knock = hand.knock
    assert knock is not None and result.knocker == knock.knocker
    assert knock.deadwood <= hand.knock_limit
    if rules.oklahoma_knock_limit:
        value = CARD_VALUES[hand.upcard]
        assert knock.deadwood <= (0 if value == 1 else value)
    assert result.multiplier == (2 if rules.oklahoma_spades_double
                                 and suit_of(hand.upcard) == 0 else 1)
    assert knock.gin == (knock.deadwood == 0)
    if knock.gin:
        assert result.winner == knock.knocker
        assert result.outcome in (Outcome.GIN, Outcome.BIG_GIN)
        assert all(not d.layoffs for d in hand.defences)
    deadwood = result.deadwood
    assert deadwood[knock.knocker] == knock.deadwood
    assert sorted(d.seat for d in hand.defences) == sorted(set(range(n)) - {knock.knocker})
    for d in hand.defences:
        assert deadwood[d.seat] == d.deadwood
    winner = result.winner
    if not knock.gin:
        assert deadwood[winner] == min(deadwood)
    if rules.format == "match":
        assert [s for s, p in enumerate(result.points) if p] in ([], [winner])
    else:
        assert result.penalties[winner] == 0 and min(result.penalties) >= 0


def check_match(rules: Ruleset, match: Match, pool: int | None) -> None:
    result = match.result
    assert result is not None and match.over
    hands = match.hands
    for hand in hands:
        check_hand(rules, hand)
    scored = [h.result for h in hands if not h.result.void]
    assert not hands[-1].result.void
    # dealers: the first at random, kept after a void hand, then by next_dealer (R5.6)
    assert hands[0].dealer == match.first_dealer
    for before, after in itertools.pairwise(hands):
        r = before.result
        if r.void or rules.format == "single_hand":
            assert after.dealer == before.dealer
        elif rules.next_dealer == "alternate":
            assert after.dealer == (before.dealer + 1) % rules.players
        elif rules.next_dealer == "winner":
            assert after.dealer == r.winner
        else:
            assert after.dealer == 1 - r.winner
    if rules.format == "single_hand":
        assert len(scored) == 1  # void hands are redealt; one hand decides (R6.1)
        last = scored[0]
        assert result.winner == last.winner and result.penalties == last.penalties
        assert result.totals == tuple(-p for p in last.penalties)
        if pool is not None:
            assert sum(result.payouts) == pool
            assert result.payouts == split_pool(pool, last.penalties, last.winner,
                                                rules.payout_threshold)
            assert result.payouts[result.winner] * 4 >= pool * 3
        return
    n = rules.players
    totals = [sum(r.points[s] for r in scored) for s in range(n)]
    assert list(result.hand_points) == totals == match.scores
    won = [sum(r.winner == s for r in scored) for s in range(n)]
    assert match.hands_won == won
    winner = result.winner
    assert totals[winner] >= rules.target > max(t for s, t in enumerate(totals) if s != winner)
    assert scored[-1].winner == winner
    # the totals before the last hand were all below the target
    assert totals[winner] - scored[-1].points[winner] < rules.target
    # end bonuses (R5.7)
    for s in range(n):
        expected = {}
        if rules.line_bonus:
            expected["line"] = rules.line_bonus * won[s]
        if s == winner:
            if rules.game_bonus:
                expected["game"] = rules.game_bonus
            if rules.shutout_bonus and sum(won) == won[winner]:
                expected["shutout"] = rules.shutout_bonus
        assert result.bonuses[s] == expected
        assert result.totals[s] == totals[s] + sum(expected.values())
    assert result.margin == result.totals[winner] - max(
        t for s, t in enumerate(result.totals) if s != winner)


@pytest.mark.parametrize("kind", sorted(LINEUPS))
@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_presets_play_to_the_end(config, kind):
    rules = CONFIGS[config]
    if kind == "random" and rules.format == "match":
        rules = rules.replace(target=40)  # random players rarely knock: keep matches short
    stats = Stats()
    for seed in range(GAMES if kind != "random" else GAMES // 3):
        pool = 10_000 + seed if rules.format == "single_hand" else None
        match = Match(rules, seed=seed, pool_cents=pool)
        play_match(rules, lineup(kind, rules.players, seed), match=match, stats=stats)
        check_match(rules, match, pool)
    assert stats.hands >= GAMES // 3 and stats.decisions > 0
    assert sum(stats.outcomes.values()) == stats.hands


def test_the_outcomes_of_many_games_cover_every_way_to_end():
    outcomes: dict[str, int] = {}
    for config in ("classic", "arena-3", "playok"):
        stats = Stats()
        rules = CONFIGS[config]
        for seed in range(GAMES):
            play_match(rules, lineup("simple", rules.players, seed), seed=seed, stats=stats)
        for k, v in stats.outcomes.items():
            outcomes[k] = outcomes.get(k, 0) + v
    assert {"knock", "gin", "undercut"} <= set(outcomes)
    stats = Stats()
    rules = CONFIGS["classic"].replace(target=20)
    for seed in range(4):
        play_match(rules, lineup("random", 2, seed), seed=seed, stats=stats)
    assert stats.outcomes.get("void", 0) > 0


def test_play_match_refuses_the_wrong_number_of_bots():
    with pytest.raises(ValueError, match="3 players"):
        play_match(CONFIGS["arena-3"], lineup("simple", 2, 0), seed=0)


@pytest.mark.parametrize("config", ["classic", "arena-4", "playok-oklahoma"])
def test_play_hand_plays_one_hand_with_an_observer(config):
    rules = CONFIGS[config]
    seen: list[tuple[int, object]] = []
    stats = Stats()
    for seed in range(6):
        hand = Hand.deal(rules, dealer=seed % rules.players, seed=seed)
        stats.count(play_hand(hand, lineup("mixed", rules.players, seed),
                              reshuffles_from(random.Random(seed)),
                              lambda h, seat, action, seconds: seen.append((seat, action))))
        assert hand.over
        check_hand(rules, hand)
    assert stats.hands == 6 and stats.decisions == len(seen) > 0
