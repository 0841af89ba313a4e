"""The end of a match: its ``matches`` row, each seat's statistics and place, and the new
ratings, written as one :class:`ginrummy.storage.Apply` in the transaction of the match's
last event (the ``on_end`` hook of :mod:`ginrummy.server.play.settlement`).

What counts (docs/players.md): a match is stored when at least one account sat at it; it is
rated when every seat is an account or a computer level, it is in a rating category
(:func:`ginrummy.server.players.ratings.category_of`), and it ended by play (``over``) or was
abandoned. Seats whose player was away at the end (``MatchEnd.absent``) lost it: they are
placed last, after every seat that was there. An abandoned table (nobody connected) is rated
only when someone else (a computer) was not absent; ``stuck`` and ``closed`` are stored
unrated. Computer levels keep their fixed ratings.

The summary is taken from the table when the hook is called (the table may move on before
the write runs); the ratings are read and written inside the transaction.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Connection

from ginrummy.match import Match
from ginrummy.rules import Ruleset
from ginrummy.scoring import Outcome
from ginrummy.server.core.kinds import SeatKind
from ginrummy.server.play.seat import Seat
from ginrummy.server.play.settlement import Ending, MatchEnd
from ginrummy.server.players.ratings import (
    MULTI,
    Rating,
    category_of,
    computer_level,
    computer_rating,
    glicko_update,
    new_rating,
    openskill_update,
)
from ginrummy.storage import Apply, WriteOp, utcnow
from ginrummy.storage.players import StoredRating, insert_match, read_ratings, save_rating

log = logging.getLogger("ginrummy.server.matchrecord")

RATED_ENDINGS = (Ending.OVER, Ending.ABANDONED)


@dataclass(frozen=True)
class SeatStats:
    """A seat's statistics over a match's finished hands."""

    hands: int = 0
    gins: int = 0
    """Gins (big gins included) this seat went."""
    knocks: int = 0
    """Knocks without gin this seat made (won or undercut)."""
    undercuts: int = 0
    """Times this seat undercut a knocker."""
    voids: int = 0
    """Drawn hands (the stock ran out)."""
    caught: int = 0
    """Hands lost to another's knock or gin."""
    caught_deadwood: int = 0
    """The deadwood (after lay-offs) counted against this seat in those hands."""
    points: int = 0
    """Match points scored in the hands; minus the penalty points in the single-hand game."""


def seat_statistics(match: Match) -> list[SeatStats]:
    """Every seat's statistics from the match's hand results (unfinished hands left out)."""
    counts = [dict.fromkeys(SeatStats.__dataclass_fields__, 0) for _ in range(match.players)]
    for hand in match.hands:
        result = hand.result
        if result is None:
            continue
        for seat, stat in enumerate(counts):
            stat["hands"] += 1
            if result.void:
                stat["voids"] += 1
                continue
            knocked = seat == result.knocker
            if knocked and result.outcome in (Outcome.GIN, Outcome.BIG_GIN):
                stat["gins"] += 1
            elif knocked:
                stat["knocks"] += 1
            if seat in result.undercutters:
                stat["undercuts"] += 1
            if not knocked and result.outcome in (Outcome.GIN, Outcome.BIG_GIN, Outcome.KNOCK):
                stat["caught"] += 1
                stat["caught_deadwood"] += result.deadwood[seat]
            if result.penalties is not None:
                stat["points"] -= result.penalties[seat]
            else:
                stat["points"] += result.points[seat]
    return [SeatStats(**c) for c in counts]


@dataclass(frozen=True)
class SeatRecord:
    """One seat of an ended match: who, how it ended for them, their statistics."""

    seat: int
    name: str
    account_id: int | None
    level: str | None
    """The computer level (``None`` for a person)."""
    score: int
    place: int
    abandoned: bool
    stats: SeatStats


@dataclass(frozen=True)
class MatchSummary:
    """What the hook stores about an ended match."""

    table_id: str
    first_version: int
    last_version: int
    preset: str
    category: str | None
    """The rating category, ``None`` when unrated."""
    ending: Ending
    seats: tuple[SeatRecord, ...]

    @property
    def rated(self) -> bool:
        """True when the ratings change."""
        return self.category is not None


def _places(keys: Sequence[tuple[int, ...]]) -> list[int]:
    """1 + how many seats have a strictly better (smaller) key: equal keys share a place."""
    return [1 + sum(other < key for other in keys) for key in keys]


def summarise(end: MatchEnd) -> MatchSummary | None:
    """The summary of an ended match, or ``None`` when nothing is stored: no match was
    played, it was already stored when it ended, or no account sat at it."""
    table = end.table
    match = table.match
    if match is None or table.match_first_version is None or not match.hands:
        return None
    if end.ending is not Ending.OVER and match.over:
        return None  # stored when it ended; the table was closed afterwards
    if not any(s.account_id is not None for s in table.seats):
        return None
    result = match.result
    present = [s.seat not in end.absent for s in table.seats]
    blame = end.ending in RATED_ENDINGS and any(present) and not all(present)
    if result is not None:
        scores = list(result.totals)
        if result.penalties is not None:
            primary = list(result.penalties)
        else:
            primary = [-t for t in result.totals]
        primary[result.winner] = min(primary) - 1
    else:
        scores = list(match.scores)
        primary = [-s for s in scores]
    keys = [((0 if present[s] or not blame else 1), primary[s]) for s in range(match.players)]
    places = _places(keys)
    stats = seat_statistics(match)
    seats = []
    for seat in table.seats:
        level = seat.level if seat.kind == SeatKind.BOT else None
        name = seat.name or level or f"seat {seat.seat}"
        seats.append(SeatRecord(seat.seat, name[:40], seat.account_id, level,
                                scores[seat.seat], places[seat.seat],
                                blame and not present[seat.seat], stats[seat.seat]))
    category = category_of(table.preset, match.rules)
    rated = (rateable(table.preset, match.rules, table.seats) and any(present)
             and (end.ending is Ending.OVER
                  or (end.ending is Ending.ABANDONED and not all(present))))
    return MatchSummary(table.id, table.match_first_version, table.version, table.preset,
                        category if rated else None, end.ending, tuple(seats))


