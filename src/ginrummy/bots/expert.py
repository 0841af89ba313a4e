"""The ``expert`` player: belief-weighted determinization with fast play-outs.

For each decision the expert

1. builds a per-card belief of the opponents' hands from its view
   (:mod:`ginrummy.bots.belief`);
2. lists the candidate actions: take or pass / draw from the stock, the few discards that
   leave the least deadwood plus the one the opponents are least likely to want, each knock
   (with every least-deadwood arrangement of the melds it could lay down), gin at once when
   it can; layoffs are the engine's best defence;
3. samples *worlds* (the opponents' hands drawn from the belief, the rest as a random stock)
   and scores every candidate in every world (common random numbers): a knock exactly
   (layoffs included), anything else by playing the hand out with a fast policy for every
   seat (:mod:`ginrummy.bots.rollout`); candidates clearly worse than the default (below)
   stop being scored, leaving the work to the others;
4. plays the *default*, the choice of :class:`BasePolicy` (the ``intermediate`` player
   with two tuned weights), unless another candidate beats it in the same worlds by a
   margin the samples support (``CONFIDENCE`` standard errors of the paired gain, counting
   at most ``EVIDENCE_WORLDS`` worlds) and is a change the search may make (``OVERRIDES``:
   not the draw).

Reproducibility: the work is planned from the budget alone (``budget_ms`` of calibrated
cost: ``PLAYOUT_COST_MS`` per play-out, ``KNOCK_COST_MS`` per knock scored, at least
``MIN_WORLDS`` worlds), never from the clock, and each decision draws from a generator
seeded with the bot's seed and the position. The clock is only a safety stop, at
``SAFETY_FACTOR`` times the planned time (a machine much slower than the calibration one, or
a heavily loaded one); with ``safety_stop=False`` it is never read. So a given seed, budget
and view always give the same action unless the safety stop fires.
"""

from __future__ import annotations

import math
import random
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ginrummy.actions import (
    Action,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    LayOff,
    Pass,
)
from ginrummy.bots.belief import FAR_PARTNERS, NEAR_PARTNERS, Belief, World, belief_of
from ginrummy.bots.intermediate import IntermediateBot
from ginrummy.bots.rollout import (
    DISCARD,
    DRAW,
    OFFER,
    PlayoutRules,
    knock_value,
    play_out,
    policy_discard,
)
from ginrummy.bots.simple import knock_deadwood
from ginrummy.cards import CARD_VALUES
from ginrummy.engine import Phase
from ginrummy.solver import best_arrangements, deadwood_mask
from ginrummy.solver.discards import discard_deadwoods_mask
from ginrummy.views import PlayerView

__all__ = [
    "DEFAULT_BUDGET_MS",
    "Analysis",
    "Evaluation",
    "ExpertBot",
]

DEFAULT_BUDGET_MS = 20.0
"""The default per-move budget (milliseconds). Over the same 600 ``eaai`` matches against
``intermediate`` (seed 29) the expert won 60.8% at 20 ms and 61.0% at 250 ms (see
``EVIDENCE_WORLDS``): more time buys steadier values (the advisor uses 250 ms), not a
measurably stronger game, so play takes the cheaper budget (docs/bots.md)."""
PLAYOUT_COST_MS = 0.28
"""Calibrated cost of one play-out (world sampling included) on one core: a little above
the measured average (0.26 ms of CPU over 255 decisions of beginner self-play positions),
so that the planned work fits the budget."""
KNOCK_COST_MS = 0.04
"""Calibrated cost of scoring one knock in one world."""
MIN_WORLDS = 6
MAX_WORLDS = 2000
SAFETY_FACTOR = 3.0
"""The search stops at this many times the planned time whatever the plan (unless the bot
was made with ``safety_stop=False``)."""
DISCARD_CANDIDATES = 4
"""How many of the least-deadwood discards are searched (plus the play-out policy's discard
and the safest card)."""
CONFIDENCE = 3.0
"""The expert plays the *default* (:class:`BasePolicy`'s choice) unless another candidate
beats it, over the same worlds, by this many standard errors of the mean paired difference:
noise alone does not make it deviate."""
EVIDENCE_WORLDS = 18
"""The play-outs misjudge some choices (their policy is simpler than the players'), and
such a bias does not average out over more worlds. So the standard error that decides an
override counts at most this many worlds, the median a decision samples at the default
budget: a bigger budget sharpens the estimates without lowering the bar. Against
``intermediate`` (the same 600 ``eaai`` matches, seed 29) the expert at 250 ms won 50.7%
without this cap and 61.0% with it (60.8% at 20 ms)."""
PRUNE_CONFIDENCE = 2.0
"""A candidate whose mean paired gain over the default is below 0 by this many standard
errors (after ``MIN_WORLDS`` worlds) is no longer scored: the work goes to the others."""
OVERRIDES = frozenset({"discard", "knock", "arrangement"})
"""With the :class:`BasePolicy` default, the kinds of change the search may make to it:
``discard`` (another discard), ``knock`` (knock instead of discarding, or the reverse),
``arrangement`` (other melds or another discard for the same knock), ``draw`` (the other
draw). Against ``intermediate`` over 400 duplicate hands each, searching the draw cost
about 1 point a hand at 20 ms and 2.6 at 100 ms (docs/bots.md): the play-outs misjudge it,
so the draw is left to the base policy."""
KNOCK_CANDIDATES = 3
"""How many knocks (least deadwood first) are searched, each with every arrangement."""


