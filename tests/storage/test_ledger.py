"""The chip ledger on SQLite and on the machine's PostgreSQL: transfers are double entry and
idempotent by key, no wallet but the house overdraws, top-ups come once a UTC day, and the
check finds a tampered balance, a one-sided entry and a stale pool.

PostgreSQL runs in a schema of its own (``GINRUMMY_TEST_PG``, default
``postgresql://postgres@127.0.0.1:5432/test``); those tests skip, saying why, when the server
cannot be reached.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.engine import Connection

from ginrummy.rules import Ruleset
from ginrummy.storage import (
    InsertTable,
    Repository,
    StoredSeat,
    StoredTable,
    UpdateTable,
    ledger,
    migrate,
    open_engine,
)
from ginrummy.storage.accounts import AccountStore
from ginrummy.storage.ledger import HOUSE, Kind, LedgerError, Overdraft, account_wallet, pool_wallet
from pg_helpers import migrated_engine, pg_schema


@pytest.fixture(scope="module")
def pg_schema_name() -> Iterator[str]:
    """A schema for this module in the PostgreSQL test database, dropped afterwards."""
    with pg_schema("ginrummy_ledger") as name:
        yield name


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """A migrated, empty database of each kind."""
    made = migrated_engine(request, tmp_path, "ledger")
    yield made
    made.dispose()


def accounts(engine: Engine, *names: str) -> list[int]:
    store = AccountStore(engine)
    return [store.create(name, name.lower(), "not a real hash").id for name in names]


def table(engine: Engine, table_id: str = "t1", status: str = "waiting") -> None:
    rules = Ruleset.preset("arena", players=3)
    Repository(engine).write([InsertTable(StoredTable(
        id=table_id, name="pool table", preset="arena", rules=rules.to_dict(), players=3,
        public=True, invite_hash=None, clock_ms=0, pool_chips=300, status=status, version=0,
        seats=[StoredSeat(i, "empty") for i in range(3)], buy_in=100))])


def balances(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {w: b for w, b in conn.execute(text("SELECT id, balance FROM wallets"))}


def check(engine: Engine) -> ledger.Report:
    with engine.connect() as conn:
        return ledger.check(conn)


def test_an_account_wallet_starts_with_the_signup_grant_once(engine: Engine) -> None:
    ann, = accounts(engine, "Ann")
    with engine.begin() as conn:
        assert ledger.spendable(conn, ann) == ledger.SIGNUP_GRANT
        assert ledger.open_account(conn, ann) == 1000
        assert ledger.open_account(conn, ann) == 1000
    assert balances(engine) == {HOUSE: -1000, account_wallet(ann): 1000}
    with engine.connect() as conn:
        assert [(e.kind, e.amount) for e in ledger.statement(conn, ann)] == [("grant", 1000)]
    report = check(engine)
    assert report.ok, report.problems
    assert (report.issued, report.in_accounts, report.transfers) == (1000, 1000, 1)


def test_a_transfer_is_idempotent_by_its_key(engine: Engine) -> None:
    ann, = accounts(engine, "Ann")
    table(engine)
    moves = {account_wallet(ann): -100, pool_wallet("t1"): 100}
    with engine.begin() as conn:
        ledger.open_account(conn, ann)
        assert ledger.transfer(conn, "buy_in:t1:0:0", Kind.BUY_IN, moves, "t1") is True
    with engine.begin() as conn:  # a retried settlement: found, nothing moves
        assert ledger.transfer(conn, "buy_in:t1:0:0", Kind.BUY_IN, moves, "t1") is False
        assert ledger.transfer(conn, "buy_in:t1:0:0", Kind.BUY_IN,
                               {account_wallet(ann): -500, pool_wallet("t1"): 500}) is False
    assert balances(engine)[account_wallet(ann)] == 900
    assert balances(engine)[pool_wallet("t1")] == 100
    with engine.connect() as conn:
        assert ledger.pool_shares(conn, "t1") == {ann: 100}
        assert ledger.seat_payers(conn, "t1") == {0: ann}
    assert check(engine).ok


def test_no_wallet_but_the_house_goes_below_zero(engine: Engine) -> None:
    ann, = accounts(engine, "Ann")
    table(engine)
    with engine.begin() as conn:
        ledger.open_account(conn, ann)
    with pytest.raises(Overdraft, match=f"wallet {account_wallet(ann)} holds 1000"), \
            engine.begin() as conn:
        ledger.transfer(conn, "buy_in:t1:0:0", Kind.BUY_IN,
                        {account_wallet(ann): -1001, pool_wallet("t1"): 1001}, "t1")
    with engine.connect() as conn:  # rolled back: the key is free, nothing moved
        assert not ledger.transfer_done(conn, "buy_in:t1:0:0")
    assert balances(engine) == {HOUSE: -1000, account_wallet(ann): 1000}
    with pytest.raises(Overdraft, match="pool:t1"), engine.begin() as conn:
        ledger.transfer(conn, "refund:t1:x", Kind.REFUND,
                        {pool_wallet("t1"): -1, account_wallet(ann): 1}, "t1")
    with engine.begin() as conn:  # the house may: it issues chips
        ledger.transfer(conn, "topup:x", Kind.TOPUP, {HOUSE: -5000, account_wallet(ann): 5000})
    assert balances(engine)[HOUSE] == -6000
    assert check(engine).ok


@pytest.mark.parametrize(("moves", "message"), [
    ({"house": -5, "account:1": 4}, "sum to -1"),
    ({"house": -5, "account:1": 5.0}, "not an integer"),
    ({"house": 0, "account:1": 0}, "moves 0 chips"),
    ({"house": -5, "bank:1": 5}, "unknown wallet 'bank:1'"),
    ({}, "no wallet moves"),
])
def test_a_bad_transfer_is_refused_and_writes_nothing(engine: Engine, moves: dict[str, int],
                                                      message: str) -> None:
    accounts(engine, "Ann")
    with pytest.raises(LedgerError, match=message), engine.begin() as conn:
        ledger.transfer(conn, "bad", Kind.GRANT, moves)
    with engine.connect() as conn:
        assert not ledger.transfer_done(conn, "bad")
    assert balances(engine) == {}


def lose(conn: Connection, account_id: int, amount: int, key: str) -> None:
    """The account loses ``amount`` chips to the house (as a lost match would)."""
    ledger.transfer(conn, key, Kind.PAYOUT, {account_wallet(account_id): -amount,
                                             HOUSE: amount})


def test_the_daily_topup_fills_up_to_1000_once_a_utc_day(engine: Engine) -> None:
    ann, = accounts(engine, "Ann")
    morning = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
    with engine.begin() as conn:
        assert ledger.topup_status(conn, ann, morning) == ledger.TopUp(False, 0, None)
        assert ledger.claim_topup(conn, ann, morning) == 0  # full: nothing to give
        lose(conn, ann, 700, "lost:1")
        assert ledger.topup_status(conn, ann, morning) == ledger.TopUp(True, 700, None)
        assert ledger.claim_topup(conn, ann, morning) == 700
        assert ledger.claim_topup(conn, ann, morning.replace(hour=23)) == 0
        lose(conn, ann, 400, "lost:2")
        status = ledger.topup_status(conn, ann, morning.replace(hour=23, minute=59))
        assert status == ledger.TopUp(False, 0, datetime(2026, 12, 2, tzinfo=UTC))
        next_day = datetime(2026, 12, 2, 0, 0, 1, tzinfo=UTC)
        assert ledger.claim_topup(conn, ann, next_day) == 400
        stored_day = conn.execute(text("SELECT topped_up_on FROM accounts")).scalar_one()
    assert stored_day == "2026-12-02"
    assert balances(engine)[account_wallet(ann)] == 1000
    with engine.connect() as conn:
        kinds = [(e.kind, e.amount) for e in ledger.statement(conn, ann)]
    assert kinds == [("topup", 400), ("payout", -400), ("topup", 700), ("payout", -700),
                     ("grant", 1000)]
    report = check(engine)
    assert report.ok and report.issued == 1000 and report.in_pools == 0


def test_the_topup_counts_the_chips_parked_in_open_pools(engine: Engine) -> None:
    """Buy-ins at waiting or playing tables are still the account's: 100 in the wallet and
    900 in an open pool get no top-up; a finished table's pool is not counted."""
    ann, = accounts(engine, "Ann")
    table(engine, "t1", "waiting")
    table(engine, "t2", "playing")
    morning = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
    with engine.begin() as conn:
        ledger.open_account(conn, ann)
        ledger.transfer(conn, "buy_in:t1:0:0", Kind.BUY_IN,
                        {account_wallet(ann): -600, pool_wallet("t1"): 600}, "t1")
        ledger.transfer(conn, "buy_in:t2:0:0", Kind.BUY_IN,
                        {account_wallet(ann): -300, pool_wallet("t2"): 300}, "t2")
        assert ledger.parked(conn, ann) == 900
        assert ledger.topup_status(conn, ann, morning) == ledger.TopUp(False, 0, None)
        assert ledger.claim_topup(conn, ann, morning) == 0
        ledger.transfer(conn, "refund:t1:1:0", Kind.REFUND,
                        {pool_wallet("t1"): -200, account_wallet(ann): 200}, "t1")
        lose(conn, ann, 250, "lost:1")  # 50 in the wallet, 400 + 300 in pools
        assert ledger.parked(conn, ann) == 700
        assert ledger.topup_status(conn, ann, morning) == ledger.TopUp(True, 250, None)
        conn.execute(text("UPDATE game_tables SET status = 'over' WHERE id = 't2'"))
        assert ledger.parked(conn, ann) == 400  # t2 is over: its pool no longer counts
        assert ledger.claim_topup(conn, ann, morning) == 550
    assert balances(engine)[account_wallet(ann)] == 600


