"""The rule options of docs/rules.md as a frozen, validated :class:`Ruleset`, and its presets."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Literal


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
    WALL = "wall"


class UndercutTies(StrEnum):
    """Who wins a tie between knocker and defender (R5.3, R6.2)."""

    DEFENDER = "defender"
    STRICT = "strict"


class LayoffChain(StrEnum):
    """Whether a defender may extend a run with several of his own cards (R4.5)."""

    OWN = "own"
    NONE = "none"
    TWO = "two"


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


OptionKind = Literal["bool", "int", "enum"]
BOTH_FORMATS: tuple[Format, ...] = (Format.MATCH, Format.SINGLE_HAND)


@dataclass(frozen=True)
class Option:
    """The metadata of one :class:`Ruleset` field: what it accepts, where it applies, its
    docs/rules.md clause and the web client's label key. :meth:`Ruleset.schema` lists them all."""

    kind: OptionKind
    clause: str
    """The docs/rules.md clause that defines the option ("R4.7")."""
    label: str
    """The web client's catalogue key of its name; :data:`OPTIONS` fills in ``option.<name>``."""
    values: type[StrEnum] | None = None
    minimum: int | None = None
    maximum: int | None = None
    nullable: bool = False
    """``None`` is a value: the usual one for the player count (``hand_size``)."""
    formats: tuple[Format, ...] = BOTH_FORMATS
    format_only: bool = False
    """Outside its ``formats`` the option has no value (``None``): ``target``."""
    value_players: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    """Values that only some player counts may choose (``dealer_first``: 2 players)."""
    requires: tuple[str, object] | None = None
    """Another option's value without which this one means nothing (shown only then)."""
    wording: str = ""
    """The out-of-range message, with ``{value}``, ``{min}`` and ``{max}``."""

    def accepts(self) -> str:
        """What the option accepts, in words ("0 to 10", "void_at_two/reshuffle")."""
        if self.kind == "bool":
            text = "true/false"
        elif self.values is not None:
            text = "/".join(e.value for e in self.values)
        elif self.maximum is not None:
            text = f"a whole number from {self.minimum} to {self.maximum}"
        else:
            text = f"a whole number >= {self.minimum}"
        return text + (" or none" if self.nullable or self.format_only else "")

    def check(self, name: str, value: object) -> object:
        """``value`` as the option holds it (an enum member for an enum), or RulesetError."""
        if self.values is not None:
            if isinstance(value, str):
                try:
                    return self.values(value)
                except ValueError:
                    pass
            allowed = ", ".join(e.value for e in self.values)
            raise RulesetError(name, f"{value!r} is not one of {allowed}")
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise RulesetError(name, f"expected true or false, got {value!r}")
            return value
        low = -(1 << 62) if self.minimum is None else self.minimum
        high = 1 << 62 if self.maximum is None else self.maximum
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            wording = self.wording or ("{value!r}; it must be a whole number from {min} to {max}"
                                       if self.maximum is not None else
                                       "{value!r}; it must be a whole number >= {min}")
            raise RulesetError(name, wording.format(value=value, min=self.minimum,
                                                    max=self.maximum))
        return value

    def check_players(self, name: str, value: object, players: int) -> None:
        """Refuse a value that ``players`` players may not choose."""
        key = value.value if isinstance(value, StrEnum) else str(value)
        counts = self.value_players.get(key)
        if counts is not None and players not in counts:
            allowed = self.value_players_allowed(players)
            clause = f" ({self.clause})" if self.clause else ""
            raise RulesetError(name, f"{key} is for {_counts(counts)} players only; "
                               f"{players} players choose {', '.join(allowed)}{clause}")

    def value_players_allowed(self, players: int) -> list[str]:
        """The values ``players`` players may choose."""
        assert self.values is not None
        return [e.value for e in self.values
                if players in self.value_players.get(e.value, (players,))]

    def to_json(self, name: str, default: object) -> dict[str, Any]:
        """This option as plain JSON data (one entry of :meth:`Ruleset.schema`)."""
        out: dict[str, Any] = {"name": name, "type": self.kind,
                               "default": default.value if isinstance(default, StrEnum)
                               else default}
        if self.values is not None:
            out["values"] = [e.value for e in self.values]
        if self.minimum is not None:
            out["min"] = self.minimum
        if self.maximum is not None:
            out["max"] = self.maximum
        if self.nullable or self.format_only:
            out["nullable"] = True
        if self.format_only:
            out["format_only"] = True
        out["formats"] = [f.value for f in self.formats]
        if self.value_players:
            out["value_players"] = {k: list(v) for k, v in self.value_players.items()}
        if self.requires is not None:
            out["requires"] = {self.requires[0]: self.requires[1]}
        out["clause"] = self.clause
        out["label"] = self.label
        return out


