"""``ginrummy coach RECORD [--seat N] [--json] [--budget MS] [--seed S]``: the coach's verdict
on every decision of one player in a game record, and the match's summary (docs/coach.md).

The table needs ``rich`` (the ``cli`` extra); without it the same lines print as plain text.
A progress bar over the decisions goes to stderr when stderr is a terminal, never with
``--json``."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from ginrummy.cli.options import UsageError
from ginrummy.records import GameRecord, RecordError


def add_coach_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``ginrummy coach``."""
    from ginrummy.coach import DEFAULT_COACH_BUDGET_MS

    parser.add_argument("record", metavar="RECORD", help="a .ginrec.json game record")
    parser.add_argument("--seat", type=int, default=0, metavar="N",
                        help="the player to coach, by seat from 0 (default 0: you, in a "
                        "record of ginrummy play)")
    parser.add_argument("--budget", type=float, default=DEFAULT_COACH_BUDGET_MS, metavar="MS",
                        help="the evaluator's budget per decision in milliseconds "
                        f"(default {DEFAULT_COACH_BUDGET_MS:g}; the hint key uses 250)")
    parser.add_argument("--seed", type=int, default=0,
                        help="the evaluator's random seed (default 0)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")


def progress_enabled(json_output: bool, stream: TextIO) -> bool:
    """Whether to draw the progress bar: never with ``--json``, only on a terminal."""
    isatty = getattr(stream, "isatty", None)
    return not json_output and callable(isatty) and bool(isatty())


