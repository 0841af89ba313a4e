"""``ginrummy simulate``: play N complete hands between built-in players and time the engine.

Deck orders and reshuffles come from one ``random.Random(seed)``; the bots' seeds are drawn
from it first and the first dealer after them, then the dealer rotates every hand. A void hand
counts as a complete hand. ``seconds`` is measured with :func:`time.perf_counter` around the
playing loop only (no start-up, imports or bot construction).

With ``--record DIR`` every hand is also saved as a game record (docs/records.md),
``DIR/hand-00001.ginrec.json`` and so on: each hand is a match of its own (a one-hand record,
unfinished in a match format), which ``replay``, ``coach`` and ``verify`` read. The games
are the same as without ``--record`` (same decks, same moves); the records' writing is inside
the timed loop.
"""

from __future__ import annotations

import argparse
import json
import random
import secrets
import time
from pathlib import Path
from typing import Any

from ginrummy.bots import make_bot
from ginrummy.cli.options import UsageError, build_ruleset, record_directory, seat_names
from ginrummy.engine import Hand, deal_order
from ginrummy.gameloop import MAX_DECISIONS, Stats, play_hand, reshuffles_from
from ginrummy.match import Match
from ginrummy.records import GameRecord
from ginrummy.rules import Ruleset
from ginrummy.scoring import Outcome


def record_path(directory: Path, number: int) -> Path:
    """Where ``--record`` saves hand ``number`` (from 1)."""
    return directory / f"hand-{number:05d}.ginrec.json"


def simulate(rules: Ruleset, players: list[str], hands: int, seed: int,
             cap: int = MAX_DECISIONS, record: Path | None = None) -> dict[str, Any]:
    """Play ``hands`` hands; the summary as plain JSON values. A hand past ``cap`` decisions
    stops the run with :class:`~ginrummy.gameloop.EndlessHand`. With ``record`` (a
    directory) each hand is saved there as a one-hand game record."""
    n = rules.players
    if len(players) != n:
        raise UsageError(f"{len(players)} players given but the rules have {n} seats")
    rng = random.Random(seed)
    bots = [make_bot(name, rng.randrange(1 << 32)) for name in players]
    dealer = rng.randrange(n)
    stats = Stats()
    wins = [0] * n
    points = [0] * n
    _play, _Hand, _deal, _count = play_hand, Hand, deal_order, stats.count
    chance = reshuffles_from(rng)
    start = time.perf_counter()
    for number in range(1, hands + 1):
        if record is None:
            hand = _Hand(rules, dealer, _deal(rng=rng))
            _play(hand, bots, chance, None, cap)
        else:  # the same deal, played through a match of its own to be recorded
            match = Match(rules, rng=rng, first_dealer=dealer)
            hand = match.start_hand(_deal(rng=rng))
            _play(match, bots, chance, None, cap)
            GameRecord.from_match(match, players).save(record_path(record, number))
        _count(hand)
        result = hand.result
        if result is not None and result.winner is not None:
            wins[result.winner] += 1
            points[result.winner] += result.points[result.winner]
        dealer = (dealer + 1) % n
    seconds = time.perf_counter() - start
    outcomes = {o.value: stats.outcomes.get(o.value, 0) for o in Outcome}
    return {
        "hands": stats.hands,
        "decisions": stats.decisions,
        "seconds": round(seconds, 6),
        "hands_per_second": round(stats.hands / seconds, 3) if seconds > 0 else None,
        "decisions_per_second": round(stats.decisions / seconds, 1) if seconds > 0 else None,
        "outcomes": outcomes,
        "wins": wins,
        "points": points,
        "players": players,
        "preset": rules.name,
        "ruleset": rules.to_dict(),
        "seed": seed,
    }


def summary_lines(data: dict[str, Any]) -> list[str]:
    """A short summary for people."""
    hands = data["hands"]
    rate = data["hands_per_second"]
    lines = [
        f"{hands} hands of {data['preset']} ({', '.join(data['players'])}), seed {data['seed']}",
        f"{data['decisions']} decisions in {data['seconds']:.3f} s: "
        f"{rate:,.0f} hands/s, {data['decisions_per_second']:,.0f} decisions/s"
        if rate is not None else f"{data['decisions']} decisions",
    ]
    parts = []
    for name, count in data["outcomes"].items():
        share = f" ({100 * count / hands:.1f}%)" if hands else ""
        parts.append(f"{name} {count}{share}")
    lines.append("outcomes: " + ", ".join(parts))
    lines.append("wins: " + ", ".join(
        f"seat {s} {name} {w}" for s, (name, w) in enumerate(zip(data["players"], data["wins"],
                                                                 strict=True))))
    if data["ruleset"]["format"] == "match":
        lines.append("points: " + ", ".join(f"seat {s} {p}" for s, p in enumerate(data["points"])))
    return lines


def run_simulate(args: argparse.Namespace) -> int:
    """Check the arguments, simulate, print the summary."""
    rules = build_ruleset(args)
    if args.hands < 1:
        raise UsageError(f"--hands {args.hands}: play at least one hand")
    players = seat_names(args.seats, rules.players, "--players")
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    directory = record_directory(args.record)
    data = simulate(rules, players, args.hands, seed, record=directory)
    if directory is not None:
        data["records"] = str(directory)
    if args.json:
        print(json.dumps(data))
    else:
        print("\n".join(summary_lines(data)))
    return 0

