"""``ginrummy verify RECORD``: check every hand of a game record against its fair seeds.

For each hand: the commitment is the SHA-256 of the revealed server seed, the deck recomputed
from the seeds (:func:`ginrummy.fair.deck`) is the deck that was played, each reshuffle is the
one the seeds give, and the hand replays. Scheme 2 hands also need one seed per seat, each
server-made seed derived from the server seed, and the match's first dealer drawn from the
first hand's seeds. One line per hand (``hand 3: verified`` or what differs); a verified hand
whose seeds the server made, all of them, is said to rest on the server's word, and one of
scheme 1 names what its older rules leave unproven. Exit status 0 when every hand is
verified, 1 otherwise (a hand without fair data cannot be verified), 2 for a record that
cannot be read. See docs/fair.md.
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
SERVER_WORD = "on the server's word: the server made every client seed"


@dataclass
class HandCheck:
    """The verdict on one hand: empty ``problems`` means verified."""

    hand: int
    problems: list[str] = field(default_factory=list)
    commitment: str | None = None
    scheme: int | None = None
    """The fair block's scheme (None without readable fair data)."""
    server_word: bool = False
    """True when the server made every client seed: nothing it did not choose went in."""
    weaknesses: list[str] = field(default_factory=list)
    """What the hand's scheme (1) leaves unproven, when verified by its rules."""

    @property
    def verified(self) -> bool:
        """True when nothing differs."""
        return not self.problems

    def line(self) -> str:
        """``hand 3: verified`` (with what it rests on, when not on seeds alone) or
        ``hand 3: NOT verified: what differs; ...``."""
        if not self.verified:
            return f"hand {self.hand}: NOT verified: " + "; ".join(self.problems)
        notes = ([SERVER_WORD] if self.server_word else []) + self.weaknesses
        return f"hand {self.hand}: verified" + "".join(f" ({note})" for note in notes)

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` form."""
        return {"hand": self.hand, "verified": self.verified, "problems": self.problems,
                "commitment": self.commitment, "scheme": self.scheme,
                "server_word": self.server_word, "weaknesses": self.weaknesses}


def _reshuffles(actions: Any) -> list[list[Card]]:
    if not isinstance(actions, list):
        raise ValueError("\"actions\" must be a list of action texts")
    orders = []
    for text in actions:
        action = parse_action(text)
        if isinstance(action, Reshuffle):
            orders.append(list(action.order))
    return orders


def check_hand(rules: Ruleset, number: int, entry: Any,
               first_dealer: int | None = None) -> HandCheck:
    """Verify one hand entry of a record (``number`` counts from 1); ``first_dealer``: the
    record's first dealer, checked against the seeds of hand 1."""
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
    dealer = first_dealer if number == 1 else None
    if dealer is not None and entry.get("dealer", dealer) != dealer:
        check.problems.append(f"hand 1 was dealt by seat {entry.get('dealer')}, the record's "
                              f"first dealer is seat {dealer}")
    check.problems.extend(fair.verify_hand(data, deck, reshuffles, players=rules.players,
                                           dealer=dealer))
    if check.verified:
        read = fair.FairData.from_json(data)
        check.scheme, check.server_word = read.scheme, read.on_server_word
        check.weaknesses = fair.weaknesses(read, first_hand=number == 1)
        try:
            hand_from_entry(rules, entry)
        except (KeyError, TypeError, ValueError) as exc:
            check.problems.append(f"the hand does not replay: {exc}")
    return check


def verify_record(record: GameRecord) -> list[HandCheck]:
    """Every hand's verdict, in order."""
    return [check_hand(record.rules, h + 1, entry, record.first_dealer)
            for h, entry in enumerate(record.hands)]


def run_verify(args: argparse.Namespace) -> int:
    """Run ``ginrummy verify``; 0 when every hand is verified, else 1."""
    record = GameRecord.load(args.record)
    checks = verify_record(record)
    ok = bool(checks) and all(c.verified for c in checks)
    word = [c.hand for c in checks if c.verified and c.server_word]
    older = [c.hand for c in checks if c.verified and c.weaknesses]
    if args.json:
        print(json.dumps({"record": str(args.record), "verified": ok,
                          "server_word_hands": word, "scheme1_hands": older,
                          "hands": [c.to_json() for c in checks]}, indent=1))
        return 0 if ok else 1
    if not checks:
        print("the record holds no hand: nothing verified")
    for check in checks:
        print(check.line())
    passed = sum(c.verified for c in checks)
    notes = ([f"{len(word)} on the server's word"] if word else []) + (
        [f"{len(older)} by the weaker scheme 1 rules"] if older else [])
    print(f"{passed} of {len(checks)} hands verified" + "".join(f", {n}" for n in notes)
          + ("" if ok else ": FAILED"))
    return 0 if ok else 1


def add_verify_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``ginrummy verify``."""
    parser.add_argument("record", metavar="RECORD", help="a .ginrec.json game record")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")


__all__ = ["HandCheck", "RecordError", "add_verify_arguments", "check_hand", "run_verify",
           "verify_record"]
