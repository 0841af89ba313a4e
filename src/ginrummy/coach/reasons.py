"""A one-line reason for a costly move, in words, from what the solver and the belief know.

:func:`reason_for` looks at the player's view, the move played and the best choice, and
returns a :class:`Reason`: a ``code`` and its parameters (cards in record notation, numbers),
which the command line writes in English (:meth:`Reason.text`) and the web client in its four
languages (``coach.reason.<code>`` messages). The first rule that applies gives the reason:

- ``breaks_meld``: the discard breaks a meld the hand had made;
- ``feeds_opponent``: the discard melds with a card the next player took from the pile;
- ``more_deadwood``: the discard leaves more deadwood than the best one;
- ``keeps_run`` / ``keeps_set``: the best discard keeps a pair one card from a run (a set)
  whose missing cards are still live (not in the discard pile, not taken or known held by
  another player): ``live`` names them all;
- ``knock_now``: the player played on where knocking scored more;
- ``undercut_risk`` / ``play_on``: the player knocked where playing on scored more; the
  belief's sampled hands of the opponents say how often one of them holds as little
  deadwood (``share``, a percentage): from ``UNDERCUT_SHARE`` on the knock risks an
  undercut, below it playing on simply scored more;
- ``take_melds`` / ``take_useless``: the face-up card would (would not) make a meld;
- ``take_near``: the face-up card (best taken) makes a pair with a card of the hand one card
  from a run or a set whose completing cards are still live;
- ``layoff_more``: the best layoff leaves less deadwood;
- ``playouts``: none of these: the sampled deals scored the best choice higher.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from ginrummy.actions import (
    Action,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    LayOff,
    Pass,
    Reshuffle,
)
from ginrummy.bots.belief import NEAR_PARTNERS, belief_of, meld_partners
from ginrummy.bots.rollout import wants_card
from ginrummy.bots.simple import knock_deadwood
from ginrummy.bots.tracking import CardTracker
from ginrummy.cards import CARD_VALUES, card_name
from ginrummy.engine import Phase
from ginrummy.solver import best_melds, deadwood_mask
from ginrummy.views import PlayerView

__all__ = ["CODES", "UNDERCUT_SAMPLES", "UNDERCUT_SHARE", "Reason", "discard_pile_seen",
           "reason_for", "undercut_share"]

CODES = ("breaks_meld", "feeds_opponent", "more_deadwood", "keeps_run", "keeps_set",
         "knock_now", "undercut_risk", "play_on", "take_melds", "take_near", "take_useless",
         "layoff_more", "playouts")
"""Every reason's code (a ``coach.reason.<code>`` message in each catalogue)."""
UNDERCUT_SAMPLES = 200
"""Opponents' hands drawn from the belief to estimate an undercut's chance."""
UNDERCUT_SHARE = 25
"""From this share (percent) of sampled hands as low as the knock, the reason is
``undercut_risk``; below it ``play_on``."""

_TEXTS = {
    "breaks_meld": "discards {card}, a card of the meld {meld}",
    "feeds_opponent": "discards {card}, next to {taken} that the opponent picked up",
    "more_deadwood": "leaves deadwood {deadwood} where {best} leaves {best_deadwood}",
    "keeps_run": "{best} keeps {cards}, one card from a run; still live: {live}",
    "keeps_set": "{best} keeps {cards}, one card from a set; still live: {live}",
    "knock_now": "knocking now with deadwood {deadwood} scores more than playing on",
    "undercut_risk": "knocking at deadwood {deadwood} risks an undercut: the opponent "
                     "holds {deadwood} or less in {share}% of the hands it could hold",
    "play_on": "playing on scores more than knocking at deadwood {deadwood} (the opponent "
               "holds {deadwood} or less in only {share}% of the hands it could hold)",
    "take_melds": "{card} makes a meld with {cards}",
    "take_near": "{card} with {cards} is one card from a meld; still live: {live}",
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
        tracker = belief_of(view).tracker
        kept = _live_pair(top, NEAR_PARTNERS[top] & hand, hand | 1 << top,
                          _gone(tracker, include_top=False))
        if kept is not None:
            live, partner = kept
            return Reason("take_near", {"card": card_name(top),
                                        "cards": card_name(partner), "live": _cards(live)})
    if top is not None and isinstance(played, DrawDiscard) and not wants_card(hand, top):
        return Reason("take_useless", {"card": card_name(top)})
    return Reason("playouts", {"best": _short(best)})


def discard_pile_seen(view: PlayerView) -> tuple[int, ...]:
    """The discard pile, bottom first, as the player saw it form: the whole pile when the
    rules show it, else replayed from the view's log (the upcard, every discard, less the
    cards taken; a reshuffle leaves the top card): only cards every player saw face up."""
    if view.discard_pile is not None:
        return tuple(view.discard_pile)
    pile = [] if view.upcard is None else [view.upcard]
    for event in view.log:
        action = event.action
        if isinstance(action, Discard):
            pile.append(action.card)
        elif isinstance(action, Knock) and action.discard is not None:
            pile.append(action.discard)
        elif isinstance(action, DrawDiscard) and pile:
            pile.pop()
        elif isinstance(action, Reshuffle):
            del pile[:-1]
    return tuple(pile)


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
        deadwood = knock_deadwood(hand, played)
        share = undercut_share(view, deadwood)
        return Reason("undercut_risk" if share >= UNDERCUT_SHARE else "play_on",
                      {"deadwood": deadwood, "share": share})
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
    kept = _live_pair(card, NEAR_PARTNERS[card] & hand & ~(1 << other), hand,
                      _gone(tracker, include_top=True))
    if kept is not None:
        live, partner = kept
        pair = 1 << card | 1 << partner
        run = partner // 13 == card // 13  # the same suit: a run; else the same rank
        return Reason("keeps_run" if run else "keeps_set",
                      {"best": card_name(other), "cards": _cards(pair), "live": _cards(live)})
    return Reason("playouts", {"best": _short(best)})


def _gone(tracker: CardTracker, include_top: bool) -> int:
    """The cards that cannot complete a meld: the dead discard pile (with the face-up card
    when the move buries it) and the cards opponents took or are known to hold."""
    gone = tracker.dead
    if include_top and tracker.top is not None:
        gone |= 1 << tracker.top
    for seat in tracker.opponents:
        gone |= tracker.taken[seat] | tracker.held_known[seat]
    return gone


def _live_pair(card: int, partners: int, hand: int, gone: int) -> tuple[int, int] | None:
    """Of the pairs ``card`` makes with one of ``partners``, the one whose completing cards
    (not in ``hand``, not ``gone``) are the most: ``(live cards, partner)``, or ``None``."""
    kept: tuple[int, int] | None = None
    for partner in range(52):
        if partners >> partner & 1:
            live = _completing(1 << card | 1 << partner) & ~hand & ~gone
            if live and (kept is None or live.bit_count() > kept[0].bit_count()):
                kept = (live, partner)
    return kept


def undercut_share(view: PlayerView, deadwood: int, samples: int = UNDERCUT_SAMPLES,
                   seed: int = 0) -> int:
    """The percentage of the opponents' hands drawn from ``view``'s belief in which one of
    them holds ``deadwood`` or less before laying off (a knock at ``deadwood`` would be
    undercut; layoffs make it likelier still)."""
    belief = belief_of(view)
    rng = random.Random(seed)
    opponents = belief.tracker.opponents
    low = 0
    for _ in range(samples):
        world = belief.sample(rng)
        if any(deadwood_mask(world.hands[seat]) <= deadwood for seat in opponents):
            low += 1
    return round(100 * low / samples)


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
