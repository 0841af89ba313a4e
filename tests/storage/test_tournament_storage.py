"""Tournaments in the database, on SQLite and on the machine's PostgreSQL: registration
pays the buy-in, withdrawal refunds it, a cancellation refunds every buy-in, the prizes
hand out the pool; each in one transaction with its cause (a refused change writes
nothing), and ``ledger check`` holds after each. The migration builds the models' schema on
PostgreSQL too, and goes down and up again.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, text
from sqlalchemy.exc import IntegrityError

from ginrummy.contest import Entrant, Knockout, place_prizes, to_json
from ginrummy.rules import Ruleset
from ginrummy.storage import ledger, migrate, open_engine
from ginrummy.storage.accounts import AccountStore
from ginrummy.storage.ledger import Overdraft, account_wallet, tournament_wallet
from ginrummy.storage.models import Base
from ginrummy.storage.tournaments import (
    AlreadyRegistered,
    NotRegistered,
    TournamentError,
    TournamentFull,
    TournamentSettings,
    TournamentStore,
    WrongStatus,
    account_tournaments,
)
from pg_helpers import PG_URL, migrated_engine, pg_schema

NOW = datetime(2026, 12, 7, 18, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def pg_schema_name() -> Iterator[str]:
    with pg_schema("ginrummy_tourney") as name:
        yield name


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """A migrated, empty database of each kind."""
    made = migrated_engine(request, tmp_path, "tourney")
    yield made
    made.dispose()


def accounts(engine: Engine, *names: str) -> list[int]:
    store = AccountStore(engine)
    return [store.create(name, name.lower(), "not a real hash").id for name in names]


def settings(fmt: str = "knockout", buy_in: int | None = 100, players: tuple[int, int] = (2, 8),
             rounds: int | None = None) -> TournamentSettings:
    return TournamentSettings(
        name="Friday knock-out", format=fmt, preset="classic",
        rules=Ruleset.preset("classic").to_dict(), starts_at=NOW + timedelta(hours=1),
        min_players=players[0], max_players=players[1], clock_ms=30_000, rounds=rounds,
        buy_in=buy_in)


def balances(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {w: int(b) for w, b in conn.execute(text("SELECT id, balance FROM wallets"))}


def ledger_ok(engine: Engine) -> ledger.Report:
    with engine.connect() as conn:
        report = ledger.check(conn)
    assert report.ok, report.summary()
    return report


def written(engine: Engine) -> tuple[object, ...]:
    """What a refused change must leave as it was: the registrations, the transfers and
    the tournaments' versions."""
    with engine.connect() as conn:
        return (conn.execute(text("SELECT COUNT(*) FROM tournament_players")).scalar_one(),
                conn.execute(text("SELECT COUNT(*) FROM transfers")).scalar_one(),
                tuple(conn.execute(text("SELECT version FROM tournaments ORDER BY id"))
                      .scalars()))


def test_registration_pays_the_buy_in_into_the_pool(engine: Engine) -> None:
    store = TournamentStore(engine)
    ann, bob = accounts(engine, "Ann", "Bob")
    store.create("k1", settings())
    store.register("k1", ann, NOW)
    store.register("k1", bob, NOW)
    assert balances(engine)[tournament_wallet("k1")] == 200
    assert balances(engine)[account_wallet(ann)] == ledger.SIGNUP_GRANT - 100
    tournament = store.get("k1")
    assert tournament is not None and tournament.pool == 200 and tournament.status == "open"
    assert [r.account_id for r in store.registrations("k1")] == [ann, bob]
    report = ledger_ok(engine)
    assert report.open_pools == 1 and report.in_pools == 200
    with engine.connect() as conn:  # the chips are still theirs until the start
        assert ledger.parked(conn, ann) == 100
        kinds = conn.execute(text("SELECT kind, tournament_id FROM transfers "
                                  "WHERE key LIKE 'tbuy:%'")).all()
    assert kinds == [("buy_in", "k1"), ("buy_in", "k1")]


def test_a_refused_registration_writes_nothing(engine: Engine) -> None:
    store = TournamentStore(engine)
    ann, bob, cat = accounts(engine, "Ann", "Bob", "Cat")
    store.create("k1", settings(buy_in=600, players=(2, 2)))
    store.register("k1", ann, NOW)
    before = written(engine)
    with pytest.raises(AlreadyRegistered):
        store.register("k1", ann, NOW)
    assert written(engine) == before
    store.register("k1", bob, NOW)
    before = written(engine)
    with pytest.raises(TournamentFull):
        store.register("k1", cat, NOW)
    assert written(engine) == before
    store.create("k2", settings(buy_in=600))
    before_all = written_all(engine)
    with pytest.raises(Overdraft):  # 400 chips left after the first buy-in of 600
        store.register("k2", ann, NOW)
    assert written_all(engine) == before_all
    assert store.registrations("k2") == []
    assert balances(engine)[account_wallet(ann)] == ledger.SIGNUP_GRANT - 600
    ledger_ok(engine)


