"""The beginner's hint: the best move of the current decision, with a one-line reason in
words.

:func:`suggest` runs the coach's evaluator (:func:`ginrummy.bots.evaluate.evaluate`, from the
player's view only: every legal choice on the same sampled worlds) and suggests its best, the
highest-valued choice, so the coach never calls a followed hint a mistake; the hint also
carries every choice's value and standard error in the legal moves' own order (the order the
terminal's menu and the page's buttons list them). :func:`hint_reason` says why in
the terms a beginner knows (melds, deadwood, the knock limit), from what the view shows: the
player's own cards and the top discard. A reason is a :class:`Hint` ``code`` with parameters
(cards in record notation, numbers); the web client writes it in its four languages
(``hint.reason.<code>`` messages), :meth:`Hint.text` in English:

- ``gin``: every card but the discard is in a meld (``big_gin``: every card, no discard);
- ``knock``: the deadwood left is within the knock limit;
- ``layoff``: these melds and layoffs leave the least deadwood;
- ``take_melds``: the face-up card makes a meld with cards of the hand;
- ``stock`` (a draw from the stock, or a pass of the upcard): the face-up card makes no meld;
- ``discard_least``: the discard leaves the least deadwood;
- ``discard_keeps``: the discard keeps a pair one card from a meld that the least-deadwood
  discard would break;
- ``playouts``: none of these: the move scored best in the expert's sampled deals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ginrummy.actions import Action, Discard, DrawDiscard, DrawStock, Knock, LayOff, Pass
from ginrummy.bots.belief import NEAR_PARTNERS
from ginrummy.bots.evaluate import Evaluated, action_key, evaluate
from ginrummy.bots.rollout import wants_card
from ginrummy.bots.simple import knock_deadwood
from ginrummy.cards import card_name
from ginrummy.coach.reasons import deadwood_after_layoff
from ginrummy.solver import best_melds, deadwood_mask
from ginrummy.views import PlayerView

__all__ = ["HINT_CODES", "Hint", "hint_reason", "menu_choices", "suggest"]

HINT_CODES = ("gin", "big_gin", "knock", "layoff", "take_melds", "stock", "discard_least",
              "discard_keeps", "playouts")
"""Every hint reason's code (a ``hint.reason.<code>`` message in each catalogue)."""

_TEXTS = {
    "gin": "every card but {card} is in a meld: gin",
    "big_gin": "every card of your hand is in a meld: big gin",
    "knock": "discarding {card} leaves deadwood {deadwood}, within the knock limit of {limit}",
    "layoff": "these melds and layoffs leave you the least deadwood: {deadwood}",
    "take_melds": "{card} makes a meld with {cards}",
    "stock": "{card} makes no meld with your cards: the stock may give a better one",
    "discard_least": "discarding {card} leaves the least deadwood: {deadwood}",
    "discard_keeps": "discarding {card} keeps {cards}, one card from a meld",
    "playouts": "it scored best in the deals the expert tried",
}


@dataclass(frozen=True)
class Hint:
    """A suggested action and why: a ``code`` of :data:`HINT_CODES` and its parameters."""

    action: Action
    code: str
    params: dict[str, Any] = field(default_factory=dict)
    choices: tuple[dict[str, Any], ...] = ()
    """Every legal choice in the legal moves' order: ``action``, ``value``, ``error``,
    ``loss``, ``loss_error``, ``mistake``, ``best`` (:func:`menu_choices`); empty when the
    hint was made without the evaluator."""

    def text(self) -> str:
        """The reason in English."""
        return _TEXTS[self.code].format(**self.params)

    def to_dict(self) -> dict[str, Any]:
        """``{"action", "reason": {"code", "params", "text"}, "choices"}`` (actions in
        record notation, the text in English)."""
        return {"action": str(self.action),
                "reason": {"code": self.code, "params": dict(self.params), "text": self.text()},
                "choices": [dict(c) for c in self.choices]}


def suggest(view: PlayerView, legal: Sequence[Action], budget_ms: float,
            seed: int = 0) -> Hint:
    """The evaluator's best at ``view`` (within ``budget_ms`` of calibrated work), with its
    reason and every choice's value. ``ValueError`` when it is not ``view.seat``'s turn."""
    if not legal:
        raise ValueError("no legal action to choose from")
    evaluated = evaluate(view, legal, budget_ms, seed)
    hint = hint_reason(view, evaluated.best.action)
    return Hint(hint.action, hint.code, hint.params, menu_choices(legal, evaluated))


def menu_choices(legal: Sequence[Action], evaluated: Evaluated) -> tuple[dict[str, Any], ...]:
    """Every choice of ``evaluated`` in the order of ``legal`` (the menu's), the best marked:
    plain JSON values."""
    best = action_key(evaluated.best.action)
    out = []
    seen = set()
    for action in legal:
        key = action_key(action)
        if key in seen:
            continue
        seen.add(key)
        choice = evaluated.find(action).to_dict()
        choice["best"] = key == best
        out.append(choice)
    return tuple(out)


def _cards(cards: Sequence[int] | int) -> str:
    if isinstance(cards, int):
        cards = [c for c in range(52) if cards >> c & 1]
    return " ".join(card_name(c) for c in cards)


def hint_reason(view: PlayerView, action: Action) -> Hint:
    """Why ``action`` is a good move at ``view``, from the player's own cards and the top
    discard (see the module docstring)."""
    hand = view.hand_mask
    top = view.top_discard
    if isinstance(action, Knock):
        deadwood = knock_deadwood(hand, action)
        card = "" if action.discard is None else card_name(action.discard)
        if deadwood == 0:
            return Hint(action, "gin", {"card": card}) if card else Hint(action, "big_gin")
        return Hint(action, "knock", {"card": card, "deadwood": deadwood,
                                      "limit": view.knock_limit})
    if isinstance(action, LayOff):
        return Hint(action, "layoff", {"deadwood": deadwood_after_layoff(hand, action)})
    if isinstance(action, DrawDiscard) and top is not None and wants_card(hand, top):
        with_top = best_melds(hand | 1 << top)
        meld = next((m for m in with_top.melds if top in m), ())
        return Hint(action, "take_melds", {"card": card_name(top),
                                           "cards": _cards([c for c in meld if c != top])})
    if isinstance(action, (DrawStock, Pass)) and top is not None and not wants_card(hand, top):
        return Hint(action, "stock", {"card": card_name(top)})
    if isinstance(action, Discard):
        return _discard_hint(view, action)
    return Hint(action, "playouts")


def _discard_hint(view: PlayerView, action: Discard) -> Hint:
    hand = view.hand_mask
    left = {c: deadwood_mask(hand & ~(1 << c)) for c in range(52) if hand >> c & 1
            and c != view.taken}
    least = min(left.values(), default=0)
    card = action.card
    if left.get(card, least) <= least:
        return Hint(action, "discard_least", {"card": card_name(card), "deadwood": least})
    other = min((c for c, value in left.items() if value == least), default=None)
    if other is not None:
        near = NEAR_PARTNERS[other] & hand & ~(1 << card)
        if near:
            partner = near.bit_length() - 1
            return Hint(action, "discard_keeps", {"card": card_name(card),
                                                  "cards": _cards(1 << other | 1 << partner)})
    return Hint(action, "playouts")
