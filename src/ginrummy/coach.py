"""The coach: after a match, where one player lost points (docs/coach.md).

For every decision of one seat in a game record (docs/records.md) the coach asks the advisor
(:func:`ginrummy.bots.advisor.advise`, the expert behind the hint key and ``ginrummy analyze
--record``) for its ranked candidates, from that seat's view at the time: only what the
player could know then, never the stock order or another seat's hidden cards. The legal
choices the advisor did not rank (a discard that breaks a meld, a knock it skipped) and the
move actually played are scored by the same play-outs in the *same* sampled worlds (the
advisor's seed and position key give them back), so every value of a decision is comparable
with the others. The *best* choice is the expert's own (the advisor's first: the base
policy's choice unless the search beat it clearly, so not always the highest mean, whose
lead may be noise); a decision's *cost* is the best choice's value less the value of the
move played, never below 0.

Values are points of the hand for the seat to move (match points won minus lost, in the
single-hand game the others' mean penalty minus its own), as the advisor gives them: the
coach's values of the advisor's candidates are the advisor's own, at the same budget and
seed.

Accuracy is the share of the player's real decisions (those with more than one legal
choice) whose cost is at most :data:`ACCURATE_WITHIN` points, as a percentage.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ginrummy.actions import (
    Action,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    LayOff,
    Pass,
    parse_action,
)
from ginrummy.bots.advisor import Advice, advise
from ginrummy.bots.belief import World, belief_of
from ginrummy.bots.expert import (
    KNOCK_COST_MS,
    MAX_WORLDS,
    MIN_WORLDS,
    PLAYOUT_COST_MS,
    ExpertBot,
    discard_scorer,
    knock_scorer,
    playout_rules,
)
from ginrummy.bots.rollout import hand_value, knock_result
from ginrummy.bots.simple import knock_deadwood
from ginrummy.cards import CARD_VALUES, card_name
from ginrummy.engine import CHANCE, Phase
from ginrummy.records import GameRecord
from ginrummy.scoring import score_hand
from ginrummy.solver import deadwood_mask
from ginrummy.views import PlayerView, view

__all__ = [
    "ACCURATE_WITHIN",
    "DEFAULT_COACH_BUDGET_MS",
    "KINDS",
    "Choice",
    "CoachReport",
    "Position",
    "Verdict",
    "coach_record",
    "coach_record_json",
    "judge",
    "positions",
]

DEFAULT_COACH_BUDGET_MS = 100.0
"""The advisor's budget per decision when none is given (the hint key uses 250 ms)."""
ACCURATE_WITHIN = 1.0
"""A decision counts as accurate when it cost at most this many points against the best."""
COSTLIEST = 3
"""How many of the costliest moves the summary names."""
KINDS = ("draw", "discard", "knock", "layoff")
"""The kinds of decision the summary adds points lost by: the draw (or the upcard offer),
the discard, the knock's timing (knock or play on, which discard and melds for a knock) and
the layoffs."""

_Key = tuple[Any, ...]
Scorer = Callable[[World], float]


@dataclass(frozen=True)
class Position:
    """A decision of the coached seat: its view then, its legal choices and what it played."""

    hand: int
    """The hand, from 1."""
    move: int
    """The hand's move played here, from 1 (``analyze --record --move``'s numbering)."""
    seat: int
    view: PlayerView
    legal: tuple[Action, ...]
    played: Action


@dataclass(frozen=True)
class Choice:
    """One legal choice and its value (points of the hand for the player), over ``samples``
    worlds; ``advised``: ranked by the advisor (else scored by the coach in its worlds)."""

    action: str
    value: float
    samples: int
    note: str
    advised: bool

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {"action": self.action, "value": round(self.value, 2), "samples": self.samples,
                "note": self.note, "advised": self.advised}


