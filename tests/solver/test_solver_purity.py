"""The solver is a pure function of cards: it imports only :mod:`ginrummy.cards` and itself,
no private names across its modules, and its shared bit helpers say what they compute."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

import ginrummy.solver
from ginrummy.cards import LANE, LANE_MASK, rank_of
from ginrummy.rules import LayoffChain
from ginrummy.solver import Chaining
from ginrummy.solver.melds import (
    RUN_DEADWOOD,
    lanes_and_triples,
    ranks_held,
    run_deadwood,
)

SOLVER = Path(ginrummy.solver.__file__).parent


def _imports(path: Path) -> list[tuple[str, str]]:
    """(module, name) for every ``from module import name`` of a file."""
    tree = ast.parse(path.read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            out += [(node.module or "", alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            out += [(alias.name, "") for alias in node.names]
    return out


@pytest.mark.parametrize("path", sorted(SOLVER.glob("*.py")), ids=lambda p: p.name)
def test_solver_modules_import_only_cards_and_the_solver(path: Path) -> None:
    for module, name in _imports(path):
        if module.startswith("ginrummy"):
            assert module in ("ginrummy.cards", "ginrummy.solver") or module.startswith(
                "ginrummy.solver."), f"{path.name} imports {module}"
            if module.startswith("ginrummy.solver"):
                assert not name.startswith("_"), f"{path.name} imports private {module}.{name}"


def test_chaining_covers_every_rules_value() -> None:
    """Callers map ``Ruleset.layoff_chain`` to the solver's switch by value."""
    assert {c.value for c in LayoffChain} == {c.value for c in Chaining}


def test_bit_helpers_match_a_count_of_the_cards() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        cards = rng.sample(range(52), rng.randint(0, 12))
        mask = sum(1 << c for c in cards)
        *lanes, triples = lanes_and_triples(mask)
        assert lanes == [mask >> (LANE * s) & LANE_MASK for s in range(4)]
        counts = [0] * LANE
        for card in cards:
            counts[rank_of(card)] += 1
        assert ranks_held(mask) == sum(1 << r for r in range(LANE) if counts[r])
        assert triples == sum(1 << r for r in range(LANE) if counts[r] >= 3)
        assert run_deadwood(mask) == sum(RUN_DEADWOOD[lane] for lane in lanes)
