"""The one option schema (docs/rules.md R7): every :class:`Ruleset` field carries its
:class:`~ginrummy.rules.Option`, and validation, ``--set`` and the lobby API
(tests/server/test_lobby.py) accept exactly what :meth:`Ruleset.schema` says."""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from ginrummy.cli.options import UsageError, build_ruleset, option_choices
from ginrummy.rules import OPTION_NAMES, OPTIONS, PRESETS, Option, Ruleset, RulesetError
from ginrummy.web import LANGUAGES, STATIC_DIR

SCHEMA = Ruleset.schema()
BY_NAME = {entry["name"]: entry for entry in SCHEMA}
INVALID = object()
"""A text the option's type cannot read."""
TESTS = Path(__file__).parent


# --------------------------------------------------------------------------- the oracle
def base_preset(entry: dict[str, Any]) -> str:
    """A preset whose format the option applies to, and where any player count may play."""
    for name, values in PRESETS.items():
        if values["format"] in entry["formats"] and (
                entry["name"] != "players"
                or values["format"] not in BY_NAME["format"].get("value_players", {})):
            return name
    raise AssertionError(entry["name"])


def schema_accepts(entry: dict[str, Any], value: Any, fmt: str) -> bool:
    """What the schema says of ``value`` for this option in a game of format ``fmt``."""
    if entry.get("format_only") and fmt not in entry["formats"]:
        return True  # target in a single hand: there is none, whatever was given
    if value is None:
        return bool(entry.get("nullable")) and not entry.get("format_only")
    if entry["type"] == "bool":
        return isinstance(value, bool)
    if entry["type"] == "enum":
        return isinstance(value, str) and value in entry["values"]
    if not isinstance(value, int) or isinstance(value, bool):
        return False
    return bool(entry["min"] <= value <= entry.get("max", value))


def candidates(entry: dict[str, Any]) -> list[Any]:
    """JSON values around the option's edges, good and bad."""
    if entry["type"] == "bool":
        return [True, False, "yes", 1, None]
    if entry["type"] == "enum":
        return [*entry["values"], "bogus", entry["values"][0].upper(), 1, None]
    low, high = entry["min"], entry.get("max")
    edges = [high - 1, high, high + 1] if high is not None else [low + 1000]
    return [low - 1, low, low + 1, *edges, None, True, 7.5, str(low)]


def text_candidates(entry: dict[str, Any]) -> list[str]:
    """``--set`` texts around the option's edges, good and bad."""
    if entry["type"] == "bool":
        return ["true", "false", "maybe"]
    if entry["type"] == "enum":
        return [*entry["values"], entry["values"][-1].upper(), "bogus", "1"]
    return [str(v) for v in candidates(entry) if isinstance(v, int) and not isinstance(v, bool)
            ] + ["none", "7.5", "x"]


def read_text(entry: dict[str, Any], text: str) -> Any:
    """The value a ``--set`` text stands for under the schema's type, or INVALID."""
    if entry["type"] == "bool":
        return {"true": True, "false": False}.get(text, INVALID)
    if entry["type"] == "enum":
        return text.lower() if text.lower() in entry["values"] else INVALID
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return None if text == "none" and entry.get("nullable") else INVALID


def allowed_words(entry: dict[str, Any]) -> list[str]:
    """What a refusal of this option must name: its values, or its bounds."""
    if entry["type"] == "bool":
        return ["true", "false"]
    if entry["type"] == "enum":
        return list(entry["values"])
    return [str(entry[k]) for k in ("min", "max") if k in entry]


def game_format(entry: dict[str, Any], value: Any, preset: str) -> str:
    return str(value) if entry["name"] == "format" else str(PRESETS[preset]["format"])


# --------------------------------------------------------------------------- the schema itself
def test_every_field_carries_its_option_and_the_schema_lists_them_in_order() -> None:
    fields = [f for f in dataclasses.fields(Ruleset) if f.name != "name"]
    missing = [f.name for f in fields if not isinstance(f.metadata.get("option"), Option)]
    assert missing == [], "each Ruleset field needs metadata=_int/_enum/_bool(...)"
    assert [e["name"] for e in SCHEMA] == [f.name for f in fields] == list(OPTIONS)
    assert set(BY_NAME) == OPTION_NAMES == set(Ruleset().to_dict())
    assert json.loads(json.dumps(SCHEMA)) == SCHEMA  # plain JSON data
    assert Ruleset.schema() == SCHEMA and Ruleset.schema() is not SCHEMA


