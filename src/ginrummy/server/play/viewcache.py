"""The JSON of ``view(match, seat).to_dict()`` for every recipient of a table's state, built
from :mod:`ginrummy.views`' two parts with what every recipient shares built once per version.

A state message goes to every connection after every action, so its cost is paid about twice
per action (once per seat). :class:`ViewCache` keeps, for the table's current version, the
:class:`~ginrummy.views.SharedView` of the state and its JSON (phase, discard, counts, the
knock, scores, ...: the same for every viewer), and lets :meth:`~ginrummy.views.OwnView.to_dict`
add each viewer's part (its cards and its log). What a seat sees is decided in
:mod:`ginrummy.views` alone. The log only grows during a hand: the entries already converted
are kept. The result equals ``view(match, seat).to_dict()``
(``tests/server/test_viewcache.py`` checks it on whole games). The hint of a seat's best melds
is likewise kept for every hand of cards held during the hand (a card drawn then discarded
gives the cards back), and the score sheet until a hand ends.
"""

from __future__ import annotations

from typing import Any

from ginrummy.cards import CARD_NAMES
from ginrummy.engine import Hand
from ginrummy.match import Match
from ginrummy.rules import Ruleset
from ginrummy.solver import best_melds_mask
from ginrummy.views import (
    SharedView,
    log_json,
    mask_names,
    own_cards,
    own_dict,
    own_log,
    shared_view,
)

Json = dict[str, Any]

MELDS_KEPT = 64
"""Card masks whose best melds are kept (within one hand; a hand has fewer in most games)."""


