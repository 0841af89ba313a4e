"""Game records: a JSON file holding the ruleset, each hand's deck order and actions, and results.

Format (``docs/records.md`` documents it with an example)::

    {
      "format": "ginrummy-record", "version": 1,
      "ruleset": {"name": "classic", "options": {...every option...}},
      "players": ["you", "simple"],          # names, by seat
      "first_dealer": 1,
      "pool_cents": null,                    # single-hand prize pool, if any
      "hands": [
        {"dealer": 1, "deck": "7h Kd ...",   # 52 cards in deal order (R2.3)
         "actions": ["stock", "discard Kd", ..., "knock 7h [As 2s 3s] ...", "layoff ..."],
         "result": {...},                    # as computed when recorded; checked on replay
         "fair": {...}}                      # optional: seeds of a provably fair deal (fair.py)
      ],
      "result": {...}                        # the match result, when the match ended
    }

Replaying a record rebuilds every state; a stored result that disagrees is an error.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ginrummy.actions import parse_action
from ginrummy.cards import format_cards, parse_card_list
from ginrummy.engine import Hand
from ginrummy.match import Match
from ginrummy.rules import Ruleset

FORMAT = "ginrummy-record"
VERSION = 1


class RecordError(ValueError):
    """A record that cannot be read or does not replay; the message says where."""


@dataclass
class GameRecord:
    """A match as data: enough to rebuild every state."""

    rules: Ruleset
    first_dealer: int
    hands: list[dict[str, Any]] = field(default_factory=list)
    players: list[str] = field(default_factory=list)
    pool_cents: int | None = None
    result: dict[str, Any] | None = None

    @classmethod
    def from_match(cls, match: Match, players: Sequence[str] = (),
                   fair: Sequence[Mapping[str, Any] | None] = ()) -> GameRecord:
        """The record of a match played so far; ``fair`` holds each hand's fair data
        (``ginrummy.fair.FairData.to_json()``, docs/fair.md) by hand index, None where none."""
        hands = []
        for index, hand in enumerate(match.hands):
            entry: dict[str, Any] = {
                "dealer": hand.dealer,
                "deck": format_cards(hand.deck),
                "actions": hand.action_log_text(),
            }
            if hand.result is not None:
                entry["result"] = hand.result.to_dict()
            seeds = fair[index] if index < len(fair) else None
            if seeds is not None:
                entry["fair"] = dict(seeds)
            hands.append(entry)
        return cls(
            rules=match.rules,
            first_dealer=match.first_dealer,
            hands=hands,
            players=list(players) or [f"seat {i}" for i in range(match.players)],
            pool_cents=match.pool_cents,
            result=None if match.result is None else match.result.to_dict(),
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON document."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "ruleset": {"name": self.rules.name, "options": self.rules.to_dict()},
            "players": self.players,
            "first_dealer": self.first_dealer,
            "pool_cents": self.pool_cents,
            "hands": self.hands,
            "result": self.result,
        }

    def dumps(self) -> str:
        """The JSON text."""
        return json.dumps(self.to_json(), indent=1, ensure_ascii=False)

    def save(self, path: str | Path) -> None:
        """Write the record to a file."""
        Path(path).write_text(self.dumps() + "\n", encoding="utf-8")

    @classmethod
    def from_json(cls, data: Any) -> GameRecord:
        """Read a JSON document; ``RecordError`` names what is wrong."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise RecordError(f"not a ginrummy record (expected \"format\": \"{FORMAT}\")")
        if data.get("version") != VERSION:
            raise RecordError(f"unsupported record version {data.get('version')!r}")
        try:
            rs = data["ruleset"]
            rules = Ruleset.from_dict(rs["options"], name=rs.get("name", "custom"))
            hands = data["hands"]
            if not isinstance(hands, list):
                raise RecordError("\"hands\" must be a list")
            return cls(rules, int(data["first_dealer"]), hands, list(data.get("players", [])),
                       data.get("pool_cents"), data.get("result"))
        except RecordError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordError(f"bad record: {exc}") from None

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        """Read a record file."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise RecordError(f"cannot read {path}: {exc.strerror}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(f"{path} is not JSON: {exc}") from None
        return cls.from_json(data)

    def replay_states(self) -> Iterator[tuple[Match, int, int]]:
        """Replay; yields (match, hand index, action index) after every action (and deal)."""
        try:
            match = Match(self.rules, first_dealer=self.first_dealer,
                          pool_cents=self.pool_cents, seed=0)
        except (TypeError, ValueError) as exc:
            raise RecordError(f"bad record: {exc}") from None
        for h, entry in enumerate(self.hands):
            where = f"hand {h + 1}"
            try:
                deck = parse_card_list(entry["deck"])
                if entry.get("dealer", match.dealer) != match.dealer:
                    raise RecordError(f"{where}: dealer {entry['dealer']} but the rules make "
                                      f"seat {match.dealer} deal")
                match.start_hand(deck)
            except RecordError:
                raise
            except (KeyError, TypeError, ValueError) as exc:
                raise RecordError(f"{where}: bad deal: {exc}") from None
            yield match, h, -1
            actions = entry.get("actions", [])
            if not isinstance(actions, list) or not all(isinstance(t, str) for t in actions):
                raise RecordError(f"{where}: \"actions\" must be a list of action texts")
            for a, text in enumerate(actions):
                try:
                    match.apply(parse_action(text))
                except ValueError as exc:
                    raise RecordError(f"{where}, action {a + 1} ({text!r}): {exc}") from None
                yield match, h, a
            stored = entry.get("result")
            hand = match.hand
            if stored is not None:
                if hand.result is None:
                    raise RecordError(f"{where}: the record says it ended but it has not")
                if hand.result.to_dict() != stored:
                    raise RecordError(f"{where}: stored result differs from the replayed one")
        if self.result is not None and (
            match.result is None or match.result.to_dict() != self.result
        ):
            raise RecordError("the stored match result differs from the replayed one")

    def replay(self) -> Match:
        """Replay the whole record and return the final match state."""
        last: Match | None = None
        for state, _, _ in self.replay_states():
            last = state
        if last is None:
            raise RecordError("the record holds no hand")
        return last


def hand_from_entry(rules: Ruleset, entry: dict[str, Any]) -> Hand:
    """Rebuild one hand of a record on its own."""
    hand = Hand(rules, int(entry["dealer"]), parse_card_list(entry["deck"]))
    for text in entry.get("actions", []):
        hand.apply(text)
    return hand