@dataclass(frozen=True)
class Verdict:
    """The coach's verdict on one decision."""

    hand: int
    move: int
    seat: int
    phase: str
    kind: str
    """One of :data:`KINDS`."""
    cards: tuple[str, ...]
    top_discard: str | None
    choices: tuple[Choice, ...]
    """The advisor's ranking first (the expert's own choice, then by value), then the other
    legal choices by value."""
    played: str
    played_value: float
    best: str
    best_value: float
    cost: float
    """``best_value - played_value``, never below 0 (``best``: the expert's choice)."""
    forced: bool
    """Only one legal choice: not counted in the accuracy."""

    @property
    def accurate(self) -> bool:
        """Within :data:`ACCURATE_WITHIN` points of the best."""
        return self.cost <= ACCURATE_WITHIN

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {"hand": self.hand, "move": self.move, "seat": self.seat, "phase": self.phase,
                "kind": self.kind, "cards": list(self.cards), "top_discard": self.top_discard,
                "choices": [c.to_dict() for c in self.choices], "played": self.played,
                "played_value": round(self.played_value, 2), "best": self.best,
                "best_value": round(self.best_value, 2), "cost": round(self.cost, 2),
                "forced": self.forced, "accurate": self.accurate}


@dataclass(frozen=True)
class CoachReport:
    """Every verdict of one seat in a record, and the match's summary."""

    seat: int
    player: str
    budget_ms: float
    seed: int
    finished: bool
    verdicts: tuple[Verdict, ...]
    max_decisions: int | None = None
    """The most decisions analysed (``None``: every one)."""
    not_analysed: int = 0
    """The seat's decisions past ``max_decisions``, left out (the last ones)."""

    def summary(self) -> dict[str, Any]:
        """Points lost by kind, per hand, the costliest moves and the accuracy."""
        real = [v for v in self.verdicts if not v.forced]
        lost = {kind: round(sum((v.cost for v in real if v.kind == kind), 0.0), 2)
                for kind in KINDS}
        hands: dict[int, float] = {}
        for v in real:
            hands[v.hand] = hands.get(v.hand, 0.0) + v.cost
        costliest = sorted(real, key=lambda v: (-v.cost, v.hand, v.move))[:COSTLIEST]
        accurate = sum(1 for v in real if v.accurate)
        return {
            "decisions": len(self.verdicts),
            "counted": len(real),
            "accurate": accurate,
            "accuracy": None if not real else round(100.0 * accurate / len(real), 1),
            "accurate_within": ACCURATE_WITHIN,
            "lost": lost,
            "total_lost": round(sum((v.cost for v in real), 0.0), 2),
            "lost_by_hand": [{"hand": h, "lost": round(c, 2)} for h, c in sorted(hands.items())],
            "costliest": [{"hand": v.hand, "move": v.move, "kind": v.kind, "played": v.played,
                           "best": v.best, "cost": round(v.cost, 2)} for v in costliest],
        }

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values (``ginrummy coach --json``, the coach route)."""
        return {"seat": self.seat, "player": self.player, "budget_ms": self.budget_ms,
                "seed": self.seed, "finished": self.finished,
                "max_decisions": self.max_decisions, "not_analysed": self.not_analysed,
                "summary": self.summary(), "verdicts": [v.to_dict() for v in self.verdicts]}


# ----------------------------------------------------------------------------- positions
def positions(record: GameRecord, seat: int) -> list[Position]:
    """Every decision of ``seat`` in the record, each with ``seat``'s view at the time.
    ``ValueError`` names a seat the record does not have; ``RecordError`` a bad record."""
    players = record.rules.players
    if not 0 <= seat < players:
        raise ValueError(f"seat {seat}: the record has seats 0 to {players - 1}")
    found: list[Position] = []
    for match, index, done in record.replay_states():
        hand = match.hand
        if hand.over or hand.to_move != seat or hand.to_move == CHANCE:
            continue
        actions = record.hands[index].get("actions", [])
        move = done + 2
        if move > len(actions):
            continue  # the record stops here (a player quit): nothing was played
        legal = tuple(hand.legal_actions())
        played = parse_action(actions[move - 1])
        found.append(Position(index + 1, move, seat, view(match, seat), legal, played))
    return found


# ----------------------------------------------------------------------------- judging
def _key(action: Action) -> _Key:
    """An action's identity whatever the order of its melds and their cards."""
    if isinstance(action, Knock):
        return ("knock", action.discard, frozenset(frozenset(m) for m in action.melds))
    if isinstance(action, LayOff):
        return ("layoff", frozenset(frozenset(m) for m in action.melds),
                frozenset(action.layoffs))
    return ("other", action)


