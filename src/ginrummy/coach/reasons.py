"""A one-line reason for a costly move, in words, from what the solver and the belief know.

:func:`reason_for` looks at the player's view, the move played and the best choice, and
returns a :class:`Reason`: a ``code`` and its parameters (cards in record notation, numbers),
which the command line writes in English (:meth:`Reason.text`) and the web client in its four
languages (``coach.reason.<code>`` messages). The first rule that applies gives the reason:

- ``breaks_meld``: the discard breaks a meld the hand had made;
- ``feeds_opponent``: the discard melds with a card the next player took from the pile;
- ``more_deadwood``: the discard leaves more deadwood than the best one;
- ``keeps_near``: the best discard keeps a pair one card from a meld whose missing card is
  still live (not seen in the discard pile or taken);
- ``knock_now``: the player played on where knocking scored more;
- ``undercut_risk``: the player knocked where playing on scored more (the next player
  likely holds as little deadwood: the knock risks an undercut);
- ``take_melds`` / ``take_useless``: the face-up card would (would not) make a meld;
- ``layoff_more``: the best layoff leaves less deadwood;
- ``playouts``: none of these: the sampled deals scored the best choice higher.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ginrummy.actions import Action, Discard, DrawDiscard, DrawStock, Knock, LayOff, Pass
from ginrummy.bots.belief import NEAR_PARTNERS, belief_of, meld_partners
from ginrummy.bots.rollout import wants_card
from ginrummy.bots.simple import knock_deadwood
from ginrummy.cards import CARD_VALUES, card_name
from ginrummy.engine import Phase
from ginrummy.solver import best_melds, deadwood_mask
from ginrummy.views import PlayerView

__all__ = ["CODES", "Reason", "reason_for"]

CODES = ("breaks_meld", "feeds_opponent", "more_deadwood", "keeps_near", "knock_now",
         "undercut_risk", "take_melds", "take_useless", "layoff_more", "playouts")
"""Every reason's code (a ``coach.reason.<code>`` message in each catalogue)."""

_TEXTS = {
    "breaks_meld": "discards {card}, a card of the meld {meld}",
    "feeds_opponent": "discards {card}, next to {taken} that the opponent picked up",
    "more_deadwood": "leaves deadwood {deadwood} where {best} leaves {best_deadwood}",
    "keeps_near": "{best} keeps {cards}, one card from a meld; {live} is still live",
    "knock_now": "knocking now with deadwood {deadwood} scores more than playing on",
    "undercut_risk": "knocking at deadwood {deadwood} risks an undercut: the opponent is "
                     "likely as low",
    "take_melds": "{card} makes a meld with {cards}",
    "take_useless": "{card} makes no meld: the stock gives a fresh card and shows nothing",
    "layoff_more": "{best} leaves less deadwood ({best_deadwood} instead of {deadwood})",
    "playouts": "{best} scored more in the sampled deals",
}


@dataclass(frozen=True)
class Reason:
    """Why a move cost points: a ``code`` of :data:`CODES` and its parameters."""

    code: str
    params: dict[str, Any] = field(default_factory=dict)

    def text(self) -> str:
        """The reason in English."""
        return _TEXTS[self.code].format(**self.params)

    def to_dict(self) -> dict[str, Any]:
        """``{"code", "params", "text"}`` (the text in English)."""
        return {"code": self.code, "params": dict(self.params), "text": self.text()}


def _cards(mask: int) -> str:
    return " ".join(card_name(c) for c in range(52) if mask >> c & 1)


def _short(action: Action) -> str:
    if isinstance(action, Discard):
        return card_name(action.card)
    return str(action).split(" [")[0]