def test_the_check_catches_a_tampered_balance(engine: Engine) -> None:
    ann, bob = accounts(engine, "Ann", "Bob")
    with engine.begin() as conn:
        ledger.open_account(conn, ann)
        ledger.open_account(conn, bob)
        conn.execute(text("UPDATE wallets SET balance = balance + 50 WHERE id = :w"),
                     {"w": account_wallet(bob)})
    report = check(engine)
    assert not report.ok
    assert f"wallet {account_wallet(bob)}: balance 1050 but its entries sum to 1000" in \
        report.problems
    assert "the balances sum to 50, not 0: chips were made" in report.problems
    assert all(account_wallet(ann) not in p for p in report.problems)


def test_the_check_catches_a_one_sided_entry(engine: Engine) -> None:
    ann, = accounts(engine, "Ann")
    with engine.begin() as conn:
        ledger.open_account(conn, ann)
        conn.execute(text("INSERT INTO ledger_entries (transfer_key, wallet_id, amount) "
                          f"VALUES ('grant:{ann}', '{account_wallet(ann)}', 25)"))
        conn.execute(text("UPDATE wallets SET balance = balance + 25 WHERE id = :w"),
                     {"w": account_wallet(ann)})
    report = check(engine)
    assert f"transfer grant:{ann}: its entries sum to 25, not 0" in report.problems
    assert "the balances sum to 25, not 0: chips were made" in report.problems


