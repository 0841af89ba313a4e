"""The browser tests' own checks must catch what they look for: the frame leak checker and the
English-leftover patterns (no browser needed)."""

from __future__ import annotations

import copy
from typing import Any

from web_support import Frame, cards_in, english_patterns, leaks


def state(seat: int | None, hand: list[str], *, version: int, top: str = "7h",
          knock: dict[str, Any] | None = None, others: list[str] | None = None) -> dict[str, Any]:
    seats = [{"seat": 0, "count": 10, "known": [], "cards": None},
             {"seat": 1, "count": 10, "known": [], "cards": None}]
    if seat is not None:
        seats[seat]["cards"] = hand
    if knock is not None:
        seats[0]["cards"] = hand if seat == 0 else others
        seats[1]["cards"] = others if seat == 0 else hand
    return {"type": "state", "version": version, "table": {"name": "As Kd"},
            "view": {"seat": seat, "hand_number": 1, "upcard": "7h", "top_discard": top,
                     "discard_pile": None, "hand": hand, "seats": seats, "knock": knock,
                     "log": [{"seat": 1, "action": "stock", "card": None}]},
            "legal": [], "hints": None}


MINE = ["As", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s", "Ts"]
THEIRS = ["Ac", "2c", "3c", "4c", "5c", "6c", "7c", "8c", "9c", "Tc"]


def test_cards_in_reads_every_string_but_the_lobby_entry() -> None:
    message = {"legal": ["knock 7h [As 2s 3s] [8c 8d 8h]", "layoff [4s 4d 4c] 6h@1"],
               "table": {"name": "Kd"}}
    assert cards_in(message) == {"7h", "As", "2s", "3s", "8c", "8d", "8h", "4s", "4d", "4c", "6h"}


def test_a_clean_exchange_passes() -> None:
    frames = [Frame("ann", state(0, MINE, version=1)),
              Frame("spectator", state(None, [], version=1))]
    assert leaks(frames) == []


def test_an_opponent_card_in_a_hint_is_caught() -> None:
    message = state(0, MINE, version=2)
    message["hints"] = {"melds": [["Ac", "2c", "3c"]]}
    problems = leaks([Frame("ann", message)])
    assert len(problems) == 1 and "Ac" in problems[0]


def test_a_stock_card_in_the_log_is_caught() -> None:
    message = state(1, THEIRS, version=3)
    message["view"]["log"] = [{"seat": 0, "action": "stock", "card": "Qd"}]
    assert any("Qd" in p for p in leaks([Frame("bob", message)]))


def test_a_discard_named_in_the_log_is_public() -> None:
    """A card another seat discarded is public even if the next player took it before this
    page ever saw it on top; a card only in another hint still is not."""
    message = state(1, THEIRS, version=5)
    message["view"]["log"] = [{"seat": 0, "action": "discard Qd", "card": None},
                              {"seat": 1, "action": "take", "card": None}]
    assert leaks([Frame("bob", message)]) == []
    message["hints"] = {"melds": [["Jd"]]}
    assert any("Jd" in p for p in leaks([Frame("bob", message)]))


def test_a_spectator_may_not_see_any_hand() -> None:
    message = state(None, [], version=4)
    message["view"]["seats"][1]["cards"] = THEIRS
    assert leaks([Frame("spectator", message)]) != []


def test_after_a_knock_every_hand_but_no_stock_card() -> None:
    knock = {"knocker": 0, "melds": [MINE[:3]], "unmatched": MINE[3:], "discard": "Ts"}
    fine = state(0, MINE, version=9, knock=knock, others=THEIRS)
    assert leaks([Frame("ann", fine)]) == []
    padded = copy.deepcopy(fine)
    padded["view"]["seats"][1]["cards"] = [*THEIRS, "Kh"]  # one more card than the count
    assert leaks([Frame("ann", padded)]) != []


def test_a_card_held_later_is_not_allowed_earlier() -> None:
    early = state(0, MINE, version=1)
    early["hints"] = {"melds": [["Jd"]]}
    later = state(0, [*MINE, "Jd"], version=2)
    assert leaks([Frame("ann", early), Frame("ann", later)]) != []
    assert leaks([Frame("ann", later), Frame("ann", early)]) == []  # once held, known


def test_english_patterns_match_filled_placeholders() -> None:
    patterns = dict(english_patterns("fr"))
    assert patterns["hand.deadwood"].match("Deadwood: 12")
    assert not patterns["hand.deadwood"].match("Cartes restantes : 12")
    assert "outcome.gin" not in patterns  # "Gin" is the same word in French
    summary = "Classique · match to 100 · 10 cartes"
    assert patterns["rules.summary_match"].search(summary)
    assert not patterns["rules.summary_match"].search("Classique · partie en 100 points")
