"""``ginrummy verify RECORD``: check every hand of a game record against its fair seeds.

For each hand: the commitment is the SHA-256 of the revealed server seed, the deck recomputed
from the seeds (:func:`ginrummy.fair.deck`) is the deck that was played, each reshuffle is the
one the seeds give, and the hand replays. One line per hand (``hand 3: verified`` or what
differs); exit status 0 when every hand is verified, 1 otherwise (a hand without fair data
cannot be verified), 2 for a record that cannot be read. See docs/fair.md.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from typing import Any

from ginrummy import fair
from ginrummy.actions import Reshuffle, parse_action
from ginrummy.cards import Card, parse_card_list
from ginrummy.records import GameRecord, RecordError, hand_from_entry
from ginrummy.rules import Ruleset

NO_FAIR_DATA = "no fair data: this hand was not dealt from committed seeds"


@dataclass
class HandCheck:
    """The verdict on one hand: empty ``problems`` means verified."""

    hand: int
    problems: list[str] = field(default_factory=list)
    commitment: str | None = None

    @property
    def verified(self) -> bool:
        """True when nothing differs."""
        return not self.problems

    def line(self) -> str:
        """``hand 3: verified`` or ``hand 3: NOT verified: what differs; ...``."""
        if self.verified:
            return f"hand {self.hand}: verified"
        return f"hand {self.hand}: NOT verified: " + "; ".join(self.problems)

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` form."""
        return {"hand": self.hand, "verified": self.verified, "problems": self.problems,
                "commitment": self.commitment}


def _reshuffles(actions: Any) -> list[list[Card]]:
    if not isinstance(actions, list):
        raise ValueError("\"actions\" must be a list of action texts")
    orders = []
    for text in actions:
        action = parse_action(text)
        if isinstance(action, Reshuffle):
            orders.append(list(action.order))
    return orders


def check_hand(rules: Ruleset, number: int, entry: Any) -> HandCheck:
    """Verify one hand entry of a record (``number`` counts from 1)."""
    check = HandCheck(number)
    if not isinstance(entry, dict):
        check.problems.append(f"not a hand entry: {entry!r}")
        return check
    data = entry.get("fair")
    if data is None:
        check.problems.append(NO_FAIR_DATA)
        return check
    if isinstance(data, dict) and isinstance(data.get("commitment"), str):
        check.commitment = data["commitment"]
    try:
        deck = parse_card_list(entry["deck"])
        reshuffles = _reshuffles(entry.get("actions", []))
    except (KeyError, TypeError, ValueError) as exc:
        check.problems.append(f"bad deal or actions: {exc}")
        return check
    check.problems.extend(fair.verify_hand(data, deck, reshuffles))
    if check.verified:
        try:
            hand_from_entry(rules, entry)
        except (KeyError, TypeError, ValueError) as exc:
            check.problems.append(f"the hand does not replay: {exc}")
    return check


def verify_record(record: GameRecord) -> list[HandCheck]:
    """Every hand's verdict, in order."""
    return [check_hand(record.rules, h + 1, entry) for h, entry in enumerate(record.hands)]


def run_verify(args: argparse.Namespace) -> int:
    """Run ``ginrummy verify``; 0 when every hand is verified, else 1."""
    record = GameRecord.load(args.record)
    checks = verify_record(record)
    ok = bool(checks) and all(c.verified for c in checks)
    if args.json:
        print(json.dumps({"record": str(args.record), "verified": ok,
                          "hands": [c.to_json() for c in checks]}, indent=1))
        return 0 if ok else 1
    if not checks:
        print("the record holds no hand: nothing verified")
    for check in checks:
        print(check.line())
    passed = sum(c.verified for c in checks)
    print(f"{passed} of {len(checks)} hands verified" + ("" if ok else ": FAILED"))
    return 0 if ok else 1


def add_verify_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``ginrummy verify``."""
    parser.add_argument("record", metavar="RECORD", help="a .ginrec.json game record")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")


__all__ = ["HandCheck", "RecordError", "add_verify_arguments", "check_hand", "run_verify",
           "verify_record"]
