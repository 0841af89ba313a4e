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

Its fields, besides ``type``, ``base`` (the ``version`` of the state it applies to, left out
when it is ``version - 1``, the usual case: one action, one version) and ``version`` (the
state's after it; the same when nothing versioned changed, e.g. a seat connected), are
*changes* keyed by a *path* (:func:`diff`):

* ``"a.b.c": value`` sets the value at that path (``seats.1.count``: the ``count`` of item 1
  of the list ``seats``);
* ``"a.b~": [index, removed, item, ...]`` splices the list at that path, as JavaScript's
  ``list.splice(index, removed, item, ...)`` (a card drawn into ``hand``, a log entry
  appended).

``view`` holds the view's changes (paths inside the view), or the whole view when there was
none before, or ``null`` when it became ``null`` (the viewer's own seat's ``cards``, which
are its ``hand`` until revealed, follow the hand without being sent: :func:`follow_hand`);
``table`` the table entry's changes; every other key is a change of the state itself
(``legal``, ``hints.deadwood``, ``clock.remaining_ms``, ...). ``legal`` may come in a short
form that names the discards by the (new) hand: ``{"discards": "hand", "except": [...],
"plus": [...]}`` (:func:`short_legal`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Json = dict[str, Any]

DELTA_PROTOCOL = 3
"""The first protocol whose clients receive deltas after their first ``state``."""

_FIXED = frozenset({"type", "ack", "base", "version", "seat", "table", "view"})
"""Keys of a delta that are not changes of the state's own fields (``seat`` never changes on
a connection; ``table`` and ``view`` hold changes inside those fields)."""

_DISCARD = "discard "


class DeltaError(ValueError):
    """A delta that does not apply to the state at hand (the client asks for a ``resync``)."""


Segments = list[tuple[Json, str | None]]
"""The changes of the parts every viewer's view shares, cut at the keys each viewer has its own
value at (:func:`shared_changes`)."""


def state_delta(old: Json, new: Json, table_changed: bool | None = None,
                old_table: Json | None = None, shared: Segments | None = None) -> Json:
    """The delta that turns ``old`` (a recipient's previous ``state``) into ``new`` (its
    next, same seat). ``table_changed``: whether the table entry changed beyond its
    ``version``, when the caller knows it (else the entries are compared); ``old_table``:
    the old entry when ``old`` does not hold it; ``shared``: when the two views were made of
    two shared parts (:func:`shared_changes`), their changes, found once for every
    recipient."""
    if old.get("seat") != new.get("seat"):
        raise DeltaError("a delta is between two states of the same seat")
    delta = delta_head(old["version"], new["version"])
    before_table = old["table"] if old_table is None else old_table
    if table_changed is None:
        table_changed = _without_version(before_table) != _without_version(new["table"])
    if table_changed:
        delta["table"] = object_changes(_without_version(before_table),
                                         _without_version(new["table"]))
    _view_delta(old.get("view"), new.get("view"), delta, shared)
    view = new.get("view")
    _field_changes(old, new, delta, view.get("hand") if isinstance(view, dict) else None)
    return delta


def delta_head(base: int, version: int) -> Json:
    """A delta's ``type``, ``base`` (only when it is not ``version - 1``) and ``version``."""
    if base == version - 1:
        return {"type": "delta", "version": version}
    return {"type": "delta", "base": base, "version": version}


def delta_base(delta: Mapping[str, Any]) -> Any:
    """The ``version`` a delta applies to: its ``base``, else its ``version`` less one."""
    if "base" in delta:
        return delta["base"]
    version = delta.get("version")
    return version - 1 if isinstance(version, int) else None


def body_delta(old: Mapping[str, Any], new: Mapping[str, Any], table: Json | None, view: Json,
               hand: list[str] | None) -> Json:
    """:func:`state_delta` of two states of one seat given as their recipient's fields
    (``version``, ``seat``, ``view``, ``legal``, ``hints``: no type, no table entry; the
    views need not be there) when the caller made the table entry's changes (``table``:
    ``None`` when it did not change) and the view's (``view``, ``{}`` for none); ``hand``
    is the new view's hand (for the short ``legal``)."""
    delta = delta_head(old["version"], new["version"])
    if table is not None:
        delta["table"] = table
    if view:
        delta["view"] = view
    _field_changes(old, new, delta, hand)
    return delta


def table_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> Json:
    """The changes of a table entry but its ``version`` (``delta["table"]``)."""
    return object_changes(_without_version(old), _without_version(new))


def _field_changes(old: Mapping[str, Any], new: Mapping[str, Any], delta: Json,
                   hand: list[str] | None) -> None:
    """Adds to ``delta`` the changes of the state's own fields (not the fixed ones, not the
    view): ``legal`` in the short form when it names the discards of ``hand``."""
    for key, value in new.items():
        if key in _FIXED:
            continue
        before = old.get(key, _MISSING)
        if before is value or before == value:
            continue
        if key == "legal" and hand is not None:
            short = short_legal(value, hand)
            if short is not None:
                delta[key] = short
                continue
        if before is _MISSING:
            delta[key] = value
        else:
            diff(before, value, key, delta)


_MISSING = object()


def _without_version(entry: Mapping[str, Any]) -> Json:
    return {k: v for k, v in entry.items() if k != "version"}


def _view_delta(old: Json | None, new: Json | None, delta: Json,
                shared: Segments | None) -> None:
    if new is None:
        if old is not None:
            delta["view"] = None
        return
    if old is None:
        delta["view"] = new
        return
    patch = object_changes(old, new) if shared is None else _viewer_changes(old, new, shared)
    own = _own_cards(old, new, patch)
    if own is not None:
        seat, follows = own
        cards = f"seats.{seat}.cards"
        patch.pop(cards, None)
        patch.pop(f"{cards}~", None)
        if not follows:  # the reducer would copy the hand: say what the seat holds instead
            patch[cards] = new["seats"][seat]["cards"]
    if patch:
        delta["view"] = patch


def shared_changes(old: Json, new: Json, own_keys: frozenset[str]) -> Segments:
    """The changes that turn the shared part ``old`` of some views into ``new``, keys of
    ``own_keys`` left out (each view has its own value there): ``(changes, own key)`` pairs in
    ``new``'s key order, each key of ``own_keys`` after the changes that come before it (the
    last pair's key ``None``). :func:`_viewer_changes` fills in one viewer's keys."""
    segments: Segments = []
    changes: Json = {}
    for key, value in new.items():
        if key in own_keys:
            segments.append((changes, key))
            changes = {}
            continue
        before = old.get(key, _MISSING)
        if before is _MISSING:
            changes[key] = value
        elif before is not value and before != value:
            diff(before, value, key, changes)
    segments.append((changes, None))
    return segments


def _viewer_changes(old: Json, new: Json, shared: Segments) -> Json:
    """``object_changes(old, new)`` for two views whose keys are those of the shared parts
    :func:`shared_changes` compared, and whose values are those parts' at every key but the
    viewer's own: only those are compared here."""
    changes: Json = {}
    for part, key in shared:
        if part:
            changes.update(part)
        if key is None:
            continue
        value = new[key]
        before = old.get(key, _MISSING)
        if before is _MISSING:
            changes[key] = value
        elif before is not value and before != value:
            diff(before, value, key, changes)
    return changes


def _own_cards(old: Json, new: Json, patch: Json) -> tuple[int, bool] | None:
    """When the viewer's hand changed and its own seat's ``cards`` was its hand before (the
    seat's cards are the hand until they are revealed), the delta leaves the seat's cards
    out and the reducer copies the new hand there (:func:`follow_hand`): returns the seat and
    whether the copy is right (else the cards are sent whole), or ``None`` when the rule
    does not apply."""
    seat = new.get("seat")
    if type(seat) is not int or not ("hand" in patch or "hand~" in patch) \
            or "seats" in patch or f"seats.{seat}" in patch:
        return None
    before, after = old.get("seats"), new.get("seats")
    if type(before) is not list or type(after) is not list \
            or not 0 <= seat < min(len(before), len(after)) \
            or type(before[seat]) is not dict or type(after[seat]) is not dict \
            or before[seat].get("cards") != old.get("hand"):
        return None
    return seat, after[seat].get("cards") == new.get("hand")


def follow_hand(old: Json, patch: Json, view: Json) -> Json:
    """``view`` (made of ``old`` and ``patch``) with the viewer's own seat's ``cards`` set to
    its new hand, when the patch changed the hand and said nothing of those cards, which were
    the hand before (:func:`_own_cards`)."""
    seat = view.get("seat")
    if type(seat) is not int or not ("hand" in patch or "hand~" in patch) \
            or any(path in patch for path in ("seats", f"seats.{seat}", f"seats.{seat}.cards",
                                              f"seats.{seat}.cards~")):
        return view
    seats, before = view.get("seats"), old.get("seats")
    if type(seats) is not list or not 0 <= seat < len(seats) or type(seats[seat]) is not dict \
            or type(before) is not list or not 0 <= seat < len(before) \
            or type(before[seat]) is not dict or before[seat].get("cards") != old.get("hand"):
        return view
    if type(view.get("hand")) is not list:
        raise DeltaError("delta: the own seat's cards follow no hand")
    seats = list(seats)
    seats[seat] = {**seats[seat], "cards": list(view["hand"])}
    return {**view, "seats": seats}


def object_changes(old: Json, new: Json) -> Json:
    """The changes (path -> value) that turn the object ``old`` into ``new``; a key ``new``
    adds is set whole (after the others, as in ``new``)."""
    changes: Json = {}
    for key, value in new.items():
        before = old.get(key, _MISSING)
        if before is _MISSING:
            changes[key] = value
        elif before is not value and before != value:
            diff(before, value, key, changes)
    return changes


def diff(old: Any, new: Any, path: str, out: Json) -> None:
    """Adds to ``out`` the changes (keyed by path, below ``path``) that turn ``old`` into
    ``new``: objects with the same keys (none holding ``.`` or ``~``) and lists of objects of
    the same length are compared item by item; a list that gained items or lost one is
    spliced; anything else is set whole. ``old`` and ``new`` differ (the callers compare)."""
    kind = type(new)
    if kind is dict and type(old) is dict:
        keys = tuple(new)
        if tuple(old) == keys and (_PLAIN.get(keys) or _plain_keys(keys)):
            prefix = f"{path}."
            for key, value in new.items():
                before = old[key]
                if before is not value and before != value:
                    if type(value) in _WHOLE:  # a leaf: set, without a call
                        out[prefix + key] = value
                    else:
                        diff(before, value, prefix + key, out)
            return
    elif kind is list and type(old) is list:
        if len(old) == len(new):  # no splice: compare the objects item by item
            for item in new:  # (a loop, not all() over a generator: a frame fewer)
                if type(item) is not dict:
                    break
            else:
                prefix = f"{path}."
                for index, value in enumerate(new):
                    before = old[index]
                    if before is not value and before != value:
                        diff(before, value, f"{prefix}{index}", out)
                return
        else:
            splice = _splice(old, new)
            if splice is not None:
                out[f"{path}~"] = splice
                return
    out[path] = new


_WHOLE = frozenset({int, str, float, bool, type(None)})
"""The types :func:`diff` sets whole (neither an object nor a list)."""


_PLAIN: dict[tuple[str, ...], bool] = {}
"""Whether an object's keys (as a tuple) can be parts of a path (hold no ``.`` or ``~``):
the few key tuples of states, remembered."""


def _plain_keys(keys: tuple[str, ...]) -> bool:
    plain = _PLAIN.get(keys)
    if plain is None:
        plain = not any("." in key or "~" in key for key in keys)
        if len(_PLAIN) < 1024:
            _PLAIN[keys] = plain
    return plain


def _splice(old: list[Any], new: list[Any]) -> list[Any] | None:
    """``[index, removed, *items]`` that turns ``old`` into ``new`` when ``new`` is ``old`` with
    items appended, or one item inserted or removed; else ``None``."""
    size = len(old)
    grown = len(new) - size
    if grown > 0 and new[:size] == old:
        return [size, 0, *new[size:]]
    if grown != 1 and grown != -1:
        return None
    shorter, longer = (old, new) if grown > 0 else (new, old)
    index = 0
    for a, b in zip(shorter, longer, strict=False):
        if a != b:
            break
        index += 1
    if shorter[index:] != longer[index + 1:]:
        return None
    return [index, 0, new[index]] if grown > 0 else [index, 1]


def short_legal(legal: Any, hand: Any) -> Json | None:
    """``legal`` in the short form, when it begins with the discards of ``hand`` in its order
    (all but ``except``) and that is shorter: ``{"discards": "hand", "except": [cards not
    to discard], "plus": [the other actions]}`` (``except`` and ``plus`` only when not
    empty). :func:`long_legal` turns it back."""
    if type(legal) is not list or type(hand) is not list:
        return None
    count = 0
    while count < len(legal) and legal[count].startswith(_DISCARD):
        count += 1
    if count < 2:
        return None
    cards = [action[len(_DISCARD):] for action in legal[:count]]
    chosen = set(cards)
    if [card for card in hand if card in chosen] != cards:
        return None
    short: Json = {"discards": "hand"}
    if len(cards) < len(hand):
        short["except"] = [card for card in hand if card not in chosen]
    if count < len(legal):
        short["plus"] = legal[count:]
    return short


def long_legal(short: Json, view: Any) -> list[str]:
    """The ``legal`` list that :func:`short_legal` shortened, from the new view's hand."""
    if short.get("discards") != "hand" or type(view) is not dict \
            or type(view.get("hand")) is not list:
        raise DeltaError("delta: a short legal list needs the view's hand")
    excluded = set(short.get("except", ()))
    plus = short.get("plus", [])
    if type(plus) is not list:
        raise DeltaError("delta: legal.plus must be a list")
    return [_DISCARD + card for card in view["hand"] if card not in excluded] + plus


def apply_delta(state: Json, delta: Json) -> Json:
    """The state after ``delta``: ``state`` (left unchanged) with the delta's changes, keys
    in the state's order. :class:`DeltaError` when the delta does not apply (another base,
    :func:`delta_base`, or a malformed delta): the client then asks for a full state
    (``resync``)."""
    if delta.get("type") != "delta":
        raise DeltaError("not a delta")
    version = delta.get("version")
    base = delta_base(delta)
    if base != state.get("version") or not isinstance(version, int):
        raise DeltaError(f"a delta from version {base} does not apply to "
                         f"version {state.get('version')}")
    result = {k: v for k, v in state.items() if k != "ack"}
    result["version"] = version
    table = state["table"]
    patch = delta.get("table")
    if patch is not None:
        table = _patched(table, patch, "table")
    result["table"] = {**table, "version": version}
    view = state.get("view")
    if "view" in delta:
        patch = delta["view"]
        if patch is None or view is None:
            if patch is not None and type(patch) is not dict:
                raise DeltaError("delta: view must be an object or null")
            view = patch
        else:
            old_view = view
            view = _patched(view, patch, "view")
            view = follow_hand(old_view, patch, view)
    result["view"] = view
    for path, value in delta.items():
        if path in _FIXED:
            continue
        if path == "legal" and type(value) is dict:
            value = long_legal(value, view)
        _checked_change(result, path, value, path)
    return result


def _patched(target: Any, patch: Any, name: str) -> Json:
    """A copy of the object ``target`` with the changes of ``patch`` (path -> value)."""
    if type(patch) is not dict or type(target) is not dict:
        raise DeltaError(f"delta: {name} must be an object")
    result = dict(target)
    for path, value in patch.items():
        _checked_change(result, path, value, f"{name}.{path}")
    return result


def _checked_change(root: Json, path: str, value: Any, name: str) -> None:
    """:func:`_change`, a change that does not fit raising :class:`DeltaError` naming it."""
    try:
        _change(root, path, value)
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise DeltaError(f"delta: {name} does not apply ({exc})") from None


def _change(root: Json, path: str, value: Any) -> None:
    """Sets (or, for a path ending in ``~``, splices) ``value`` at ``path`` in ``root``,
    copying every object and list on the way (``root`` itself is already a copy)."""
    keys = path.split(".")
    splice = keys[-1].endswith("~")
    if splice:
        keys[-1] = keys[-1][:-1]
    node: Any = root
    for key in keys[:-1]:
        place = _place(node, key)
        child = node[place]
        child = dict(child) if type(child) is dict else list(child)
        node[place] = child
        node = child
    last = keys[-1]
    if not splice:
        node[_place(node, last, new=True)] = value
        return
    place = _place(node, last)
    items = list(node[place])
    if type(value) is not list or len(value) < 2 or type(value[0]) is not int \
            or type(value[1]) is not int or not 0 <= value[0] <= len(items) \
            or not 0 <= value[1] <= len(items) - value[0]:
        raise ValueError("a splice is [index, removed, items...] within the list")
    items[value[0]:value[0] + value[1]] = value[2:]
    node[place] = items


def _place(node: Any, key: str, new: bool = False) -> Any:
    """``key`` as an index of ``node``: a list's position, or an object's key (which must
    be there unless ``new``)."""
    if type(node) is list:
        index = int(key)
        if not 0 <= index < len(node):
            raise IndexError(f"no item {index}")
        return index
    if type(node) is not dict:
        raise TypeError(f"{key} is inside neither an object nor a list")
    if not new and key not in node:
        raise KeyError(key)
    return key