def written_all(engine: Engine) -> tuple[int, ...]:
    """Rows of registrations, transfers and ledger entries."""
    with engine.connect() as conn:
        return tuple(conn.execute(text(f"SELECT COUNT(*) FROM {name}")).scalar_one()
                     for name in ("tournament_players", "transfers", "ledger_entries"))


def test_registration_only_while_open(engine: Engine) -> None:
    store = TournamentStore(engine)
    ann, = accounts(engine, "Ann")
    store.create("k1", settings())
    store.cancel("k1", NOW)
    with pytest.raises(WrongStatus, match="cancelled"):
        store.register("k1", ann, NOW)
    with pytest.raises(TournamentError, match="no tournament"):
        store.register("nope", ann, NOW)


def test_withdrawal_refunds_the_buy_in_and_registering_again_pays_again(
        engine: Engine) -> None:
    store = TournamentStore(engine)
    ann, = accounts(engine, "Ann")
    store.create("k1", settings())
    store.register("k1", ann, NOW)
    assert store.withdraw("k1", ann, NOW) == 100
    assert balances(engine)[account_wallet(ann)] == ledger.SIGNUP_GRANT
    with pytest.raises(NotRegistered):
        store.withdraw("k1", ann, NOW)
    assert store.register("k1", ann, NOW).entries == 2
    assert balances(engine)[account_wallet(ann)] == ledger.SIGNUP_GRANT - 100
    assert store.withdraw("k1", ann, NOW) == 100
    assert balances(engine)[tournament_wallet("k1")] == 0
    with engine.connect() as conn:
        keys = sorted(conn.execute(text("SELECT key FROM transfers WHERE tournament_id = 'k1'"))
                      .scalars())
    assert keys == [f"tbuy:k1:{ann}:1", f"tbuy:k1:{ann}:2", f"trefund:k1:{ann}:1",
                    f"trefund:k1:{ann}:2"]
    assert store.registrations("k1", ("withdrawn",))[0].account_id == ann
    ledger_ok(engine)


def test_cancellation_refunds_every_buy_in(engine: Engine) -> None:
    store = TournamentStore(engine)
    ann, bob, cat = accounts(engine, "Ann", "Bob", "Cat")
    store.create("k1", settings(players=(4, 8)))
    for account in (ann, bob, cat):
        store.register("k1", account, NOW)
    store.withdraw("k1", cat, NOW)  # refunded once, not twice
    assert store.cancel("k1", NOW) == {ann: 100, bob: 100}
    held = balances(engine)
    assert held[tournament_wallet("k1")] == 0
    assert all(held[account_wallet(a)] == ledger.SIGNUP_GRANT for a in (ann, bob, cat))
    tournament = store.get("k1")
    assert tournament is not None and tournament.status == "cancelled"
    assert {r.account_id for r in store.registrations("k1", ("refunded",))} == {ann, bob}
    with pytest.raises(WrongStatus):
        store.cancel("k1", NOW)
    ledger_ok(engine)


def test_a_free_tournament_moves_no_chips(engine: Engine) -> None:
    store = TournamentStore(engine)
    ann, = accounts(engine, "Ann")
    store.create("k1", settings(buy_in=None))
    store.register("k1", ann, NOW)
    assert store.withdraw("k1", ann, NOW) == 0
    assert written_all(engine)[1] == 0


def play_knockout(store: TournamentStore, players: list[int]) -> Knockout:
    """Start k1 with ``players``, store and play every round (the better seed wins)."""
    ratings = {a: 1500.0 + 10 * i for i, a in enumerate(players)}
    bracket = Knockout.start(Entrant(a, r) for a, r in ratings.items())
    store.start("k1", to_json(bracket), ratings, NOW)
    while not bracket.finished:
        round = bracket.current_round
        assert round is not None
        store.start_round("k1", round, [(m.index, m.players) for m in bracket.pending()], NOW)
        for match in bracket.pending():
            store.link_table("k1", round, match.index, f"t{round}x{match.index}", NOW)
            bracket = bracket.record(round, match.index, match.players[0])
            store.record_result("k1", round, match.index, match.players[0], None,
                                to_json(bracket), now=NOW)
    return bracket


