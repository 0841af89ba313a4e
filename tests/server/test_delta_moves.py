"""The deltas a running hand's moves make without diffing the views
(``StateMessages.move_deltas``, :func:`ginrummy.server.core.delta.move_view_changes`) are
the generic diff's, byte for byte: two tables play the same events in lockstep, one making
its view changes from the move and one diffing whole views, and every text each broadcast
sends every seat and a spectator (deltas and whole states, bases from broadcasts and from
states sent alone) is the same, over many random games of the four presets (three and four
players in ``arena``)."""

from __future__ import annotations

import os
import random
from typing import Any

import pytest
from test_delta import GAMES, NOW, _step, _table

from ginrummy.server.core.jsontext import dumps
from ginrummy.server.play import messages
from ginrummy.server.play.movedelta import MOVED_FIELDS, UNCHANGED_BY_MOVES
from ginrummy.server.play.table import GameTable
from ginrummy.storage import StoredEvent
from ginrummy.views import SharedView

GAMES_EACH = int(os.environ.get("GINRUMMY_MOVE_DELTA_GAMES", "6"))
"""Tables per preset and player count (two matches each, at most 400 steps)."""


def _lockstep(preset: str, players: int, seed: int, made: dict[str, int]) -> int:
    """Play one table (``_step``: seeded, with resignations, seats coming and going, the
    clock, the pause between hands) and a copy fed the same events; compare every text of
    every broadcast. Returns the deltas compared."""
    rng = random.Random(seed)
    target = rng.choice([None, 20, 40])
    moves, diffs = _table(preset, players, target), _table(preset, players, target)
    diffs.created_at = moves.created_at  # (the tables' entries name it)
    diffs.messages.move_deltas = False
    applied: list[StoredEvent] = []

    def apply_both(event: StoredEvent) -> None:
        GameTable.apply_event(moves, event)
        applied.append(event)

    moves.apply_event = apply_both  # type: ignore[method-assign]
    recipients = [None, *range(players)]
    bases: dict[str, dict[int | None, int]] = {"moves": {}, "diffs": {}}
    compared = 0
    for _ in range(400):
        if not _step(moves, rng, rng.random() < 0.7):
            break
        for event in applied:
            diffs.apply_event(event)
        applied.clear()
        _mirror(moves, diffs)
        if rng.random() < 0.05:  # a state sent to one recipient alone (a resync)
            seat = rng.choice(recipients)
            one, bases["moves"][seat] = moves.messages.state_alone(moves, seat, NOW - 1)
            other, bases["diffs"][seat] = diffs.messages.state_alone(diffs, seat, NOW - 1)
            assert dumps(one) == dumps(other)
            if rng.random() < 0.5:
                continue
        texts = {}
        for name, table in (("moves", moves), ("diffs", diffs)):
            full, deltas = table.broadcast_texts(recipients, bases[name].items(), NOW)
            texts[name] = [deltas.get((seat, bases[name].get(seat, -1)), full[seat])
                           for seat in recipients]
            assert table.messages.last is not None
            bases[name] = dict.fromkeys(recipients, table.messages.last.serial)
        assert texts["moves"] == texts["diffs"], f"{preset} seed {seed} v{moves.version}"
        compared += sum(text.startswith('{"type":"delta"') for text in texts["moves"])
    made["tables"] += 1
    return compared


def _mirror(source: GameTable, copy: GameTable) -> None:
    """The changes ``_step`` makes without an event (connections, clock, the pause)."""
    copy.clock_seat, copy.clock_deadline = source.clock_seat, source.clock_deadline
    copy.next_deal_at = source.next_deal_at
    for mine, theirs in zip(copy.seats, source.seats, strict=True):
        mine.connections = theirs.connections


@pytest.mark.parametrize(("preset", "players"), GAMES)
def test_move_deltas_are_the_generic_diffs_bytes(preset: str, players: int,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Every seat's and the spectator's text, at every broadcast of many games."""
    made = {"tables": 0, "moves": 0, "fallbacks": 0}
    real = messages.move_view_changes

    def counted(*args: Any) -> Any:
        patch = real(*args)
        made["moves" if patch is not None else "fallbacks"] += 1
        return patch

    monkeypatch.setattr(messages, "move_view_changes", counted)
    compared = sum(_lockstep(preset, players, 1000 * players + number, made)
                   for number in range(GAMES_EACH))
    assert made["tables"] == GAMES_EACH and compared > 500 * GAMES_EACH
    # most deltas of a game are a running hand's moves: those were made from the move
    assert made["moves"] > compared * 0.6, (made, compared)


def test_every_field_of_the_shared_view_is_made_from_the_move_or_left_to_the_diff() -> None:
    """A field added to :class:`SharedView` must be handled by ``move_changes`` (or listed
    among those a move leaves alone): else a move's delta would miss its change."""
    assert set(SharedView.__slots__) == set(MOVED_FIELDS) | set(UNCHANGED_BY_MOVES)
    assert not set(MOVED_FIELDS) & set(UNCHANGED_BY_MOVES)