def test_the_check_catches_a_transfer_without_its_entries(engine: Engine) -> None:
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO transfers (key, kind, at) VALUES "
                          "('grant:99', 'grant', CURRENT_TIMESTAMP)"))
    assert check(engine).problems == ["transfer grant:99 has 0 entries (at least two)"]


def test_the_check_catches_a_stale_pool_and_a_negative_wallet(engine: Engine) -> None:
    ann, bob = accounts(engine, "Ann", "Bob")
    table(engine, "t1")
    table(engine, "t2")
    with engine.begin() as conn:
        ledger.open_account(conn, ann)
        ledger.open_account(conn, bob)
        ledger.transfer(conn, "buy_in:t1:0:0", Kind.BUY_IN,
                        {account_wallet(ann): -100, pool_wallet("t1"): 100}, "t1")
        ledger.transfer(conn, "buy_in:t2:0:0", Kind.BUY_IN,
                        {account_wallet(bob): -100, pool_wallet("t2"): 100}, "t2")
    report = check(engine)
    assert report.ok and report.open_pools == 2 and report.in_pools == 200
    Repository(engine).write([UpdateTable("t1", {"status": "over"})])
    report = check(engine)
    assert report.problems == ["pool:t1 holds 100 chips but table t1 is over: it should have "
                               "been paid out or refunded"]
    with engine.begin() as conn:  # a move behind the ledger's back, balanced but negative
        conn.execute(text("UPDATE wallets SET balance = -10 WHERE id = :w"),
                     {"w": account_wallet(ann)})
        conn.execute(text("UPDATE wallets SET balance = balance + 910 WHERE id = 'house'"))
    problems = check(engine).problems
    assert f"wallet {account_wallet(ann)} is below zero: -10" in problems
    assert f"wallet {account_wallet(ann)}: balance -10 but its entries sum to 900" in problems
    assert f"wallet {HOUSE}: balance -1090 but its entries sum to -2000" in problems