def test_the_prizes_hand_out_the_pool_and_end_the_tournament(engine: Engine) -> None:
    store = TournamentStore(engine)
    players = accounts(engine, "Ann", "Bob", "Cat", "Dan", "Eve")
    store.create("k1", settings(buy_in=101))
    for account in players:
        store.register("k1", account, NOW)
    bracket = play_knockout(store, players)
    stored = store.get("k1")
    assert stored is not None and stored.state == to_json(bracket)
    assert all(m.status == "done" and m.table_id for m in store.matches("k1"))
    with engine.connect() as conn:
        ends = conn.execute(text("SELECT round, started_at, ended_at FROM tournament_rounds "
                                 "ORDER BY round")).all()
    assert [r[0] for r in ends] == list(range(bracket.rounds))
    assert all(r[2] is not None for r in ends)  # each round's end stored with its last result
    placing = bracket.placing()
    places = {p: 1 + sum(len(g) for g in placing[:i]) for i, group in enumerate(placing)
              for p in group}
    prizes = place_prizes(505, placing)
    with pytest.raises(TournamentError, match="do not hand out"):
        store.finish("k1", places, {**prizes, bracket.seeds[0]: prizes[bracket.seeds[0]] - 1})
    assert balances(engine)[tournament_wallet("k1")] == 505  # nothing paid
    store.finish("k1", places, prizes, NOW)
    held = balances(engine)
    assert held[tournament_wallet("k1")] == 0
    for account in players:
        assert held[account_wallet(account)] == ledger.SIGNUP_GRANT - 101 + prizes[account]
    assert {r.account_id: (r.place, r.prize) for r in store.registrations("k1")} == {
        a: (places[a], prizes[a]) for a in players}
    assert prizes[bracket.seeds[0]] == 253  # 50% and the remainder, the best seed wins
    with engine.connect() as conn:
        assert ledger.parked(conn, players[0]) == 0
    ledger_ok(engine)
    with pytest.raises(WrongStatus):
        store.finish("k1", places, prizes, NOW)


def test_a_round_is_started_once_and_a_match_linked_once(engine: Engine) -> None:
    store = TournamentStore(engine)
    ann, bob = accounts(engine, "Ann", "Bob")
    store.create("k1", settings(buy_in=None))
    store.register("k1", ann, NOW)
    store.register("k1", bob, NOW)
    store.start("k1", {"format": "knockout"}, {ann: 1500.0, bob: 1400.0}, NOW)
    store.start_round("k1", 0, [(0, (ann, bob))], NOW)
    with pytest.raises(IntegrityError):
        store.start_round("k1", 0, [(0, (ann, bob))], NOW)
    store.link_table("k1", 0, 0, "tA", NOW)
    with pytest.raises(TournamentError, match="not waiting"):
        store.link_table("k1", 0, 0, "tB", NOW)
    assert [m.table_id for m in store.matches("k1")] == ["tA"]


def test_start_needs_the_minimum_and_a_rating_for_each_player(engine: Engine) -> None:
    store = TournamentStore(engine)
    ann, bob = accounts(engine, "Ann", "Bob")
    store.create("k1", settings(players=(3, 8)))
    store.register("k1", ann, NOW)
    store.register("k1", bob, NOW)
    with pytest.raises(TournamentError, match="2 players registered, 3 needed"):
        store.start("k1", {}, {ann: 1.0, bob: 2.0}, NOW)
    with pytest.raises(TournamentError, match="the ratings name"):
        store.start("k1", {}, {ann: 1.0}, NOW)


def test_the_check_catches_a_pool_left_in_a_closed_tournament(engine: Engine) -> None:
    store = TournamentStore(engine)
    ann, = accounts(engine, "Ann")
    store.create("k1", settings())
    store.register("k1", ann, NOW)
    with engine.begin() as conn:
        conn.execute(text("UPDATE tournaments SET status = 'cancelled'"))
        report = ledger.check(conn)
    assert report.problems == ["tourney:k1 holds 100 chips but tournament k1 is cancelled: "
                               "it should have been paid out or refunded"]


@pytest.mark.parametrize("bad", [
    {"format": "league"}, {"min_players": 1}, {"max_players": 1}, {"clock_ms": 0},
    {"buy_in": 0}, {"rounds": 3}, {"name": ""}])
def test_a_setting_that_cannot_be_is_refused(bad: dict[str, object]) -> None:
    from dataclasses import replace
    with pytest.raises(TournamentError):
        replace(settings(), **bad).check()  # type: ignore[arg-type]
    assert settings("swiss", rounds=3).check() is None


def test_the_migrated_schema_matches_the_models_on_postgresql(
        pg_schema_name: str) -> None:
    made = open_engine(PG_URL, connect_args={"options": f"-csearch_path={pg_schema_name}"})
    try:
        with made.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{pg_schema_name}" CASCADE'))
            conn.execute(text(f'CREATE SCHEMA "{pg_schema_name}"'))
        migrate(made)
        with made.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
        assert diff == [], diff
    finally:
        made.dispose()


