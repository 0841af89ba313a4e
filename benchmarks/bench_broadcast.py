"""Time of one broadcast's texts (``GameTable.broadcast_texts``): what the server builds
after every action for two seats and a spectator, all on protocol 3 (deltas after the first
state), over simulated play, this tree against another.

Plays two-player tables in memory as ``delta_bytes.py`` does (the load clients' choices, the
turn clock on), records the events, then replays them on a fresh table ``--repeat`` times,
timing each broadcast. Prints microseconds per broadcast and a fingerprint of every text
built (two trees that build the same messages print the same fingerprint)::

    PYTHONPATH=src python benchmarks/bench_broadcast.py --actions 3000
    PYTHONPATH=/tmp/base/src python benchmarks/bench_broadcast.py --actions 3000

Run the two alternately (the machine's speed drifts) and compare the ratios, or count the
replays' instructions (independent of the machine's load)::

    PYTHONPATH=src valgrind --tool=callgrind --instr-atstart=no \
        python benchmarks/bench_broadcast.py --actions 800 --repeat 2 --callgrind
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import time
from typing import Any

import orjson

from delta_bytes import NOW, _table
from ginrummy.cards import format_cards
from ginrummy.engine import CHANCE, deal_order
from ginrummy.server.core.delta import apply_delta
from ginrummy.server.play.clock import turn_key, update_clock
from ginrummy.storage import StoredEvent
from load_clients import choose_action

RECIPIENTS: tuple[int | None, ...] = (0, 1, None)


def record(preset: str, actions: int, seed: int) -> list[tuple[StoredEvent, float]]:
    """The events (and their times) of simulated play until ``actions`` seat actions."""
    rng = random.Random(seed)
    table = _table(preset)
    states: dict[int | None, dict[str, Any]] = {}
    bases: dict[int | None, int] = {}
    events: list[tuple[StoredEvent, float]] = []
    now = NOW
    version = done = 0

    def broadcast() -> None:
        full, deltas = table.broadcast_texts([s for s in RECIPIENTS if s not in bases],
                                             [(s, bases[s]) for s in RECIPIENTS if s in bases],
                                             now)
        for seat in RECIPIENTS:
            text = deltas.get((seat, bases.get(seat, -1))) or full[seat]
            message = orjson.loads(text)
            states[seat] = (apply_delta(states[seat], message)
                            if message["type"] == "delta" else message)
            assert table.messages.last is not None
            bases[seat] = table.messages.last.serial

    first = StoredEvent(1, "match", json.dumps({"first_dealer": 0}))
    table.apply_event(first)
    events.append((first, now))
    version = 1
    broadcast()
    while done < actions:
        now += 1.0
        match = table.match
        assert match is not None
        if match.over:
            event = StoredEvent(version + 1, "match", json.dumps({"first_dealer": 0}))
        elif match.needs_deal:
            event = StoredEvent(version + 1, "deal", format_cards(deal_order(rng=rng)))
        elif match.hand.to_move == CHANCE:
            event = StoredEvent(version + 1, "action", str(match.hand.reshuffle_order(rng)),
                                CHANCE, "chance")
        else:
            mover = match.hand.to_move
            action = choose_action(states[mover]["legal"], states[mover]["hints"], rng)
            event = StoredEvent(version + 1, "action", action, mover, "human", f"c{version}")
            done += 1
        before = turn_key(table)
        table.apply_event(event)
        update_clock(table, before, now)
        version += 1
        events.append((event, now))
        broadcast()
    return events


def replay(preset: str, events: list[tuple[StoredEvent, float]]) -> tuple[float, str]:
    """Seconds spent in ``broadcast_texts`` over ``events``, and the texts' fingerprint."""
    table = _table(preset)
    digest = hashlib.sha256()
    serial: int | None = None
    spent = 0.0
    clock = time.perf_counter
    for event, now in events:
        before = turn_key(table)
        table.apply_event(event)
        update_clock(table, before, now)
        synced = [] if serial is None else [(s, serial) for s in RECIPIENTS]
        full = list(RECIPIENTS) if serial is None else []
        started = clock()
        _, deltas = table.broadcast_texts(full, synced, now)
        spent += clock() - started
        for text in deltas.values():  # (the first states hold the table's creation time)
            digest.update(text.encode())
        assert table.messages.last is not None
        serial = table.messages.last.serial
    return spent, digest.hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=3000, help="seat actions to play")
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--callgrind", action="store_true",
                        help="under valgrind --tool=callgrind --instr-atstart=no: count the "
                        "instructions of the replays alone")
    args = parser.parse_args()
    events = record(args.preset, args.actions, args.seed)
    times = []
    fingerprint = ""
    if args.callgrind:  # count the replays' instructions only
        subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], check=True,
                       stdout=subprocess.DEVNULL)
    for _ in range(args.repeat):
        spent, fingerprint = replay(args.preset, events)
        times.append(spent / len(events) * 1e6)
    if args.callgrind:
        subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())], check=True,
                       stdout=subprocess.DEVNULL)
    result = {"broadcasts": len(events), "us_per_broadcast_best": min(times),
              "us_per_broadcast_median": sorted(times)[len(times) // 2],
              "fingerprint": fingerprint}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{len(events)} broadcasts (2 seats and a spectator, deltas): "
              f"{min(times):.1f} us best, {sorted(times)[len(times) // 2]:.1f} us median; "
              f"texts {fingerprint}")


if __name__ == "__main__":
    main()
