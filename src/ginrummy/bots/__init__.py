"""Computer players. Every bot receives only a player's view and the legal actions."""

from __future__ import annotations

from collections.abc import Callable

from ginrummy.bots.base import Bot
from ginrummy.bots.simple import RandomBot, SimpleBot

BOTS: dict[str, Callable[[int | None], Bot]] = {
    "random": RandomBot,
    "simple": SimpleBot,
}
"""Bot factories by level name; each takes a seed."""


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A bot by level name; ``ValueError`` lists the known names."""
    try:
        factory = BOTS[name.lower()]
    except KeyError:
        raise ValueError(f"unknown player {name!r}; known: {', '.join(BOTS)}") from None
    return factory(seed)


__all__ = ["BOTS", "Bot", "RandomBot", "SimpleBot", "make_bot"]