def rateable(preset: str, rules: Ruleset, seats: Sequence[Seat]) -> bool:
    """Whether a match played to its end at a table of ``preset`` with ``rules`` and these
    ``seats`` would be rated: it is in a rating category and every seat is an account or a
    computer level (docs/players.md)."""
    return category_of(preset, rules) is not None and all(
        (s.kind == SeatKind.HUMAN and s.account_id is not None)
        or (s.kind == SeatKind.BOT and computer_level(s.level) is not None)
        for s in seats)


def new_ratings(summary: MatchSummary, current: dict[int, Rating]
                ) -> tuple[dict[int, Rating], dict[int, Rating]]:
    """(before, after) ratings of every seat of a rated match, by seat: an account's from
    ``current`` (by account id; a new one when missing), a computer's fixed rating (the same
    after)."""
    category = summary.category
    assert category is not None, "an unrated match"
    before: dict[int, Rating] = {}
    for seat in summary.seats:
        if seat.account_id is not None:
            before[seat.seat] = current.get(seat.account_id, new_rating(category))
        else:
            level = computer_level(seat.level)
            assert level is not None, "a rated match has only accounts and computer levels"
            before[seat.seat] = computer_rating(level)
    after = dict(before)
    people = [s for s in summary.seats if s.account_id is not None]
    if category == MULTI:
        updated = openskill_update([before[s.seat] for s in summary.seats],
                                   [s.place for s in summary.seats])
        for seat in people:
            after[seat.seat] = updated[seat.seat]
    else:
        first, second = summary.seats
        for me, them in ((first, second), (second, first)):
            if me.account_id is None:
                continue
            score = 1.0 if me.place < them.place else 0.5 if me.place == them.place else 0.0
            after[me.seat] = glicko_update(before[me.seat], before[them.seat], score)
    return before, after


def store_match(conn: Connection, summary: MatchSummary, now: datetime | None = None,
                changes: list[dict[str, Any]] | None = None) -> int:
    """Write the match, its seats and (when rated) the new ratings; the match id.
    ``changes``: filled, when the match is rated, with every seat's ``{"seat", "category",
    "before", "after"}`` (the state's ``ratings``, docs/protocol.md)."""
    now = now or utcnow()
    before: dict[int, Rating] = {}
    after: dict[int, Rating] = {}
    stored: dict[int, StoredRating] = {}
    category = summary.category
    if category is not None:
        accounts = [s.account_id for s in summary.seats if s.account_id is not None]
        stored = read_ratings(conn, category, accounts)
        current = {account: Rating(r.rating, r.deviation, r.volatility, r.games)
                   for account, r in stored.items()}
        before, after = new_ratings(summary, current)
        if changes is not None:
            changes.extend({"seat": s.seat, "category": category,
                            "before": round(before[s.seat].rating, 1),
                            "after": round(after[s.seat].rating, 1)} for s in summary.seats)
    match_id = insert_match(conn, {
        "table_id": summary.table_id, "first_version": summary.first_version,
        "last_version": summary.last_version, "preset": summary.preset,
        "category": category, "players": len(summary.seats),
        "ending": summary.ending.value, "finished_at": now,
    }, [{"seat": s.seat, "account_id": s.account_id, "level": s.level, "name": s.name,
         "score": s.score, "place": s.place, "abandoned": s.abandoned,
         "rating_before": before[s.seat].rating if s.seat in before else None,
         "rating_after": after[s.seat].rating if s.seat in after else None,
         **asdict(s.stats)} for s in summary.seats])
    if category is not None:
        for seat in summary.seats:
            if seat.account_id is not None:
                new = after[seat.seat]
                save_rating(conn, seat.account_id, category,
                            StoredRating(new.rating, new.deviation, new.volatility, new.games),
                            now, stored.get(seat.account_id))
    return match_id


def match_end_writes(end: MatchEnd) -> list[WriteOp]:
    """The ``on_end`` hook: the write that stores the ended match (none when nothing is)."""
    summary = summarise(end)
    if summary is None:
        return []
    log.info("table %s: match ended (%s, %s): storing it", summary.table_id, summary.ending.value,
             summary.category or "unrated",
             extra={"event": "match_recorded", "table": summary.table_id})

    table = end.table

    def run(conn: Connection) -> None:
        changes: list[dict[str, Any]] = []
        store_match(conn, summary, changes=changes)
        # the states sent after this commit carry the change (public, as on the profiles);
        # a commit that fails reloads the table from the database, without it
        table.ratings = changes or None

    return [Apply(run)]
