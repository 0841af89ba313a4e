"""The coach (docs/coach.md): one evaluator (the hint key's) values every choice on the same
worlds, the best is the highest valued, a mistake is a loss beyond the noise, a discard that
breaks a made meld is the costliest mistake of its hand, and it uses only the player's view."""

from __future__ import annotations

import json
import random
import re
import shlex
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from ginrummy import coach
from ginrummy.actions import Action, Discard, LayOff
from ginrummy.bots import make_bot
from ginrummy.bots.evaluate import evaluate
from ginrummy.bots.expert import ExpertBot
from ginrummy.cards import parse_card_list
from ginrummy.cli.main import main
from ginrummy.engine import CHANCE, Phase
from ginrummy.gameloop import play_match
from ginrummy.match import Match
from ginrummy.records import GameRecord
from ginrummy.rules import Ruleset
from ginrummy.solver import best_melds, deadwood_mask
from ginrummy.views import view

ROOT = Path(__file__).resolve().parent.parent
BUDGET = 6.0
SEED = 3
RULES = Ruleset.preset("classic")
SHORT = Ruleset.preset("classic", target=25)
NEAR_KNOCK = 12


def short_record(seed: int = 3) -> GameRecord:
    """A short match of two simple players (one or two hands)."""
    match = play_match(SHORT, [make_bot("simple", seed), make_bot("simple", seed + 1)],
                       seed=seed)
    return GameRecord.from_match(match, ["ann", "bob"])


def played_record(rules: Ruleset, seed: int,
                  override: Callable[[Match, int], Action | None]) -> GameRecord:
    """One hand: seat 0 the expert (the coach's budget and seed), seat 1 the simple player;
    ``override(match, seat)`` may replace a move."""
    match = Match(rules, first_dealer=1, seed=seed)
    match.start_hand()
    players = [ExpertBot(SEED, BUDGET, safety_stop=False), make_bot("simple", seed)]
    rng = random.Random(seed)
    hand = match.hand
    while not hand.over:
        if hand.to_move == CHANCE:
            match.apply(hand.reshuffle_order(rng))
            continue
        seat = hand.to_move
        action = override(match, seat)
        if action is None:
            action = players[seat].choose(view(match, seat), hand.legal_actions())
        match.apply(action)
    return GameRecord.from_match(match, ["you", "simple"])


def test_values_are_the_evaluators_at_the_same_budget_and_seed() -> None:
    """The coach's values are the hint key's: one evaluator, every legal choice and the move
    played on the same worlds."""
    record = short_record()
    found = coach.positions(record, 0)
    assert len(found) >= 6
    for position in found:
        verdict = coach.judge(position, BUDGET, SEED)
        evaluated = evaluate(position.view, position.legal, BUDGET, SEED,
                             extra=(position.played,))
        assert [c.action for c in verdict.choices] == [str(c.action) for c in evaluated.choices]
        assert [c.value for c in verdict.choices] == [c.value for c in evaluated.choices]
        by_action = {c.action: c for c in verdict.choices}
        assert {str(a) for a in position.legal} <= set(by_action)
        assert by_action[verdict.played].value == verdict.played_value
        assert verdict.best == verdict.choices[0].action


def _coached_decisions(count: int) -> list[coach.Verdict]:
    """At least ``count`` real decisions of both seats in matches of simple, random,
    intermediate and expert players, coached at ``BUDGET``."""
    names = ["random", "simple", "intermediate", "expert"]
    verdicts: list[coach.Verdict] = []
    seed = 0
    while len(verdicts) < count:
        players = [make_bot(names[seed % 4], seed), make_bot(names[(seed + 1) % 4], seed + 50)]
        record = GameRecord.from_match(play_match(SHORT, players, seed=seed), ["a", "b"])
        for seat in (0, 1):
            verdicts += [v for v in coach.coach_record(record, seat, BUDGET, SEED).verdicts
                         if not v.forced]
        seed += 1
    return verdicts


def test_no_listed_choice_is_valued_above_the_best() -> None:
    """Issue 29: over 200 coached decisions the best is the highest-valued choice, every
    choice is valued on the same worlds, each with its standard error, and a move is a
    mistake only when its cost exceeds 2 standard errors and 1 point."""
    verdicts = _coached_decisions(200)
    assert len(verdicts) >= 200
    mistakes = 0
    for v in verdicts:
        values = [c.value for c in v.choices]
        assert max(values) == v.best_value == values[0], (v.hand, v.move)
        assert values[1:] == sorted(values[1:], reverse=True)  # best first, then by value
        assert v.cost >= 0 and v.error >= 0
        assert v.cost == pytest.approx(v.best_value - v.played_value, abs=1e-9)
        if v.phase != "layoff":
            assert {c.samples for c in v.choices} == {v.worlds} and v.worlds >= 8
        for c in v.choices[1:]:
            assert c.loss == pytest.approx(v.best_value - c.value, abs=1e-9)
            assert c.mistake == (c.loss > max(2 * c.loss_error, 1.0))
        assert v.mistake == (v.cost > max(2 * v.error, 1.0))
        assert v.lost == (v.cost if v.mistake else 0.0)
        mistakes += v.mistake
    assert 0 < mistakes < len(verdicts)


