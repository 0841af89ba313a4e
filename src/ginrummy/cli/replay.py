"""``ginrummy replay FILE``: replay a game record, checking every action and stored result.

Prints each hand's result (knock, gin, undercut or void; deadwood, points, notes) and the final
score or match result; ``--verbose`` adds the deal and every action. A record that cannot be
read or does not replay raises :class:`~ginrummy.records.RecordError` (exit status 2).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from ginrummy.actions import Action, DrawDiscard
from ginrummy.cards import Card
from ginrummy.cli.render import (
    Painter,
    action_words,
    match_result_lines,
    result_lines,
    revealed_from,
)
from ginrummy.engine import CHANCE, Hand
from ginrummy.match import Match
from ginrummy.records import GameRecord, RecordError
from ginrummy.rules import Format


def display_names(record_names: Sequence[str], players: int) -> list[str]:
    """The record's player names, capitalised (``you`` becomes ``You``, the human's name in
    ``play`` records); ``Seat 2`` for a missing name; ``#seat`` added to repeated names."""
    names = [str(n).strip() for n in list(record_names)[:players]]
    names += [""] * (players - len(names))
    shown = [(n[:1].upper() + n[1:]) if n else f"Seat {i}" for i, n in enumerate(names)]
    return [f"{n} #{i}" if shown.count(n) > 1 else n for i, n in enumerate(shown)]


def _drawn(hand: Hand, seat: int, action: Action, top_before: Card | None) -> Card | None:
    if isinstance(action, DrawDiscard):
        return top_before
    if seat >= 0 and hand.seat_logs[seat]:
        return hand.seat_logs[seat][-1].card
    return None


def replay_lines(record: GameRecord, verbose: bool = False) -> list[str]:
    """Replay ``record`` and describe it; raises ``RecordError`` where it goes wrong."""
    p = Painter(symbols=False)
    rules = record.rules
    names = display_names(record.players, rules.players)
    out: list[str] = [f"Rules: {rules.describe()}", "Players: " + ", ".join(names)]
    if record.pool_cents is not None:
        out.append(f"Prize pool: {record.pool_cents} cents")
    match: Match | None = None
    top: Card | None = None
    finished = -1
    for match, h, a in record.replay_states():
        hand = match.hand
        if a == -1:
            out.append("")
            out.append(p.title(f"Hand {h + 1}, dealer {names[hand.dealer]}"))
            if verbose:
                for seat in range(hand.players):
                    out.append(f"  {names[seat]}: {p.cards(sorted(hand.hand_of(seat)))}")
                out.append(f"  upcard {p.card(hand.upcard)}, stock {len(hand.stock)}")
            top = hand.top_discard
            continue
        if verbose:
            seat, action = hand.log[-1]
            gin = hand.knock is not None and hand.knock.gin
            who = CHANCE if seat == CHANCE else seat
            out.append(f"  {a + 1:>3}. " + action_words(p, names, who, action,
                                                        _drawn(hand, seat, action, top), gin))
        top = hand.top_discard
        if hand.over and finished < h:
            finished = h
            out += _hand_end(p, names, match, hand)
    if match is None:
        raise RecordError("the record holds no hand")
    if not match.hand.over:
        out.append(f"(hand {len(match.hands)} is unfinished in the record)")
    out.append("")
    if match.result is not None:
        out.append(p.title("Result"))
        out += match_result_lines(p, names, rules, match.result)
    else:
        out.append("The record ends before the match is decided.")
        if rules.format is Format.MATCH:
            out.append("Score: " + ", ".join(f"{names[s]} {match.scores[s]}"
                                             for s in range(rules.players)))
    return out


def _hand_end(p: Painter, names: list[str], match: Match, hand: Hand) -> list[str]:
    result = hand.result
    assert result is not None
    lines = ["  " + x for x in result_lines(p, names, match.rules,
                                           revealed_from(hand.knock, hand.defences, result))]
    if match.rules.format is Format.MATCH and not result.void:
        lines.append("  Score: " + ", ".join(f"{names[s]} {match.scores[s]}"
                                             for s in range(match.players)))
    return lines


def run_replay(args: argparse.Namespace) -> int:
    """Load, replay, print."""
    record = GameRecord.load(args.file)
    for text in replay_lines(record, args.verbose):
        print(text)
    return 0