@contextmanager
def decision_progress(enabled: bool, stream: TextIO
                      ) -> Iterator[Callable[[int, int], None] | None]:
    """Yield ``update(done, total)`` drawing a rich bar on ``stream``, or ``None``."""
    if not enabled:
        yield None
        return
    try:
        rich_console = importlib.import_module("rich.console")
        rich_progress = importlib.import_module("rich.progress")
    except ImportError:
        yield None
        return
    console = rich_console.Console(file=stream)
    columns = (rich_progress.TextColumn("coaching"), rich_progress.BarColumn(),
               rich_progress.MofNCompleteColumn(), rich_progress.TextColumn("decisions"),
               rich_progress.TimeElapsedColumn(), rich_progress.TimeRemainingColumn())
    with rich_progress.Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("coaching", total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def _value(value: float) -> str:
    return f"{value:+.1f}"


def short_action(text: str) -> str:
    """An action in few characters: a discard by its card, a knock or gin by its discard
    (its melds are in ``--json``)."""
    words = text.split()
    if words[0] == "discard":
        return words[1]
    if words[0] in ("knock", "gin"):
        return " ".join(w for w in words[:2] if not w.startswith("[")) + (
            " [...]" if len(words) > 2 else "")
    return text


def _choices_text(verdict: dict[str, Any]) -> str:
    """Every choice as the coach lists it: the best (highest value) first, then by value,
    each with its standard error."""
    return ", ".join(f"{short_action(c['action'])} {_value(c['value'])}±{c['error']:.1f}"
                     for c in verdict["choices"])


def _cost_text(verdict: dict[str, Any]) -> str:
    return f"{verdict['cost']:.1f}±{verdict['error']:.1f}"


def report_lines(data: dict[str, Any]) -> list[str]:
    """The coach's report as plain text lines (no ``rich``)."""
    lines = [_title(data)]
    for v in data["verdicts"]:
        mark = " (forced)" if v["forced"] else ("  <-- mistake" if v["mistake"] else "")
        lines.append(f"  hand {v['hand']} move {v['move']:>3} {v['kind']:<8} played "
                     f"{v['played']} {_value(v['played_value'])}, best {v['best']} "
                     f"{_value(v['best_value'])}, cost {_cost_text(v)}{mark}")
        lines.append(f"      {_choices_text(v)}")
        if v.get("reason"):
            lines.append(f"      why: {v['reason']['text']}; hand {' '.join(v['cards'])}, "
                         f"discard pile {' '.join(v['discard_pile']) or '-'}")
    lines.extend(_summary_lines(data["summary"]))
    return lines


def _title(data: dict[str, Any]) -> str:
    title = (f"Coach for {data['player']} (seat {data['seat']}): {data['budget_ms']:g} ms a "
             f"decision, seed {data['seed']}; values are expected points of the hand "
             "± a standard error")
    if data.get("capped"):
        title += (f" (a long match: {data['coached']} of {data['of']} decisions coached, "
                  f"{data['decision_budget_ms']:g} ms a decision at least)")
    return title


def _turn_line(summary: dict[str, Any]) -> str:
    """The turn accuracy: the draw and the discard of a turn together."""
    accuracy = summary["turn_accuracy"]
    return (f"Turn accuracy: {'-' if accuracy is None else f'{accuracy:.1f}%'} "
            f"({summary['accurate_turns']} of {summary['turns']} turns without a mistake: "
            "a turn is the draw and the discard together)")


def mistake_lines(data: dict[str, Any]) -> list[str]:
    """Each mistake: where, the better move, why, and the hand and discard pile then."""
    lines = []
    for v in data["verdicts"]:
        if v.get("reason"):
            lines.append(f"  hand {v['hand']} move {v['move']}: {short_action(v['played'])} "
                         f"instead of {short_action(v['best'])}: {v['reason']['text']}; "
                         f"hand {' '.join(v['cards'])}, discard pile "
                         f"{' '.join(v['discard_pile']) or '-'}")
    return ["Why each mistake cost points:", *lines] if lines else []


def _summary_lines(summary: dict[str, Any]) -> list[str]:
    accuracy = summary["accuracy"]
    lines = [f"Accuracy: {'-' if accuracy is None else f'{accuracy:.1f}%'} "
             f"({summary['accurate']} of {summary['counted']} decisions not a mistake: a "
             f"mistake costs more than {summary['mistake_errors']:g} standard errors and "
             f"{summary['accurate_within']:g} point; of {summary['real']} decisions with a "
             "choice, those where every choice is sound are not counted)",
             _turn_line(summary),
             "Points lost: " + ", ".join(f"{kind} {lost:.1f}"
                                         for kind, lost in summary["lost"].items())
             + f"; total {summary['total_lost']:.1f}"]
    if summary["costliest"]:
        lines.append("Costliest moves:")
        for c in summary["costliest"]:
            lines.append(f"  hand {c['hand']} move {c['move']}: {c['played']} instead of "
                         f"{c['best']} ({c['kind']}, {c['cost']:.1f}±{c['error']:.1f} "
                         "points)" + (f": {c['reason']}" if c.get("reason") else ""))
    return lines


def print_rich_report(data: dict[str, Any], console: Any) -> None:
    """The report as a rich table, then the summary."""
    table_module = importlib.import_module("rich.table")
    table = table_module.Table(title=_title(data), show_lines=False)
    for name, justify in (("hand", "right"), ("move", "right"), ("kind", "left"),
                          ("played", "left"), ("best", "left"), ("cost", "right"),
                          ("every choice, best first", "left")):
        table.add_column(name, justify=justify)
    for v in data["verdicts"]:
        cost = _cost_text(v)
        if v["forced"]:
            cost = "forced"
        elif v["mistake"]:
            cost = f"[bold red]{cost}[/]"
        table.add_row(str(v["hand"]), str(v["move"]), v["kind"],
                      f"{short_action(v['played'])} {_value(v['played_value'])}",
                      f"{short_action(v['best'])} {_value(v['best_value'])}", cost,
                      _choices_text(v))
    console.print(table)
    for line in mistake_lines(data) + _summary_lines(data["summary"]):
        console.print(line, markup=False, highlight=False, soft_wrap=True)


def run_coach(args: argparse.Namespace) -> int:
    """``ginrummy coach``."""
    from ginrummy.coach import coach_record

    if not args.budget > 0:
        raise UsageError(f"--budget {args.budget:g}: it must be a positive number of ms")
    try:
        record = GameRecord.load(args.record)
    except RecordError as exc:
        raise UsageError(f"{exc}") from None
    players = record.rules.players
    if not 0 <= args.seat < players:
        raise UsageError(f"--seat {args.seat}: the record has seats 0 to {players - 1}")
    enabled = progress_enabled(args.json, sys.stderr)
    try:
        with decision_progress(enabled, sys.stderr) as update:
            report = coach_record(record, args.seat, args.budget, args.seed, update)
    except RecordError as exc:
        raise UsageError(f"{args.record}: {exc}") from None
    data = report.to_dict()
    if args.json:
        print(json.dumps(data, ensure_ascii=False))
        return 0
    try:
        console = importlib.import_module("rich.console").Console()
    except ImportError:
        print("\n".join(report_lines(data)))
        return 0
    print_rich_report(data, console)
    return 0
