"""The rule options of RULES.md as a frozen, validated :class:`Ruleset`, and its presets."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Format(StrEnum):
    """How hands are grouped: a match to a target, or one decisive hand (R5, R6)."""

    MATCH = "match"
    SINGLE_HAND = "single_hand"


class UpcardOffer(StrEnum):
    """The first-turn upcard rule (R3.5)."""

    NONE = "none"
    NON_DEALER_FIRST = "non_dealer_first"
    DEALER_FIRST = "dealer_first"


class StockEnd(StrEnum):
    """What happens when the stock runs low (R4.7)."""

    VOID_AT_TWO = "void_at_two"
    RESHUFFLE = "reshuffle"


class UndercutTies(StrEnum):
    """Who wins a tie between knocker and defender (R5.3, R6.2)."""

    DEFENDER = "defender"
    STRICT = "strict"


class LayoffChain(StrEnum):
    """Whether a defender may extend a run with several of his own cards (R4.5)."""

    OWN = "own"
    NONE = "none"


class NextDealer(StrEnum):
    """Who deals the next hand of a match (R5.6)."""

    ALTERNATE = "alternate"
    WINNER = "winner"
    LOSER = "loser"


class Payout(StrEnum):
    """How the prize pool is split (R6.4)."""

    LINEAR_CAP = "linear_cap"


class RulesetError(ValueError):
    """An invalid option value or combination; the message names the option."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(f"{option}: {message}")
        self.option = option


_ENUMS: dict[str, type[StrEnum]] = {
    "format": Format,
    "upcard_offer": UpcardOffer,
    "stock_end": StockEnd,
    "undercut_ties": UndercutTies,
    "layoff_chain": LayoffChain,
    "next_dealer": NextDealer,
    "payout": Payout,
}
_NON_NEGATIVE = (
    "max_reshuffles", "gin_bonus", "undercut_bonus", "big_gin_bonus", "game_bonus",
    "line_bonus", "shutout_bonus", "knocker_undercut_penalty",
)
_BOOLS = (
    "oklahoma_spades_double", "oklahoma_knock_limit", "big_gin",
    "no_rediscard_of_taken_card", "discard_history_visible",
)


