"""Ratings: the maths (Glicko-2, openskill), what counts, abandoned matches lost, computer
levels fixed, and the update committed with the match's last event or not at all."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from player_helpers import (
    add_account,
    bot_table,
    database,
    example_events,
    example_table,
    store,
    table_with,
)
from sqlalchemy import Engine, func, select

from ginrummy.rules import Ruleset
from ginrummy.server.play.settlement import Ending, MatchEnd
from ginrummy.server.players.matchrecord import summarise
from ginrummy.server.players.ratings import (
    COMPUTER_DEVIATION,
    COMPUTER_RATINGS,
    MULTI,
    NEW_MULTI_RATING,
    NEW_RATING,
    Rating,
    category_of,
    computer_level,
    computer_rating,
    glicko_update,
    openskill_update,
)
from ginrummy.storage import Apply, migrate, open_engine, players, utcnow
from ginrummy.storage.accounts import AccountStore
from ginrummy.storage.repository import EVENTS
from pg_helpers import pg_schema, schema_url


@pytest.fixture(params=["sqlite", "postgresql"])
def any_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """A migrated database: SQLite, or a fresh schema on the machine's PostgreSQL (skipped
    when it is unreachable)."""
    if request.param == "sqlite":
        yield database(tmp_path)
        return
    with pg_schema("ginrummy_ratings") as schema:
        engine = open_engine(schema_url(schema))
        try:
            migrate(engine)
            yield engine
        finally:
            engine.dispose()


def _seat_rows(engine: Engine) -> list[tuple[int | None, str | None, float | None, float | None,
                                             int, bool]]:
    mp = players.MATCH_PLAYERS.c
    with engine.connect() as conn:
        return [(r.account_id, r.level, r.rating_before, r.rating_after, r.place, r.abandoned)
                for r in conn.execute(select(players.MATCH_PLAYERS)
                                      .order_by(mp.match_id, mp.seat))]


def _rating(engine: Engine, account_id: int, category: str = "classic") -> float | None:
    entry = players.account_ratings(engine, account_id).get(category)
    return None if entry is None else entry.rating


# ----------------------------------------------------------------------------- maths
def test_glicko_win_raises_loss_lowers_draw_moves_to_the_opponent() -> None:
    expert = computer_rating("expert")
    won, lost = glicko_update(NEW_RATING, expert, 1.0), glicko_update(NEW_RATING, expert, 0.0)
    assert won.rating > NEW_RATING.rating > lost.rating
    assert won.deviation < NEW_RATING.deviation and won.games == 1
    drawn = glicko_update(NEW_RATING, expert, 0.5)
    assert NEW_RATING.rating < drawn.rating < won.rating  # a draw against a stronger player
    beating_random = glicko_update(NEW_RATING, computer_rating("random"), 1.0)
    assert beating_random.rating - 1500 < won.rating - 1500  # an expected win gains less
    with pytest.raises(ValueError, match="score"):
        glicko_update(NEW_RATING, expert, 2.0)


def test_openskill_orders_by_place_on_the_glicko_scale() -> None:
    after = openskill_update([NEW_MULTI_RATING] * 3, [1, 2, 3])
    assert after[0].rating > after[1].rating > after[2].rating
    assert after[0].rating > 1500 > after[2].rating
    assert all(r.deviation < 350 and r.volatility == 0 and r.games == 1 for r in after)
    tied = openskill_update([NEW_MULTI_RATING] * 3, [1, 2, 2])
    assert tied[1].rating == pytest.approx(tied[2].rating)
    with pytest.raises(ValueError):
        openskill_update([NEW_MULTI_RATING], [1])


def test_categories_and_computer_levels() -> None:
    assert category_of("classic", Ruleset.preset("classic")) == "classic"
    assert category_of("arena", Ruleset.preset("arena", players=2)) == "arena"
    assert category_of("arena", Ruleset.preset("arena", players=4)) == MULTI
    assert category_of("custom", Ruleset.preset("classic")) is None
    assert computer_level("expert:250") == "expert" and computer_level("nobody") is None
    assert computer_rating("expert") == Rating(1700, COMPUTER_DEVIATION, 0, 0)
    assert COMPUTER_RATINGS["random"] < COMPUTER_RATINGS["beginner"] < COMPUTER_RATINGS["expert"]


# ----------------------------------------------------------------------------- what counts
def test_a_win_raises_a_loss_lowers_and_computers_never_change(any_database: Engine) -> None:
    """docs/records.md's match: seat 1 wins. An account winning against the expert goes up,
    one losing to it goes down; the expert stays at its fixed rating; the next match starts
    from the stored rating."""
    engine = any_database
    ann, bob = add_account(engine, "Ann"), add_account(engine, "Bob")
    assert store(engine, example_table("t1", ["expert", ann]))
    assert store(engine, example_table("t2", [bob, "expert"]))
    ann_rating, bob_rating = _rating(engine, ann), _rating(engine, bob)
    assert ann_rating is not None and ann_rating > 1500
    assert bob_rating is not None and bob_rating < 1500
    assert store(engine, example_table("t3", ["expert", ann]))
    rows = _seat_rows(engine)
    assert rows[0] == (None, "expert", 1700, 1700, 2, False)
    assert rows[1][:2] == (ann, None) and rows[1][2] == 1500 and rows[1][3] == ann_rating
    assert rows[2][0] == bob and rows[2][3] == bob_rating and rows[3][2:4] == (1700, 1700)
    assert rows[5][2] == ann_rating and rows[5][3] > ann_rating  # from the stored rating
    assert players.account_ratings(engine, ann)["classic"].games == 2
    with engine.connect() as conn:  # no rating row for a computer level
        assert conn.execute(select(func.count()).select_from(players.RATINGS)).scalar() == 2


def test_two_accounts_move_in_opposite_directions(tmp_path: Path) -> None:
    engine = database(tmp_path)
    ann, bob = add_account(engine, "Ann"), add_account(engine, "Bob")
    assert store(engine, example_table("t1", [ann, bob]))
    ann_rating, bob_rating = _rating(engine, ann), _rating(engine, bob)
    assert ann_rating is not None and bob_rating is not None
    assert bob_rating - 1500 == pytest.approx(1500 - ann_rating)
    assert bob_rating > 1600


@pytest.mark.parametrize("ending", [Ending.STUCK, Ending.CLOSED])
def test_stuck_and_closed_are_stored_unrated(tmp_path: Path, ending: Ending) -> None:
    engine = database(tmp_path)
    ann = add_account(engine, "Ann")
    events = example_events()[:6]  # stopped in the middle of the hand
    assert store(engine, table_with("t1", Ruleset.preset("classic", target=25), "classic",
                                    [ann, "expert"], events), ending)
    (match,) = players.account_matches(engine, ann)
    assert (match.ending, match.category, match.last_version) == (ending.value, None, 6)
    assert _rating(engine, ann) is None


def test_unrated_with_a_guest_or_an_unknown_category(tmp_path: Path) -> None:
    engine = database(tmp_path)
    ann = add_account(engine, "Ann")
    assert store(engine, example_table("t1", [ann, None]))
    custom = table_with("t2", Ruleset.preset("classic", target=25), "custom", [ann, "expert"],
                        example_events())
    assert store(engine, custom)
    assert [m.category for m in players.account_matches(engine, ann)] == [None, None]
    assert _rating(engine, ann) is None


def test_an_absent_player_loses_even_a_won_match(tmp_path: Path) -> None:
    """Seat 1 won by play, but its player was away (the computer played for them): they
    abandoned it, so they lose and are placed last."""
    engine = database(tmp_path)
    ann = add_account(engine, "Ann")
    assert store(engine, example_table("t1", ["expert", ann]), absent=frozenset({1}))
    rows = _seat_rows(engine)
    assert rows[1][0] == ann and rows[1][4:] == (2, True)
    assert rows[0][4:] == (1, False)
    rating = _rating(engine, ann)
    assert rating is not None and rating < 1500


def test_abandoned_table_rates_the_absent_as_losers(tmp_path: Path) -> None:
    """An abandoned table (nobody connected): the absent account loses to the computer that
    was not absent; when every seat was absent (two accounts gone), it is unrated."""
    engine = database(tmp_path)
    ann, bob, cy = (add_account(engine, n) for n in ("Ann", "Bob", "Cy"))
    rules = Ruleset.preset("classic", target=25)
    half = example_events()[:6]
    assert store(engine, table_with("t1", rules, "classic", [ann, "simple"], half),
                 Ending.ABANDONED, frozenset({0}))
    rating = _rating(engine, ann)
    assert rating is not None and rating < 1500
    assert store(engine, table_with("t2", rules, "classic", [bob, cy], half),
                 Ending.ABANDONED, frozenset({0, 1}))
    (match,) = players.account_matches(engine, bob)
    assert (match.ending, match.category) == ("abandoned", None)
    assert _rating(engine, bob) is None and _rating(engine, cy) is None
    summary = summarise(MatchEnd(table_with("t3", rules, "classic", [bob, cy], half),
                                 Ending.ABANDONED, frozenset()))
    assert summary is not None and not summary.rated  # nobody to blame


def test_a_closed_table_after_the_end_is_not_stored_twice(tmp_path: Path) -> None:
    engine = database(tmp_path)
    ann = add_account(engine, "Ann")
    table = example_table("t1", [ann, "expert"])
    assert summarise(MatchEnd(table, Ending.OVER)) is not None
    assert summarise(MatchEnd(table, Ending.CLOSED)) is None


def test_arena_multi_player_deal_uses_openskill(any_database: Engine) -> None:
    engine = any_database
    ids = [add_account(engine, n) for n in ("Ann", "Bob")]
    table = bot_table("t1", "arena", [ids[0], "simple", ids[1]], seed=3, players=3)
    assert table.match is not None and table.match.result is not None
    winner = table.match.result.winner
    assert store(engine, table)
    (match,) = players.account_matches(engine, ids[0])
    assert match.category == MULTI
    for seat in match.seats:
        if seat.account_id is None:
            assert seat.rating_before == seat.rating_after == COMPUTER_RATINGS["simple"]
            continue
        assert seat.rating_before == 1500
        assert seat.rating_after is not None
        assert (seat.rating_after > 1500) == (seat.seat == winner or seat.place == 2)
        entry = players.account_ratings(engine, seat.account_id)[MULTI]
        assert entry.games == 1 and entry.rating == seat.rating_after


# ----------------------------------------------------------------------------- one transaction
def test_a_failing_write_stores_neither_event_nor_rating(any_database: Engine) -> None:
    """The hook's write shares the transaction of the match's last event: when any part of
    that transaction fails, neither the events, nor the match, nor a rating is stored."""
    engine = any_database
    ann = add_account(engine, "Ann")

    def fail(_conn: object) -> None:
        raise RuntimeError("the disk is full")

    with pytest.raises(RuntimeError, match="disk"):
        store(engine, example_table("t1", ["expert", ann]), extra=[Apply(fail)])
    with engine.connect() as conn:
        for table in (EVENTS, players.MATCHES, players.MATCH_PLAYERS, players.RATINGS):
            assert conn.execute(select(func.count()).select_from(table)).scalar() == 0
    assert store(engine, example_table("t2", ["expert", ann]))  # the same write, healthy
    assert (_rating(engine, ann) or 0) > 1500


# ----------------------------------------------------------------------------- ranks
def test_ranks_count_buckets_ties_and_leave_banned_accounts_out(any_database: Engine) -> None:
    """A viewer's rank (whole buckets above, the accounts ahead in the viewer's own bucket,
    ties to the older account, banned accounts out) equals the position on the full board,
    before and after ratings move across buckets; the bucket counts stay those of the
    ratings table. On SQLite and on PostgreSQL."""
    engine = any_database
    values = [1512.5, 1512.5, 1519.999, 1520.0, 1400.0, 1511.0, 1700.0, 1510.0, 1509.99]
    ids = [add_account(engine, f"Player{letter}") for letter in "abcdefghk"]
    now = utcnow()
    with engine.begin() as conn:
        for account, value in zip(ids, values, strict=True):
            players.save_rating(conn, account, "classic", players.StoredRating(value, 50, 0.06, 1),
                                now, None)
    AccountStore(engine).set(ids[3], banned_at=now)

    def check() -> None:
        board = players.leaderboard(engine, "classic", 100)
        assert ids[3] not in [e.account_id for e in board]
        for entry in board:
            mine = players.board_entry(engine, "classic", entry.account_id)
            assert mine is not None and mine.rank == entry.rank
        with engine.connect() as conn:
            ratings = conn.execute(select(players.RATINGS.c.rating)).scalars().all()
            buckets = dict(conn.execute(select(players.BUCKETS.c.bucket,
                                               players.BUCKETS.c.accounts)).all())
        expected: dict[int, int] = {}
        for value in ratings:
            expected[players.bucket_of(value)] = expected.get(players.bucket_of(value), 0) + 1
        assert {b: n for b, n in buckets.items() if n} == expected

    check()
    assert [e.account_id for e in players.leaderboard(engine, "classic")][:4] == [
        ids[6], ids[2], ids[0], ids[1]]  # 1700, 1519.999, then the tie by age
    with engine.begin() as conn:  # across buckets, and within one
        old = players.read_ratings(conn, "classic", ids)
        for account, value in ((ids[4], 1515.0), (ids[0], 1512.7), (ids[6], 1300.0)):
            players.save_rating(conn, account, "classic",
                                players.StoredRating(value, 50, 0.06, 2), now, old[account])
    check()
    assert players.bucket_of(1510.0) == 151 and players.bucket_of(1509.99) == 150
    assert players.bucket_of(-0.5) == -1


def test_rating_history_keeps_the_last_points_of_each_category(any_database: Engine) -> None:
    engine = any_database
    ann = add_account(engine, "Ann")
    for i in range(4):
        store(engine, example_table(f"th{i}", ["expert", ann]))
    store(engine, table_with("tx", Ruleset.preset("eaai", target=25), "eaai", ["expert", ann],
                             example_events()))
    full = players.rating_history(engine, ann)
    assert sorted(full) == ["classic", "eaai"] and len(full["classic"]) == 4
    ratings = [r for _, r in full["classic"]]
    assert ratings == sorted(ratings)  # four wins in a row, oldest first
    assert ratings[-1] == _rating(engine, ann)
    last_two = players.rating_history(engine, ann, per_category=2)
    assert last_two["classic"] == full["classic"][2:] and last_two["eaai"] == full["eaai"]