class BasePolicy(IntermediateBot):
    """The expert's default: the ``intermediate`` player with two parameters tuned by
    duplicate self-play (docs/bots.md): discards feed less weight to danger (2 instead of
    6) and late knocks wait for less deadwood (2 instead of 4)."""

    name = "expert-base"
    DANGER_WEIGHT = 2.0
    LATE_KNOCK_DEADWOOD = 2


_OFFER, _DRAW, _DISCARD, _LAYOFF = Phase.OFFER, Phase.DRAW, Phase.DISCARD, Phase.LAYOFF


@dataclass(frozen=True)
class Evaluation:
    """One candidate action and its estimated value (mean points of the hand for the seat
    to move, over ``samples`` worlds)."""

    action: Action
    value: float
    samples: int
    note: str = ""


@dataclass(frozen=True)
class Analysis:
    """The candidates of one decision, best first; how many worlds were sampled and the
    work done, in calibrated milliseconds."""

    evaluations: tuple[Evaluation, ...]
    worlds: int
    work_ms: float

    @property
    def best(self) -> Action:
        """The action the expert plays."""
        return self.evaluations[0].action


Scorer = Callable[[World], float]


@dataclass
class _Candidate:
    action: Action
    score: Scorer
    note: str
    playout: bool
    default: bool = False
    values: list[float] = field(default_factory=list)
    """Its score in each world, in the order sampled."""

    def mean(self) -> float:
        """Mean score over the worlds it was scored in."""
        return sum(self.values) / len(self.values) if self.values else 0.0


def _paired_gain(candidate: _Candidate, default: _Candidate) -> tuple[float, float]:
    """Mean gain of ``candidate`` over ``default`` in the worlds both were scored in, and
    its standard error."""
    diffs = [v - d for v, d in zip(candidate.values, default.values, strict=False)]
    n = len(diffs)
    if n < 2:
        return 0.0, math.inf
    mean = sum(diffs) / n
    spread = sum((x - mean) ** 2 for x in diffs) / (n - 1)
    return mean, math.sqrt(spread / n)


def _upper_gain(candidate: _Candidate, default: _Candidate) -> float:
    """An optimistic bound on the gain: below 0, the candidate is no longer scored."""
    gain, error = _paired_gain(candidate, default)
    return gain + PRUNE_CONFIDENCE * error


def _cost(candidate: _Candidate) -> float:
    return PLAYOUT_COST_MS if candidate.playout else KNOCK_COST_MS


def _override(default: _Candidate, rivals: Sequence[_Candidate]) -> _Candidate:
    """The candidate to play: the rival with the largest mean paired gain over ``default``
    among those the samples support (``CONFIDENCE`` standard errors, counting at most
    ``EVIDENCE_WORLDS`` worlds) and ``OVERRIDES`` allows; else ``default``."""
    chosen = default
    best_gain = 0.0
    for candidate in rivals:
        if not _may_override(default, candidate):
            continue
        gain, error = _paired_gain(candidate, default)
        worlds = min(len(candidate.values), len(default.values))
        if worlds > EVIDENCE_WORLDS:
            error *= math.sqrt(worlds / EVIDENCE_WORLDS)
        if gain > best_gain and gain > CONFIDENCE * error:
            chosen, best_gain = candidate, gain
    return chosen


