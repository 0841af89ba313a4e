"""The coach: after a match, where one player lost points (docs/coach.md).

For every decision of one seat in a game record (docs/records.md) the coach values every
legal choice, and the move played, from that seat's view at the time (only what the player
could know then, never the stock order or another seat's hidden cards) with one evaluator,
:func:`ginrummy.bots.evaluate.evaluate`, the hint key's too: every choice on the *same*
sampled worlds, with the same budget, until the ranking is settled or the budget is spent.

The *best* choice is the highest-valued one, by definition, so no listed choice is valued
above it. Each value carries its standard error; a decision's *cost* is the best's value
less the played move's, computed world by world, with its standard error. A move is a
*mistake* only when its cost exceeds the noise: more than 2 standard errors and at least 1
point (:func:`ginrummy.bots.evaluate.is_mistake`). The points *lost* are the costs of the
mistakes; a cost within the noise is shown but not counted. Each mistake carries a reason
in words (:mod:`ginrummy.coach.reasons`), the hand and the discard pile at that moment.

Values are points of the hand for the seat to move (match points won minus lost, in the
single-hand game the others' mean penalty minus its own).

Accuracy is the share of the player's *telling* decisions that are not mistakes, as a
percentage: each draw and each discard counts once. A decision tells when some choice in it
is a mistake (:attr:`Verdict.telling`): one with a single legal choice, or whose choices are
all within the noise of the best (any of them is sound), tests nothing and is not counted.
*Turn accuracy* is the share of the player's turns without a mistake: a turn is the player's
consecutive moves in a hand (the draw and the discard together; a pass at the upcard offer,
or the layoffs, alone), counted when one of its decisions tells (:func:`turns`).

A long match is capped: the whole match gets at most ``MATCH_WORK_MS`` of calibrated work,
shared among its decisions (each at most the budget asked, at least ``MIN_DECISION_MS``);
past ``MAX_DECISIONS`` decisions the rest are not coached. A long match (some decision given
less than half the budget, or decisions left out) says so (``capped``, ``coached`` of
``of``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ginrummy.actions import Action, Knock, parse_action
from ginrummy.bots.evaluate import MISTAKE_ERRORS, MISTAKE_POINTS, evaluate, is_mistake
from ginrummy.cards import card_name
from ginrummy.coach.reasons import Reason, discard_pile_seen, reason_for
from ginrummy.engine import CHANCE, Phase
from ginrummy.records import GameRecord
from ginrummy.views import PlayerView, view

__all__ = [
    "DEFAULT_COACH_BUDGET_MS",
    "KINDS",
    "MATCH_WORK_MS",
    "MAX_DECISIONS",
    "MIN_DECISION_MS",
    "Choice",
    "CoachReport",
    "Position",
    "Verdict",
    "coach_record",
    "coach_record_json",
    "judge",
    "positions",
    "turns",
]

DEFAULT_COACH_BUDGET_MS = 100.0
"""The evaluator's budget per decision when none is given (the hint key uses 250 ms)."""
MATCH_WORK_MS = 4000.0
"""The most calibrated work one coached match gets: a long match shares it among its
decisions, each getting less than the budget asked (see ``MIN_DECISION_MS``)."""
MIN_DECISION_MS = 12.0
"""The least budget a decision gets when a long match shares ``MATCH_WORK_MS``."""
MAX_DECISIONS = 250
"""Decisions coached at most in one match: the later ones are left out (``capped``)."""
CAPPED_SHARE = 0.5
"""A match counts as ``capped`` (and says so) when some decision got less than this share of
the budget asked, or decisions were left out: a match of usual length, whose decisions got a
little less than asked, does not."""
COSTLIEST = 3
"""How many of the costliest moves the summary names."""
KINDS = ("draw", "discard", "knock", "layoff")
"""The kinds of decision the summary adds points lost by: the draw (or the upcard offer),
the discard, the knock's timing (knock or play on, which discard and melds for a knock) and
the layoffs."""


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
    """One choice: its value (points of the hand for the player) and standard error over
    ``samples`` worlds (the same worlds for every choice of the decision), its loss against
    the best and the loss's standard error."""

    action: str
    value: float
    error: float
    loss: float
    loss_error: float
    samples: int
    note: str

    @property
    def mistake(self) -> bool:
        """Its loss exceeds the noise."""
        return is_mistake(self.loss, self.loss_error)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {"action": self.action, "value": round(self.value, 2),
                "error": round(self.error, 2), "loss": round(self.loss, 2),
                "loss_error": round(self.loss_error, 2), "samples": self.samples,
                "note": self.note, "mistake": self.mistake}


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
    """Every choice, the best (highest value) first, then by value."""
    played: str
    played_value: float
    best: str
    best_value: float
    cost: float
    """The best's value less the played move's, world by world (0 when it is the best)."""
    error: float
    """The standard error of ``cost``."""
    worlds: int
    settled: bool
    """The ranking was settled before the budget ran out."""
    forced: bool
    """Only one legal choice: not counted in the accuracy (see :attr:`telling`)."""
    discard_pile: tuple[str, ...] = ()
    """The discard pile then, bottom first, as the player saw it form (every card in it was
    shown face up, :func:`ginrummy.coach.reasons.discard_pile_seen`)."""
    reason: Reason | None = None
    """Why a mistake cost points, in words (:mod:`ginrummy.coach.reasons`); ``None`` for a
    move that is not a mistake."""

    @property
    def mistake(self) -> bool:
        """The cost exceeds the noise (2 standard errors and at least 1 point)."""
        return not self.forced and is_mistake(self.cost, self.error)

    @property
    def telling(self) -> bool:
        """Some choice is a mistake, so the decision tells a sound move from an unsound one
        and counts in the accuracy. Not one with a single legal choice (``forced``), nor one
        whose choices are all within the noise of the best: any of them is sound (choices
        that cannot differ, such as two discards of equal worth, or a draw where the take
        and the stock are worth the same)."""
        return not self.forced and (self.mistake or any(c.mistake for c in self.choices))

    @property
    def accurate(self) -> bool:
        """Not a mistake."""
        return not self.mistake

    @property
    def lost(self) -> float:
        """The points this decision counts as lost: its cost if a mistake, else 0."""
        return self.cost if self.mistake else 0.0

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {"hand": self.hand, "move": self.move, "seat": self.seat, "phase": self.phase,
                "kind": self.kind, "cards": list(self.cards), "top_discard": self.top_discard,
                "choices": [c.to_dict() for c in self.choices], "played": self.played,
                "played_value": round(self.played_value, 2), "best": self.best,
                "best_value": round(self.best_value, 2), "cost": round(self.cost, 2),
                "error": round(self.error, 2), "lost": round(self.lost, 2),
                "worlds": self.worlds, "settled": self.settled, "forced": self.forced,
                "mistake": self.mistake, "accurate": self.accurate,
                "telling": self.telling, "discard_pile": list(self.discard_pile),
                "reason": None if self.reason is None else self.reason.to_dict()}


