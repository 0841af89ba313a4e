"""One evaluator for every legal choice of a decision: the coach's and the hint key's.

``evaluate(view, legal, budget_ms, seed)`` values *every* legal choice of the player to move
(plus any ``extra`` action, such as a move played that the engine lists differently) on the
*same* sampled worlds (common random numbers): the opponents' hands drawn from the belief of
:mod:`ginrummy.bots.belief`, the rest as the stock, each choice played out with the expert's
fast policy (:mod:`ginrummy.bots.rollout`; a knock scored exactly). Worlds are added in
batches until the ranking is *settled* or the budget is spent:

- at least ``MIN_WORLDS`` worlds (unless the budget is spent before, see below);
- settled: every choice other than the best is either clearly a mistake (its loss exceeds
  ``max(SETTLED_ERRORS`` standard errors, ``MISTAKE_POINTS)``) or clearly not one (its loss
  plus ``MISTAKE_ERRORS`` standard errors stays within ``MISTAKE_POINTS``);
- from ``MIN_WORLDS`` on, a choice clearly worse than the leader (the highest mean among
  the choices played out in every world so far) by the same bound is dropped: it keeps
  the worlds it was played out in, and the work goes to the choices still in contention;
  its loss is paired with the best's scores over its worlds and its value is the best's
  less that loss, so no listed choice is valued above the best (a dropped choice that is
  not clearly worse than the final best is played out in the worlds it missed);
- the budget is calibrated work (the expert's ``PLAYOUT_COST_MS`` per play-out,
  ``KNOCK_COST_MS`` per knock), never the clock: the same view, budget and seed always give
  the same values on every machine.

The *best* choice is the highest-valued by definition; every choice carries its value's
standard error and its *loss* (the best's value less its own, computed world by world) with
the loss's standard error. A choice is a *mistake* only when its loss exceeds the noise:
more than ``MISTAKE_ERRORS`` standard errors and at least ``MISTAKE_POINTS`` points.

A layoff is valued exactly (the hands are shown by then): the best defence and any other
layoff given in ``extra``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ginrummy.actions import Action, Discard, DrawDiscard, DrawStock, Knock, LayOff, Pass
from ginrummy.bots.belief import Belief, World, belief_of
from ginrummy.bots.expert import (
    KNOCK_COST_MS,
    PLAYOUT_COST_MS,
    ExpertBot,
    discard_scorer,
    knock_scorer,
    playout_rules,
)
from ginrummy.bots.rollout import PlayoutRules, hand_value, knock_result
from ginrummy.bots.simple import knock_deadwood
from ginrummy.cards import CARD_VALUES
from ginrummy.engine import Phase
from ginrummy.scoring import score_hand
from ginrummy.solver import deadwood_mask
from ginrummy.views import PlayerView

__all__ = [
    "BATCH",
    "MAX_WORLDS",
    "MIN_WORLDS",
    "MISTAKE_ERRORS",
    "MISTAKE_POINTS",
    "SETTLED_ERRORS",
    "Evaluated",
    "Valued",
    "action_key",
    "evaluate",
    "is_mistake",
]

MIN_WORLDS = 8
"""Worlds sampled at least, when the budget allows (a standard error needs a few)."""
MAX_WORLDS = 2000
BATCH = 4
"""Worlds added between two checks of whether the ranking is settled."""
MISTAKE_ERRORS = 2.0
"""A loss is a mistake only beyond this many standard errors of the loss..."""
MISTAKE_POINTS = 1.0
"""...and at least this many points."""
SETTLED_ERRORS = 3.0
"""The search stops early only when every choice's loss is beyond this many standard
errors (and ``MISTAKE_POINTS``), or within ``MISTAKE_POINTS`` by ``MISTAKE_ERRORS``
standard errors: a stricter bound than the mistake's, since stopping as soon as a loss
looks big would call noise a mistake more often than 2 standard errors promise."""

Scorer = Callable[[World], float]
ActionKey = tuple[Any, ...]


def is_mistake(loss: float, error: float) -> bool:
    """Whether a loss of ``loss`` points with standard error ``error`` exceeds the noise."""
    return loss > max(MISTAKE_ERRORS * error, MISTAKE_POINTS)


def action_key(action: Action) -> ActionKey:
    """An action's identity whatever the order of its melds and their cards."""
    if isinstance(action, Knock):
        return ("knock", action.discard, frozenset(frozenset(m) for m in action.melds))
    if isinstance(action, LayOff):
        return ("layoff", frozenset(frozenset(m) for m in action.melds),
                frozenset(action.layoffs))
    return ("other", action)