def _may_override(default: _Candidate, candidate: _Candidate) -> bool:
    """Whether ``OVERRIDES`` lets the search play ``candidate`` instead of ``default``."""
    base, other = default.action, candidate.action
    if isinstance(base, Knock):
        kind = "arrangement" if isinstance(other, Knock) else "knock"
    elif isinstance(base, Discard):
        kind = "knock" if isinstance(other, Knock) else "discard"
    else:
        kind = "draw"
    return kind in OVERRIDES


class ExpertBot:
    """Belief-weighted determinization with fast play-outs (see the module docstring)."""

    name = "expert"

    def __init__(self, seed: int | None = None, budget_ms: float | None = None,
                 safety_stop: bool = True) -> None:
        if budget_ms is not None and not budget_ms > 0:
            raise ValueError(f"budget_ms must be positive, got {budget_ms!r}")
        self.seed = seed if seed is not None else secrets.randbits(63)
        self.budget_ms = DEFAULT_BUDGET_MS if budget_ms is None else float(budget_ms)
        self.safety_stop = safety_stop
        """With ``False`` the clock is never read: fully reproducible, even on a machine
        much slower than planned."""
        self._base = BasePolicy(self.seed)
        self.rank_all = False
        """Score every candidate, even those the search may not play (the advisor's
        ranking); the action chosen is the same."""

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """The best action found within the budget."""
        return self.analyse(view, legal).best

    # ----------------------------------------------------------------- analysis
    def analyse(self, view: PlayerView, legal: Sequence[Action]) -> Analysis:
        """Every candidate evaluated, best first."""
        if view.seat is None:
            raise ValueError("the expert needs a seat's view, not a spectator's")
        if not legal:
            raise ValueError("no legal action to choose from")
        phase = view.phase
        if phase is _LAYOFF:
            return self._layoff(view, legal)
        belief = belief_of(view)
        ctx = playout_rules(view, belief)
        if phase is _DISCARD:
            candidates = self._discard_candidates(view, legal, belief, ctx)
        elif phase is _OFFER or phase is _DRAW:
            candidates = self.draw_candidates(view, legal, ctx)
        else:
            raise ValueError(f"the expert cannot act in the {phase} phase")
        candidates = self._base_default(view, legal, belief, candidates, ctx)
        if len(candidates) == 1:
            only = candidates[0]
            return Analysis((Evaluation(only.action, 0.0, 0, only.note),), 0, 0.0)
        return self._search(view, belief, candidates)

    def _base_default(self, view: PlayerView, legal: Sequence[Action], belief: Belief,
                      candidates: list[_Candidate], ctx: PlayoutRules) -> list[_Candidate]:
        """Make the base policy's choice (:class:`BasePolicy`) the default the search must
        beat; unless ranking everything (the advisor), drop the candidates it may not
        override the default with (see ``OVERRIDES``)."""
        seat = view.seat
        assert seat is not None
        choice = self._base.decide(view, legal, belief.tracker)
        default = next((c for c in candidates if c.action == choice), None)
        if default is None:
            hand = view.hand_mask
            if isinstance(choice, Knock):
                default = _Candidate(choice, knock_scorer(ctx, seat, hand, choice),
                                     f"knock, deadwood {knock_deadwood(hand, choice)}", False)
            elif isinstance(choice, Discard):
                after = deadwood_mask(hand & ~(1 << choice.card))
                default = _Candidate(choice, discard_scorer(ctx, seat, hand, choice.card),
                                     f"deadwood {after}", True)
            else:
                return candidates
            candidates = [*candidates, default]
        for candidate in candidates:
            candidate.default = candidate is default
        if self.rank_all:
            return candidates
        return [c for c in candidates if c is default or _may_override(default, c)]

    def rng_for(self, view: PlayerView) -> random.Random:
        """The generator of this bot's samples at ``view``'s decision (the same decision
        always samples the same worlds: the coach re-creates them)."""
        key = (f"expert:{self.seed}:{view.seat}:{view.hand_number}:{len(view.log)}:"
               f"{view.hand_mask}:{view.phase.value}")
        return random.Random(key)

    def _search(self, view: PlayerView, belief: Belief,
                candidates: list[_Candidate]) -> Analysis:
        """Score the candidates in the same worlds until the planned work is done, dropping
        those clearly worse than the default on the way; then pick (see ``CONFIDENCE``)."""
        every = sum(_cost(c) for c in candidates)
        planned = max(self.budget_ms, MIN_WORLDS * every)
        rng = self.rng_for(view)
        deadline = (time.perf_counter() + SAFETY_FACTOR * planned / 1000.0
                    if self.safety_stop else math.inf)
        default = next((c for c in candidates if c.default), candidates[0])
        rivals = [c for c in candidates if c is not default]
        spent = 0.0
        worlds = 0
        while spent < planned and worlds < MAX_WORLDS and rivals:
            world = belief.sample(rng)
            for candidate in (default, *rivals):
                candidate.values.append(candidate.score(world))
                spent += _cost(candidate)
            worlds += 1
            if worlds >= MIN_WORLDS and worlds % 2 == 0:
                rivals = [c for c in rivals if _upper_gain(c, default) >= 0.0]
            if time.perf_counter() > deadline:
                break
        chosen = _override(default, rivals)
        rest = sorted((c for c in candidates if c is not chosen),
                      key=lambda c: c.mean(), reverse=True)
        evaluations = tuple(Evaluation(c.action, c.mean(), len(c.values), c.note)
                            for c in [chosen, *rest])
        return Analysis(evaluations, worlds, round(spent, 2))

    # ----------------------------------------------------------------- layoffs
    def _layoff(self, view: PlayerView, legal: Sequence[Action]) -> Analysis:
        """The engine's best defence; its value is exact once the hands are shown."""
        action = next((a for a in legal if isinstance(a, LayOff)), legal[0])
        value = 0.0
        knock = view.knock
        revealed = view.revealed_masks
        seat = view.seat
        if knock is not None and revealed is not None and seat is not None:
            ctx = playout_rules(view)
            value = knock_value(ctx, revealed, knock.knocker, revealed[knock.knocker],
                                knock.melds, seat)
        return Analysis((Evaluation(action, value, 1, "best defence"),), 1, 0.0)

    # ----------------------------------------------------------------- draws
    def draw_candidates(self, view: PlayerView, legal: Sequence[Action],
                         ctx: PlayoutRules) -> list[_Candidate]:
        """The draw choices (take, stock, pass) worth scoring, each with its scorer."""
        seat = view.seat
        assert seat is not None
        top = view.top_discard
        n = ctx.players
        out: list[_Candidate] = []
        for action in legal:
            if isinstance(action, DrawDiscard) and top is not None:
                out.append(_Candidate(action, _take_scorer(ctx, seat, top), "", True))
            elif isinstance(action, DrawStock):
                out.append(_Candidate(action, _stock_scorer(ctx, seat, top), "", True))
            elif isinstance(action, Pass) and top is not None:
                passes = sum(1 for e in view.log if isinstance(e.action, Pass)) + 1
                if view.rules.offer_closed(passes):
                    score = _after_offer_scorer(ctx, seat, (view.dealer + 1) % n, top)
                else:
                    score = _pass_scorer(ctx, seat, (seat + 1) % n, top, passes)
                out.append(_Candidate(action, score, "", True))
        return out

    # ----------------------------------------------------------------- discards
    def _discard_candidates(self, view: PlayerView, legal: Sequence[Action], belief: Belief,
                            ctx: PlayoutRules) -> list[_Candidate]:
        seat = view.seat
        assert seat is not None
        hand = view.hand_mask
        knocks = [a for a in legal if isinstance(a, Knock)]
        gins = [k for k in knocks if knock_deadwood(hand, k) == 0]
        if gins:
            best = next((k for k in gins if k.discard is None), gins[0])
            note = "big gin" if best.discard is None else "gin"
            return [_Candidate(best, knock_scorer(ctx, seat, hand, best), note, False)]
        allowed = {a.card: a for a in legal if isinstance(a, Discard)}
        after = {card: dw for dw, card in discard_deadwoods_mask(hand) if card in allowed}
        ranked = sorted(allowed, key=lambda c: (after[c], -CARD_VALUES[c], -c))
        chosen = ranked[:DISCARD_CANDIDATES]
        forbidden = view.taken if view.rules.no_rediscard_of_taken_card else None
        policy_card, _ = policy_discard(hand, forbidden)
        if policy_card in allowed and policy_card not in chosen:
            chosen.append(policy_card)
        if ranked:
            floor = after[ranked[0]]
            danger = _danger(belief, (seat + 1) % ctx.players)
            safe = min((c for c in ranked if after[c] <= floor + 8),
                       key=lambda c: (danger(c), after[c], -c))
            if safe not in chosen:
                chosen.append(safe)
        out = [_Candidate(allowed[card], discard_scorer(ctx, seat, hand, card),
                          f"deadwood {after[card]}", True) for card in chosen]
        knocks.sort(key=lambda k: knock_deadwood(hand, k))
        for knock in knocks[:KNOCK_CANDIDATES]:
            rest = hand if knock.discard is None else hand & ~(1 << knock.discard)
            arrangements = [knock.melds] + [a.melds for a in best_arrangements(rest)
                                            if set(a.melds) != set(knock.melds)]
            for melds in arrangements:
                action = Knock(knock.discard, melds)
                out.append(_Candidate(action, knock_scorer(ctx, seat, hand, action),
                                      f"knock, deadwood {knock_deadwood(hand, action)}",
                                      False))
        return out


