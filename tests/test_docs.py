"""The Python examples of the README, docs/engine.md and docs/tournaments.md run as
written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


@pytest.mark.parametrize("doc", ["README.md", "docs/engine.md", "docs/tournaments.md"])
def test_python_examples_run(doc: str) -> None:
    blocks = BLOCK.findall((ROOT / doc).read_text(encoding="utf-8"))
    assert blocks, f"{doc} has no Python example"
    namespace: dict[str, object] = {}
    for block in blocks:  # one namespace per document: later blocks use earlier names
        exec(compile(block, doc, "exec"), namespace)
