"""The exact meld solver: least deadwood, best arrangements, knock options and layoffs.

Cards are ints 0-51 and sets of cards int bitmasks (see :mod:`ginrummy.cards`); every public
function takes a :class:`~ginrummy.cards.CardSet`, an int bitmask or an iterable of card ints.
:func:`deadwood_mask` is the unchecked hot path on a bitmask. The solver is a pure function of
cards: it knows no :class:`~ginrummy.rules.Ruleset`; the one rule it needs, how far a defender
may extend a run (R4.5), is its own :class:`Chaining`, to which callers map their rules.
"""

from ginrummy.solver.knock import KnockOption, knock_options, knock_options_mask
from ginrummy.solver.layoffs import (
    Chaining,
    Defence,
    LayoffChainLike,
    LayoffTarget,
    best_defence,
    check_layoffs,
    defence_deadwood_mask,
    layoff_options_mask,
    layoff_targets,
)
from ginrummy.solver.melds import (
    Arrangement,
    CardsLike,
    MeldKind,
    arrangement_from_melds,
    best_arrangements,
    best_melds,
    best_melds_mask,
    deadwood,
    deadwood_mask,
    is_meld,
    meld_kind,
)

__all__ = [
    "Arrangement",
    "CardsLike",
    "Chaining",
    "Defence",
    "KnockOption",
    "LayoffChainLike",
    "LayoffTarget",
    "MeldKind",
    "arrangement_from_melds",
    "best_arrangements",
    "best_defence",
    "best_melds",
    "best_melds_mask",
    "check_layoffs",
    "deadwood",
    "deadwood_mask",
    "defence_deadwood_mask",
    "is_meld",
    "knock_options",
    "knock_options_mask",
    "layoff_options_mask",
    "layoff_targets",
    "meld_kind",
]
