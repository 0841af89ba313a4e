"""The expert: deterministic given a seed, legal in every preset, optimal layoffs, views only;
its mask-level play-outs agree with the engine on layoffs and scores."""

from __future__ import annotations

import random

import pytest

from ginrummy.actions import Knock, LayOff
from ginrummy.bots import SimpleBot, make_bot
from ginrummy.bots.expert import ExpertBot
from ginrummy.bots.rollout import (
    DRAW,
    MATCH_BONUS,
    PlayoutRules,
    defence_deadwood,
    knock_value,
    layoff_options,
    play_out,
)
from ginrummy.cards import card_name
from ginrummy.engine import CHANCE, Hand, Phase
from ginrummy.gameloop import play_hand, play_match, reshuffles_from
from ginrummy.match import Match
from ginrummy.rules import Ruleset
from ginrummy.solver import best_defence, best_melds_mask, deadwood_mask
from ginrummy.views import view
from helpers import make_hand, mask

BUDGET = 3.0  # milliseconds: the search still runs (a minimum number of worlds)

RULESETS = [
    Ruleset.preset("classic"),
    Ruleset.preset("playok"),
    Ruleset.preset("eaai"),
    Ruleset.preset("arena"),
    Ruleset.preset("arena", players=3),
    Ruleset.preset("arena", players=4),
    Ruleset.preset("playok", oklahoma_knock_limit=True, oklahoma_spades_double=True),
    Ruleset.preset("classic", big_gin=True, knock_limit=5),
]


def _ctx(rules: Ruleset, hand: Hand) -> PlayoutRules:
    return PlayoutRules(rules, rules.players, hand.knock_limit, hand.dealer,
                        hand.upcard // 13 == 0)


@pytest.mark.parametrize("rules", RULESETS, ids=lambda r: f"{r.name}-{r.players}")
def test_plays_legal_actions_in_every_preset(rules: Ruleset) -> None:
    for seed in range(2):
        hand = Hand.deal(rules, dealer=seed % rules.players, seed=seed)
        bots = [make_bot("expert", 10 + s, budget_ms=BUDGET) if s % 2 == 0 else SimpleBot()
                for s in range(rules.players)]
        # the engine refuses illegal actions
        play_hand(hand, bots, reshuffles_from(random.Random(seed)))
        assert hand.over


def test_deterministic_given_the_seed() -> None:
    rules = Ruleset.preset("eaai")

    def log(seed: int) -> list[str]:
        hand = Hand.deal(rules, dealer=0, seed=21)
        play_hand(hand, [ExpertBot(seed, BUDGET, safety_stop=False),
                         ExpertBot(seed + 1, BUDGET, safety_stop=False)],
                  reshuffles_from(random.Random(0)))
        return hand.action_log_text()

    first = log(7)
    assert first == log(7)
    assert len(first) > 4


def test_a_whole_match() -> None:
    rules = Ruleset.preset("eaai", target=30)
    match = play_match(rules, [ExpertBot(1, BUDGET), make_bot("beginner", 2)],
                       match=Match(rules, seed=3))
    assert match.over


def test_lays_off_optimally() -> None:
    rules = Ruleset.preset("classic")
    # seat 1 knocks with [7h 8h 9h Th] [2c 2d 2s]; seat 0 can lay off 6h and Jh
    hand = make_hand(rules, {0: "Jh 6h 4s 4d Kc Kd Ks 5c 9c Qd",
                             1: "7h 8h 9h Th 2c 2d 2s Ac Ad 3s"},
                     upcard="Qc", stock="4c", dealer=0)
    hand.apply("stock")
    hand.apply("knock 3s [7h 8h 9h Th] [2c 2d 2s]")
    assert hand.phase is Phase.LAYOFF and hand.to_move == 0
    action = ExpertBot(1, BUDGET).choose(view(hand, 0), hand.legal_actions())
    assert isinstance(action, LayOff)
    best = hand.best_defence(0)
    assert action == LayOff(best.melds, best.layoffs)
    assert {card_name(c) for c, _ in action.layoffs} == {"6h", "Jh"}
    hand.apply(action)
    assert hand.result is not None and hand.result.deadwood[0] == best.deadwood


def test_takes_gin_when_it_can() -> None:
    rules = Ruleset.preset("eaai")
    hand = make_hand(rules, {0: "As 2s 3s 4h 5h 6h 9c 9d 9s Kd"}, upcard="Qc",
                     stock="9h", dealer=1)
    hand.apply("pass")
    hand.apply("pass")
    hand.apply("stock")
    action = ExpertBot(1, BUDGET).choose(view(hand, 0), hand.legal_actions())
    assert isinstance(action, Knock) and action.discard is not None
    hand.apply(action)
    assert hand.knock is not None and hand.knock.gin


def test_sees_only_the_view() -> None:
    """Two deals that differ only in cards seat 0 cannot see give seat 0 the same view, and
    the expert the same decision."""
    rules = Ruleset.preset("eaai")
    deck = list(range(52))
    random.Random(9).shuffle(deck)
    other = list(deck)
    # swap seat 1's first card with a stock card: invisible to seat 0
    other[1], other[40] = other[40], other[1]
    first, second = Hand(rules, 1, deck), Hand(rules, 1, other)
    assert first.hands[1] != second.hands[1]
    assert view(first, 0) == view(second, 0)
    bot_a, bot_b = ExpertBot(4, BUDGET, False), ExpertBot(4, BUDGET, False)
    assert (bot_a.analyse(view(first, 0), first.legal_actions())
            == bot_b.analyse(view(second, 0), second.legal_actions()))


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="budget_ms"):
        ExpertBot(1, 0)
    hand = Hand.deal(Ruleset.preset("eaai"), seed=1)
    with pytest.raises(ValueError, match="spectator"):
        ExpertBot(1, BUDGET).choose(view(hand, None), hand.legal_actions())


