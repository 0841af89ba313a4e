"""The coach: how long a match takes to coach, and how its measure judges players.

Run: ``PYTHONPATH=src python benchmarks/bench_coach.py [--matches N] [--budget-ms MS]
[--runs R] [--quality] [--json]``

**Speed** (issue 29, point 3: "a 2-player match coached in at most 5 s, p95 over 20
matches"). Plays ``--matches`` classic matches to 100 between ``intermediate`` (seat 0) and
``simple`` (seeds 0..N-1, so every run coaches the same matches), then coaches seat 0 of each
with :func:`ginrummy.coach.coach_record_json`, what the server's worker process runs (the
browser's budget, 40 ms a decision, and the match cap ``MATCH_WORK_MS``), timing each match
with the wall clock and the process's CPU clock. Reports, per run, p50 / p95 / max seconds
and how many matches were capped; ``--runs`` repeats the measurement (the spread of the
runs is the figure to quote on a shared machine).

**Quality** (``--quality``, point 1's statistical targets). Coaches seat 0 of
``--quality-matches`` matches to 50 of the ``expert`` at the coach's own budget against
``intermediate``, and of a ``random`` player against ``intermediate``, and reports the
points lost per decision (the mistakes' costs), the accuracy of each (a share of decisions)
and its turn accuracy (a share of turns, the draw and the discard together, without a
mistake), over the *telling* decisions the coach's accuracy counts (some choice a mistake:
``Verdict.telling``) and, as before 2026-12-07, over every decision with more than one legal
choice; the issue's targets are at most 0.1 points a decision for the expert and below 30%
accuracy for random. ``--quality-players`` picks the players: ``expert``, ``random`` and
``best``, a player that plays the coach's own best at the coach's budget on worlds of its own
(:class:`bench_coach_best.CoachBest`): its loss is the noise floor of the measure, what two
independent evaluations at that budget disagree by.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench_coach_best import CoachBest
from ginrummy.bots import make_bot
from ginrummy.bots.expert import ExpertBot
from ginrummy.coach import MATCH_WORK_MS, Verdict, coach_record, coach_record_json, turns
from ginrummy.gameloop import play_match
from ginrummy.records import GameRecord
from ginrummy.rules import Ruleset

BEST_SEED_OFFSET = 1000
"""The ``best`` player's evaluator seed is the match's plus this: worlds of its own."""
BROWSER_BUDGET_MS = 40.0
"""The server's coach budget (``ginrummy.server.http.coach_api.COACH_BUDGET_MS``)."""


def percentile(sorted_values: list[float], q: float) -> float:
    """The q-th percentile (0-100) by nearest rank."""
    rank = max(1, min(len(sorted_values), round(q / 100 * len(sorted_values) + 0.5)))
    return sorted_values[rank - 1]


def records(matches: int) -> list[dict[str, Any]]:
    """The same ``matches`` classic matches to 100, intermediate against simple."""
    rules = Ruleset.preset("classic")
    out = []
    for seed in range(matches):
        match = play_match(rules, [make_bot("intermediate", seed), make_bot("simple", seed)],
                           seed=seed)
        out.append(GameRecord.from_match(match, ["intermediate", "simple"]).to_json())
    return out


def speed_run(documents: list[dict[str, Any]], budget_ms: float) -> dict[str, Any]:
    """Coach seat 0 of every record once; the wall and CPU seconds of each."""
    wall: list[float] = []
    cpu: list[float] = []
    capped = 0
    decisions = []
    for document in documents:
        start, start_cpu = time.perf_counter(), time.process_time()
        report = coach_record_json(document, 0, budget_ms)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        capped += bool(report["capped"])
        decisions.append(report["of"])
    wall.sort()
    cpu.sort()
    return {"matches": len(wall), "p50_s": round(percentile(wall, 50), 2),
            "p95_s": round(percentile(wall, 95), 2), "max_s": round(wall[-1], 2),
            "cpu_p95_s": round(percentile(cpu, 95), 2), "capped": capped,
            "decisions_median": statistics.median(decisions)}


def quality_player(name: str, seed: int, budget_ms: float) -> Any:
    """The coached player of match ``seed``: the expert at ``budget_ms``, random, or
    ``best``: the coach's own best at ``budget_ms`` (the evaluator's highest value), on
    worlds of its own (seed + 1000, never the coach's seed 0)."""
    if name == "expert":
        return ExpertBot(seed, budget_ms, safety_stop=False)
    if name == "best":
        return CoachBest(seed + BEST_SEED_OFFSET, budget_ms)
    return make_bot(name, seed)


