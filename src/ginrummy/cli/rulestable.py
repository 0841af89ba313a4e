"""``ginrummy rules [PRESET]``: the options of one preset, or of all presets side by side."""

from __future__ import annotations

import argparse
from typing import Any

from ginrummy.cli.options import option_choices, parse_sets
from ginrummy.rules import PRESETS, Ruleset


def show_value(value: Any) -> str:
    """An option value as people write it."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Left-aligned text columns with a rule under the header."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    return [line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def run_rules(args: argparse.Namespace) -> int:
    """Print the table."""
    overrides = parse_sets(args.sets)
    if args.preset_name:
        rules = Ruleset.preset(args.preset_name, **overrides)
        values = rules.to_dict()
        rows = [[name, show_value(value), option_choices(name)] for name, value in values.items()]
        print(rules.describe())
        print()
        for text in table(["option", "value", "accepts"], rows):
            print(text)
        return 0
    sets = {name: Ruleset.preset(name, **overrides).to_dict() for name in PRESETS}
    names = list(PRESETS)
    first = sets[names[0]]
    rows = [[option, *(show_value(sets[n][option]) for n in names)] for option in first]
    for text in table(["option", *names], rows):
        print(text)
    print()
    print("Override any option with --set OPTION=VALUE (play, simulate, rules).")
    return 0
