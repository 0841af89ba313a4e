"""Computer players. Every bot receives only a player's view and the legal actions.

A player is named by a *spec*: a level name, optionally followed by ``:`` and a per-move
time budget in milliseconds (``expert``, ``expert:50``). Bots that do not search ignore the
budget.
"""

from __future__ import annotations

from collections.abc import Callable

from ginrummy.bots.base import Bot
from ginrummy.bots.beginner import BeginnerBot
from ginrummy.bots.expert import ExpertBot
from ginrummy.bots.intermediate import IntermediateBot
from ginrummy.bots.simple import RandomBot, SimpleBot

BotFactory = Callable[..., Bot]
"""``factory(seed, budget_ms=None)``: a new bot, deterministic given ``seed``."""

BOTS: dict[str, BotFactory] = {
    "random": RandomBot,
    "simple": SimpleBot,
    "beginner": BeginnerBot,
    "intermediate": IntermediateBot,
    "expert": ExpertBot,
}
"""Bot factories by level name; each takes a seed and an optional ``budget_ms``."""


def parse_spec(spec: str) -> tuple[str, float | None]:
    """``"expert:50"`` -> ``("expert", 50.0)``; ``ValueError`` names what is wrong."""
    name, sep, budget_text = spec.strip().lower().partition(":")
    name = name.strip()
    if name not in BOTS:
        raise ValueError(f"unknown player {name!r}; known: {', '.join(BOTS)}")
    if not sep:
        return name, None
    try:
        budget = float(budget_text)
    except ValueError:
        raise ValueError(f"player {spec!r}: the budget after ':' must be a number of "
                         f"milliseconds, got {budget_text!r}") from None
    if not budget > 0:
        raise ValueError(f"player {spec!r}: the budget must be positive, got {budget_text!r}")
    return name, budget


def make_bot(spec: str, seed: int | None = None, budget_ms: float | None = None) -> Bot:
    """A bot by spec (``name`` or ``name:budget_ms``); ``ValueError`` lists the known names.
    An explicit ``budget_ms`` overrides the one in the spec."""
    name, spec_budget = parse_spec(spec)
    budget = budget_ms if budget_ms is not None else spec_budget
    factory = BOTS[name]
    return factory(seed) if budget is None else factory(seed, budget_ms=budget)


__all__ = ["BOTS", "BeginnerBot", "Bot", "BotFactory", "IntermediateBot", "RandomBot",
           "SimpleBot", "make_bot", "parse_spec"]