def quality(matches: int, budget_ms: float,
            players: tuple[str, ...] = ("expert", "random")) -> dict[str, Any]:
    """Points lost a decision and accuracy of each of ``players`` (the expert at the coach's
    budget, a random player, the coach's own best) against intermediate, by the coach's
    measure."""
    rules = Ruleset.preset("classic", target=50)
    out: dict[str, Any] = {}
    for name in players:
        verdicts: list[Verdict] = []
        groups: list[tuple[Verdict, ...]] = []
        for seed in range(matches):
            player = quality_player(name, seed, budget_ms)
            match = play_match(rules, [player, make_bot("intermediate", seed + 100)],
                               seed=seed)
            record = GameRecord.from_match(match, [name, "intermediate"])
            report = coach_record(record, 0, budget_ms, 0)
            verdicts += report.verdicts
            groups += turns(report.verdicts)
        out[name] = _figures(verdicts, groups, lambda v: v.telling)
        out[name]["every_real_decision"] = _figures(verdicts, groups, lambda v: not v.forced)
    return out


def _figures(verdicts: list[Verdict], groups: list[tuple[Verdict, ...]],
             counts: Callable[[Verdict], bool]) -> dict[str, Any]:
    """Points lost a decision, accuracy and turn accuracy over the decisions ``counts``
    keeps (a turn counts when one of its decisions does), in all and by kind."""
    counted = [v for v in verdicts if counts(v)]
    counted_turns = [t for t in groups if any(counts(v) for v in t)]
    by_kind: dict[str, Any] = {}
    for kind in ("draw", "discard", "knock"):
        some = [v for v in counted if v.kind == kind]
        if some:
            by_kind[kind] = {"decisions": len(some),
                             "lost_per_decision": round(sum(v.lost for v in some)
                                                        / len(some), 2),
                             "accuracy": round(100 * sum(v.accurate for v in some)
                                               / len(some), 1)}
    return {"decisions": len(counted),
            "lost_per_decision": round(sum(v.lost for v in counted) / len(counted), 3),
            "accuracy": round(100 * sum(v.accurate for v in counted) / len(counted), 1),
            "turns": len(counted_turns),
            "turn_accuracy": round(100 * sum(not any(v.mistake for v in t)
                                             for t in counted_turns)
                                   / len(counted_turns), 1),
            "by_kind": by_kind}


def main() -> None:
    """Parse the options, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--budget-ms", type=float, default=BROWSER_BUDGET_MS)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quality", action="store_true")
    parser.add_argument("--quality-matches", type=int, default=8)
    parser.add_argument("--quality-budget-ms", type=float, default=100.0)
    parser.add_argument("--quality-players", default="expert,random",
                        help="comma-separated: expert, random, best (the coach's own best "
                             "at its budget, on worlds of its own)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result: dict[str, Any] = {"budget_ms": args.budget_ms, "match_work_ms": MATCH_WORK_MS,
                              "load_average": [round(x, 2) for x in os.getloadavg()]}
    if args.runs > 0:
        documents = records(args.matches)
        result["runs"] = [speed_run(documents, args.budget_ms) for _ in range(args.runs)]
    if args.quality:
        result["quality"] = quality(args.quality_matches, args.quality_budget_ms,
                                    tuple(args.quality_players.split(",")))
        result["quality_budget_ms"] = args.quality_budget_ms
    if args.json:
        print(json.dumps(result))
        return
    print(f"coach at {args.budget_ms:g} ms a decision, match cap {MATCH_WORK_MS:g} ms of work, "
          f"load average {result['load_average']}")
    for i, run in enumerate(result.get("runs", []), 1):
        print(f"  run {i}: {run['matches']} matches, p50 {run['p50_s']} s, p95 {run['p95_s']} "
              f"s, max {run['max_s']} s (CPU p95 {run['cpu_p95_s']} s), {run['capped']} "
              f"capped, median {run['decisions_median']} decisions")
    for name, figures in result.get("quality", {}).items():
        for label, some in (("telling decisions", figures),
                            ("every real decision", figures["every_real_decision"])):
            print(f"  {name}, {label}: {some['decisions']} decisions, "
                  f"{some['lost_per_decision']} points lost a decision, accuracy "
                  f"{some['accuracy']}%, turn accuracy {some['turn_accuracy']}% of "
                  f"{some['turns']} turns, by kind {some['by_kind']}")


if __name__ == "__main__":
    main()
