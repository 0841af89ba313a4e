"""Shared command-line options: a preset, ``--set option=value`` overrides and the
convenience flags, turned into a validated :class:`~ginrummy.rules.Ruleset`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ginrummy.rules import OPTION_NAMES, OPTIONS, PRESETS, Format, Ruleset, RulesetError


class UsageError(ValueError):
    """A command-line argument that makes no sense; reported on stderr with exit status 2."""


_TRUE = frozenset({"true", "on", "yes", "y", "1"})
_FALSE = frozenset({"false", "off", "no", "n", "0"})
_NONE = frozenset({"none", "null", "-"})


def option_choices(name: str) -> str:
    """What an option accepts, for help and error messages (from the ruleset's schema)."""
    return OPTIONS[name].accepts()


def parse_option_value(name: str, text: str) -> Any:
    """The value of ruleset option ``name`` written as ``text``, as its schema types it
    (booleans, enum values, whole numbers, ``none`` where the option may be null). Ranges
    are checked by :class:`Ruleset` itself."""
    if name not in OPTIONS:
        known = ", ".join(sorted(OPTION_NAMES))
        raise UsageError(f"--set: no ruleset option {name!r}; options are: {known}")
    option = OPTIONS[name]
    raw = text.strip()
    low = raw.lower()
    if option.kind == "bool":
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise UsageError(f"--set {name}={text}: expected true or false")
    if option.values is not None:
        try:
            return option.values(low)
        except ValueError:
            raise UsageError(
                f"--set {name}={text}: expected one of {option_choices(name)}") from None
    if (option.nullable or option.format_only) and low in _NONE:
        return None
    try:
        return int(raw)
    except ValueError:
        raise UsageError(f"--set {name}={text}: expected {option_choices(name)}") from None


def check_flag(flag: str, name: str, value: object) -> None:
    """Refuse a command-line flag's value that ruleset option ``name`` would refuse."""
    try:
        OPTIONS[name].check(name, value)
    except RulesetError as exc:
        raise UsageError(f"{flag} {value}: {exc}") from None


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
                       default=[], help="override a ruleset option (repeatable): "
                       f"{', '.join(OPTIONS)}; 'ginrummy rules PRESET' lists what each accepts")
    if not convenience:
        return
    group.add_argument("--target", type=int, metavar="N", help="match target (= --set target=N)")
    group.add_argument("--oklahoma", action="store_true",
                       help="Oklahoma: a spade upcard doubles the hand (oklahoma_spades_double)")
    group.add_argument("--players", type=int, metavar="N",
                       help=f"number of players, {_range('players')} (only "
                       f"{_players_for('format', Format.MATCH)} may play a match)")
    group.add_argument("--knock-limit", type=int, metavar="N",
                       help=f"knock limit, {_range('knock_limit')}")
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
    formats = OPTIONS["format"]
    if (_valid("players", players) and "format" not in overrides
            and base.get("format") not in formats.value_players_allowed(players)):
        allowed = "/".join(formats.value_players_allowed(players))
        raise UsageError(
            f"{players} players always play the {allowed} format ({formats.clause}): use "
            f"--preset arena or --set format={allowed}")
    if getattr(args, "target", None) is not None:
        fmt = str(overrides.get("format", base.get("format")))
        if fmt not in OPTIONS["target"].formats:
            raise UsageError(f"--target: the {fmt} format has no target")
    try:
        return Ruleset.preset(preset, **overrides)
    except TypeError as exc:  # a value of a type the dataclass cannot take
        raise UsageError(str(exc)) from None
    except RulesetError:
        raise


def _range(name: str) -> str:
    option = OPTIONS[name]
    return f"{option.minimum}-{option.maximum}"


def _players_for(name: str, value: str) -> str:
    counts = OPTIONS[name].value_players.get(value, ())
    return " or ".join(str(n) for n in counts) + " players"


def _valid(name: str, value: object) -> bool:
    try:
        OPTIONS[name].check(name, value)
    except RulesetError:
        return False
    return True


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


def record_directory(text: str | None) -> Path | None:
    """The ``--record DIR`` directory, made if missing; ``UsageError`` when it cannot be."""
    if text is None:
        return None
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise UsageError(f"--record {text}: not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--record {text}: cannot make the directory ({exc.strerror})") from None
    return path
