"""The README's figures: ``benchmarks/summary.py`` still measures every row and rewrites only
the block between the README's markers.

No figure is asserted (speed is the benchmark's business, not a test's): the quick run plays
every benchmark on tiny sizes, side by side, and the test checks the rows it reports and the
README rewrite (the text outside the markers kept, a second rewrite changing nothing).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "summary.py"


def load_summary() -> ModuleType:
    """benchmarks/summary.py as a module (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location("bench_summary", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


summary = load_summary()

README = f"""# Title

Before the figures, kept as it is.

{summary.BEGIN}
an old table
| a | b |
{summary.END}

After the figures: `scripts/bench --summary`, kept too.
"""


def test_the_rewrite_keeps_the_text_outside_the_markers_and_is_idempotent() -> None:
    new = "Measured today.\n\n| what | figure |\n|---|---|\n| x | 1 |"
    once = summary.replace_block(README, new)
    assert once == summary.replace_block(once, new)
    before, rest = README.split(summary.BEGIN)
    after = rest.split(summary.END)[1]
    assert once.startswith(before + summary.BEGIN + "\n" + new + "\n" + summary.END)
    assert once.endswith(summary.END + after)
    assert "an old table" not in once


def test_the_replaced_block_is_kept_once_in_the_history() -> None:
    doc = f"# Benchmarks\n\n{summary.HISTORY}\n\nolder run\n\n## Next section\n"
    old = summary.current_block(README)
    assert old == "an old table\n| a | b |"
    once = summary.add_to_history(doc, old)
    assert once == doc.replace(summary.HISTORY, f"{summary.HISTORY}\n\n{old}\n")
    assert once.index(old) < once.index("older run")  # newest first
    assert summary.add_to_history(once, old) == once
    assert summary.add_to_history(doc, "  ") == doc
    with pytest.raises(ValueError, match="summary-history"):
        summary.add_to_history("no marker", old)


def test_a_readme_without_markers_is_refused() -> None:
    for text in ("no markers", f"only {summary.BEGIN}", f"{summary.END} before {summary.BEGIN}"):
        with pytest.raises(ValueError, match="figures:begin"):
            summary.replace_block(text, "x")


def test_the_real_readme_has_the_block() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert text.count(summary.BEGIN) == 1 and text.count(summary.END) == 1
    rows = text.split(summary.BEGIN)[1].split(summary.END)[0]
    assert summary.COMMAND in rows
    assert rows.count("\n| ") == len(summary.ROW_KEYS) + 1  # the header, then one per row


@pytest.mark.slow
@pytest.mark.soak
def test_a_quick_run_reports_every_row_and_rewrites_the_readme(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(README, encoding="utf-8")
    history = tmp_path / "benchmarks.md"
    history.write_text(f"# History\n\n{summary.HISTORY}\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--json", "--write-readme",
                           "--readme", str(readme), "--history", str(history),
                           "--note", "A note.", "--allow-missing",
                           "--save", str(tmp_path / "summary.json")],
                          capture_output=True, text=True, timeout=300, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert json.loads((tmp_path / "summary.json").read_text(encoding="utf-8")) == report
    rows = report["rows"]
    assert [row["key"] for row in rows] == list(summary.ROW_KEYS)
    by_key = {row["key"]: row for row in rows}
    # no peer needed for these two: they must have been measured
    for key in ("expert", "server-p99", "server-cpu"):
        assert not by_key[key]["figure"].startswith("not measured"), by_key[key]
    machine = report["machine"]
    assert machine["cores"] >= 1 and machine["python"] and machine["cpu"]
    text = readme.read_text(encoding="utf-8")
    assert text == summary.replace_block(README, report["block"])
    assert summary.replace_block(text, report["block"]) == text
    assert "A note." in text and "Quick run" in text
    assert text.count("\n| ") == len(summary.ROW_KEYS) + 1
    assert history.read_text(encoding="utf-8") == summary.add_to_history(
        f"# History\n\n{summary.HISTORY}\n", "an old table\n| a | b |")


def test_bad_arguments_are_refused_before_measuring(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("no markers here\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(SCRIPT), "--write-readme", "--readme",
                           str(readme)], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 2
    assert "figures:begin" in done.stderr
    assert readme.read_text(encoding="utf-8") == "no markers here\n"
    readme.write_text(README, encoding="utf-8")
    history = tmp_path / "benchmarks.md"
    history.write_text("no marker here\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(SCRIPT), "--write-readme", "--readme",
                           str(readme), "--history", str(history)], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert "summary-history" in done.stderr
    assert readme.read_text(encoding="utf-8") == README