@dataclass(frozen=True)
class Ruleset:
    """Every option of RULES.md R7. Build one with :meth:`preset` or directly; it validates.

    ``hand_size`` left as ``None`` means 10 cards with 2 players and 7 with 3-4 (R2.1).
    ``target`` is ``None`` for the single-hand format.
    """

    players: int = 2
    hand_size: int | None = None
    format: Format = Format.MATCH
    target: int | None = 100
    upcard_offer: UpcardOffer = UpcardOffer.NONE
    stock_end: StockEnd = StockEnd.VOID_AT_TWO
    max_reshuffles: int = 2
    knock_limit: int = 10
    gin_bonus: int = 25
    undercut_bonus: int = 25
    undercut_ties: UndercutTies = UndercutTies.DEFENDER
    layoff_chain: LayoffChain = LayoffChain.OWN
    oklahoma_spades_double: bool = False
    oklahoma_knock_limit: bool = False
    big_gin: bool = False
    big_gin_bonus: int = 31
    next_dealer: NextDealer = NextDealer.ALTERNATE
    game_bonus: int = 0
    line_bonus: int = 0
    shutout_bonus: int = 0
    knocker_undercut_penalty: int = 10
    payout: Payout = Payout.LINEAR_CAP
    payout_threshold: int = 25
    no_rediscard_of_taken_card: bool = True
    discard_history_visible: bool = False
    name: str = field(default="custom", compare=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        for option, enum in _ENUMS.items():
            value = getattr(self, option)
            try:
                set_(self, option, enum(value))
            except ValueError:
                allowed = ", ".join(e.value for e in enum)
                raise RulesetError(option, f"{value!r} is not one of {allowed}") from None
        for option in _BOOLS:
            if not isinstance(getattr(self, option), bool):
                raise RulesetError(option, f"expected true or false, got {getattr(self, option)!r}")
        if not _is_int(self.players) or not 2 <= self.players <= 4:
            raise RulesetError("players", f"{self.players!r} players; 2 to 4 may play")
        if self.hand_size is None:
            set_(self, "hand_size", 10 if self.players == 2 else 7)
        hand_size = self.hand_size
        if not isinstance(hand_size, int) or isinstance(hand_size, bool) or not (
            1 <= hand_size <= 10
        ):
            raise RulesetError("hand_size", f"{hand_size!r}; a hand holds 1 to 10 cards")
        stock = 52 - self.players * hand_size - 1
        if stock < 3:
            raise RulesetError("hand_size", f"{hand_size} cards for {self.players} players "
                               "leave no stock to draw from")
        if self.players > 2 and self.format is Format.MATCH:
            raise RulesetError("format", "3-4 players always play the single_hand format (R6.1)")
        if self.format is Format.MATCH:
            if not isinstance(self.target, int) or isinstance(self.target, bool) or (
                self.target < 1
            ):
                raise RulesetError("target", f"{self.target!r}; a match needs a target >= 1")
        elif self.target is not None:
            set_(self, "target", None)
        if self.upcard_offer is UpcardOffer.DEALER_FIRST and self.players != 2:
            raise RulesetError("upcard_offer", "dealer_first is for 2 players only")
        if self.next_dealer is not NextDealer.ALTERNATE and self.players != 2:
            raise RulesetError("next_dealer", f"{self.next_dealer.value} is for 2 players only")
        if not _is_int(self.knock_limit) or not 0 <= self.knock_limit <= 10:
            raise RulesetError("knock_limit", f"{self.knock_limit!r}; it must be 0 to 10")
        for option in _NON_NEGATIVE:
            value = getattr(self, option)
            if not _is_int(value) or value < 0:
                raise RulesetError(option, f"{value!r}; it must be a whole number >= 0")
        if not _is_int(self.payout_threshold) or self.payout_threshold < 1:
            raise RulesetError("payout_threshold", f"{self.payout_threshold!r}; it must be >= 1")

    @property
    def cards_per_hand(self) -> int:
        """The resolved hand size."""
        assert self.hand_size is not None
        return self.hand_size

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Ruleset:
        """A named preset (``classic``, ``playok``, ``arena``, ``eaai``) with options overridden."""
        key = name.lower()
        if key not in PRESETS:
            raise RulesetError("preset", f"unknown preset {name!r}; known: {', '.join(PRESETS)}")
        unknown = set(overrides) - OPTION_NAMES
        if unknown:
            bad = sorted(unknown)[0]
            raise RulesetError(bad, "no such option")
        return cls(**(PRESETS[key] | overrides), name=key)

    def replace(self, **overrides: Any) -> Ruleset:
        """A copy with some options changed (validated again)."""
        unknown = set(overrides) - OPTION_NAMES
        if unknown:
            raise RulesetError(sorted(unknown)[0], "no such option")
        values = self.to_dict()
        if "players" in overrides and "hand_size" not in overrides and self._auto_hand_size():
            values["hand_size"] = None
        if overrides.get("format") == Format.MATCH and values.get("target") is None:
            values["target"] = 100
        return Ruleset(**(values | overrides), name=self.name)

    def _auto_hand_size(self) -> bool:
        return self.hand_size == (10 if self.players == 2 else 7)

    def to_dict(self) -> dict[str, Any]:
        """Every option as plain JSON values."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name == "name":
                continue
            value = getattr(self, f.name)
            out[f.name] = value.value if isinstance(value, StrEnum) else value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any], name: str = "custom") -> Ruleset:
        """The inverse of :meth:`to_dict`; unknown keys are refused."""
        unknown = set(data) - OPTION_NAMES
        if unknown:
            raise RulesetError(sorted(unknown)[0], "no such option")
        return cls(**data, name=name)

    def describe(self) -> str:
        """A one-line summary for people."""
        parts = [f"{self.name}", f"{self.players} players", f"{self.cards_per_hand} cards"]
        if self.format is Format.MATCH:
            parts.append(f"match to {self.target}")
        else:
            parts.append("single hand, penalty points")
        parts.append(f"knock <= {self.knock_limit}")
        if self.oklahoma_spades_double or self.oklahoma_knock_limit:
            parts.append("Oklahoma")
        return ", ".join(parts)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


OPTION_NAMES = frozenset(f.name for f in dataclasses.fields(Ruleset)) - {"name"}

PRESETS: dict[str, dict[str, Any]] = {
    "classic": dict(
        players=2, format="match", target=100, upcard_offer="none", stock_end="void_at_two",
        knock_limit=10, gin_bonus=20, undercut_bonus=10, undercut_ties="defender",
        layoff_chain="own", game_bonus=100, line_bonus=20, shutout_bonus=100,
    ),
    "playok": dict(
        players=2, format="match", target=100, upcard_offer="dealer_first",
        stock_end="void_at_two", knock_limit=10, gin_bonus=25, undercut_bonus=20,
        undercut_ties="defender", layoff_chain="own", game_bonus=0, line_bonus=0,
        shutout_bonus=0,
    ),
    "arena": dict(
        players=2, format="single_hand", target=None, upcard_offer="none", stock_end="reshuffle",
        max_reshuffles=2, knock_limit=10, gin_bonus=25, undercut_bonus=20,
        undercut_ties="strict", layoff_chain="none", knocker_undercut_penalty=10,
        payout="linear_cap", payout_threshold=25,
    ),
    "eaai": dict(
        players=2, format="match", target=100, upcard_offer="non_dealer_first",
        stock_end="void_at_two", knock_limit=10, gin_bonus=25, undercut_bonus=25,
        undercut_ties="defender", layoff_chain="own", game_bonus=0, line_bonus=0,
        shutout_bonus=0,
    ),
}
"""The four presets of RULES.md R7; seed 003's site is ``arena`` with
``undercut_ties="defender", payout_threshold=50`` (R7.1)."""