def test_the_expert_loses_less_than_a_random_player() -> None:
    """By the coach's own measure, the expert (at the coach's budget) loses far fewer points
    a decision than a random player, and is far more accurate (the issue's targets, the
    expert's at most 0.1 a decision and random's below 30%, are measured by
    benchmarks/bench_coach.py)."""
    lost = {}
    accuracy = {}
    for name in ("expert", "random"):
        verdicts = []
        for seed in range(3):
            player = (ExpertBot(seed, BUDGET, safety_stop=False) if name == "expert"
                      else make_bot("random", seed))
            match = play_match(SHORT, [player, make_bot("intermediate", seed + 9)], seed=seed)
            record = GameRecord.from_match(match, [name, "intermediate"])
            verdicts += [v for v in coach.coach_record(record, 0, BUDGET, SEED).verdicts
                         if not v.forced]
        lost[name] = sum(v.lost for v in verdicts) / len(verdicts)
        accuracy[name] = sum(v.accurate for v in verdicts) / len(verdicts)
    assert lost["random"] > 2 * lost["expert"]
    assert accuracy["expert"] > accuracy["random"] + 0.15


def _break_a_meld(done: list[int]) -> Callable[[Match, int], Action | None]:
    """Seat 0's first discard where it could knock (or nearly) and holds a made meld of
    three: instead, the card of that meld that leaves the most deadwood."""

    def override(match: Match, seat: int) -> Action | None:
        hand = match.hand
        if done or seat != 0 or hand.phase is not Phase.DISCARD:
            return None
        mask = hand.hands[0]
        melds = [m for m in best_melds(mask).melds if len(m) == 3]
        legal = set(hand.legal_actions())
        least = min(deadwood_mask(mask & ~(1 << a.card)) for a in legal
                    if isinstance(a, Discard))
        if not melds or least > NEAR_KNOCK:
            return None
        worst = max((c for m in melds for c in m if Discard(c) in legal),
                    key=lambda c: deadwood_mask(mask & ~(1 << c)), default=None)
        if worst is None:
            return None
        done.append(len(hand.action_log_text()) + 1)
        return Discard(worst)

    return override


@pytest.mark.parametrize("seed", [3, 5, 10])
def test_discarding_a_card_of_a_made_meld_is_a_costly_mistake(seed: int) -> None:
    """Near a knock, discarding a card of a made meld is a mistake of more than 5 points,
    among the three costliest of the match (the others are the expert's moves, which the
    play-outs do not always agree with: see docs/coach.md)."""
    done: list[int] = []
    record = played_record(RULES, seed, _break_a_meld(done))
    assert done, "no meld broken: pick another seed"
    report = coach.coach_record(record, 0, 200.0, SEED)  # enough worlds to tell
    bad = next(v for v in report.verdicts if v.move == done[0])
    assert bad.played.startswith("discard") and bad.kind in ("discard", "knock")
    assert bad.cost > 5 and bad.mistake and not bad.accurate
    assert bad.move in {c["move"] for c in report.summary()["costliest"]}


def test_a_worse_layoff_costs_its_points() -> None:
    layoffs: list[tuple[LayOff, LayOff]] = []

    def lay_nothing(match: Match, seat: int) -> Action | None:
        hand = match.hand
        if hand.phase is not Phase.LAYOFF or seat != 0:
            return None
        best = hand.legal_actions()[0]
        assert isinstance(best, LayOff)
        worse = LayOff((), ())
        layoffs.append((best, worse))
        return worse

    for seed in range(40):  # a hand seat 1 knocks and seat 0 had something to lay down
        layoffs.clear()
        record = played_record(RULES, seed, lay_nothing)
        if layoffs and (layoffs[0][0].melds or layoffs[0][0].layoffs):
            break
    else:
        pytest.fail("no knock by seat 1 against a hand with melds in 40 deals")
    verdict = coach.coach_record(record, 0, BUDGET, SEED).verdicts[-1]
    assert verdict.kind == "layoff" and verdict.played == "layoff"
    best, _worse = layoffs[0]
    assert verdict.best == str(best)
    assert verdict.cost > 0  # keeping the melds as deadwood loses points, exactly counted
    assert not verdict.forced