def _counts(counts: tuple[int, ...]) -> str:
    low, high = min(counts), max(counts)
    return str(low) if low == high else f"{low}-{high}"


def _meta(kind: OptionKind, clause: str, **meta: Any) -> dict[str, Option]:
    """A field's metadata: its :class:`Option` (the label key ``option.<name>`` is filled in
    from the field's name by :data:`OPTIONS`)."""
    return {"option": Option(kind, clause, "", **meta)}


def _int(clause: str, minimum: int = 0, **meta: Any) -> dict[str, Option]:
    return _meta("int", clause, minimum=minimum, **meta)


def _enum(values: type[StrEnum], clause: str, **meta: Any) -> dict[str, Option]:
    return _meta("enum", clause, values=values, **meta)


def _bool(clause: str) -> dict[str, Option]:
    return _meta("bool", clause)


MAX_TARGET = 10_000
"""The highest match ``target`` (R5.5): every integer option has a maximum, so no rule value
grows past what a JSON encoder or a person can use (issue 11, item 8)."""
MAX_POINTS = 1_000
"""The highest bonus, penalty or payout threshold (R4.2, R5.1, R5.3, R5.7, R6.3, R6.4)."""
MAX_RESHUFFLES = 10
"""The most reshuffles of the stock in one hand (R4.7)."""

_MATCH = (Format.MATCH,)
_SINGLE = (Format.SINGLE_HAND,)
_TWO = (2,)


