"""A finished match's stored events, replayed: face-up steps for the replay page, and the game
record of docs/records.md for download (``ginrummy replay`` reads it).

Only finished matches are replayed here (a ``matches`` row exists once a match has ended), so
showing every hand face up hides nothing from anyone.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ginrummy.actions import parse_action
from ginrummy.cards import card_name, cards_of, parse_card_list
from ginrummy.engine import Hand
from ginrummy.match import Match
from ginrummy.records import GameRecord
from ginrummy.rules import Format, Ruleset
from ginrummy.server.core.kinds import EventKind
from ginrummy.server.play.resign import ends_match, resign_match
from ginrummy.storage import StoredEvent
from ginrummy.storage.fairseeds import StoredSeeds


class ReplayError(ValueError):
    """Stored events that do not replay (a damaged record)."""


def _names(cards: Sequence[int]) -> list[str]:
    return [card_name(c) for c in cards]


def _step(match: Match, seat: int | None, action: str) -> dict[str, Any]:
    hand: Hand = match.hand
    result = hand.result
    return {
        "seat": seat,
        "action": action,
        "hands": [_names(cards_of(mask)) for mask in hand.hands],
        "discard": _names(hand.discards),
        "stock": len(hand.stock),
        "scores": list(match.scores),
        "hand": len(match.hands),
        "result": None if result is None else result.to_dict(),
        **(_laid_down(hand) if result is not None else {}),
    }


def _laid_down(hand: Hand) -> dict[str, Any]:
    """A finished hand's table as its players saw it at the end: the knock (melds, deadwood,
    discard) and each defence (melds, layoffs onto the knocker's melds by index, the rest)."""
    knock = hand.knock
    return {
        "knock": None if knock is None else {
            "knocker": knock.knocker,
            "discard": None if knock.discard is None else card_name(knock.discard),
            "melds": [_names(m) for m in knock.melds],
            "unmatched": _names(knock.unmatched),
            "deadwood": knock.deadwood, "gin": knock.gin, "big_gin": knock.big_gin},
        "defences": [{"seat": d.seat, "melds": [_names(m) for m in d.melds],
                      "layoffs": [[card_name(c), i] for c, i in d.layoffs],
                      "unmatched": _names(d.unmatched), "deadwood": d.deadwood}
                     for d in hand.defences],
    }


def replay_match(rules: Ruleset, pool_chips: int | None, events: Sequence[StoredEvent],
                 ) -> tuple[Match, list[dict[str, Any]]]:
    """Replay a match's events (its ``match`` event first): the final match and one face-up
    step per deal and action. :class:`ReplayError` when the events do not replay."""
    if not events or events[0].kind != EventKind.MATCH:
        raise ReplayError("a match's events start with its match event")
    try:
        first_dealer = int(json.loads(events[0].payload)["first_dealer"])
        pool = pool_chips if rules.format is Format.SINGLE_HAND else None
        match = Match(rules, first_dealer=first_dealer, pool_cents=pool, seed=0)
        steps: list[dict[str, Any]] = []
        for event in events[1:]:
            if event.kind == EventKind.DEAL:
                match.start_hand(parse_card_list(event.payload))
                steps.append(_step(match, None, "deal"))
            elif event.kind == EventKind.ACTION:
                seat = None if event.seat is None or event.seat < 0 else event.seat
                match.apply(parse_action(event.payload), seat)
                steps.append(_step(match, seat, event.payload))
            elif event.kind == EventKind.RESIGN and event.seat is not None:
                if ends_match(match):  # two players: the other seat wins (server/play/resign.py)
                    resign_match(match, event.seat)
                steps.append(_step(match, event.seat, "resign"))
            else:
                raise ReplayError(f"version {event.version}: a {event.kind} event inside a "
                                  f"match")
    except ReplayError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"the stored match does not replay: {exc}") from None
    return match, steps


def match_record(match: Match, names: Sequence[str],
                 fair: Sequence[dict[str, Any] | None] = ()) -> GameRecord:
    """The game record of a replayed match (docs/records.md), with each hand's ``fair``
    seeds (by hand index) where the match has them (:func:`fair_entries`)."""
    return GameRecord.from_match(match, list(names), fair)


def fair_entries(stored: Sequence[StoredSeeds]) -> list[dict[str, Any] | None]:
    """The record's ``fair`` entries of a finished match's stored seeds, by hand index (every
    hand of a finished match is over: its server seed is revealed)."""
    entries: list[dict[str, Any] | None] = []
    for seeds in stored:
        while len(entries) < seeds.hand - 1:
            entries.append(None)
        scheme = {} if seeds.scheme == 1 else {"scheme": seeds.scheme}
        entries.append({**scheme, "commitment": seeds.commitment,
                        "server_seed": seeds.server_seed,
                        "client_seeds": list(seeds.client_seeds),
                        "server_made": list(seeds.server_made)})
    return entries