def test_only_the_players_view_counts() -> None:
    """Two records that differ only in stock cards nobody drew coach the same."""
    record = short_record(seed=3)
    entry = record.hands[-1]
    deck = entry["deck"].split()
    drawn = sum(1 for a in entry["actions"] if a == "stock")
    first_stock = 2 * SHORT.cards_per_hand + 1
    undrawn = list(range(first_stock + drawn + 1, len(deck)))
    assert len(undrawn) >= 4
    swapped = list(deck)
    a, b = undrawn[-1], undrawn[-3]
    swapped[a], swapped[b] = swapped[b], swapped[a]
    other = GameRecord.from_json({**record.to_json(),
                                  "hands": [*record.hands[:-1],
                                            {**entry, "deck": " ".join(swapped)}]})
    assert other.to_json() != record.to_json()
    one = coach.coach_record(record, 1, 2.0, SEED).to_dict()
    two = coach.coach_record(other, 1, 2.0, SEED).to_dict()
    assert one == two
    replayed = {(h + 1, a + 2): match.hand.hands[1] for match, h, a in record.replay_states()}
    for verdict in one["verdicts"]:  # the cards shown are the seat's own, as held then
        held = replayed[verdict["hand"], verdict["move"]]
        assert set(parse_card_list(" ".join(verdict["cards"]))) == {
            c for c in range(52) if held >> c & 1}


def test_summary_adds_up() -> None:
    report = coach.coach_record(short_record(), 0, BUDGET, SEED)
    summary = report.summary()
    real = [v for v in report.verdicts if not v.forced]
    telling = [v for v in real if v.telling]
    assert summary["real"] == len(real) and summary["counted"] == len(telling)
    assert summary["total_lost"] == pytest.approx(sum(summary["lost"].values()), abs=0.05)
    assert set(summary["lost"]) == set(coach.KINDS)
    accurate = [v for v in telling if not v.mistake]
    assert summary["accuracy"] == round(100 * len(accurate) / len(telling), 1)
    assert summary["mistakes"] == len(telling) - len(accurate)
    costs = [c["cost"] for c in summary["costliest"]]
    mistakes = [v for v in real if v.mistake]
    assert costs == sorted(costs, reverse=True) and len(costs) == min(3, len(mistakes))
    if mistakes:
        assert costs[0] == round(max(v.cost for v in mistakes), 2)
    assert summary["total_lost"] == round(sum(v.lost for v in real), 2)
    assert sum(h["lost"] for h in summary["lost_by_hand"]) == pytest.approx(
        summary["total_lost"], abs=0.05)


def test_progress_is_reported_per_decision() -> None:
    record = short_record()
    seen: list[tuple[int, int]] = []
    report = coach.coach_record(record, 1, 2.0, 0, lambda done, total: seen.append((done,
                                                                                   total)))
    total = len(report.verdicts)
    assert seen == [(i, total) for i in range(1, total + 1)]


def test_bad_input_is_named() -> None:
    record = short_record()
    with pytest.raises(ValueError, match="seat 2: the record has seats 0 to 1"):
        coach.coach_record(record, 2, BUDGET)
    with pytest.raises(ValueError, match="budget"):
        coach.coach_record(record, 0, 0)


def test_the_docs_examples_run_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """docs/coach.md: the Python example prints what the page says, and the commands run on
    the record it saved, the first ending with the summary the page shows."""
    text = (ROOT / "docs" / "coach.md").read_text(encoding="utf-8")
    example = re.search(r"```python\n(.*?)```\n\nprints\n\n```text\n(.*?)```", text, re.S)
    assert example is not None
    code, printed = example.groups()
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/coach.md", "exec"), {})
    assert capsys.readouterr().out == printed
    commands = re.search(r"```sh\n(ginrummy coach game\.ginrec\.json.*?)```", text, re.S)
    summary = re.search(r"ends with\n\n```text\n(.*?)```", text, re.S)
    assert commands is not None and summary is not None
    outputs = []
    for line in commands.group(1).splitlines():
        argv = shlex.split(line)
        assert argv[0] == "ginrummy"
        assert main(argv[1:]) == 0, line
        outputs.append(capsys.readouterr().out)
    assert outputs[0].endswith(summary.group(1))
    assert json.loads(outputs[1])["seat"] == 1