@pytest.mark.parametrize("name", list(BY_NAME))
def test_each_option_says_what_it_is(name: str) -> None:
    entry = BY_NAME[name]
    assert entry["type"] in ("bool", "int", "enum")
    assert entry["label"] == f"option.{name}"
    assert entry["formats"] and set(entry["formats"]) <= {"match", "single_hand"}
    assert entry["default"] == json.loads(json.dumps(Ruleset().to_dict()))[name] or \
        entry.get("nullable")  # hand_size: None stands for 10 with 2 players
    if entry["type"] == "enum":
        assert entry["values"] and entry["default"] in entry["values"]
        assert set(entry.get("value_players", {})) <= set(entry["values"])
    elif entry["type"] == "int":
        assert isinstance(entry["min"], int) and entry["min"] <= entry.get("max", entry["min"])
    for other, value in entry.get("requires", {}).items():
        assert list(BY_NAME).index(other) < list(BY_NAME).index(name)
        assert schema_accepts(BY_NAME[other], value, "match")
    # the clause, and its tests in tests/rules/
    assert re.fullmatch(r"R\d+\.\d+", entry["clause"]), entry["clause"]
    clause = entry["clause"].replace(".", "_")
    rules_tests = "".join(p.read_text("utf-8") for p in (TESTS / "rules").glob("test_*.py"))
    assert f"def test_{clause}_" in rules_tests, f"no test of {entry['clause']} in tests/rules/"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_option_and_value_has_a_label_in_each_catalogue(lang: str) -> None:
    catalogue = json.loads((STATIC_DIR / "i18n" / f"{lang}.json").read_text("utf-8"))
    keys = [e["label"] for e in SCHEMA]
    keys += [f"value.{e['name']}.{v}" for e in SCHEMA for v in e.get("values", [])]
    assert sorted(k for k in keys if k not in catalogue) == [], f"{lang} lacks these labels"


# --------------------------------------------------------------------------- validation
@pytest.mark.parametrize("name", list(BY_NAME))
def test_validation_accepts_exactly_what_the_schema_says(name: str) -> None:
    entry = BY_NAME[name]
    preset = base_preset(entry)
    for value in candidates(entry):
        expected = schema_accepts(entry, value, game_format(entry, value, preset))
        for build in (lambda o: Ruleset.preset(preset, **o),
                      lambda o: Ruleset.from_dict(Ruleset.preset(preset).to_dict() | o)):
            try:
                rules = build({name: value})
            except RulesetError as exc:
                assert not expected, f"{name}={value!r} refused: {exc}"
                assert exc.option == name, exc
                assert all(word in str(exc) for word in allowed_words(entry)), exc
                continue
            assert expected, f"{name}={value!r} accepted"
            if value is not None and not (entry.get("format_only") and rules.target is None):
                assert rules.to_dict()[name] == value


@pytest.mark.parametrize("name", [n for n, e in BY_NAME.items() if "value_players" in e])
def test_player_counts_follow_value_players(name: str) -> None:
    entry, players = BY_NAME[name], BY_NAME["players"]
    for value in entry["values"]:
        for count in range(players["min"], players["max"] + 1):
            allowed = count in entry["value_players"].get(value, [count])
            try:
                Ruleset.preset("arena", players=count, target=100, **{name: value})
            except RulesetError as exc:
                assert not allowed and exc.option == name, exc
                assert f"{count} players choose" in str(exc)
                assert OPTIONS[name].value_players_allowed(count)[0] in str(exc)
            else:
                assert allowed, (name, value, count)


# --------------------------------------------------------------------------- --set
@pytest.mark.parametrize("name", list(BY_NAME))
def test_cli_set_accepts_exactly_what_the_schema_says(name: str) -> None:
    entry = BY_NAME[name]
    preset = base_preset(entry)
    for text in text_candidates(entry):
        value = read_text(entry, text)
        expected = value is not INVALID and schema_accepts(
            entry, value, game_format(entry, value, preset))
        args = argparse.Namespace(preset=preset, sets=[f"{name}={text}"])
        try:
            rules = build_ruleset(args)
        except (UsageError, RulesetError) as exc:
            assert not expected, f"--set {name}={text} refused: {exc}"
            assert name in str(exc)
            continue
        assert expected, f"--set {name}={text} accepted"
        if value is not None and getattr(rules, name) is not None:
            assert rules.to_dict()[name] == value
    assert option_choices(name) == OPTIONS[name].accepts()