class ViewCache:
    """Per-table caches (the view parts are valid for one hand at a time)."""

    def __init__(self) -> None:
        self._hand: Hand | None = None
        self._logs: dict[int | None, tuple[bool, list[Json]]] = {}
        self._melds: dict[int, Json] = {}
        """The best melds of the hands held this hand, by card mask (the same cards give
        the same melds whoever holds them: a card drawn then discarded finds them again)."""
        self._names: dict[int, tuple[int, list[str]]] = {}
        self._shared_key: tuple[int, int] | None = None
        self._shared: SharedView | None = None
        self._shared_json: Json | None = None
        self._ruleset: tuple[Ruleset | None, Json] = (None, {})
        self._sheet_of: tuple[Match | None, int] = (None, -1)
        self._sheet: list[Json] = []
        self.shared_json: Json | None = None
        """The shared part of the latest view built (:meth:`view_dict`): the views of one
        version are made of that one object."""

    def _for(self, hand: Hand) -> None:
        if hand is not self._hand:
            self._hand = hand
            self._logs.clear()
            self._melds.clear()
            self._names.clear()
            self._shared_key = None
            self._shared = None
            self._shared_json = None

    def view_dict(self, match: Match, seat: int | None, version: int | None = None) -> Json:
        """``view(match, seat).to_dict()``. With ``version`` (the table's state version), the
        parts every viewer shares are built once for that version. The dict shares its parts
        with the other viewers' and with the cache: read it, do not change it."""
        shared = self._shared_view(match, version)
        if self._shared_json is None:
            self._shared_json = shared.to_dict(self._ruleset[1])
        self.shared_json = shared_json = self._shared_json
        names, entries = self.own_parts(match.hand, seat, shared.gin)
        return own_dict(shared_json, seat, names, list(entries))

    def _shared_view(self, match: Match, version: int | None) -> SharedView:
        """The shared part of the views of ``match`` (kept for ``version``)."""
        self._for(match.hand)
        key = None if version is None else (version, len(match.hands))
        if key is None or key != self._shared_key or self._shared is None:
            shared = shared_view(match)
            if self._ruleset[0] is not shared.rules:
                self._ruleset = (shared.rules, shared.rules.to_dict())
            self._shared_key = key
            self._shared = shared if key is not None else None
            self._shared_json = None
            return shared
        return self._shared

    def parts(self, match: Match, version: int) -> ViewParts:
        """The views of ``match`` at ``version`` as parts, their JSON made when asked
        (:meth:`ViewParts.view`): what a broadcast keeps as the next deltas' base."""
        shared = self._shared_view(match, version)
        return ViewParts(shared, self._ruleset[1], match.hand, self)

    def own_parts(self, hand: Hand, seat: int | None, gin: bool) -> tuple[list[str], list[Json]]:
        """``seat``'s own cards' names and the JSON of its log entries: the list the cache
        keeps and extends while the hand runs (its first entries are the log's now; read it,
        do not change it)."""
        self._for(hand)
        log = own_log(hand, seat)
        cached = self._logs.get(seat)
        if cached is None or cached[0] != gin or len(cached[1]) > len(log):
            cached = self._logs[seat] = (gin, [])
        entries = cached[1]
        if len(entries) < len(log):
            entries += log_json(log, gin, len(entries))
        return self._hand_names(hand, seat), entries

    def _hand_names(self, hand: Hand, seat: int | None) -> list[str]:
        """The names of ``seat``'s own cards (none for a spectator), kept while they do not
        change (shared by the views that hold them: read them, do not change them)."""
        if seat is None:
            return []
        mask = own_cards(hand, seat)
        cached = self._names.get(seat)
        if cached is None or cached[0] != mask:
            cached = self._names[seat] = (mask, mask_names(mask))
        return cached[1]

    def best_melds(self, hand: Hand, seat: int) -> Json:
        """Least deadwood of ``seat``'s cards, its melds and unmatched cards (card names)."""
        self._for(hand)
        mask = own_cards(hand, seat)
        cached = self._melds.get(mask)
        if cached is None:
            if len(self._melds) >= MELDS_KEPT:
                self._melds.clear()
            best = best_melds_mask(mask)
            names = CARD_NAMES
            cached = self._melds[mask] = {
                "deadwood": best.deadwood,
                "melds": [[names[c] for c in meld] for meld in best.melds],
                "unmatched": [names[c] for c in best.unmatched],
            }
        return dict(cached)

    def sheet(self, match: Match) -> list[Json]:
        """The score sheet of the match: every finished hand with its result (kept until the
        next hand ends; the caller must not change it)."""
        finished = sum(1 for h in match.hands if h.result is not None)
        if self._sheet_of[0] is not match or self._sheet_of[1] != finished:
            self._sheet = [{"hand": n, "result": r.to_dict()} for n, r in match.score_sheet()]
            self._sheet_of = (match, finished)
        return self._sheet



class ViewParts:
    """The views of one version of a hand, their JSON made only when asked: the shared part
    (:class:`SharedView`) and each viewer's cards' names and log entries as the cache had them
    (the entry list only grows while the hand runs, so its first ``n`` stay that viewer's
    log)."""

    __slots__ = ("_cache", "_json", "hand", "own", "ruleset", "shared")

    def __init__(self, shared: SharedView, ruleset: Json, hand: Hand, cache: ViewCache) -> None:
        self.shared = shared
        self.ruleset = ruleset
        self.hand = hand
        self.own: dict[int | None, tuple[list[str], list[Json], int]] = {}
        """By viewer: its cards' names, the cache's log entry list and the entries of its log."""
        self._cache = cache
        self._json: Json | None = None

    def add(self, seat: int | None) -> None:
        """Take ``seat``'s own part now (before the hand moves on)."""
        names, entries = self._cache.own_parts(self.hand, seat, self.shared.gin)
        self.own[seat] = (names, entries, len(entries))

    def shared_json(self) -> Json:
        """The shared part's JSON (:meth:`SharedView.to_dict`), made once."""
        if self._json is None:
            self._json = self.shared.to_dict(self.ruleset)
        return self._json

    def view(self, seat: int | None) -> Json:
        """``seat``'s view as :meth:`ViewCache.view_dict` gave it at this version."""
        names, entries, size = self.own[seat]
        return own_dict(self.shared_json(), seat, names, entries[:size])