def playout_rules(view: PlayerView, belief: Belief | None = None) -> PlayoutRules:
    """The play-outs' rules and known cards at ``view`` (with ``belief``: the tracked
    opponent cards)."""
    known = None
    if belief is not None:
        tracker = belief.tracker
        held = list(tracker.held_known)
        held[tracker.seat] = tracker.taken[tracker.seat] & tracker.hand
        known = tuple(held)
    return PlayoutRules(view.rules, len(view.counts), view.knock_limit, view.dealer,
                        view.upcard // 13 == 0, view.scores, known)


def _danger(belief: Belief, seat: int) -> Callable[[int], float]:
    """How much ``seat`` (the next player) is expected to want a card: the belief's
    probabilities of the cards that would meld with it."""
    probs = belief.probabilities[seat]
    known = belief.tracker.held_known[seat]

    def danger(card: int) -> float:
        total = 0.0
        near = NEAR_PARTNERS[card]
        far = FAR_PARTNERS[card]
        for partner, p in probs.items():
            if near >> partner & 1:
                total += p
            elif far >> partner & 1:
                total += 0.5 * p
        total += (near & known).bit_count() + 0.5 * (far & known).bit_count()
        return total

    return danger


# ----------------------------------------------------------------- scorers (one per world)
def _take_scorer(ctx: PlayoutRules, seat: int, top: int) -> Scorer:
    def score(world: World) -> float:
        hands = list(world.hands)
        hands[seat] |= 1 << top
        return play_out(ctx, hands, list(world.stock), None, seat, DISCARD, seat, taken=top)
    return score


def _stock_scorer(ctx: PlayoutRules, seat: int, top: int | None) -> Scorer:
    def score(world: World) -> float:
        hands = list(world.hands)
        stock = list(world.stock)
        if not stock:
            return 0.0
        hands[seat] |= 1 << stock.pop()
        return play_out(ctx, hands, stock, top, seat, DISCARD, seat)
    return score


def _pass_scorer(ctx: PlayoutRules, seat: int, following: int, top: int,
                 passes: int) -> Scorer:
    def score(world: World) -> float:
        return play_out(ctx, list(world.hands), list(world.stock), top, following, OFFER,
                        seat, passes=passes)
    return score


def _after_offer_scorer(ctx: PlayoutRules, seat: int, first: int, top: int) -> Scorer:
    """Everybody passed: the first player draws from the stock (R3.5)."""
    def score(world: World) -> float:
        hands = list(world.hands)
        stock = list(world.stock)
        hands[first] |= 1 << stock.pop()
        return play_out(ctx, hands, stock, top, first, DISCARD, seat)
    return score


def discard_scorer(ctx: PlayoutRules, seat: int, hand: int, card: int) -> Scorer:
    """Scores discarding ``card`` from ``hand`` (a card mask) in one sampled world."""
    rest = hand & ~(1 << card)
    floor = ctx.stock_floor
    following = (seat + 1) % ctx.players

    def score(world: World) -> float:
        if len(world.stock) <= floor:
            return 0.0
        hands = list(world.hands)
        hands[seat] = rest
        return play_out(ctx, hands, list(world.stock), card, following, DRAW, seat)
    return score


def knock_scorer(ctx: PlayoutRules, seat: int, hand: int, knock: Knock) -> Scorer:
    """Scores ``knock`` from ``hand`` (a card mask) in one sampled world."""
    rest = hand if knock.discard is None else hand & ~(1 << knock.discard)
    melds = knock.melds

    def score(world: World) -> float:
        hands = list(world.hands)
        hands[seat] = rest
        return knock_value(ctx, hands, seat, rest, melds, seat)
    return score