@dataclass(frozen=True)
class Valued:
    """One choice: its value (mean points of the hand for the player to move) and standard
    error over ``samples`` worlds, its loss against the best (world by world) and the loss's
    standard error, and a short note (``deadwood 12``, ``knock, deadwood 3``)."""

    action: Action
    value: float
    error: float
    loss: float
    loss_error: float
    samples: int
    note: str = ""

    @property
    def mistake(self) -> bool:
        """Its loss exceeds the noise (:func:`is_mistake`)."""
        return is_mistake(self.loss, self.loss_error)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values (the action in record notation)."""
        return {"action": str(self.action), "value": round(self.value, 2),
                "error": round(self.error, 2), "loss": round(self.loss, 2),
                "loss_error": round(self.loss_error, 2), "samples": self.samples,
                "note": self.note, "mistake": self.mistake}


@dataclass(frozen=True)
class Evaluated:
    """Every choice of one decision, best (highest value) first, then by value; the worlds
    sampled, the calibrated work done (ms) and whether the ranking was settled before the
    budget ran out."""

    choices: tuple[Valued, ...]
    worlds: int
    work_ms: float
    settled: bool

    @property
    def best(self) -> Valued:
        """The highest-valued choice."""
        return self.choices[0]

    def find(self, action: Action) -> Valued:
        """The choice of ``action`` (``KeyError`` if it was not valued)."""
        key = action_key(action)
        for choice in self.choices:
            if action_key(choice.action) == key:
                return choice
        raise KeyError(str(action))


def note_of(hand: int, action: Action) -> str:
    """A short note on a choice: the deadwood a discard leaves, a knock's deadwood."""
    if isinstance(action, Knock):
        deadwood = knock_deadwood(hand, action)
        if deadwood == 0:
            return "big gin" if action.discard is None else "gin"
        return f"knock, deadwood {deadwood}"
    if isinstance(action, Discard):
        return f"deadwood {deadwood_mask(hand & ~(1 << action.card))}"
    return ""


def scorer_of(view: PlayerView, action: Action, ctx: PlayoutRules) -> tuple[Scorer, float]:
    """The play-out scorer of ``action`` at ``view`` and its calibrated cost per world."""
    seat = view.seat
    assert seat is not None
    hand = view.hand_mask
    if isinstance(action, Knock):
        return knock_scorer(ctx, seat, hand, action), KNOCK_COST_MS
    if isinstance(action, Discard):
        return discard_scorer(ctx, seat, hand, action.card), PLAYOUT_COST_MS
    if isinstance(action, (Pass, DrawStock, DrawDiscard)):
        draws = ExpertBot(0).draw_candidates(view, [action], ctx)
        if draws:
            return draws[0].score, PLAYOUT_COST_MS
    raise ValueError(f"cannot value {action} in the {view.phase.value} phase")


def world_rng(view: PlayerView, seed: int) -> random.Random:
    """The generator of the worlds of ``view``'s decision (the expert's key for its seed)."""
    return ExpertBot(seed).rng_for(view)


def _mean_error(values: Sequence[float]) -> tuple[float, float]:
    n = len(values)
    if n == 0:
        return 0.0, 0.0
    mean = sum(values) / n
    if n < 2:
        return mean, math.inf
    spread = sum((x - mean) ** 2 for x in values) / (n - 1)
    return mean, math.sqrt(spread / n)


def _paired_loss(top: Sequence[float], other: Sequence[float]) -> tuple[float, float]:
    """The mean loss of ``other`` against ``top`` over the worlds both were scored in (the
    first ``len(other)``), world by world, and its standard error."""
    return _mean_error([b - v for b, v in zip(top, other, strict=False)])


def _top(scores: Sequence[list[float]], full: int) -> int:
    """The highest mean among the choices scored in every one of the ``full`` worlds."""
    return max((i for i in range(len(scores)) if len(scores[i]) == full),
               key=lambda i: (sum(scores[i]) / max(full, 1), -i))


def _rank(actions: Sequence[Action], scores: Sequence[list[float]], notes: Sequence[str]
          ) -> list[Valued]:
    """Every choice valued, best first: the best is the highest mean among the choices
    scored in every world; each other choice's loss is paired with the best's scores world
    by world over the worlds it was scored in, and its value is the best's less that loss
    (for a choice scored in every world, its own mean)."""
    full = max(len(s) for s in scores)
    top = _top(scores, full)
    best_value = _mean_error(scores[top])[0]
    out = []
    for i, action in enumerate(actions):
        own_error = _mean_error(scores[i])[1]
        if i == top:
            loss, loss_error = 0.0, 0.0
        else:
            loss, loss_error = _paired_loss(scores[top], scores[i])
        out.append(Valued(action, best_value - loss, own_error, loss, loss_error,
                          len(scores[i]), notes[i]))
    order = sorted(range(len(out)), key=lambda i: (i != top, -out[i].value, i))
    return [out[i] for i in order]


def _clearly_worse(loss: float, error: float) -> bool:
    """A loss beyond ``SETTLED_ERRORS`` standard errors and ``MISTAKE_POINTS``."""
    return loss > max(SETTLED_ERRORS * error, MISTAKE_POINTS)


def _settled(ranked: Sequence[Valued]) -> bool:
    """Every choice but the best is clearly a mistake or clearly not one."""
    for choice in ranked[1:]:
        if _clearly_worse(choice.loss, choice.loss_error):
            continue
        if choice.loss + MISTAKE_ERRORS * choice.loss_error > MISTAKE_POINTS:
            return False
    return True


def _unique(actions: Sequence[Action]) -> list[Action]:
    return list({action_key(a): a for a in actions}.values())