def test_a_long_match_is_capped_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: the coach's work on a match is capped; the decisions share the work left
    (each at least MIN_DECISION_MS), past MAX_DECISIONS the rest are left out, and the
    report says so."""
    record = short_record()
    found = coach.positions(record, 0)
    free = coach.coach_record(record, 0, 40.0, SEED, match_work_ms=1e9)
    assert not free.capped and free.to_dict()["coached"] == len(found)
    tight = coach.coach_record(record, 0, 40.0, SEED, match_work_ms=60.0)
    data = tight.to_dict()
    assert tight.capped and data["capped"] and data["coached"] == data["of"] == len(found)
    assert data["decision_budget_ms"] == coach.MIN_DECISION_MS < 40.0
    assert sum(v.worlds for v in tight.verdicts) < sum(v.worlds for v in free.verdicts)
    real = sum(1 for v in free.verdicts if not v.forced)
    mild = coach.coach_record(record, 0, 40.0, SEED, match_work_ms=30.0 * real).to_dict()
    assert 30.0 <= mild["decision_budget_ms"] < 40.0 and not mild["capped"]  # a usual match
    monkeypatch.setattr(coach, "MAX_DECISIONS", 3)
    cut = coach.coach_record(record, 0, 40.0, SEED, match_work_ms=1e9).to_dict()
    assert cut["capped"] and (cut["coached"], cut["of"]) == (3, len(found))
    assert len(cut["verdicts"]) == 3
    uncapped = coach.coach_record(record, 0, 40.0, SEED).to_dict()  # no cap asked
    assert not uncapped["capped"] and uncapped["coached"] == len(found)


def test_a_turn_is_the_draw_and_the_discard_together() -> None:
    """Issue 29: turn accuracy counts a turn (one seat's consecutive moves in a hand: the draw
    and the discard) accurate when none of its decisions is a mistake; one mistake spoils
    its turn only, and the per-decision accuracy keeps its meaning."""
    report = coach.coach_record(short_record(), 0, BUDGET, SEED)
    groups = coach.turns(report.verdicts)
    assert [v for turn in groups for v in turn] == list(report.verdicts)
    assert any(len(turn) == 2 for turn in groups)
    for turn in groups:
        assert len({v.hand for v in turn}) == 1
        assert [v.move for v in turn] == list(range(turn[0].move, turn[0].move + len(turn)))
        assert len(turn) == 1 or (turn[0].kind == "draw"
                                  and turn[1].kind in ("discard", "knock"))
    before = report.summary()
    clean = next(turn for turn in groups if len(turn) == 2 and not any(
        v.mistake or v.forced for v in turn))
    spoiled = {id(v): replace(v, cost=5.0, error=0.5) for v in clean}  # both mistakes
    worse = replace(report, verdicts=tuple(spoiled.get(id(v), v) for v in report.verdicts))
    after = worse.summary()
    # a mistake makes its decision telling (counted), and its turn counted but not accurate
    told = sum(v.telling for v in clean)
    assert all(v.telling for v in spoiled.values())
    assert after["counted"] == before["counted"] + 2 - told
    assert after["turns"] == before["turns"] + (told == 0)
    assert after["accurate_turns"] == before["accurate_turns"] - (told > 0)
    assert after["accurate"] == before["accurate"] - told
    assert after["turn_accuracy"] == round(100 * after["accurate_turns"] / after["turns"], 1)
    assert after["accuracy"] == round(100 * after["accurate"] / after["counted"], 1)


def test_a_decision_where_every_choice_is_sound_is_not_counted() -> None:
    """Issue 29: the accuracy counts the decisions that tell a sound move from an unsound one
    (some choice a mistake). A forced decision, or one whose choices are all within the
    noise of the best, is not counted; the points lost do not change."""
    report = coach.coach_record(short_record(), 0, BUDGET, SEED)
    for v in report.verdicts:
        assert v.telling == (not v.forced and any(
            c.loss > max(2 * c.loss_error, 1.0) for c in v.choices))
        assert not v.mistake or v.telling
    assert not any(v.telling for v in report.verdicts if v.forced)
    before = report.summary()
    sound = next(v for v in report.verdicts if v.telling and not v.mistake)
    close = tuple(replace(c, loss=min(c.loss, 0.5), loss_error=0.4) for c in sound.choices)
    evened = replace(sound, choices=close)
    assert not evened.telling and not evened.mistake
    after = replace(report, verdicts=tuple(evened if v is sound else v
                                           for v in report.verdicts)).summary()
    assert after["real"] == before["real"]
    assert after["counted"] == before["counted"] - 1
    assert after["accurate"] == before["accurate"] - 1
    assert after["total_lost"] == before["total_lost"]
    assert after["accuracy"] == round(100 * after["accurate"] / after["counted"], 1)
