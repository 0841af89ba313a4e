"""The Python examples of docs/env.md run as written; importing ginrummy needs no numpy."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def test_env_doc_examples_run() -> None:
    blocks = BLOCK.findall((ROOT / "docs/env.md").read_text(encoding="utf-8"))
    assert len(blocks) >= 6
    namespace: dict[str, object] = {}
    for block in blocks:  # one namespace: later blocks use earlier names
        exec(compile(block, "docs/env.md", "exec"), namespace)


def test_importing_ginrummy_imports_no_numpy_or_pettingzoo() -> None:
    code = ("import sys, ginrummy, ginrummy.engine, ginrummy.views, ginrummy.bots; "
            "print(sorted(m for m in ('numpy', 'pettingzoo', 'gymnasium') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True)
    assert out.stdout.strip() == "[]"
