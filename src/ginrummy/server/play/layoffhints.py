"""The knock and layoff parts of a seat's ``hints`` (docs/protocol.md, docs/client.md).

For a knock: every least-deadwood arrangement of each legal discard, so the client can offer
the choice (which cards go in a set or a run changes what the defender may lay off). For a
layoff: the deadwood the best defence leaves, and for each knocker meld the defender's own
cards that may go onto it (a set's fourth card, a run's ends, nearest card first), so the
client offers exactly the cards that fit. Only the recipient's own cards and the knocker's
melds, which are on the table, are named.
"""

from __future__ import annotations

from collections import Counter
from typing import TypedDict

from ginrummy.actions import Knock, action_text
from ginrummy.cards import CARD_NAMES, LANE
from ginrummy.engine import Hand, layoff_chaining
from ginrummy.solver import Defence, KnockOption, best_arrangements, layoff_targets
from ginrummy.views import own_cards

MAX_ARRANGEMENTS = 6
"""At most this many arrangements are offered for one discard (the first is the proposal)."""


class LayoffTargetHint(TypedDict):
    """What the defender holds that may go onto one knocker meld (numbered from 1)."""

    meld: int
    fourth: str | None
    low: list[str]
    high: list[str]


class LayoffHints(TypedDict):
    """The layoff step's extra hints."""

    defence_deadwood: int
    layoff_targets: list[LayoffTargetHint]


def knock_arrangements(option: KnockOption) -> list[str]:
    """The knock actions of every least-deadwood arrangement for ``option``'s discard, the
    proposal (``option.arrangement``) first; a single one when there is no choice."""
    proposal = Knock(option.discard, option.arrangement.melds)
    texts = [action_text(proposal, option.gin)]
    if option.discard is None:
        return texts  # big gin: every card is melded, any split is the same declaration
    rest = option.arrangement.melds
    held = [c for meld in rest for c in meld] + list(option.arrangement.unmatched)
    if not _set_card_fits_a_run(held):
        return texts  # no card could go in a set or a run: one way only
    for arrangement in best_arrangements(held):
        text = action_text(Knock(option.discard, arrangement.melds), option.gin)
        if text not in texts:
            texts.append(text)
        if len(texts) >= MAX_ARRANGEMENTS:
            break
    return texts


def _set_card_fits_a_run(held: list[int]) -> bool:
    """Whether some card of a rank held three or four times has a card of its suit next to it:
    only then can the same cards be melded in more than one way (a set or a run)."""
    cards = set(held)
    ranks = Counter(c % LANE for c in held)
    return any(ranks[c % LANE] >= 3 and ((c % LANE > 0 and c - 1 in cards)
                                         or (c % LANE < LANE - 1 and c + 1 in cards))
               for c in held)


def layoff_hints(hand: Hand, seat: int, defence: Defence) -> LayoffHints:
    """The best defence's deadwood and, per knocker meld, the cards of ``seat`` that may be
    laid off onto it (each run end only as far as the seat holds the cards in a row)."""
    knock = hand.knock
    if knock is None:
        raise ValueError("layoff hints need a knock")
    held = own_cards(hand, seat)
    names = CARD_NAMES
    targets: list[LayoffTargetHint] = []
    for target in layoff_targets(knock.melds, hand.laid_off or None,
                                 layoff_chaining(hand.rules)):
        fourth = target.fourth
        targets.append({
            "meld": target.meld + 1,
            "fourth": names[fourth] if fourth is not None and held >> fourth & 1 else None,
            "low": [names[c] for c in _held_prefix(target.low, held)],
            "high": [names[c] for c in _held_prefix(target.high, held)],
        })
    return {"defence_deadwood": defence.deadwood, "layoff_targets": targets}


def _held_prefix(cards: tuple[int, ...], held: int) -> list[int]:
    """The leading cards of a run end (nearest first) that ``held`` holds, up to the first
    card it lacks: a card further out may only be laid off after every card before it."""
    out: list[int] = []
    for card in cards:
        if not held >> card & 1:
            break
        out.append(card)
    return out