def _kind(phase: Phase, played: Action, best: Action) -> str:
    if phase is Phase.LAYOFF:
        return "layoff"
    if phase is Phase.DISCARD:
        return "knock" if isinstance(played, Knock) or isinstance(best, Knock) else "discard"
    return "draw"


def _note(hand: int, action: Action) -> str:
    if isinstance(action, Knock):
        deadwood = knock_deadwood(hand, action)
        return "gin" if deadwood == 0 else f"knock, deadwood {deadwood}"
    if isinstance(action, Discard):
        return f"deadwood {deadwood_mask(hand & ~(1 << action.card))}"
    return ""


def _scorer(view: PlayerView, action: Action, belief: Any, ctx: Any) -> tuple[Scorer, float]:
    """The expert's play-out scorer of ``action`` and its calibrated cost per world."""
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
    raise ValueError(f"the coach cannot score {action} in the {view.phase.value} phase")


def _worlds(view: PlayerView, seed: int, belief: Any, count: int) -> list[World]:
    """The first ``count`` worlds the advisor sampled for ``view`` (same seed, same key)."""
    rng: random.Random = ExpertBot(seed).rng_for(view)
    return [belief.sample(rng) for _ in range(count)]


def _layoff_value(v: PlayerView, action: LayOff) -> float:
    """The exact value of a defender's layoff once the hands are shown: the others defend at
    their best, this seat keeps what its layoff leaves."""
    knock, revealed, seat = v.knock, v.revealed_masks, v.seat
    if knock is None or revealed is None or seat is None:
        return 0.0
    ctx = playout_rules(v)
    best = knock_result(ctx, revealed, knock.knocker, revealed[knock.knocker], knock.melds)
    left = v.hand_mask
    for meld in action.melds:
        for card in meld:
            left &= ~(1 << card)
    for card, _meld in action.layoffs:
        left &= ~(1 << card)
    deadwood = list(best.deadwood)
    deadwood[seat] = sum(CARD_VALUES[c] for c in range(52) if left >> c & 1)
    result = score_hand(v.rules, knock.knocker, deadwood, False, False, ctx.spade_upcard)
    return hand_value(ctx, result, seat)


def judge(position: Position, budget_ms: float = DEFAULT_COACH_BUDGET_MS,
          seed: int = 0) -> Verdict:
    """The verdict on one decision: every legal choice valued from the player's view."""
    v = position.view
    legal = list(position.legal)
    advice: list[Advice] = advise(v, legal, budget_ms=budget_ms, seed=seed, safety_stop=False)
    played = position.played
    choices: dict[_Key, Choice] = {}
    actions: dict[_Key, Action] = {}
    for a in advice:
        choices[_key(a.action)] = Choice(str(a.action), a.value, a.samples, a.note, True)
        actions[_key(a.action)] = a.action
    if v.phase is Phase.LAYOFF:
        key = _key(played)
        if key not in choices and isinstance(played, LayOff):
            choices[key] = Choice(str(played), _layoff_value(v, played), 1, "played", False)
            actions[key] = played
    else:
        _score_the_rest(v, legal, played, advice, seed, budget_ms, choices, actions)
    played_choice = choices[_key(played)]
    best_key = _key(advice[0].action)  # what the expert plays: its default unless beaten
    best = choices[best_key]
    ranked = [c for c in choices.values() if c.advised]
    ranked += sorted((c for c in choices.values() if not c.advised),
                     key=lambda c: c.value, reverse=True)
    cost = max(0.0, best.value - played_choice.value)
    return Verdict(position.hand, position.move, position.seat, v.phase.value,
                   _kind(v.phase, played, actions[best_key]),
                   tuple(card_name(c) for c in v.hand),
                   None if v.top_discard is None else card_name(v.top_discard),
                   tuple(ranked), str(played), played_choice.value, best.action, best.value,
                   cost, len(legal) == 1 and v.phase is not Phase.LAYOFF)