@dataclass(frozen=True)
class Ruleset:
    """Every option of docs/rules.md R7. Build one with :meth:`preset` or directly; it validates.

    ``hand_size`` left as ``None`` means 10 cards with 2 players and 7 with 3-4 (R2.1).
    ``target`` is ``None`` for the single-hand format. Each field's metadata is an
    :class:`Option`, in the order of the create form; :meth:`schema` lists them.
    """

    players: int = field(default=2, metadata=_int(
        "R2.1", 2, maximum=4, wording="{value!r} players; {min} to {max} may play"))
    hand_size: int | None = field(default=None, metadata=_int(
        "R2.1", 1, maximum=10, nullable=True,
        wording="{value!r}; a hand holds {min} to {max} cards"))
    format: Format = field(default=Format.MATCH, metadata=_enum(
        Format, "R6.1", value_players={"match": _TWO}))
    target: int | None = field(default=100, metadata=_int(
        "R5.5", 1, maximum=MAX_TARGET, formats=_MATCH, format_only=True))
    upcard_offer: UpcardOffer = field(default=UpcardOffer.NONE, metadata=_enum(
        UpcardOffer, "R3.5", value_players={"dealer_first": _TWO}))
    stock_end: StockEnd = field(default=StockEnd.VOID_AT_TWO, metadata=_enum(StockEnd, "R4.7"))
    max_reshuffles: int = field(default=2, metadata=_int(
        "R4.7", maximum=MAX_RESHUFFLES, requires=("stock_end", "reshuffle")))
    knock_limit: int = field(default=10, metadata=_int("R4.1", maximum=10))
    gin_bonus: int = field(default=25, metadata=_int("R5.1", maximum=MAX_POINTS))
    undercut_bonus: int = field(default=25, metadata=_int("R5.3", maximum=MAX_POINTS))
    undercut_ties: UndercutTies = field(default=UndercutTies.DEFENDER,
                                        metadata=_enum(UndercutTies, "R5.3"))
    layoff_chain: LayoffChain = field(default=LayoffChain.OWN, metadata=_enum(LayoffChain, "R4.5"))
    oklahoma_spades_double: bool = field(default=False, metadata=_bool("R5.4"))
    oklahoma_knock_limit: bool = field(default=False, metadata=_bool("R5.4"))
    big_gin: bool = field(default=False, metadata=_bool("R4.2"))
    big_gin_bonus: int = field(default=31, metadata=_int(
        "R4.2", maximum=MAX_POINTS, requires=("big_gin", True)))
    next_dealer: NextDealer = field(default=NextDealer.ALTERNATE, metadata=_enum(
        NextDealer, "R5.6", formats=_MATCH,
        value_players={"winner": _TWO, "loser": _TWO}))
    game_bonus: int = field(default=0, metadata=_int("R5.7", maximum=MAX_POINTS, formats=_MATCH))
    line_bonus: int = field(default=0, metadata=_int("R5.7", maximum=MAX_POINTS, formats=_MATCH))
    shutout_bonus: int = field(default=0, metadata=_int("R5.7", maximum=MAX_POINTS, formats=_MATCH))
    knocker_undercut_penalty: int = field(default=10, metadata=_int(
        "R6.3", maximum=MAX_POINTS, formats=_SINGLE))
    payout: Payout = field(default=Payout.LINEAR_CAP, metadata=_enum(
        Payout, "R6.4", formats=_SINGLE))
    payout_threshold: int = field(default=25, metadata=_int(
        "R6.4", 1, maximum=MAX_POINTS, formats=_SINGLE))
    no_rediscard_of_taken_card: bool = field(default=True, metadata=_bool("R3.3"))
    discard_history_visible: bool = field(default=False, metadata=_bool("R3.4"))
    melds_after_gin: bool = field(default=False, metadata=_bool("R4.2"))
    openspiel_limits: bool = field(default=False, metadata=_bool("R4.9"))
    name: str = field(default="custom", compare=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        for name, option in OPTIONS.items():
            value = getattr(self, name)
            if option.format_only and self.format not in option.formats:
                set_(self, name, None)  # target: a single hand has none
                continue
            if value is None and option.nullable:
                continue
            value = option.check(name, value)
            set_(self, name, value)
            if option.value_players:
                option.check_players(name, value, self.players)
        if self.hand_size is None:
            set_(self, "hand_size", 10 if self.players == 2 else 7)
        stock = 52 - self.players * self.cards_per_hand - 1
        if stock < 3:
            raise RulesetError("hand_size", f"{self.hand_size} cards for {self.players} players "
                               "leave no stock to draw from")

    @classmethod
    def schema(cls) -> list[dict[str, Any]]:
        """Every option as plain JSON data, in the create form's order: its ``type``
        (``bool``, ``int``, ``enum`` with its ``values``), ``min``/``max``, ``nullable``,
        ``default``, the ``formats`` it applies to, ``value_players`` (values only some player
        counts may choose), ``requires`` (another option's value it needs to mean anything),
        its docs/rules.md ``clause`` and its ``label`` key in the web client's catalogues."""
        defaults = {f.name: f.default for f in dataclasses.fields(cls)}
        return [option.to_json(name, defaults[name]) for name, option in OPTIONS.items()]

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

    def offer_closed(self, passes: int) -> bool:
        """R3.5: the upcard offer is over after ``passes`` passes (every player passed, or
        two passes under ``dealer_first``); the engine, the expert and its play-outs ask
        this one question."""
        return passes >= self.players or (
            self.upcard_offer is UpcardOffer.DEALER_FIRST and passes >= 2)

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


def _options() -> dict[str, Option]:
    options: dict[str, Option] = {}
    for f in dataclasses.fields(Ruleset):
        option = f.metadata.get("option")
        if option is not None:
            options[f.name] = dataclasses.replace(option, label=f"option.{f.name}")
    return options


OPTIONS: Mapping[str, Option] = MappingProxyType(_options())
"""Every option's :class:`Option`, by name, in the create form's order."""

OPTION_NAMES = frozenset(OPTIONS)

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
"""The four presets of docs/rules.md R7; seed 003's site is ``arena`` with
``undercut_ties="defender", payout_threshold=50`` (R7.1)."""

OPENSPIEL_OPTIONS: dict[str, Any] = dict(
    no_rediscard_of_taken_card=False, undercut_ties="strict", stock_end="wall",
    layoff_chain="two", melds_after_gin=True, openspiel_limits=True,
)
"""The options that make ``eaai`` play exactly as OpenSpiel's ``gin_rummy`` (R7.3):
``Ruleset.preset("eaai", **OPENSPIEL_OPTIONS)``, also ``ginrummy.env.OPENSPIEL_RULES``."""