def evaluate(view: PlayerView, legal: Sequence[Action], budget_ms: float, seed: int = 0,
             extra: Sequence[Action] = (), belief: Belief | None = None) -> Evaluated:
    """Every legal choice (and ``extra``) of the player to move valued on the same worlds
    (see the module docstring). ``ValueError`` when it is not ``view.seat``'s turn, there
    is nothing to choose from, or the budget is not positive."""
    if view.seat is None:
        raise ValueError("an evaluation needs a player's view, not a spectator's")
    if view.to_move != view.seat:
        raise ValueError(f"seat {view.seat} is not to move (seat {view.to_move} is)")
    if not legal:
        raise ValueError("no legal action to choose from")
    if not budget_ms > 0:
        raise ValueError(f"budget {budget_ms!r} ms: it must be a positive number")
    actions = _unique([*legal, *extra])
    if view.phase is Phase.LAYOFF:
        return _layoffs(view, actions)
    hand = view.hand_mask
    notes = [note_of(hand, a) for a in actions]
    if len(actions) == 1:
        only = Valued(actions[0], 0.0, 0.0, 0.0, 0.0, 0, notes[0])
        return Evaluated((only,), 0, 0.0, True)
    if belief is None:
        belief = belief_of(view)
    ctx = playout_rules(view, belief)
    scorers = [scorer_of(view, a, ctx) for a in actions]
    rng = world_rng(view, seed)
    scores: list[list[float]] = [[] for _ in actions]
    active = list(range(len(actions)))
    worlds: list[World] = []
    spent = 0.0
    settled = False
    while len(worlds) < MAX_WORLDS:
        every = sum(scorers[i][1] for i in active)
        if len(worlds) >= MIN_WORLDS and spent + BATCH * every > budget_ms:
            break
        for _ in range(BATCH):
            world = belief.sample(rng)
            worlds.append(world)
            for i in active:
                scores[i].append(scorers[i][0](world))
        spent += BATCH * every
        if len(worlds) >= MIN_WORLDS:
            if _settled(_rank(actions, scores, notes)):
                settled = True
                break
            active = _contenders(scores, active)
    spent += _catch_up(scores, scorers, worlds)
    ranked = _rank(actions, scores, notes)
    return Evaluated(tuple(ranked), len(worlds), round(spent, 2), settled)


def _contenders(scores: Sequence[list[float]], active: list[int]) -> list[int]:
    """The choices still worth scoring: those not clearly worse than the leader (the
    highest mean among the choices scored so far in every world). The others keep the
    worlds they were scored in; the work goes to the contenders."""
    top = _top(scores, len(scores[active[0]]))
    return [i for i in active
            if i == top or not _clearly_worse(*_paired_loss(scores[top], scores[i]))]


def _catch_up(scores: Sequence[list[float]], scorers: Sequence[tuple[Scorer, float]],
              worlds: Sequence[World]) -> float:
    """A choice dropped against an earlier leader that is no longer clearly worse than the
    final best is scored in the worlds it missed (rare); the work this took."""
    spent = 0.0
    full = len(worlds)
    while True:
        top = _top(scores, full)
        late = [i for i in range(len(scores)) if len(scores[i]) < full
                and not _clearly_worse(*_paired_loss(scores[top], scores[i]))]
        if not late:
            return spent
        for i in late:
            score, cost = scorers[i]
            spent += cost * (full - len(scores[i]))
            scores[i].extend(score(w) for w in worlds[len(scores[i]):])


def layoff_value(view: PlayerView, action: LayOff) -> float:
    """The exact value of a defender's layoff once the hands are shown: the other
    defenders lay off at their best, this seat keeps what its layoff leaves."""
    knock, revealed, seat = view.knock, view.revealed_masks, view.seat
    if knock is None or revealed is None or seat is None:
        return 0.0
    ctx = playout_rules(view)
    best = knock_result(ctx, revealed, knock.knocker, revealed[knock.knocker], knock.melds)
    left = view.hand_mask
    for meld in action.melds:
        for card in meld:
            left &= ~(1 << card)
    for card, _meld in action.layoffs:
        left &= ~(1 << card)
    deadwood = list(best.deadwood)
    deadwood[seat] = sum(CARD_VALUES[c] for c in range(52) if left >> c & 1)
    result = score_hand(view.rules, knock.knocker, deadwood, False, False, ctx.spade_upcard)
    return hand_value(ctx, result, seat)


def _layoffs(view: PlayerView, actions: Sequence[Action]) -> Evaluated:
    """Layoffs valued exactly (no sampling: no noise)."""
    values = [layoff_value(view, a) if isinstance(a, LayOff) else 0.0 for a in actions]
    top = max(range(len(actions)), key=lambda i: (values[i], -i))
    valued = [Valued(a, values[i], 0.0, values[top] - values[i], 0.0, 1,
                     "best defence" if i == top else "")
              for i, a in enumerate(actions)]
    order = sorted(range(len(valued)), key=lambda i: (i != top, -valued[i].value, i))
    return Evaluated(tuple(valued[i] for i in order), 1, 0.0, True)
