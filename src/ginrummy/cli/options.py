"""Shared command-line options: a preset, ``--set option=value`` overrides and the
convenience flags, turned into a validated :class:`~ginrummy.rules.Ruleset`."""

from __future__ import annotations

import argparse
import dataclasses
import types
import typing
from enum import StrEnum
from typing import Any

from ginrummy.rules import OPTION_NAMES, PRESETS, Ruleset, RulesetError


class UsageError(ValueError):
    """A command-line argument that makes no sense; reported on stderr with exit status 2."""


_TRUE = frozenset({"true", "on", "yes", "y", "1"})
_FALSE = frozenset({"false", "off", "no", "n", "0"})
_NONE = frozenset({"none", "null", "-"})


def _option_types() -> dict[str, Any]:
    hints = typing.get_type_hints(Ruleset)
    return {f.name: hints[f.name] for f in dataclasses.fields(Ruleset) if f.name in OPTION_NAMES}


OPTION_TYPES: dict[str, Any] = _option_types()
"""The annotated type of every ruleset option (``int``, ``int | None``, ``bool``, an enum)."""


def option_choices(name: str) -> str:
    """What an option accepts, for help and error messages."""
    kind = OPTION_TYPES[name]
    if kind is bool:
        return "true/false"
    if isinstance(kind, type) and issubclass(kind, StrEnum):
        return "/".join(e.value for e in kind)
    if isinstance(kind, types.UnionType):
        return "a whole number or none"
    return "a whole number"


def parse_option_value(name: str, text: str) -> Any:
    """The value of ruleset option ``name`` written as ``text`` (ints, booleans, enums)."""
    if name not in OPTION_TYPES:
        known = ", ".join(sorted(OPTION_NAMES))
        raise UsageError(f"--set: no ruleset option {name!r}; options are: {known}")
    kind = OPTION_TYPES[name]
    raw = text.strip()
    low = raw.lower()
    if kind is bool:
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise UsageError(f"--set {name}={text}: expected true or false")
    if isinstance(kind, type) and issubclass(kind, StrEnum):
        try:
            return kind(low)
        except ValueError:
            raise UsageError(
                f"--set {name}={text}: expected one of {option_choices(name)}") from None
    if isinstance(kind, types.UnionType) and low in _NONE:
        return None
    try:
        return int(raw)
    except ValueError:
        raise UsageError(f"--set {name}={text}: expected {option_choices(name)}") from None


def parse_sets(items: list[str] | None) -> dict[str, Any]:
    """``["players=3", "big_gin=on"]`` as option values (later items win)."""
    out: dict[str, Any] = {}
    for item in items or []:
        name, eq, value = item.partition("=")
        name = name.strip().lower().replace("-", "_")
        if not eq or not name:
            raise UsageError(f"--set {item!r}: write OPTION=VALUE, e.g. --set knock_limit=7")
        out[name] = parse_option_value(name, value)
    return out


def add_rules_arguments(parser: argparse.ArgumentParser, convenience: bool = True) -> None:
    """``--preset`` and ``--set``, plus (if ``convenience``) the common shortcuts."""
    group = parser.add_argument_group("rules")
    group.add_argument("--preset", default="classic", type=str.lower,
                       choices=sorted(PRESETS, key=list(PRESETS).index),
                       help="rule preset (default: classic)")
    group.add_argument("--set", dest="sets", action="append", metavar="OPTION=VALUE",
                       default=[], help="override any ruleset option (repeatable); "
                       "see 'ginrummy rules' for the options")
    if not convenience:
        return
    group.add_argument("--target", type=int, metavar="N", help="match target (= --set target=N)")
    group.add_argument("--oklahoma", action="store_true",
                       help="Oklahoma: a spade upcard doubles the hand (oklahoma_spades_double)")
    group.add_argument("--players", type=int, metavar="N",
                       help="number of players, 2-4 (3-4 play the single_hand format)")
    group.add_argument("--knock-limit", type=int, metavar="N", help="knock limit, 0-10")
    group.add_argument("--big-gin", action="store_true", help="allow big gin")


def build_ruleset(args: argparse.Namespace) -> Ruleset:
    """The preset of ``args`` with ``--set`` and the shortcut flags applied (flags last)."""
    overrides = parse_sets(getattr(args, "sets", None))
    flags = {
        "target": getattr(args, "target", None),
        "players": getattr(args, "players", None),
        "knock_limit": getattr(args, "knock_limit", None),
    }
    for name, value in flags.items():
        if value is not None:
            overrides[name] = value
    if getattr(args, "oklahoma", False):
        overrides["oklahoma_spades_double"] = True
    if getattr(args, "big_gin", False):
        overrides["big_gin"] = True
    preset = getattr(args, "preset", "classic")
    base = PRESETS[preset]
    players = overrides.get("players", base.get("players", 2))
    if (isinstance(players, int) and 2 < players <= 4 and "format" not in overrides
            and base.get("format") == "match"):
        raise UsageError(
            f"{players} players always play the single_hand format (R6.1): use --preset arena "
            "or --set format=single_hand")
    if getattr(args, "target", None) is not None:
        fmt = overrides.get("format", base.get("format"))
        if str(fmt) == "single_hand":
            raise UsageError("--target: the single_hand format has no target")
    try:
        return Ruleset.preset(preset, **overrides)
    except TypeError as exc:  # a value of a type the dataclass cannot take
        raise UsageError(str(exc)) from None
    except RulesetError:
        raise


def seat_names(spec: str, count: int, what: str, repeat: bool = False) -> list[str]:
    """A comma-separated list of built-in player specs (``name`` or ``name:budget_ms``), one
    per seat (with ``repeat``, one name may stand for every seat)."""
    from ginrummy.bots import parse_spec

    names = [n.strip().lower() for n in spec.split(",") if n.strip()]
    if repeat and len(names) == 1:
        names *= count
    if len(names) != count:
        seats = f"{count} seats need {count} names" if count > 1 else "1 seat needs 1 name"
        raise UsageError(f"{what}: {seats}, one per seat (e.g. {','.join(['simple'] * count)}); "
                         f"got {len(names)}")
    for name in names:
        try:
            parse_spec(name)
        except ValueError as exc:
            raise UsageError(f"{what}: {exc}") from None
    return names