def test_revision_0009_goes_down_and_up_again(tmp_path: Path) -> None:
    from alembic import command
    from alembic.config import Config

    from ginrummy.storage.database import MIGRATIONS

    made = open_engine(f"sqlite:///{tmp_path / 'db.sqlite'}")
    migrate(made)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with made.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0008")
    with made.connect() as conn:
        assert "tournament_id" not in {c[1] for c in conn.execute(
            text("PRAGMA table_info(wallets)"))}
    migrate(made)
    with made.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == [], diff


def test_two_registrations_for_the_last_seat_at_once_take_it_once(engine: Engine) -> None:
    """Each change locks the tournament's row first: of two registrations racing for the
    last seat, one gets it and the other is refused as full, its buy-in not taken."""
    store = TournamentStore(engine)
    ann, bob, cat = accounts(engine, "Ann", "Bob", "Cat")
    for attempt in range(5):
        tournament = f"race{attempt}"
        store.create(tournament, settings(players=(2, 2)))
        store.register(tournament, ann, NOW)
        barrier = threading.Barrier(2)
        outcomes: dict[int, str] = {}

        def register(account: int, tournament: str = tournament,
                     barrier: threading.Barrier = barrier,
                     outcomes: dict[int, str] = outcomes) -> None:
            barrier.wait()
            try:
                store.register(tournament, account, NOW)
                outcomes[account] = "registered"
            except TournamentFull:
                outcomes[account] = "full"

        threads = [threading.Thread(target=register, args=(a,)) for a in (bob, cat)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(outcomes.values()) == ["full", "registered"]
        assert len(store.registrations(tournament)) == 2
        assert balances(engine)[tournament_wallet(tournament)] == 200
        store.cancel(tournament, NOW)
    ledger_ok(engine)


def test_ledger_check_counts_an_open_tournament_pool_and_flags_a_stale_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ginrummy.cli.main import main

    url = f"sqlite:///{tmp_path / 'cli.db'}"
    made = open_engine(url)
    migrate(made)
    store = TournamentStore(made)
    ann, = accounts(made, "Ann")
    store.create("k1", settings())
    store.register("k1", ann, NOW)
    assert main(["ledger", "check", "--db", url]) == 0
    out = capsys.readouterr().out
    assert "in accounts: 900; in 1 open pool(s): 100" in out and "ledger check: OK" in out
    with made.begin() as conn:
        conn.execute(text("UPDATE tournaments SET status = 'over'"))
    made.dispose()
    assert main(["ledger", "check", "--db", url]) == 1
    assert "tourney:k1 holds 100 chips but tournament k1 is over" in capsys.readouterr().out


def test_an_accounts_tournaments_count_those_it_played(engine: Engine) -> None:
    """A profile's tournaments: those running or over where the account was registered at
    the start (not a withdrawal, a cancellation, or one still open), the latest first; the
    best finish is the best place, on a tie the larger field."""
    store = TournamentStore(engine)
    ann, bob, cat, dan = accounts(engine, "Ann", "Bob", "Cat", "Dan")
    fields = {"small": [ann, bob], "large": [ann, bob, cat, dan], "live": [ann, bob],
              "gone": [ann, bob], "left": [bob, cat], "open": [ann, cat]}
    for hours, (tid, players) in enumerate(fields.items()):
        store.create(tid, replace(settings(buy_in=None), name=f"Cup {tid}",
                                  starts_at=NOW + timedelta(hours=hours + 1)), NOW)
        for account in players:
            store.register(tid, account, NOW)
    store.withdraw("left", bob, NOW)
    store.register("left", dan, NOW)
    store.cancel("gone", NOW)
    with engine.begin() as conn:
        for tid, status in (("small", "over"), ("large", "over"), ("live", "running"),
                            ("left", "over")):
            conn.execute(text("UPDATE tournaments SET status = :s WHERE id = :t"),
                         {"s": status, "t": tid})
        for tid, place in (("small", 2), ("large", 2), ("left", 1)):
            conn.execute(text("UPDATE tournament_players SET place = :p, prize = 0 "
                              "WHERE tournament_id = :t AND account_id = :a"),
                         {"p": place, "t": tid, "a": ann if tid != "left" else cat})
    with engine.connect() as conn:
        found = account_tournaments(conn, ann)
        assert found.played == 3
        assert [(t.id, t.status, t.place, t.players) for t in found.recent] == [
            ("live", "running", None, 2), ("large", "over", 2, 4), ("small", "over", 2, 2)]
        assert found.best is not None and found.best.id == "large"
        assert found.best.name == "Cup large"
        assert account_tournaments(conn, ann, limit=1).recent == found.recent[:1]
        bob_played = account_tournaments(conn, bob)  # withdrawn from "left"
        assert [t.id for t in bob_played.recent] == ["live", "large", "small"]
        assert bob_played.best is None  # no place stored for him
        dan_played = account_tournaments(conn, dan)  # registered after Bob's withdrawal
        assert [t.id for t in dan_played.recent] == ["left", "large"]
        assert dan_played.best is None