def _score_the_rest(v: PlayerView, legal: Sequence[Action], played: Action,
                    advice: Sequence[Advice], seed: int, budget_ms: float,
                    choices: dict[_Key, Choice], actions: dict[_Key, Action]) -> None:
    """Score the legal choices (and the move played) the advisor did not rank, in the
    advisor's own worlds. When the advisor had a single candidate and so sampled nothing (a
    gin on the table), every choice is scored in worlds planned from the budget."""
    missing = [a for a in [*legal, played] if _key(a) not in choices]
    missing = list({_key(a): a for a in missing}.values())
    if not missing:
        return
    belief = belief_of(v)
    ctx = playout_rules(v, belief)
    worlds = max(a.samples for a in advice)
    if worlds == 0:  # nothing sampled: plan the worlds from the budget, score everything
        missing = [a.action for a in advice] + missing
        for a in advice:
            del choices[_key(a.action)]
        every = sum(_scorer(v, a, belief, ctx)[1] for a in missing)
        worlds = max(MIN_WORLDS, min(MAX_WORLDS, math.ceil(budget_ms / every)))
    sampled = _worlds(v, seed, belief, worlds)
    advised = {_key(a.action) for a in advice}
    for action in missing:
        score, _cost = _scorer(v, action, belief, ctx)
        value = sum(score(w) for w in sampled) / len(sampled)
        key = _key(action)
        note = next((a.note for a in advice if _key(a.action) == key), "") or _note(
            v.hand_mask, action)
        choices[key] = Choice(str(action), value, len(sampled), note, key in advised)
        actions[key] = action


def coach_record(record: GameRecord, seat: int, budget_ms: float = DEFAULT_COACH_BUDGET_MS,
                 seed: int = 0, progress: Callable[[int, int], None] | None = None,
                 max_decisions: int | None = None) -> CoachReport:
    """The verdict on every decision of ``seat`` in ``record`` (on the first
    ``max_decisions`` of them when given: the report says how many were left out);
    ``progress(done, total)`` after each one."""
    if not budget_ms > 0:
        raise ValueError(f"budget {budget_ms!r} ms: it must be a positive number")
    if max_decisions is not None and max_decisions < 0:
        raise ValueError(f"max_decisions {max_decisions!r}: it must be 0 or more")
    found = positions(record, seat)
    left_out = 0
    if max_decisions is not None and len(found) > max_decisions:
        left_out = len(found) - max_decisions
        found = found[:max_decisions]
    verdicts: list[Verdict] = []
    for position in found:
        verdicts.append(judge(position, budget_ms, seed))
        if progress is not None:
            progress(len(verdicts), len(found))
    names = record.players
    player = names[seat] if seat < len(names) else f"seat {seat}"
    return CoachReport(seat, player, budget_ms, seed, record.result is not None,
                       tuple(verdicts), max_decisions, left_out)


def coach_record_json(document: dict[str, Any], seat: int, budget_ms: float,
                      seed: int = 0, max_decisions: int | None = None) -> dict[str, Any]:
    """:func:`coach_record` from and to plain JSON values: what a worker process runs."""
    return coach_record(GameRecord.from_json(document), seat, budget_ms, seed,
                        max_decisions=max_decisions).to_dict()
