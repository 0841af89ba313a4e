"""Game records: replay to the same states and results, JSON round trip, tampering, goldens.

Regenerate the golden records (only when a rules change is meant to alter them) with::

    /work/venv/bin/python tests/test_records.py
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from ginrummy.bots import make_bot
from ginrummy.engine import CHANCE
from ginrummy.gameloop import play_match
from ginrummy.match import Match
from ginrummy.records import GameRecord, RecordError, hand_from_entry
from ginrummy.rules import Ruleset
from ginrummy.views import view

GOLDEN_DIR = Path(__file__).parent / "golden"
# name: (preset, overrides, match seed, pool in cents)
GOLDEN: dict[str, tuple[str, dict[str, Any], int, int | None]] = {
    "classic_simple": ("classic", {}, 7, None),
    "playok_oklahoma_simple": ("playok", {"oklahoma_spades_double": True}, 1, None),
    "arena3_simple": ("arena", {"players": 3}, 37, 1001),
}
# what the golden records hold: hands, match winner, totals
GOLDEN_SUMMARY = {
    "classic_simple": (7, 0, (320, 55)),
    "playok_oklahoma_simple": (6, 1, (47, 135)),
    "arena3_simple": (1, 0, (0, -10, -8)),
}


def play_recorded(rules: Ruleset, players: list[str], seed: int,
                  pool: int | None = None) -> tuple[Match, list[list[tuple[object, ...]]]]:
    """Play a match between bots, keeping every hand's snapshot after the deal and after
    every action (reshuffles included)."""
    match = Match(rules, seed=seed, pool_cents=pool)
    bots = [make_bot(name, seed * 10 + i) for i, name in enumerate(players)]
    snapshots: list[list[tuple[object, ...]]] = []
    while not match.over:
        assert len(snapshots) < 500
        hand = match.start_hand()
        states = [hand.snapshot()]
        while not hand.over:
            if hand.to_move == CHANCE:
                assert match.step_chance()
            else:
                seat = hand.to_move
                match.apply(bots[seat].choose(view(match, seat), hand.legal_actions()), seat)
            states.append(hand.snapshot())
        snapshots.append(states)
    return match, snapshots


CASES = [
    ("classic", {}, ["simple", "simple"], 3, None),
    ("classic", {"target": 25}, ["random", "random"], 4, None),  # void hands
    ("playok", {"oklahoma_spades_double": True, "oklahoma_knock_limit": True},
     ["random", "simple"], 5, None),
    ("eaai", {"big_gin": True}, ["simple", "random"], 6, None),
    ("arena", {}, ["random", "random"], 7, 10_000),  # reshuffles
    ("arena", {"players": 3}, ["random", "simple", "random"], 8, 999),
    ("arena", {"players": 4, "layoff_chain": "own"}, ["simple"] * 4, 9, 12_345),
    ("arena", {"players": 4, "undercut_ties": "defender", "payout_threshold": 50},
     ["random"] * 4, 10, 100),
]


@pytest.fixture(params=CASES, ids=lambda c: f"{c[0]}-{c[2][0]}-{c[3]}")
def recorded(request):
    preset, overrides, players, seed, pool = request.param
    rules = Ruleset.preset(preset, **overrides)
    match, snapshots = play_recorded(rules, players, seed, pool)
    return match, snapshots, GameRecord.from_match(match, players)


def test_a_record_replays_every_intermediate_snapshot(recorded):
    _, snapshots, record = recorded
    seen: list[list[tuple[object, ...]]] = []
    for replay, h, a in record.replay_states():
        if a == -1:
            seen.append([])
        assert len(seen) == h + 1
        seen[h].append(replay.hand.snapshot())
    assert seen == snapshots


def test_a_record_replays_to_the_same_results(recorded):
    match, _, record = recorded
    replay = record.replay()
    assert replay.result == match.result
    assert replay.scores == match.scores and replay.hands_won == match.hands_won
    assert [h.result for h in replay.hands] == [h.result for h in match.hands]
    assert [h.dealer for h in replay.hands] == [h.dealer for h in match.hands]
    assert [h.deck for h in replay.hands] == [h.deck for h in match.hands]
    for entry, hand in zip(record.hands, match.hands, strict=True):
        alone = hand_from_entry(record.rules, entry)
        assert alone.snapshot() == hand.snapshot()


def test_a_record_round_trips_through_json(recorded, tmp_path):
    match, _, record = recorded
    text = record.dumps()
    again = GameRecord.from_json(json.loads(text))
    assert again.to_json() == record.to_json()
    assert again.rules == record.rules and again.rules.name == record.rules.name
    path = tmp_path / "game.json"
    record.save(path)
    loaded = GameRecord.load(path)
    assert loaded.to_json() == record.to_json()
    assert loaded.replay().result == match.result


def test_reshuffles_and_void_hands_are_recorded():
    rules = Ruleset.preset("arena")
    match, _ = play_recorded(rules, ["random", "random"], 7, 100)
    record = GameRecord.from_match(match)
    actions = [a for h in record.hands for a in h["actions"]]
    assert any(a.startswith("reshuffle ") and len(a.split()) > 10 for a in actions)
    match, _ = play_recorded(Ruleset.preset("classic", target=25), ["random", "random"], 4)
    record = GameRecord.from_match(match)
    assert any(h["result"]["outcome"] == "void" for h in record.hands)


def test_a_record_of_an_unfinished_match_replays_too():
    rules = Ruleset.preset("classic")
    match = Match(rules, seed=1)
    match.start_hand()
    for _ in range(5):
        match.apply(match.hand.legal_actions()[0])
    record = GameRecord.from_match(match)
    assert record.result is None and "result" not in record.hands[0]
    replay = record.replay()
    assert replay.hand.snapshot() == match.hand.snapshot() and not replay.over


# --------------------------------------------------------------------------- tampering


def _base_record() -> tuple[dict[str, Any], Match]:
    rules = Ruleset.preset("classic")
    match, _ = play_recorded(rules, ["simple", "simple"], 3)
    return GameRecord.from_match(match).to_json(), match


def _first(actions: list[str], word: str) -> int:
    return next(i for i, a in enumerate(actions) if a.startswith(word))


def _tamper_discard(d: dict[str, Any]) -> None:
    actions = d["hands"][0]["actions"]
    i = _first(actions, "discard")
    actions[i] = "discard " + ("Kd" if actions[i] != "discard Kd" else "Qd")


def _swap_deck(d: dict[str, Any]) -> None:
    cards = d["hands"][0]["deck"].split()
    cards[0], cards[1] = cards[1], cards[0]  # seat hands change: some action goes wrong
    d["hands"][0]["deck"] = " ".join(cards)


def _edit_result(d: dict[str, Any]) -> None:
    d["hands"][0]["result"]["points"] = [p + 1 for p in d["hands"][0]["result"]["points"]]


def _edit_match_result(d: dict[str, Any]) -> None:
    d["result"]["totals"][0] += 1


TAMPERING = {
    "discard of a card not held": _tamper_discard,
    "action removed": lambda d: d["hands"][0]["actions"].pop(1),
    "action added after the end": lambda d: d["hands"][0]["actions"].append("stock"),
    "unparsable action": lambda d: d["hands"][0]["actions"].__setitem__(0, "draw"),
    "deck swapped": _swap_deck,
    "deck too short": lambda d: d["hands"][0].__setitem__("deck", "As 2s 3s"),
    "deck with a bad card": lambda d: d["hands"][0].__setitem__(
        "deck", d["hands"][0]["deck"].replace("As", "Xs")),
    "wrong dealer": lambda d: d["hands"][1].__setitem__("dealer", 1 - d["hands"][1]["dealer"]),
    "hand result edited": _edit_result,
    "match result edited": _edit_match_result,
    "hand removed": lambda d: d["hands"].pop(),
    "hand added after the end": lambda d: d["hands"].append(copy.deepcopy(d["hands"][-1])),
    "first dealer out of range": lambda d: d.__setitem__("first_dealer", 5),
    "first dealer not a number": lambda d: d.__setitem__("first_dealer", "north"),
    "negative pool": lambda d: d.__setitem__("pool_cents", -100),
    "actions not a list": lambda d: d["hands"][0].__setitem__("actions", 7),
    "action not a text": lambda d: d["hands"][0]["actions"].__setitem__(2, 5),
    "hand not an object": lambda d: d["hands"].__setitem__(0, "stock"),
    "ruleset option changed": lambda d: d["ruleset"]["options"].__setitem__("knock_limit", 0),
    "target changed": lambda d: d["ruleset"]["options"].__setitem__("target", 1000),
    "ruleset option invalid": lambda d: d["ruleset"]["options"].__setitem__("knock_limit", 11),
    "ruleset option unknown": lambda d: d["ruleset"]["options"].__setitem__("jokers", 2),
    "wrong format": lambda d: d.__setitem__("format", "chess-pgn"),
    "wrong version": lambda d: d.__setitem__("version", 99),
    "hands not a list": lambda d: d.__setitem__("hands", "none"),
    "no ruleset": lambda d: d.pop("ruleset"),
}


@pytest.mark.parametrize("how", sorted(TAMPERING))
def test_a_tampered_record_raises_record_error(how):
    data, _ = _base_record()
    assert GameRecord.from_json(copy.deepcopy(data)).replay()  # the original replays
    bad = copy.deepcopy(data)
    TAMPERING[how](bad)
    with pytest.raises(RecordError):
        GameRecord.from_json(bad).replay()


def test_unreadable_files_raise_record_error(tmp_path):
    with pytest.raises(RecordError, match="cannot read"):
        GameRecord.load(tmp_path / "missing.json")
    path = tmp_path / "broken.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(RecordError, match="not JSON"):
        GameRecord.load(path)
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(RecordError):
        GameRecord.load(path)


# --------------------------------------------------------------------------- goldens


def golden_record(name: str) -> GameRecord:
    """Play the seeded simple-vs-simple game of ``GOLDEN[name]``."""
    preset, overrides, seed, pool = GOLDEN[name]
    rules = Ruleset.preset(preset, **overrides)
    players = ["simple"] * rules.players
    match = Match(rules, seed=seed, pool_cents=pool)
    play_match(rules, [make_bot(p, seed * 10 + i) for i, p in enumerate(players)], match=match)
    return GameRecord.from_match(match, players)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_records_replay_to_their_stored_results(name):
    path = GOLDEN_DIR / f"{name}.json"
    record = GameRecord.load(path)
    preset, overrides, _, pool = GOLDEN[name]
    assert record.rules == Ruleset.preset(preset, **overrides)
    assert record.pool_cents == pool
    # replay() checks every stored hand result and the stored match result
    match = record.replay()
    assert match.over and match.result.to_dict() == record.result
    hands, winner, totals = GOLDEN_SUMMARY[name]
    assert len(match.hands) == hands == len(record.hands)
    assert match.result.winner == winner and match.result.totals == totals
    stored = json.loads(path.read_text(encoding="utf-8"))
    for entry, hand in zip(stored["hands"], match.hands, strict=True):
        assert entry["result"] == hand.result.to_dict()
        assert entry["actions"] == hand.action_log_text()
    if record.rules.format == "single_hand":
        assert sum(match.result.payouts) == pool


def main() -> None:
    """Write the golden records."""
    GOLDEN_DIR.mkdir(exist_ok=True)
    for name in GOLDEN:
        record = golden_record(name)
        record.save(GOLDEN_DIR / f"{name}.json")
        print(name, len(record.hands), "hands,", record.result)


if __name__ == "__main__":
    main()
