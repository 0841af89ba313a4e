"""The JSON of ``view(match, seat).to_dict()``, with the growing parts cached per table.

A state message goes to every seat after every action, and most of a view's cost is its log,
which only grows during a hand. :class:`ViewCache` asks the engine for the view with an empty
log, then appends the log entries it has not converted yet; the result equals
``view(match, seat).to_dict()`` (``tests/server/test_viewcache.py`` checks it on whole games).
The hint of a seat's best melds is likewise kept until its cards change.
"""

from __future__ import annotations

from typing import Any

from ginrummy.cards import card_name
from ginrummy.engine import Hand
from ginrummy.match import Match
from ginrummy.solver import best_melds_mask
from ginrummy.views import view


class ViewCache:
    """Per-seat caches for one table (valid for one hand at a time)."""

    def __init__(self) -> None:
        self._hand: Hand | None = None
        self._logs: dict[int | None, tuple[bool, list[dict[str, Any]]]] = {}
        self._melds: dict[int, tuple[int, dict[str, Any]]] = {}

    def _for(self, hand: Hand) -> None:
        if hand is not self._hand:
            self._hand = hand
            self._logs.clear()
            self._melds.clear()

    def view_dict(self, match: Match, seat: int | None) -> dict[str, Any]:
        """``view(match, seat).to_dict()``."""
        hand = match.hand
        self._for(hand)
        seen = view(match, seat)
        data = seen._replace(log=()).to_dict()
        gin = seen.knock is not None and seen.knock.gin
        cached = self._logs.get(seat)
        if cached is None or cached[0] != gin or len(cached[1]) > len(seen.log):
            cached = (gin, [])
            self._logs[seat] = cached
        entries = cached[1]
        for event in seen.log[len(entries):]:
            entries.append({"seat": event.seat, "action": event.text(gin, with_card=False),
                            "card": None if event.card is None else card_name(event.card)})
        data["log"] = list(entries)
        return data

    def best_melds(self, hand: Hand, seat: int) -> dict[str, Any]:
        """Least deadwood of ``seat``'s cards, its melds and unmatched cards (card names)."""
        self._for(hand)
        mask = hand.hands[seat]
        cached = self._melds.get(seat)
        if cached is None or cached[0] != mask:
            best = best_melds_mask(mask)
            cached = (mask, {
                "deadwood": best.deadwood,
                "melds": [[card_name(c) for c in meld] for meld in best.melds],
                "unmatched": [card_name(c) for c in best.unmatched],
            })
            self._melds[seat] = cached
        return dict(cached[1])