# ----------------------------------------------------------------- play-outs
def test_defence_deadwood_matches_the_solver() -> None:
    rng = random.Random(2)
    for chain in ("own", "none"):
        for _ in range(400):
            deck = rng.sample(range(52), 21)
            knocker = sum(1 << c for c in deck[:10])
            melds = best_melds_mask(knocker).melds
            if not melds:
                continue
            defender = sum(1 << c for c in deck[11:21])
            expected = best_defence(defender, melds, chain).deadwood
            rules = Ruleset.preset("classic", layoff_chain=chain)
            got = defence_deadwood(defender, layoff_options(melds, rules))
            assert got == expected


def test_knock_value_matches_the_engine_score() -> None:
    """Simple-vs-simple hands: at each knock, the play-out's score of it (true hands) is the
    score the engine gives."""
    checked = 0
    for name in ("eaai", "arena", "classic"):
        rules = Ruleset.preset(name)
        for seed in range(30):
            hand = Hand.deal(rules, dealer=seed % 2, seed=seed)
            bots = [SimpleBot(), SimpleBot()]
            rng = random.Random(seed)
            while not hand.over:
                if hand.to_move == CHANCE:
                    hand.apply(hand.reshuffle_order(rng))
                    continue
                seat = hand.to_move
                action = bots[seat].choose(view(hand, seat), hand.legal_actions())
                if isinstance(action, Knock) and action.discard is not None:
                    hands = list(hand.hands)
                    rest = hands[seat] & ~(1 << action.discard)
                    hands[seat] = rest
                    predicted = knock_value(_ctx(rules, hand), hands, seat, rest,
                                            action.melds, seat)
                    play_hand(hand, bots, reshuffles_from(rng))
                    assert hand.result is not None
                    if hand.result.penalties is None:
                        points = hand.result.points
                        assert predicted == points[seat] - points[1 - seat]
                    else:
                        pen = hand.result.penalties
                        assert predicted == pen[1 - seat] - pen[seat]
                    checked += 1
                    break
                hand.apply(action)
    assert checked > 30


def _random_play_outs(seed: int, count: int) -> list[float]:
    """Play-outs of ``count`` random 2-player ``eaai`` deals (seat 1 to draw), for seat 0."""
    ctx = PlayoutRules(Ruleset.preset("eaai"), 2, 10, 0, False)
    rng = random.Random(seed)
    values = []
    for _ in range(count):
        deck = list(range(52))
        rng.shuffle(deck)
        hands = [sum(1 << c for c in deck[:10]), sum(1 << c for c in deck[10:20])]
        values.append(play_out(ctx, hands, deck[21:], deck[20], 1, DRAW, 0))
    return values


def test_play_out_ends_with_a_plausible_score() -> None:
    values = _random_play_outs(3, 200)
    assert all(-150 <= v <= 150 for v in values)
    assert sum(v > 0 for v in values) > 40 and sum(v < 0 for v in values) > 40


