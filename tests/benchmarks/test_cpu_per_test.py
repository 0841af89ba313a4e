"""benchmarks/cpu_per_test.py: the plugin records each test's CPU, its own and its children's,
and the report adds them up (a busy loop of 0.2 s of CPU shows as at least that much)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import cpu_per_test  # noqa: E402

TESTS = '''
import subprocess, sys, time

BUSY = "import time\\nstart = time.process_time()\\nwhile time.process_time() - start < 0.2: pass"

def test_busy():
    exec(BUSY)

def test_child():
    subprocess.run([sys.executable, "-c", BUSY], check=True)

def test_idle():
    pass
'''


def test_each_test_gets_its_own_and_its_childrens_cpu(tmp_path: Path) -> None:
    (tmp_path / "test_sample.py").write_text(TESTS)
    log = tmp_path / "cpu.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "benchmarks")}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "cpu_per_test", "--cpu-log", str(log),
         "-p", "no:cacheprovider", str(tmp_path / "test_sample.py")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    parsed = cpu_per_test.parse(log.read_text())
    lines = {nodeid.split("::")[-1]: (own, children) for own, children, nodeid in parsed}
    assert set(lines) == {"test_busy", "test_child", "test_idle"}
    assert lines["test_busy"][0] >= 0.2 and lines["test_busy"][1] == 0
    assert lines["test_child"][1] >= 0.2
    assert lines["test_idle"][0] < lines["test_busy"][0]
    text = cpu_per_test.report(parsed, top=5)
    assert text.startswith("3 tests: ")
    assert "by folder:" in text and "by module:" in text and "test_sample.py::test_busy" in text


def test_a_malformed_line_is_named() -> None:
    with pytest.raises(ValueError, match="line 2 is not"):
        cpu_per_test.parse("0.1 0.0 tests/a.py::t\nnot a line\n")


def test_the_command_names_a_missing_log(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert cpu_per_test.main([str(tmp_path / "none.log")]) == 2
    assert "none.log" in capsys.readouterr().err