@dataclass(frozen=True)
class CoachReport:
    """Every verdict of one seat in a record, and the match's summary."""

    seat: int
    player: str
    budget_ms: float
    seed: int
    finished: bool
    verdicts: tuple[Verdict, ...]
    decisions: int = -1
    """The seat's decisions in the record (more than the verdicts when ``capped``)."""
    decision_budget_ms: float = -1.0
    """The budget each decision got (less than ``budget_ms`` in a long match)."""
    max_decisions: int | None = None
    """The most decisions coached (``None``: every one)."""

    @property
    def capped(self) -> bool:
        """Whether the match was long: decisions left out, or some decision given less than
        ``CAPPED_SHARE`` of the budget asked."""
        return (self.decisions >= 0 and len(self.verdicts) < self.decisions) or (
            0 <= self.decision_budget_ms < CAPPED_SHARE * self.budget_ms)

    def summary(self) -> dict[str, Any]:
        """Points lost by kind, per hand, the costliest moves and the accuracy."""
        real = [v for v in self.verdicts if not v.forced]
        telling = [v for v in real if v.telling]
        lost = {kind: round(sum((v.lost for v in real if v.kind == kind), 0.0), 2)
                for kind in KINDS}
        hands: dict[int, float] = {}
        for v in real:
            hands[v.hand] = hands.get(v.hand, 0.0) + v.lost
        mistakes = [v for v in real if v.mistake]
        counted_turns = [turn for turn in turns(self.verdicts)
                         if any(v.telling for v in turn)]
        clean_turns = sum(1 for turn in counted_turns if not any(v.mistake for v in turn))
        costliest = sorted(mistakes, key=lambda v: (-v.cost, v.hand, v.move))[:COSTLIEST]
        accurate = len(telling) - len(mistakes)
        return {
            "decisions": len(self.verdicts),
            "real": len(real),
            "counted": len(telling),
            "accurate": accurate,
            "mistakes": len(mistakes),
            "accuracy": None if not telling else round(100.0 * accurate / len(telling), 1),
            "turns": len(counted_turns),
            "accurate_turns": clean_turns,
            "turn_accuracy": None if not counted_turns else round(
                100.0 * clean_turns / len(counted_turns), 1),
            "mistake_errors": MISTAKE_ERRORS,
            "accurate_within": MISTAKE_POINTS,
            "lost": lost,
            "total_lost": round(sum((v.lost for v in real), 0.0), 2),
            "lost_by_hand": [{"hand": h, "lost": round(c, 2)} for h, c in sorted(hands.items())],
            "costliest": [{"hand": v.hand, "move": v.move, "kind": v.kind, "played": v.played,
                           "best": v.best, "cost": round(v.cost, 2), "error": round(v.error, 2),
                           "reason": None if v.reason is None else v.reason.text()}
                          for v in costliest],
        }

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values (``ginrummy coach --json``, the coach route)."""
        decisions = self.decisions if self.decisions >= 0 else len(self.verdicts)
        budget = self.decision_budget_ms if self.decision_budget_ms >= 0 else self.budget_ms
        return {"seat": self.seat, "player": self.player, "budget_ms": self.budget_ms,
                "seed": self.seed, "finished": self.finished,
                "capped": self.capped, "coached": len(self.verdicts), "of": decisions,
                "max_decisions": self.max_decisions,
                "not_analysed": decisions - len(self.verdicts),
                "decision_budget_ms": round(budget, 2),
                "summary": self.summary(),
                "verdicts": [v.to_dict() for v in self.verdicts]}


def turns(verdicts: tuple[Verdict, ...] | list[Verdict]) -> list[tuple[Verdict, ...]]:
    """The verdicts grouped by turn: a turn is one seat's consecutive moves in a hand (the
    draw and the discard, or a draw and a knock, together; a pass at the upcard offer, or
    the layoffs, alone). A turn is *accurate* when none of its decisions is a mistake."""
    out: list[list[Verdict]] = []
    for v in verdicts:
        last = out[-1][-1] if out else None
        if last is not None and (last.hand, last.seat, last.move + 1) == (v.hand, v.seat,
                                                                         v.move):
            out[-1].append(v)
        else:
            out.append([v])
    return [tuple(turn) for turn in out]


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
def _kind(phase: Phase, played: Action, best: Action) -> str:
    if phase is Phase.LAYOFF:
        return "layoff"
    if phase is Phase.DISCARD:
        return "knock" if isinstance(played, Knock) or isinstance(best, Knock) else "discard"
    return "draw"


def judge(position: Position, budget_ms: float = DEFAULT_COACH_BUDGET_MS,
          seed: int = 0) -> Verdict:
    """The verdict on one decision: every legal choice (and the move played) valued from the
    player's view on the same worlds (:func:`ginrummy.bots.evaluate.evaluate`)."""
    return _judge_with_work(position, budget_ms, seed)[0]


