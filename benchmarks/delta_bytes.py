"""What each field of protocol 3's ``delta`` costs, in bytes, over simulated actions.

Plays two-player tables in memory (no server, no sockets), as ``load_server.py``'s seats play
them (:func:`load_clients.choose_action`, the turn clock on, ``next`` between hands), and
after every stored event builds the broadcast each seat would get. Prints, per acknowledged
action, the bytes of all the deltas sent and how they split by field (top-level fields, and
the fields of ``view`` as ``view.<key>``), so that a change to the delta format can be
weighed before the socket benchmark::

    PYTHONPATH=src python benchmarks/delta_bytes.py --actions 500 --preset classic
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from typing import Any

import orjson

from ginrummy.cards import format_cards
from ginrummy.engine import CHANCE, deal_order
from ginrummy.rules import Ruleset
from ginrummy.server.core.delta import apply_delta
from ginrummy.server.core.jsontext import dumps
from ginrummy.server.play.clock import turn_key, update_clock
from ginrummy.server.play.table import GameTable, Seat, table_rules
from ginrummy.storage import StoredEvent
from load_clients import choose_action

NOW = 1_800_000_000.0


def _table(preset: str) -> GameTable:
    seats = [Seat(s, "human", f"p{s}", None, f"h{s}") for s in range(2)]
    for seat in seats:
        seat.connections = 1
    return GameTable("t", "", preset, table_rules(Ruleset.preset(preset)), True, None,
                     30_000, None, seats)


def _field_costs(text: str, costs: Counter[str]) -> None:
    """Adds each field's share of ``text`` (a delta) to ``costs``: ``"key":value,`` bytes."""
    message = orjson.loads(text)
    for key, value in message.items():
        if key == "view" and isinstance(value, dict):
            costs["view {}"] += len('"view":{},')
            for sub, part in value.items():
                costs[f"view.{sub}"] += len(dumps({sub: part})) - 1
        else:
            costs[key] += len(dumps({key: value})) - 1


def measure(preset: str, actions: int, seed: int) -> dict[str, Any]:
    """Plays until ``actions`` seat actions were acknowledged; returns the byte counts."""
    rng = random.Random(seed)
    table = _table(preset)
    seats = [0, 1]
    bases: dict[int | None, int] = {}
    states: dict[int | None, dict[str, Any]] = {}
    costs: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    delta_bytes = full_bytes = done = 0
    now = NOW
    version = 0

    def broadcast(ack: str | None, mover: int | None) -> None:
        nonlocal delta_bytes, full_bytes
        full, deltas = table.broadcast_texts([s for s in seats if s not in bases],
                                             [(s, bases[s]) for s in seats if s in bases], now)
        for seat in seats:
            text = deltas.get((seat, bases.get(seat, -1))) or full[seat]
            if ack is not None and seat == mover:  # the acknowledging message
                text = text.replace('"type":"delta",', f'"type":"delta","ack":"{ack}",', 1)
            message = orjson.loads(text)
            if message["type"] == "delta":
                delta_bytes += len(text)
                _field_costs(text, costs)
                states[seat] = apply_delta(states[seat], message)
            else:
                full_bytes += len(text)
                states[seat] = message
            assert table.messages.last is not None
            bases[seat] = table.messages.last.serial

    table.apply_event(StoredEvent(1, "match", json.dumps({"first_dealer": 0})))
    version = 1
    broadcast(None, None)
    while done < actions:
        now += 1.0
        match = table.match
        assert match is not None
        before = turn_key(table)
        mover: int | None = None
        ack = None
        if match.over:
            event = StoredEvent(version + 1, "match", json.dumps({"first_dealer": 0}))
            kinds["rematch"] += 1
        elif match.needs_deal:
            event = StoredEvent(version + 1, "deal", format_cards(deal_order(rng=rng)))
            kinds["deal"] += 1
        elif match.hand.to_move == CHANCE:
            event = StoredEvent(version + 1, "action", str(match.hand.reshuffle_order(rng)),
                                CHANCE, "chance")
            kinds["reshuffle"] += 1
        else:
            mover = match.hand.to_move
            state = states[mover]
            action = choose_action(state["legal"], state["hints"], rng)
            ack = f"c{version + 1}"
            event = StoredEvent(version + 1, "action", action, mover, "human", ack)
            kinds[action.split()[0]] += 1
            done += 1
        table.apply_event(event)
        version += 1
        update_clock(table, before, now)
        broadcast(ack, mover)
    return {"actions": done, "delta_bytes": delta_bytes, "full_bytes": full_bytes,
            "costs": costs, "kinds": kinds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=500, help="seat actions to play")
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    result = measure(args.preset, args.actions, args.seed)
    if args.json:
        print(json.dumps(result))
        return
    n = result["actions"]
    print(f"{n} actions {dict(result['kinds'])}: deltas {result['delta_bytes'] / n:.0f} B "
          f"per action (whole states at the start: {result['full_bytes']} B)")
    for key, cost in result["costs"].most_common():
        print(f"  {key:<24} {cost / n:7.1f} B/action  {100 * cost / result['delta_bytes']:5.1f}%")


if __name__ == "__main__":
    main()