def reason_for(view: PlayerView, played: Action, best: Action) -> Reason:
    """The reason the move ``played`` at ``view`` cost points against ``best``."""
    hand = view.hand_mask
    phase = view.phase
    if phase is Phase.LAYOFF and isinstance(played, LayOff) and isinstance(best, LayOff):
        return Reason("layoff_more", {"best": "the best layoff",
                                      "deadwood": deadwood_after_layoff(hand, played),
                                      "best_deadwood": deadwood_after_layoff(hand, best)})
    if phase is Phase.DISCARD:
        return _discard_reason(view, played, best)
    top = view.top_discard
    if top is not None and isinstance(best, DrawDiscard) and isinstance(played,
                                                                        (DrawStock, Pass)):
        partners = meld_partners(top) & hand
        if wants_card(hand, top) and partners:
            with_top = best_melds(hand | 1 << top)
            meld = next((m for m in with_top.melds if top in m), ())
            return Reason("take_melds", {"card": card_name(top),
                                         "cards": " ".join(card_name(c) for c in meld
                                                           if c != top)})
    if top is not None and isinstance(played, DrawDiscard) and not wants_card(hand, top):
        return Reason("take_useless", {"card": card_name(top)})
    return Reason("playouts", {"best": _short(best)})


def deadwood_after_layoff(hand: int, layoff: LayOff) -> int:
    """The deadwood ``hand`` keeps once ``layoff``'s melds and laid-off cards are out of it."""
    left = hand
    for meld in layoff.melds:
        for card in meld:
            left &= ~(1 << card)
    for card, _meld in layoff.layoffs:
        left &= ~(1 << card)
    return sum(CARD_VALUES[c] for c in range(52) if left >> c & 1)


def _discard_reason(view: PlayerView, played: Action, best: Action) -> Reason:
    hand = view.hand_mask
    if isinstance(best, Knock) and not isinstance(played, Knock):
        return Reason("knock_now", {"deadwood": knock_deadwood(hand, best)})
    if isinstance(played, Knock) and not isinstance(best, Knock):
        return Reason("undercut_risk", {"deadwood": knock_deadwood(hand, played)})
    card = played.discard if isinstance(played, Knock) else (
        played.card if isinstance(played, Discard) else None)
    other = best.discard if isinstance(best, Knock) else (
        best.card if isinstance(best, Discard) else None)
    if card is None or other is None:
        return Reason("playouts", {"best": _short(best)})
    melds = best_melds(hand).melds
    meld = next((m for m in melds if card in m), None)
    if meld is not None and other not in meld:
        return Reason("breaks_meld", {"card": card_name(card),
                                      "meld": " ".join(card_name(c) for c in meld)})
    tracker = belief_of(view).tracker
    following = (tracker.seat + 1) % tracker.players
    fed = NEAR_PARTNERS[card] & tracker.taken[following]
    if fed and not NEAR_PARTNERS[other] & tracker.taken[following]:
        return Reason("feeds_opponent", {"card": card_name(card), "taken": _cards(fed)})
    left = deadwood_mask(hand & ~(1 << card))
    best_left = deadwood_mask(hand & ~(1 << other))
    if left > best_left:
        return Reason("more_deadwood", {"deadwood": left, "best": card_name(other),
                                        "best_deadwood": best_left})
    near = NEAR_PARTNERS[card] & hand & ~(1 << other)
    seen = tracker.dead | tracker.taken[following] | tracker.held_known[following]
    for partner in range(52):
        if near >> partner & 1:
            pair = 1 << card | 1 << partner
            live = _completing(pair) & ~hand & ~seen
            if live:
                return Reason("keeps_near", {"best": card_name(other),
                                             "cards": _cards(pair),
                                             "live": card_name(live.bit_length() - 1)})
    return Reason("playouts", {"best": _short(best)})


def _completing(pair: int) -> int:
    """The cards that would make a meld of three with the two cards of ``pair``."""
    a, b = (c for c in range(52) if pair >> c & 1)
    out = 0
    if a % 13 == b % 13:  # a set: the same rank in the other suits
        for suit in range(4):
            card = 13 * suit + a % 13
            if not pair >> card & 1:
                out |= 1 << card
        return out
    low, high = min(a, b), max(a, b)
    if high - low == 1:  # a run: one either side
        if low % 13 > 0:
            out |= 1 << (low - 1)
        if high % 13 < 12:
            out |= 1 << (high + 1)
    elif high - low == 2:
        out |= 1 << (low + 1)
    return out