def _judge_with_work(position: Position, budget_ms: float, seed: int) -> tuple[Verdict, float]:
    """:func:`judge`, and the calibrated work it took (ms)."""
    v = position.view
    played = position.played
    evaluated = evaluate(v, position.legal, budget_ms, seed, extra=(played,))
    best = evaluated.best
    mine = evaluated.find(played)
    choices = tuple(Choice(str(c.action), c.value, c.error, c.loss, c.loss_error, c.samples,
                           c.note) for c in evaluated.choices)
    forced = len(position.legal) == 1 and v.phase is not Phase.LAYOFF
    mistake = not forced and is_mistake(mine.loss, mine.loss_error)
    verdict = Verdict(position.hand, position.move, position.seat, v.phase.value,
                      _kind(v.phase, played, best.action),
                      tuple(card_name(c) for c in v.hand),
                      None if v.top_discard is None else card_name(v.top_discard),
                      choices, str(played), mine.value, str(best.action), best.value,
                      mine.loss, mine.loss_error, evaluated.worlds, evaluated.settled,
                      forced, tuple(card_name(c) for c in discard_pile_seen(v)),
                      reason_for(v, played, best.action) if mistake else None)
    return verdict, evaluated.work_ms


def coach_record(record: GameRecord, seat: int, budget_ms: float = DEFAULT_COACH_BUDGET_MS,
                 seed: int = 0, progress: Callable[[int, int], None] | None = None,
                 match_work_ms: float | None = None, max_decisions: int | None = None
                 ) -> CoachReport:
    """The verdict on every decision of ``seat`` in ``record``; ``progress(done, total)``
    after each one. With ``match_work_ms`` the match is capped: the work left is shared
    among the decisions left (each at most ``budget_ms``, at least ``MIN_DECISION_MS``) and
    at most ``max_decisions`` (``MAX_DECISIONS`` unless told) are coached, the first ones;
    ``max_decisions`` alone caps the count only."""
    if not budget_ms > 0:
        raise ValueError(f"budget {budget_ms!r} ms: it must be a positive number")
    if match_work_ms is not None and not match_work_ms > 0:
        raise ValueError(f"match work {match_work_ms!r} ms: it must be a positive number")
    if max_decisions is not None and max_decisions < 0:
        raise ValueError(f"max_decisions {max_decisions!r}: it must be 0 or more")
    if max_decisions is None and match_work_ms is not None:
        max_decisions = MAX_DECISIONS
    found = positions(record, seat)
    todo = found if max_decisions is None else found[:max_decisions]
    verdicts: list[Verdict] = []
    left = match_work_ms
    real_left = sum(1 for p in todo if len(p.legal) > 1 or p.view.phase is Phase.LAYOFF)
    lowest = budget_ms
    for position in todo:
        budget = budget_ms
        real = len(position.legal) > 1 or position.view.phase is Phase.LAYOFF
        if left is not None and real:
            budget = min(budget_ms, max(MIN_DECISION_MS, left / max(real_left, 1)))
            lowest = min(lowest, budget)
        verdict, work = _judge_with_work(position, budget, seed)
        verdicts.append(verdict)
        if real:
            real_left -= 1
            if left is not None:
                left = max(0.0, left - work)
        if progress is not None:
            progress(len(verdicts), len(todo))
    names = record.players
    player = names[seat] if seat < len(names) else f"seat {seat}"
    return CoachReport(seat, player, budget_ms, seed, record.result is not None,
                       tuple(verdicts), len(found), lowest, max_decisions)


def coach_record_json(document: dict[str, Any], seat: int, budget_ms: float,
                      seed: int = 0, match_work_ms: float | None = MATCH_WORK_MS,
                      max_decisions: int | None = None,
                      progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """:func:`coach_record` from and to plain JSON values: what a worker process runs
    (capped at ``MATCH_WORK_MS`` and ``MAX_DECISIONS`` unless told otherwise)."""
    return coach_record(GameRecord.from_json(document), seat, budget_ms, seed, progress,
                        match_work_ms=match_work_ms, max_decisions=max_decisions).to_dict()