def test_seat_payers_follow_the_latest_sitting_of_each_seat(engine: Engine) -> None:
    ann, bob = accounts(engine, "Ann", "Bob")
    table(engine)
    with engine.begin() as conn:
        ledger.open_account(conn, ann)
        ledger.open_account(conn, bob)
        ledger.transfer(conn, "buy_in:t1:0:1", Kind.BUY_IN,
                        {account_wallet(ann): -100, pool_wallet("t1"): 100}, "t1")
        ledger.transfer(conn, "refund:t1:1:1", Kind.REFUND,
                        {account_wallet(ann): 100, pool_wallet("t1"): -100}, "t1")
        ledger.transfer(conn, "buy_in:t1:12:1", Kind.BUY_IN,
                        {account_wallet(bob): -100, pool_wallet("t1"): 100}, "t1")
        assert ledger.seat_payers(conn, "t1") == {1: bob}
        assert ledger.pool_shares(conn, "t1") == {bob: 100}


def test_the_check_command_reports_and_sets_its_exit_status(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ginrummy.cli.main import main

    url = f"sqlite:///{tmp_path / 'cli.db'}"
    made = open_engine(url)
    migrate(made)
    ann, = accounts(made, "Ann")
    table(made)
    with made.begin() as conn:
        ledger.open_account(conn, ann)
        ledger.transfer(conn, "buy_in:t1:0:0", Kind.BUY_IN,
                        {account_wallet(ann): -100, pool_wallet("t1"): 100}, "t1")
    assert main(["ledger", "check", "--db", url]) == 0
    out = capsys.readouterr().out
    assert "ledger check: OK" in out
    assert "issued by the house: 1000; in accounts: 900; in 1 open pool(s): 100" in out
    with made.begin() as conn:
        conn.execute(text("UPDATE wallets SET balance = 901 WHERE id = :w"),
                     {"w": account_wallet(ann)})
        conn.execute(text("UPDATE game_tables SET status = 'abandoned'"))
    made.dispose()
    assert main(["ledger", "check", "--db", url]) == 1
    out = capsys.readouterr().out
    assert "ledger check: 3 discrepancy(ies)" in out
    assert f"wallet {account_wallet(ann)}: balance 901 but its entries sum to 900" in out
    assert "pool:t1 holds 100 chips but table t1 is abandoned" in out
    assert main(["ledger", "check", "--db", url, "--json"]) == 1
    assert '"ok": false' in capsys.readouterr().out
    assert main(["ledger", "check", "--db", str(tmp_path / "missing.db")]) == 2
    assert "no database file" in capsys.readouterr().err
    assert not (tmp_path / "missing.db").exists()
    empty = f"sqlite:///{tmp_path / 'empty.db'}"
    open_engine(empty).dispose()
    assert main(["ledger", "check", "--db", empty]) == 2
    assert "no ledger yet" in capsys.readouterr().err
