"""The package's import graph (docs/server.md, *The folders*): no circle anywhere under
``src/``, imports that run one way only, and an engine with no dependency outside the
standard library.

Every ``import`` statement of every module counts: at the top, inside a function, or under
``TYPE_CHECKING`` (a type-only import is still an edge a reader has to follow).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "ginrummy"

ENGINE = "engine"
"""The pure game: cards, rules, actions, hands, scoring, solver, match, views, records, fair
deals, the game loop (and the web client's files, which hold no Python to speak of)."""

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (ENGINE, ("ginrummy", "ginrummy.cards", "ginrummy.errors", "ginrummy.rules",
              "ginrummy.actions", "ginrummy.scoring", "ginrummy.solver", "ginrummy.engine",
              "ginrummy.match", "ginrummy.views", "ginrummy.fair", "ginrummy.gameloop",
              "ginrummy.records", "ginrummy.web")),
    ("bots", ("ginrummy.bots",)),
    ("coach", ("ginrummy.coach",)),
    ("contest", ("ginrummy.contest",)),
    ("storage", ("ginrummy.storage",)),
    ("tournament", ("ginrummy.tournament",)),
    ("env", ("ginrummy.env",)),
    ("server.core", ("ginrummy.server.core",)),
    ("server.cluster", ("ginrummy.server.cluster",)),
    ("server.play", ("ginrummy.server.play",)),
    ("server.players", ("ginrummy.server.players",)),
    ("server.http", ("ginrummy.server.http",)),
    ("server", ("ginrummy.server",)),
    ("cli", ("ginrummy.cli",)),
)
"""Every module's part, lowest first, by the longest prefix of its name."""

MAY_IMPORT: dict[str, set[str]] = {
    ENGINE: set(),
    "bots": {ENGINE},
    "coach": {ENGINE, "bots"},
    "contest": {ENGINE},
    "storage": {ENGINE},
    "tournament": {ENGINE, "bots"},
    "env": {ENGINE, "bots"},
    "server.core": {ENGINE},
    "server.cluster": {ENGINE, "storage", "server.core"},
    "server.play": {ENGINE, "bots", "storage", "server.core", "server.cluster"},
    "server.players": {ENGINE, "bots", "contest", "storage", "server.core", "server.play"},
    "server.http": {ENGINE, "bots", "coach", "contest", "storage", "server.core",
                    "server.cluster", "server.play", "server.players"},
    "server": {"server.core", "server.cluster", "server.play", "server.players",
               "server.http", "storage"},
    "cli": {ENGINE, "bots", "coach", "storage", "tournament", "server", "server.core",
            "server.players"},
}
"""Which other parts each part imports from: the direction runs from the entry points (the
command line, the app) down to the HTTP surface, play and players, then storage and the
engine. A part always imports its own modules."""

STDLIB_ONLY = (ENGINE, "bots", "coach", "contest", "tournament")
"""The parts a ``pip install ginrummy`` without extras runs: the standard library only."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    """Every module under ``src/ginrummy`` by its dotted name (packages by their own)."""
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imported_names(name: str, path: Path) -> Iterator[tuple[str, int]]:
    """Every name an import statement of ``path`` asks for, absolute, with its line."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                if not is_package:
                    base.pop()
                base = base[:len(base) - (node.level - 1)]
                prefix = ".".join([*base, *([node.module] if node.module else [])])
            else:
                prefix = node.module or ""
            for alias in node.names:  # `from package import module` names a module
                yield f"{prefix}.{alias.name}", node.lineno


def owner_module(name: str) -> str | None:
    """The module of ours that an imported name lives in (``None``: not ours)."""
    known = modules()
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


@cache
def import_graph() -> dict[str, dict[str, int]]:
    """Module -> the modules of ours it imports (with the first line that does)."""
    graph: dict[str, dict[str, int]] = {}
    for name, path in modules().items():
        edges: dict[str, int] = {}
        for imported, line in imported_names(name, path):
            target = owner_module(imported)
            if target is not None and target != name:
                edges.setdefault(target, line)
        graph[name] = edges
    return graph


def part_of(module: str) -> str:
    """The part (a key of :data:`MAY_IMPORT`) a module belongs to."""
    best, best_len = None, -1
    for part, prefixes in LAYERS:
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = part, len(prefix)
    assert best is not None, f"{module} belongs to no part of LAYERS: add it there"
    return best


def circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_every_module_belongs_to_a_part() -> None:
    for module in modules():
        assert part_of(module) in MAY_IMPORT


def test_no_import_circle_anywhere_under_src() -> None:
    graph = import_graph()
    found = circles(graph)
    described = ["; ".join(f"{a} -> {b} (line {graph[a][b]})" for a in c for b in graph[a]
                           if b in c) for c in found]
    assert not found, "import circles:\n" + "\n".join(described)


def test_imports_run_one_way_only() -> None:
    against = []
    for module, edges in import_graph().items():
        mine = part_of(module)
        for target, line in edges.items():
            theirs = part_of(target)
            if theirs != mine and theirs not in MAY_IMPORT[mine]:
                against.append(f"{module} (line {line}) imports {target}: {mine} may not "
                               f"import {theirs}")
    assert not against, "imports against the documented direction:\n" + "\n".join(against)


@pytest.mark.parametrize("part", STDLIB_ONLY)
def test_the_parts_a_bare_install_runs_need_only_the_standard_library(part: str) -> None:
    outside = []
    for module, path in modules().items():
        if part_of(module) != part:
            continue
        for imported, line in imported_names(module, path):
            top = imported.split(".")[0]
            if top != "ginrummy" and top not in sys.stdlib_module_names:
                outside.append(f"{module} (line {line}) imports {imported}")
    assert not outside, "\n".join(outside)


def test_each_server_folder_says_what_lives_there_and_what_it_may_import() -> None:
    for folder in sorted(p for p in (PACKAGE / "server").iterdir() if p.is_dir()
                         and (p / "__init__.py").exists()):
        doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text())) or ""
        assert len(doc) > 80, f"server/{folder.name}/__init__.py: no docstring saying what is there"
        assert "May import:" in doc, f"server/{folder.name}: its docstring names no 'May import:'"


def test_the_checks_see_a_circle_and_an_import_against_the_direction() -> None:
    """The checks themselves: a made-up graph with a circle is caught, and a made-up edge
    from the engine up to the server is against the direction."""
    assert circles({"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3}, "d": {"a": 4}}) == [
        ["a", "b", "c"]]
    assert circles({"a": {"b": 1}, "b": {}}) == []
    assert part_of("ginrummy.server.play.table") == "server.play"
    assert part_of("ginrummy.server.app") == "server"
    assert "server.play" not in MAY_IMPORT[part_of("ginrummy.engine")]
