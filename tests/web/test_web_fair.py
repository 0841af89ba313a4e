"""Provably fair deals in a real browser (issue 16; docs/fair.md): two people play a hand
through the page; both pages get the hand's commitment before their cards and send their own
client seed, the seed is revealed only after the hand (a void hand's only at the match's end:
the page says so, and play goes on to the next hand), each page checks the deal itself (Web
Crypto) and shows the verified mark, and ``ginrummy verify`` passes on the stored record."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_support import (
    FrameRecorder,
    ServerProcess,
    browser_missing,
    create_table,
    leaks,
    new_page,
    play_until,
    running_server,
)

from ginrummy.rules import Ruleset
from ginrummy.server.core.kinds import EventKind
from ginrummy.server.players.replay import fair_entries, match_record, replay_match
from ginrummy.storage import Repository, open_engine
from ginrummy.storage.fairseeds import load_match

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server(tmp_path_factory.mktemp("fair")) as process:
        yield process


def stored_record(server: ServerProcess, table_id: str) -> dict[str, Any]:
    """The game record of the table's match so far, with its hands' stored seeds."""
    engine = open_engine(f"sqlite:///{server.db_path}")
    try:
        stored = Repository(engine).load_table(table_id)
        assert stored is not None
        events = [e for e in stored.events if e.kind in (EventKind.MATCH, EventKind.DEAL,
                                                         EventKind.ACTION)]
        rules = Ruleset.from_dict(stored.rules, name=stored.preset)
        match, _steps = replay_match(rules, stored.pool_chips, events)
        with engine.connect() as conn:
            seeds = load_match(conn, table_id, events[0].version, stored.version)
    finally:
        engine.dispose()
    names = [s.name or f"seat {s.seat}" for s in stored.seats]
    return match_record(match, names, fair_entries(seeds)).to_json()


def test_two_people_see_the_commitment_first_then_the_verified_deal(
        server: ServerProcess, browser: Browser, tmp_path: Path) -> None:
    frames = FrameRecorder()
    # reduced motion: up to six hands are played to reach the match's end (a void hand's seed)
    _, ann = new_page(browser, server.base, recorder=frames, motion=False)
    _, bob = new_page(browser, server.base, recorder=frames, motion=False)
    frames.rename(ann, "ann")
    frames.rename(bob, "bob")
    table = create_table(ann, "Ann", preset="classic")
    bob.goto("/")
    bob.fill("#nickname", "Bob")
    entry = bob.locator(f'.table-entry[data-table="{table}"]')
    entry.wait_for()
    entry.locator(".join-button").click()
    bob.wait_for_selector("#my-hand")
    hand = 1
    for _ in range(6):  # a void hand's seed waits for the match's end (R4.8): play on
        play_until([ann, bob], {"next", "over"})
        ann.wait_for_selector("#fair-mark, .fair-withheld")
        if not ann.locator(".fair-withheld").count():
            break
        for page in (ann, bob):
            assert page.inner_text(".fair-withheld").startswith(f"Hand {hand} was void: ")
            page.click("#next-hand")
        for page in (ann, bob):
            page.wait_for_function("() => document.getElementById('table-page')"
                                   ".dataset.await !== 'next'")
        hand += 1
    for page in (ann, bob):
        mark = page.locator("#fair-mark")
        mark.wait_for()
        assert "verified" in (mark.get_attribute("class") or "").split()
        assert page.inner_text("#fair-mark .fair-verdict") == f"Deal of hand {hand} verified"
    # what each page was sent: the commitment before its cards, its own seed in the deck,
    # the seed only once the hand was over, and no card it may not know
    sent = {name: [f.message for f in frames.frames if f.recipient == name]
            for name in ("ann", "bob")}
    seeds_of_hand = None
    for seat, name in enumerate(("ann", "bob")):
        states = [m for m in sent[name] if m["type"] == "state"]
        committed = next(i for i, m in enumerate(states)
                         if (m.get("fair") or {}).get("hand") == hand)
        dealt = next(i for i, m in enumerate(states)
                     if m["view"] is not None and m["view"]["hand_number"] == hand)
        assert committed < dealt, f"{name} saw cards before the commitment"
        assert states[committed]["fair"]["server_seed"] is None
        reveal = next(i for i, m in enumerate(states)
                      if (m.get("fair") or {}).get("server_seed") is not None)
        assert states[reveal]["view"]["phase"] == "over"
        block = states[reveal]["fair"]
        assert block["hand"] == hand  # the void hands before it: not revealed
        assert block["commitment"] == states[committed]["fair"]["commitment"]
        assert block["server_made"] == [False, False]
        assert block["client_seeds"][seat] is not None
        seeds_of_hand = seeds_of_hand or block
        assert block == seeds_of_hand
        before = json.dumps(sent[name][:sent[name].index(states[reveal])])
        assert block["server_seed"] not in before
    assert leaks(frames.frames) == []
    record = stored_record(server, table)
    assert record["hands"][hand - 1]["fair"]["server_seed"] == seeds_of_hand["server_seed"]
    for void in record["hands"][:hand - 1]:  # their seeds: in the record, in no frame
        assert void["result"]["outcome"] == "void"
        assert all(void["fair"]["server_seed"] not in json.dumps(f.message)
                   for f in frames.frames)
    path = tmp_path / "table.ginrec.json"
    path.write_text(json.dumps(record))
    verified = subprocess.run(
        [sys.executable, "-c", "from ginrummy.cli.main import main; raise SystemExit(main())",
         "verify", str(path)], capture_output=True, text=True, timeout=120, check=False)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.startswith("hand 1: verified")
    # how to check it, opened on a phone's screen: the 64-digit seeds wrap inside the page
    ann.set_viewport_size({"width": 390, "height": 844})
    ann.click("#fair-mark details.fair-how summary")
    assert ann.locator("#fair-mark .fair-hex").first.is_visible()
    width = ann.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide with the seeds shown"
    for page in (ann, bob):
        assert page.errors == [], page.errors  # type: ignore[attr-defined]
