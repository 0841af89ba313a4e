"""Protocol 3's ``delta`` message (docs/protocol.md, section ``delta``): what changed in one
recipient's ``state`` since the state or delta sent before it, and the client's reducer that
applies it.

Both sides are plain JSON functions of the standard library, so the server
(:mod:`ginrummy.server.play.messages`), the load clients and the tests share one definition:
:func:`state_delta` builds a delta from two of a recipient's states, :func:`apply_delta`
rebuilds the later state from the earlier one and the delta, byte for byte (same keys, same
order: ``tests/server/test_delta.py`` checks it at every step of thousands of games).

A delta holds nothing its recipient's state does not hold: every value in it is copied from
that recipient's own new state (the appended log entries name a stock-drawn card only in the
drawer's delta, as its log does; a spectator's names no hidden card).

Its fields, besides ``type``, ``base`` (the ``version`` of the state it applies to) and
``version`` (the state's after it; the same when nothing versioned changed, e.g. a seat
connected):

* ``view``: the fields of the view whose value changed, each replacing the old one (all of
  them when there was no view before), or ``null`` when the view became ``null``;
* ``log``: entries appended to ``view.log`` (absent when none; a new hand's log comes whole in
  ``view.log`` instead);
* ``table``: the table entry, when anything but its ``version`` changed;
* any other field of the state (``legal``, ``hints``, ``clock``, ``next_hand``, ``sheet``,
  ``result``, ...) whose value changed, whole.
"""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]

DELTA_PROTOCOL = 3
"""The first protocol whose clients receive deltas after their first ``state``."""

_FIXED = frozenset({"type", "ack", "version", "seat", "table", "view"})
"""State fields a delta does not copy as they are (``version``: the delta's own; ``seat``:
never changes on a connection; ``table`` and ``view``: compared field by field)."""


class DeltaError(ValueError):
    """A delta that does not apply to the state at hand (the client asks for a ``resync``)."""


def state_delta(old: Json, new: Json, table_changed: bool | None = None) -> Json:
    """The delta that turns ``old`` (a recipient's previous ``state``) into ``new`` (its
    next, same seat). ``table_changed``: whether the table entry changed beyond its
    ``version``, when the caller knows it (else the entries are compared)."""
    if old.get("seat") != new.get("seat"):
        raise DeltaError("a delta is between two states of the same seat")
    delta: Json = {"type": "delta", "base": old["version"], "version": new["version"]}
    if table_changed is None:
        table_changed = _without_version(old["table"]) != _without_version(new["table"])
    if table_changed:
        delta["table"] = new["table"]
    _view_delta(old.get("view"), new.get("view"), delta)
    for key, value in new.items():
        if key in _FIXED:
            continue
        before = old.get(key, _MISSING)
        if before is not value and before != value:
            delta[key] = value
    return delta


_MISSING = object()


def _without_version(entry: Json) -> Json:
    return {k: v for k, v in entry.items() if k != "version"}


def _view_delta(old: Json | None, new: Json | None, delta: Json) -> None:
    if new is None:
        if old is not None:
            delta["view"] = None
        return
    if old is None:
        delta["view"] = new
        return
    patch: Json = {}
    appended = None
    for key, value in new.items():
        before = old.get(key, _MISSING)
        if before is value or before == value:
            continue
        if key == "log" and isinstance(before, list) and len(before) <= len(value) \
                and value[:len(before)] == before:
            appended = value[len(before):]
            continue
        patch[key] = value
    if patch:
        delta["view"] = patch
    if appended is not None:
        delta["log"] = appended


def apply_delta(state: Json, delta: Json) -> Json:
    """The state after ``delta``: ``state`` (left unchanged) with the delta's changes, keys
    in the state's order. :class:`DeltaError` when the delta does not apply (another
    ``base``, or a malformed delta): the client then asks for a full state (``resync``)."""
    if delta.get("type") != "delta":
        raise DeltaError("not a delta")
    version = delta.get("version")
    if delta.get("base") != state.get("version") or not isinstance(version, int):
        raise DeltaError(f"a delta from version {delta.get('base')} does not apply to "
                         f"version {state.get('version')}")
    result = {k: v for k, v in state.items() if k != "ack"}
    result["version"] = version
    table = delta.get("table", state["table"])
    if not isinstance(table, dict):
        raise DeltaError("delta: table must be an object")
    result["table"] = {**table, "version": version}
    view = state.get("view")
    if "view" in delta:
        patch = delta["view"]
        if patch is not None and not isinstance(patch, dict):
            raise DeltaError("delta: view must be an object or null")
        view = patch if patch is None or view is None else {**view, **patch}
    added = delta.get("log")
    if added is not None:
        if not isinstance(view, dict) or not isinstance(added, list):
            raise DeltaError("delta: log entries need a view and a list")
        view = {**view, "log": [*view["log"], *added]}
    result["view"] = view
    for key, value in delta.items():
        if key not in _FIXED and key not in ("base", "log"):
            result[key] = value
    return result
