"""A running hand's view changes made from what a move changed, without writing and diffing
every recipient's view: the same changes (same paths, same order, same values) as
:func:`ginrummy.server.core.delta.state_delta`'s diff of the two views' JSON, which a
broadcast still uses for what this module leaves to it (a knock, a hand's end, another hand:
:func:`move_changes` says ``None``).

The two versions' views are compared as their parts (:class:`~ginrummy.server.play.viewcache.
ViewParts`): the shared part field by field (:class:`~ginrummy.views.SharedView`: a move
changes the phase, the seat to move, the piles and counts, the cards a seat took), each
viewer's own part by its cards and the entries its log gained.
``tests/server/test_delta_moves.py`` plays many games both ways and compares every text.
"""

from __future__ import annotations

from typing import Any

from ginrummy.cards import CARD_NAMES
from ginrummy.server.core.delta import Segments, diff
from ginrummy.views import SharedView, mask_names

Json = dict[str, Any]

OwnParts = tuple[list[str], list[Json], int]
"""A viewer's own part of a view (:attr:`ViewParts.own`): its cards' names, the cache's
list of its log entries, and how many of them its log held."""

UNCHANGED_BY_MOVES = ("rules", "dealer", "upcard", "knock", "defences", "laid_off", "result",
                       "scores", "hands_won", "hand_number", "revealed_masks")
"""The fields a draw or a discard does not change: when one did, the views are diffed."""

MOVED_FIELDS = ("phase", "to_move", "top_discard", "discard_pile", "stock_size", "knock_limit",
                "taken", "reshuffles", "counts", "known_masks")
"""The fields :func:`move_changes` compares and writes the changes of (every field of
:class:`SharedView` is here or above: ``tests/server/test_delta_moves.py``)."""


def _name(card: int | None) -> str | None:
    return None if card is None else CARD_NAMES[card]


def move_changes(old: SharedView, new: SharedView) -> tuple[Segments, Json] | None:
    """The changes of the shared part of two views of one running hand with no knock, as
    :func:`ginrummy.server.core.delta.shared_changes` gives them for the view's JSON (cut at
    the viewer's keys ``seat``, ``hand``, ``seats`` and ``log``), and those of its ``seats``
    list (the same for every viewer: its own entry differs only by its ``cards``, which
    follow its hand). ``None`` when a field moved that a draw or a discard does not move."""
    if old.knock is not None or new.knock is not None or len(old.counts) != len(new.counts):
        return None
    for field in UNCHANGED_BY_MOVES:
        before, after = getattr(old, field), getattr(new, field)
        if before is not after and before != after:
            return None
    top: Json = {}
    if old.phase is not new.phase:
        top["phase"] = new.phase.value
    if old.to_move != new.to_move:
        top["to_move"] = new.to_move
    middle: Json = {}
    if old.top_discard != new.top_discard:
        middle["top_discard"] = _name(new.top_discard)
    if old.discard_pile != new.discard_pile:
        if old.discard_pile is None or new.discard_pile is None:
            return None
        diff([CARD_NAMES[c] for c in old.discard_pile], [CARD_NAMES[c] for c in new.discard_pile],
             "discard_pile", middle)
    if old.stock_size != new.stock_size:
        middle["stock_size"] = new.stock_size
    if old.knock_limit != new.knock_limit:
        middle["knock_limit"] = new.knock_limit
    if old.taken != new.taken:
        middle["taken"] = _name(new.taken)
    if old.reshuffles != new.reshuffles:
        middle["reshuffles"] = new.reshuffles
    seats: Json = {}
    for seat, (count, known, was, knew) in enumerate(zip(new.counts, new.known_masks,
                                                         old.counts, old.known_masks,
                                                         strict=True)):
        if count != was:
            seats[f"seats.{seat}.count"] = count
        if known != knew:
            diff(mask_names(knew), mask_names(known), f"seats.{seat}.known", seats)
    return [({}, "seat"), (top, "hand"), ({}, "seats"), (middle, "log"), ({}, None)], seats


def move_view_changes(old: OwnParts, new: OwnParts, shared: Segments, seats: Json) -> Json | None:
    """One viewer's view changes (:func:`move_changes`' ``shared`` and ``seats``, its cards'
    and its log's), as the diff of its two views gives them; ``None`` when its log was
    written anew (the views are then diffed)."""
    old_names, old_entries, size = old
    names, entries, length = new
    if entries is not old_entries or length < size:
        return None
    changes: Json = {}
    for part, key in shared:
        if part:
            changes.update(part)
        if key == "hand":
            if names is not old_names and names != old_names:
                diff(old_names, names, "hand", changes)
        elif key == "seats":
            if seats:
                changes.update(seats)
        elif key == "log" and length > size:
            changes["log~"] = [size, 0, *entries[size:length]]
    return changes
