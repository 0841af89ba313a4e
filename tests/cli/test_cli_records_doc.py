"""docs/records.md stays true: its example record replays, and ``replay --verbose`` prints
the text the document shows."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from cli_helpers import Run

from ginrummy.records import GameRecord

DOC = Path(__file__).resolve().parents[2] / "docs" / "records.md"


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_example_replays(cli: Callable[..., Run], tmp_path: Path) -> None:
    (example,) = _blocks("json")
    record = GameRecord.from_json(json.loads(example))
    match = record.replay()
    assert match.result is not None and match.result.to_dict() == record.result
    path = tmp_path / "example.ginrec.json"
    path.write_text(example, encoding="utf-8")
    run = cli("replay", str(path), "--verbose")
    assert run.code == 0, run.err
    (shown,) = _blocks("text")
    assert shown.rstrip("\n") in run.out