def test_a_play_out_that_goes_on_too_long_counts_as_void(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``MAX_TURNS`` turns (cards passed back and forth) a play-out stops as a void
    hand; a real hand drawing from the stock never gets near it."""
    from ginrummy.bots import rollout
    assert rollout.MAX_TURNS > 2 * 31 + 20  # every stock draw plus many takes
    scored = _random_play_outs(5, 100)
    assert sum(v != 0 for v in scored) > 60
    monkeypatch.setattr(rollout, "MAX_TURNS", 4)
    short = _random_play_outs(5, 100)
    assert all(v == 0.0 for v, full in zip(short, scored, strict=True) if v != full)
    assert sum(v == 0.0 for v in short) > sum(v == 0.0 for v in scored) + 30


def test_a_hand_that_decides_the_match_counts_more() -> None:
    rules = Ruleset.preset("eaai")
    rest = mask("As 2s 3s 4h 5h 6h 7c 7d 7s 5d")  # deadwood 5
    defender = mask("Kh Qd Jc 9s 8d 2c 4c 6c 8c Tc")
    points = deadwood_mask(defender) - 5

    def value(scores: tuple[int, int] | None, root: int = 0) -> float:
        ctx = PlayoutRules(rules, 2, 10, 0, False, scores)
        return knock_value(ctx, [rest, defender], 0, rest, None, root)

    assert value(None) == points
    assert value((10, 90)) == points  # 10 + points is short of 100
    assert value((100 - points, 0)) == points + MATCH_BONUS
    assert value((100 - points, 0), root=1) == -points - MATCH_BONUS


def test_draws_are_the_base_policys() -> None:
    """The search may not change the base policy's draw (``OVERRIDES`` has no ``draw``); it
    may change discards and knocks, and does so in some positions."""
    from ginrummy.bots import IntermediateBot
    from ginrummy.bots.expert import OVERRIDES, BasePolicy
    assert "draw" not in OVERRIDES
    assert issubclass(BasePolicy, IntermediateBot)
    rules = Ruleset.preset("eaai")
    draws = changed = 0
    for seed in range(6):
        hand = Hand.deal(rules, dealer=seed % 2, seed=100 + seed)
        expert = ExpertBot(seed, 5.0, safety_stop=False)
        base = BasePolicy(seed)
        while not hand.over and hand.phase is not Phase.LAYOFF:
            seat = hand.to_move
            if seat is CHANCE:
                hand.apply(hand.legal_actions()[0])
                continue
            legal = hand.legal_actions()
            seen = view(hand, seat)
            chosen = expert.choose(seen, legal)
            if hand.phase in (Phase.DRAW, Phase.OFFER):
                assert chosen == base.choose(seen, legal)
                draws += 1
            elif chosen != base.choose(seen, legal):
                changed += 1
            hand.apply(chosen)
    assert draws > 20
    assert changed >= 1


def test_play_out_discards_avoid_feeding_known_cards() -> None:
    """With ``known`` cards, a play-out's discard keeps a card next to one the next player is
    known to hold, while another loose card can go."""
    from ginrummy.bots.rollout import _near, policy_discard
    hand = mask("Ks Qd 9c 4h As 2s 3s 5d 5c 5h 8h")
    assert policy_discard(hand, None)[0] == mask("Ks").bit_length() - 1
    avoid = _near(mask("Kh"))  # the next player holds Kh: Ks would feed him
    assert avoid == mask("Ks Kc Kd Qh")
    card, _ = policy_discard(hand, None, None, avoid)
    assert card == mask("Qd").bit_length() - 1
    everything = mask("Ks Qd 9c 8h 4h")  # every loose card is dangerous: the usual choice
    assert policy_discard(hand, None, None, everything)[0] == mask("Ks").bit_length() - 1


def test_more_worlds_do_not_lower_the_bar_to_override() -> None:
    """An override needs ``CONFIDENCE`` standard errors counted over at most
    ``EVIDENCE_WORLDS`` worlds: a small gain the play-outs may owe to their bias does not
    pass however many worlds measured it; a large one does; the default is kept otherwise."""
    from ginrummy.actions import Discard
    from ginrummy.bots.expert import CONFIDENCE, EVIDENCE_WORLDS, _Candidate, _override

    def candidate(card: int, values: list[float]) -> _Candidate:
        return _Candidate(Discard(card), lambda world: 0.0, "", True, values=values)

    worlds = 20 * EVIDENCE_WORLDS
    noise = [(-1.0) ** i for i in range(worlds)]  # paired differences of spread 1
    default = candidate(0, [0.0] * worlds)
    plain_error = 1.0 / worlds ** 0.5
    capped_error = 1.0 / EVIDENCE_WORLDS ** 0.5
    small = 2 * CONFIDENCE * plain_error  # enough for a plain standard error, not the cap's
    assert CONFIDENCE * plain_error < small < CONFIDENCE * capped_error
    slight = candidate(1, [small + x for x in noise])
    assert _override(default, [slight]) is default
    clear = candidate(2, [2 * CONFIDENCE * capped_error + x for x in noise])
    assert _override(default, [slight, clear]) is clear
    few = noise[:EVIDENCE_WORLDS]  # up to the cap the plain standard error decides
    enough = candidate(3, [1.2 * CONFIDENCE * capped_error + x for x in few])
    assert _override(candidate(0, [0.0] * EVIDENCE_WORLDS), [enough]) is enough
