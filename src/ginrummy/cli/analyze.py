"""``ginrummy analyze "CARDS"``: least deadwood, every best arrangement and the knock options;
``ginrummy analyze --record FILE [--hand N] [--move M]``: every choice of the player to move at
a position of a game record valued by the coach's evaluator (``ginrummy.bots.evaluate``, best
first), computed from that player's view only."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ginrummy.actions import parse_action
from ginrummy.cards import CARD_NAMES, Card, parse_card, parse_card_list
from ginrummy.cli.options import UsageError, check_flag
from ginrummy.engine import CHANCE
from ginrummy.records import GameRecord, RecordError
from ginrummy.solver import Arrangement, best_arrangements, best_melds, knock_options
from ginrummy.views import view

DEFAULT_ADVICE_BUDGET_MS = 250.0


def _names(cards: tuple[Card, ...] | list[Card]) -> list[str]:
    return [CARD_NAMES[c] for c in cards]


def _arrangement_json(arr: Arrangement) -> dict[str, Any]:
    return {"melds": [_names(list(m)) for m in arr.melds], "unmatched": _names(arr.unmatched),
            "deadwood": arr.deadwood}


def analyze(cards: list[Card], knock_limit: int = 10, big_gin: bool = False,
            hand_size: int = 10, taken: Card | None = None) -> dict[str, Any]:
    """The analysis as plain JSON values (cards in text form)."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    best = best_melds(mask)
    out: dict[str, Any] = {
        "cards": _names(sorted(cards, key=lambda c: (c // 13, c % 13))),
        "count": len(cards),
        "deadwood": best.deadwood,
        "best": _arrangement_json(best),
        "arrangements": [_arrangement_json(a) for a in best_arrangements(mask)],
        "knock_limit": knock_limit,
        "big_gin": big_gin,
        "knock_options": None,
    }
    if len(cards) == hand_size + 1:
        options = knock_options(mask, knock_limit, big_gin, taken)
        out["knock_options"] = [
            {"discard": None if o.discard is None else CARD_NAMES[o.discard],
             "deadwood": o.deadwood, "gin": o.gin, "big_gin": o.big_gin,
             **{k: v for k, v in _arrangement_json(o.arrangement).items() if k != "deadwood"}}
            for o in options
        ]
        out["taken"] = None if taken is None else CARD_NAMES[taken]
    return out


def _melds_text(data: dict[str, Any]) -> str:
    melds = " ".join("[" + " ".join(m) + "]" for m in data["melds"]) or "no meld"
    rest = " ".join(data["unmatched"])
    return f"{melds} | {rest}" if rest else f"{melds} | gin"


def text_report(data: dict[str, Any]) -> list[str]:
    """The analysis for people."""
    lines = [f"Hand ({data['count']} cards): {' '.join(data['cards'])}",
             f"Least deadwood: {data['deadwood']}",
             f"Best melds: {_melds_text(data['best'])}"]
    arrangements = data["arrangements"]
    if len(arrangements) > 1:
        lines.append(f"All {len(arrangements)} arrangements with deadwood {data['deadwood']}:")
        for i, arr in enumerate(arrangements, 1):
            lines.append(f"  {i}) {_melds_text(arr)}")
    options = data["knock_options"]
    if options is not None:
        limit = data["knock_limit"]
        extra = f", {data['taken']} just taken" if data.get("taken") else ""
        if not options:
            lines.append(f"Knock options (limit {limit}{extra}): none; no discard leaves "
                         f"deadwood <= {limit}")
        else:
            lines.append(f"Knock options (limit {limit}{extra}), best first:")
            for o in options:
                if o["big_gin"]:
                    what = "BIG GIN, no discard"
                else:
                    what = f"discard {o['discard']}: " + ("GIN" if o["gin"] else
                                                          f"deadwood {o['deadwood']}")
                lines.append(f"  {what:<24} {_melds_text(o)}")
    return lines


def add_record_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``analyze --record``."""
    parser.add_argument("--record", metavar="FILE",
                        help="a game record: advise the player to move at one of its positions")
    parser.add_argument("--hand", type=int, metavar="N",
                        help="with --record: the hand, from 1 (default: the last)")
    parser.add_argument("--move", type=int, metavar="M",
                        help="with --record: the position before the hand's move M, from 1 "
                        "(default: the latest position where somebody is to move)")
    parser.add_argument("--budget", type=float, default=DEFAULT_ADVICE_BUDGET_MS, metavar="MS",
                        help="with --record: the advisor's search budget in milliseconds "
                        f"(default {DEFAULT_ADVICE_BUDGET_MS:g})")
    parser.add_argument("--seed", type=int, default=0,
                        help="with --record: the advisor's random seed (default 0)")


def analyze_record(record: GameRecord, hand_number: int | None, move: int | None,
                   budget_ms: float, seed: int) -> dict[str, Any]:
    """The advice at one position of a record, as plain JSON values. ``UsageError`` names a
    hand or move that does not exist or a position where nobody decides."""
    from ginrummy.bots.evaluate import evaluate  # the search is loaded only when needed

    hands = record.hands
    if not hands:
        raise UsageError("the record holds no hand")
    h = len(hands) if hand_number is None else hand_number
    if not 1 <= h <= len(hands):
        raise UsageError(f"--hand {h}: the record has hands 1 to {len(hands)}")
    actions = hands[h - 1].get("actions", [])
    count = len(actions) if isinstance(actions, list) else 0
    if move is None:  # the latest position where somebody decides
        move = count if hands[h - 1].get("result") is not None else count + 1
    if not 1 <= move <= count + 1:
        raise UsageError(f"--move {move}: hand {h} has moves 1 to {count} "
                         f"({count + 1}: after the last)")
    for match, index, done in record.replay_states():
        if index != h - 1 or done + 2 != move:
            continue
        hand = match.hand
        position = move
        if hand.over:
            raise UsageError(f"hand {h} is over before move {position}: nobody is to move")
        seat = hand.to_move
        if seat == CHANCE:
            raise UsageError(f"move {position} of hand {h} is a reshuffle: nobody decides")
        v = view(match, seat)
        legal = hand.legal_actions()
        played = actions[position - 1] if position <= count else None
        extra = [parse_action(played)] if played is not None else []
        evaluated = evaluate(v, legal, budget_ms, seed, extra=extra)
        names = record.players
        return {
            "hand": h,
            "move": position,
            "seat": seat,
            "player": names[seat] if seat < len(names) else f"seat {seat}",
            "phase": v.phase.value,
            "cards": _names(v.hand),
            "top_discard": None if v.top_discard is None else CARD_NAMES[v.top_discard],
            "stock_size": v.stock_size,
            "knock_limit": v.knock_limit,
            "scores": None if v.scores is None else list(v.scores),
            "budget_ms": budget_ms,
            "seed": seed,
            "worlds": evaluated.worlds,
            "advice": [c.to_dict() for c in evaluated.choices],
            "played": played,
        }
    raise UsageError(f"hand {h}: no position to analyze")


def record_report(data: dict[str, Any]) -> list[str]:
    """The advice for people."""
    lines = [f"Hand {data['hand']}, before move {data['move']}: {data['player']} "
             f"(seat {data['seat']}) to {data['phase']}",
             f"  cards: {' '.join(data['cards'])}",
             f"  top discard {data['top_discard'] or '-'}, stock {data['stock_size']}, "
             f"knock <= {data['knock_limit']}"
             + (f", score {' - '.join(map(str, data['scores']))}" if data["scores"] else ""),
             f"Every choice, best first ({data['budget_ms']:g} ms, seed {data['seed']}, "
             f"{data['worlds']} worlds; expected points of the hand ± a standard error, the "
             "coach's values):"]
    for i, a in enumerate(data["advice"], 1):
        note = f"  ({a['note']})" if a["note"] else ""
        mark = f"  a mistake: costs {a['loss']:.1f}±{a['loss_error']:.1f}" if a["mistake"] \
            else ""
        lines.append(f"  {i}) {a['action']:<40} {a['value']:+7.2f} ±{a['error']:5.2f}"
                     f"{note}{mark}")
    if data["played"] is not None:
        lines.append(f"Played in the game: {data['played']}")
    return lines


def run_record_analysis(args: argparse.Namespace) -> int:
    """``analyze --record``."""
    if args.cards:
        raise UsageError("give either CARDS or --record, not both")
    if not args.budget > 0:
        raise UsageError(f"--budget {args.budget:g}: it must be a positive number of ms")
    try:
        record = GameRecord.load(args.record)
    except RecordError as exc:
        raise UsageError(f"--record: {exc}") from None
    try:
        data = analyze_record(record, args.hand, args.move, args.budget, args.seed)
    except RecordError as exc:
        raise UsageError(f"--record: {exc}") from None
    if args.json:
        print(json.dumps(data, ensure_ascii=False))
    else:
        print("\n".join(record_report(data)))
    return 0


def run_analyze(args: argparse.Namespace) -> int:
    """Parse the cards and print the analysis (or advise on a record's position)."""
    if getattr(args, "record", None):
        return run_record_analysis(args)
    for option in ("hand", "move"):
        if getattr(args, option, None) is not None:
            raise UsageError(f"--{option} needs --record FILE")
    text = " ".join(args.cards)
    try:
        cards = parse_card_list(text)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not cards:
        raise UsageError("no cards given")
    check_flag("--hand-size", "hand_size", args.hand_size)
    check_flag("--knock-limit", "knock_limit", args.knock_limit)
    taken = None
    if args.taken is not None:
        try:
            taken = parse_card(args.taken)
        except ValueError as exc:
            raise UsageError(f"--taken: {exc}") from None
        if taken not in cards:
            raise UsageError(f"--taken {args.taken}: that card is not in the hand")
    data = analyze(cards, args.knock_limit, args.big_gin, args.hand_size, taken)
    if args.json:
        print(json.dumps(data, ensure_ascii=False))
    else:
        print("\n".join(text_report(data)))
    return 0
