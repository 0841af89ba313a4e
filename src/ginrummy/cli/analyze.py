"""``ginrummy analyze "CARDS"``: least deadwood, every best arrangement and the knock options."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ginrummy.cards import CARD_NAMES, Card, parse_card, parse_card_list
from ginrummy.cli.options import UsageError
from ginrummy.solver import Arrangement, best_arrangements, best_melds, knock_options


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


def run_analyze(args: argparse.Namespace) -> int:
    """Parse the cards and print the analysis."""
    text = " ".join(args.cards)
    try:
        cards = parse_card_list(text)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not cards:
        raise UsageError("no cards given")
    if not 1 <= args.hand_size <= 10:
        raise UsageError(f"--hand-size {args.hand_size}: a hand holds 1 to 10 cards")
    if not 0 <= args.knock_limit <= 10:
        raise UsageError(f"--knock-limit {args.knock_limit}: it must be 0 to 10")
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
