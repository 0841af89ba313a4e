"""The JSON of ``view(match, seat).to_dict()``, built once per table version for what every
recipient shares, with the growing parts cached per table.

A state message goes to every connection after every action, so its cost is paid about twice
per action (once per seat). :class:`ViewCache` builds the parts of a view that are the same for
every viewer (phase, discard, counts, the knock, scores, ...) once per table version and shares
them between the seats; only the viewer's own cards, the cards it may see and its log are per
seat. The log only grows during a hand: the entries already converted are kept. The result
equals ``view(match, seat).to_dict()`` (``tests/server/test_viewcache.py`` checks it on whole
games). The hint of a seat's best melds is likewise kept until its cards change, and the score
sheet until a hand ends.
"""

from __future__ import annotations

from typing import Any

from ginrummy.cards import CARD_NAMES, cards_tuple
from ginrummy.engine import Hand
from ginrummy.match import Match
from ginrummy.solver import best_melds_mask


def _names(mask: int) -> list[str]:
    if not mask:
        return []
    names = CARD_NAMES
    return [names[c] for c in cards_tuple(mask)]


class ViewCache:
    """Per-table caches (the view parts are valid for one hand at a time)."""

    def __init__(self) -> None:
        self._hand: Hand | None = None
        self._logs: dict[int | None, tuple[bool, list[dict[str, Any]]]] = {}
        self._melds: dict[int, tuple[int, dict[str, Any]]] = {}
        self._shared_key: tuple[int, int] | None = None
        self._shared: tuple[dict[str, Any], list[dict[str, Any]], bool] | None = None
        self._sheet_of: tuple[Match | None, int] = (None, -1)
        self._sheet: list[dict[str, Any]] = []

    def _for(self, hand: Hand) -> None:
        if hand is not self._hand:
            self._hand = hand
            self._logs.clear()
            self._melds.clear()
            self._shared_key = None
            self._shared = None

    def view_dict(self, match: Match, seat: int | None,
                  version: int | None = None) -> dict[str, Any]:
        """``view(match, seat).to_dict()``. With ``version`` (the table's state version), the
        parts every viewer shares are built once for that version. The dict shares its parts
        with the other viewers' and with the cache: read it, do not change it."""
        hand = match.hand
        self._for(hand)
        key = None if version is None else (version, len(match.hands))
        shared = self._shared if key is not None and key == self._shared_key else None
        if shared is None:
            shared = _shared_parts(match, hand)
            if key is not None:
                self._shared_key, self._shared = key, shared
        template, public_seats, revealed = shared
        players = hand.players
        if seat is not None and not 0 <= seat < players:
            raise ValueError(f"seat must be 0..{players - 1} or None for a spectator, got {seat}")
        data = template.copy()
        data["seat"] = seat
        if seat is not None:
            own = _names(hand.hands[seat])
            data["hand"] = own
            if not revealed:  # the others' cards stay hidden; its own are shown
                seats = list(public_seats)
                seats[seat] = {**seats[seat], "cards": own}
                data["seats"] = seats
        gin = hand.knock is not None and hand.knock.gin
        cached = self._logs.get(seat)
        log = hand.seat_logs[players if seat is None else seat]
        if cached is None or cached[0] != gin or len(cached[1]) > len(log):
            cached = (gin, [])
            self._logs[seat] = cached
        entries = cached[1]
        if len(entries) < len(log):
            names = CARD_NAMES
            for event in log[len(entries):]:
                entries.append({"seat": event.seat, "action": event.text(gin, with_card=False),
                                "card": None if event.card is None else names[event.card]})
        data["log"] = list(entries)
        return data

    def best_melds(self, hand: Hand, seat: int) -> dict[str, Any]:
        """Least deadwood of ``seat``'s cards, its melds and unmatched cards (card names)."""
        self._for(hand)
        mask = hand.hands[seat]
        cached = self._melds.get(seat)
        if cached is None or cached[0] != mask:
            best = best_melds_mask(mask)
            names = CARD_NAMES
            cached = (mask, {
                "deadwood": best.deadwood,
                "melds": [[names[c] for c in meld] for meld in best.melds],
                "unmatched": [names[c] for c in best.unmatched],
            })
            self._melds[seat] = cached
        return dict(cached[1])

    def sheet(self, match: Match) -> list[dict[str, Any]]:
        """The score sheet of the match: every finished hand with its result (kept until the
        next hand ends; the caller must not change it)."""
        finished = sum(1 for h in match.hands if h.result is not None)
        if self._sheet_of[0] is not match or self._sheet_of[1] != finished:
            self._sheet = [{"hand": n, "result": r.to_dict()} for n, r in match.score_sheet()]
            self._sheet_of = (match, finished)
        return self._sheet


def _shared_parts(match: Match, hand: Hand) -> tuple[dict[str, Any], list[dict[str, Any]],
                                                     bool]:
    """What every viewer of ``hand`` sees alike: the view as a spectator's, less its log (a
    template: the keys in the order of ``PlayerView.to_dict``), the seats as everybody sees
    them, and whether every hand is revealed (R4.8: after a knock)."""
    names = CARD_NAMES
    discards = hand.discards
    knock = hand.knock
    revealed = knock is not None
    knock_dict = None
    if knock is not None:
        knock_dict = {
            "knocker": knock.knocker,
            "discard": None if knock.discard is None else names[knock.discard],
            "melds": [[names[c] for c in m] for m in knock.melds],
            "unmatched": [names[c] for c in knock.unmatched],
            "deadwood": knock.deadwood,
            "gin": knock.gin,
            "big_gin": knock.big_gin,
        }
    seats = [{"seat": s, "count": mask.bit_count(), "known": _names(known),
              "cards": _names(mask) if revealed else None}
             for s, (mask, known) in enumerate(zip(hand.hands, hand.known, strict=True))]
    template: dict[str, Any] = {
        "seat": None,
        "ruleset": hand.rules.to_dict(),
        "phase": hand.phase.value,
        "to_move": hand.to_move,
        "dealer": hand.dealer,
        "hand": [],
        "seats": seats,
        "upcard": names[hand.upcard],
        "top_discard": names[discards[-1]] if discards else None,
        "discard_pile": [names[c] for c in discards] if hand.rules.discard_history_visible
        else None,
        "stock_size": len(hand.stock),
        "knock_limit": hand.knock_limit,
        "taken": None if hand.taken is None else names[hand.taken],
        "reshuffles": hand.reshuffles,
        "knock": knock_dict,
        "defences": [
            {"seat": d.seat, "melds": [[names[c] for c in m] for m in d.melds],
             "layoffs": [[names[c], i] for c, i in d.layoffs],
             "unmatched": [names[c] for c in d.unmatched], "deadwood": d.deadwood}
            for d in hand.defences] if revealed else [],
        "laid_off": [[names[c] for c in x] for x in hand.laid_off] if revealed else [],
        "result": None if hand.result is None else hand.result.to_dict(),
        "log": [],
        "scores": list(match.scores),
        "hands_won": list(match.hands_won),
        "hand_number": len(match.hands),
    }
    return template, seats, revealed
