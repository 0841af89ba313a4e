"""docs/rules.md and the rules tests agree: every clause has a test named after it, no test
names a clause the rules do not have, and every ``Ruleset`` option is in the R7 table with its
value in each preset and named by the clause its schema gives."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from ginrummy.rules import OPTION_NAMES, OPTIONS, Ruleset

ROOT = Path(__file__).resolve().parents[2]
RULES_DOC = ROOT / "docs" / "rules.md"
RULES_TESTS = Path(__file__).resolve().parent
COLUMNS = ["classic", "playok", "arena", "eaai"]  # the presets in the R7 table, in order

# A clause as docs/rules.md writes it (at the start of a bullet: "- **R4.7** ...").
CLAUSE_IN_DOC = re.compile(r"^- \*\*(R\d+\.\d+)\*\*", re.M)
# A clause as a test name writes it: R4_7 (or r4_7) between underscores, e.g.
# test_R4_7_reshuffle_... or test_audit_R4_2_R5_1_... (one test may name several).
CLAUSE_IN_NAME = re.compile(r"(?<=_)[Rr](\d+)_(\d+)(?=_|$)")


def doc_clauses() -> list[str]:
    """Every clause id of docs/rules.md, in order."""
    return CLAUSE_IN_DOC.findall(RULES_DOC.read_text(encoding="utf-8"))


def named_tests() -> dict[str, list[str]]:
    """Each test function of tests/rules/ (file::name) and the clause ids its name gives."""
    names: dict[str, list[str]] = {}
    for path in sorted(RULES_TESTS.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (
                node.name.startswith("test_")
            ):
                ids = [f"R{a}.{b}" for a, b in CLAUSE_IN_NAME.findall(node.name)]
                names[f"{path.name}::{node.name}"] = ids
    return names


def test_the_rules_have_clauses_in_order() -> None:
    clauses = doc_clauses()
    assert clauses[0] == "R1.1" and "R6.5" in clauses and len(clauses) >= 35
    assert len(set(clauses)) == len(clauses), "a clause number is used twice"
    keys = [tuple(int(x) for x in c[1:].split(".")) for c in clauses]
    assert keys == sorted(keys)


def test_every_clause_has_a_test_named_after_it() -> None:
    named = {c for ids in named_tests().values() for c in ids}
    untested = [c for c in doc_clauses() if c not in named]
    assert untested == [], f"clauses of docs/rules.md with no test in tests/rules/: {untested}"


def test_no_test_names_a_clause_that_does_not_exist() -> None:
    clauses = set(doc_clauses())
    unknown = {name: ids for name, ids in named_tests().items()
               if any(c not in clauses for c in ids)}
    assert unknown == {}, "tests naming clauses docs/rules.md does not have"


def test_the_matching_reads_clause_ids_from_test_names() -> None:
    found = [f"R{a}.{b}" for a, b in CLAUSE_IN_NAME.findall(
        "test_audit_R4_2_R5_1_plain_gin_r6_5_and_52_cards_R7")]
    assert found == ["R4.2", "R5.1", "R6.5"]


def options_table() -> dict[str, list[str]]:
    """The R7 table: option name -> its cells for classic, playok, arena, eaai."""
    rows: dict[str, list[str]] = {}
    for line in RULES_DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and re.fullmatch(r"`\w+`", cells[0]):
            rows[cells[0].strip("`")] = cells[2:]
    return rows


def shown(value: object) -> str:
    """An option value as the table writes it."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return "–" if value is None else str(value)


def test_the_options_table_names_every_ruleset_option() -> None:
    assert set(options_table()) == set(OPTION_NAMES)


@pytest.mark.parametrize("preset", COLUMNS)
def test_the_options_table_gives_each_presets_value(preset: str) -> None:
    column = COLUMNS.index(preset)
    values = Ruleset.preset(preset).to_dict()
    wrong = {option: (cells[column], shown(values[option]))
             for option, cells in options_table().items()
             if cells[column].split(" ")[0] != shown(values[option])}
    assert wrong == {}


def clause_texts() -> dict[str, str]:
    """Each clause id -> its text, with the heading of its section (which names ``format``)."""
    texts: dict[str, str] = {}
    heading, current = "", None
    for line in RULES_DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            heading, current = line, None
            continue
        found = CLAUSE_IN_DOC.match(line)
        if found:
            current = found.group(1)
            texts[current] = heading + "\n" + line
        elif current is not None and not line.startswith("|"):
            texts[current] += "\n" + line
    return texts


def test_each_option_is_named_by_the_clause_its_schema_gives() -> None:
    texts = clause_texts()
    wrong = {name: option.clause for name, option in OPTIONS.items()
             if f"`{name}`" not in texts.get(option.clause, "")}
    assert wrong == {}
