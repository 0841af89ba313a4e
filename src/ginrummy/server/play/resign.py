"""Resigning a match (docs/protocol.md, *Resign and leave*): what a ``resign`` event does.

With two players a resignation ends the match at once and the other seat wins it: in a match
to a target with the score as it stands plus the end bonuses the rules give (R5.7: the game
bonus, the line bonus for each hand won, the shutout bonus when the resigning seat won no hand);
in the single-hand game the resigning seat takes ``payout_threshold`` penalty points, so the
winner takes the whole pool (R6.4). The unfinished hand counts for nothing and stays hidden.

With three or four players the others play on: the computer plays the resigning seat to the
end of the hand, whose scoring stays the rules', and the seat counts as one that abandoned the
match (placed last in the record and the ratings, as a seat whose person was away at the end).
"""

from __future__ import annotations

from typing import Any

from ginrummy.match import Match


def ends_match(match: Match) -> bool:
    """True when a resignation ends ``match`` at once (two players)."""
    return match.players == 2


def resign_match(match: Match, seat: int) -> None:
    """End a two-player ``match`` that ``seat`` resigned: the other seat wins it (the rule is
    the engine's: :meth:`Match.resign`)."""
    if not ends_match(match):
        raise ValueError("only a two-player match ends when a seat resigns")
    match.resign(seat)


def finished_sheet(match: Match, resigned: list[int]) -> dict[str, Any]:
    """A finished match's score sheet, result and resignations as the state sends them
    (``previous``: the match before a rematch)."""
    return {"sheet": [{"hand": n, "result": r.to_dict()} for n, r in match.score_sheet()],
            "result": None if match.result is None else match.result.to_dict(),
            "resigned": list(resigned)}
