"""``ginrummy analyze``: least deadwood, arrangements and knock options (R1.4, R4.1-R4.3)."""

from __future__ import annotations

import json
from collections.abc import Callable

from cli_helpers import Run

OPENSPIEL_HAND = "3s 5s 6s 5c 6c 3d 6d 4h 5h 6h 7h"


def test_knock_discarding_7h_leaves_10(cli: Callable[..., Run]) -> None:
    # OpenSpiel refuses this legal knock; discarding 7h leaves [5s 5h 5c] [6s 6h 6d 6c] | 4h 3s 3d
    run = cli("analyze", OPENSPIEL_HAND)
    assert run.code == 0, run.err
    assert "discard 7h: deadwood 10" in run.out
    assert "[5s 5h 5c] [6s 6h 6d 6c] | 4h 3s 3d" in run.out


def test_knock_options_json(cli: Callable[..., Run]) -> None:
    run = cli("analyze", OPENSPIEL_HAND, "--json")
    data = json.loads(run.out)
    assert data["count"] == 11
    assert data["deadwood"] == 16
    options = {o["discard"]: o for o in data["knock_options"]}
    assert options["7h"]["deadwood"] == 10
    assert options["7h"]["gin"] is False
    assert sorted(options["7h"]["unmatched"]) == ["3d", "3s", "4h"]


def test_knock_limit_option(cli: Callable[..., Run]) -> None:
    data = json.loads(cli("analyze", OPENSPIEL_HAND, "--knock-limit", "9", "--json").out)
    assert data["knock_options"] == []
    assert "none" in cli("analyze", OPENSPIEL_HAND, "--knock-limit", "9").out


def test_ten_cards_have_no_knock_options(cli: Callable[..., Run]) -> None:
    data = json.loads(cli("analyze", "As 2s 3s 7h 7d 7c Kc Qd 9h 4c", "--json").out)
    assert data["knock_options"] is None
    assert data["deadwood"] == 33
    assert data["best"]["melds"] == [["As", "2s", "3s"], ["7h", "7d", "7c"]]


def test_all_best_arrangements_listed(cli: Callable[..., Run]) -> None:
    # 4s is in the run or in the set: two arrangements with deadwood 0
    run = cli("analyze", "As 2s 3s 4s 5s 6s 7s 4h 4d 4c")
    assert "Least deadwood: 0" in run.out
    assert "All 2 arrangements with deadwood 0" in run.out
    data = json.loads(cli("analyze", "As", "2s", "3s", "4s", "5s", "6s", "7s", "4h", "4d", "4c",
                          "--json").out)
    assert len(data["arrangements"]) == 2


def test_gin_and_big_gin(cli: Callable[..., Run]) -> None:
    hand = "As 2s 3s 4s 4h 4d 4c 5s 6s 7s 8s"
    data = json.loads(cli("analyze", hand, "--json").out)
    assert all(not o["big_gin"] for o in data["knock_options"])
    assert any(o["gin"] and o["discard"] == "8s" for o in data["knock_options"])
    data = json.loads(cli("analyze", hand, "--big-gin", "--json").out)
    first = data["knock_options"][0]
    assert first["big_gin"] and first["discard"] is None and first["gin"]
    assert "BIG GIN" in cli("analyze", hand, "--big-gin").out


def test_taken_card_is_not_a_knock_discard(cli: Callable[..., Run]) -> None:
    # R3.3: the card just taken may not be the knock discard
    data = json.loads(cli("analyze", OPENSPIEL_HAND, "--taken", "7h", "--json").out)
    assert data["knock_options"] == []


def test_seven_card_hands(cli: Callable[..., Run]) -> None:
    data = json.loads(cli("analyze", "As 2s 3s 9h 9d 9c Kd 5c", "--hand-size", "7",
                          "--json").out)
    assert [o["discard"] for o in data["knock_options"]][:2] == ["Kd", "5c"]


def test_suit_symbols_and_tens(cli: Callable[..., Run]) -> None:
    run = cli("analyze", "10♥ J♥ Q♥ K♠")
    assert run.code == 0
    assert "[Th Jh Qh] | Ks" in run.out


def test_bad_card_names_the_token(cli: Callable[..., Run]) -> None:
    run = cli("analyze", "As 2s Xq 4d")
    assert run.code == 2
    assert "'Xq'" in run.err
    assert "Traceback" not in run.err
    assert run.out == ""


def test_duplicate_card(cli: Callable[..., Run]) -> None:
    run = cli("analyze", "As 2s As")
    assert run.code == 2
    assert "duplicate card 'As'" in run.err


def test_bad_taken_card(cli: Callable[..., Run]) -> None:
    run = cli("analyze", OPENSPIEL_HAND, "--taken", "Kc")
    assert run.code == 2 and "not in the hand" in run.err
