"""ginrummy: Gin Rummy exactly as the rulebooks say."""

from ginrummy.cards import Card, CardSet, card_name, parse_card, parse_cards
from ginrummy.rules import PRESETS, Ruleset, RulesetError

__all__ = [
    "PRESETS",
    "Card",
    "CardSet",
    "Ruleset",
    "RulesetError",
    "card_name",
    "parse_card",
    "parse_cards",
]
__version__ = "0.1.0"
