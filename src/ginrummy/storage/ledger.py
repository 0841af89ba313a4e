"""The chip ledger: wallets, idempotent double-entry transfers, and the check of it all.

Every chip movement is one :func:`transfer`: a ``transfers`` row with a unique key, its
``ledger_entries`` summing to zero, and the ``wallets`` balances changed in the same
transaction (the caller's: a table's commit, or its own). Wallets are ``account:ID`` (a
player's chips), ``pool:TABLE`` (a table's open prize pool), ``tourney:ID`` (a tournament's
prize pool, docs/tournaments.md) and ``house`` (where free chips come from: its balance is
minus every chip handed out), so the sum of all balances is always 0. A transfer whose key
exists already moves nothing: a retried or replayed settlement never pays twice. No wallet
but the house goes below zero. :func:`check` verifies all of it.

Synchronous SQLAlchemy Core on a :class:`~sqlalchemy.engine.Connection`: the server runs it
inside the group committer's transaction (:class:`ginrummy.storage.Apply`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum

from sqlalchemy import Table, and_, func, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from ginrummy.storage.models import (
    AccountRow,
    LedgerEntryRow,
    SeatRow,
    TableRow,
    TournamentRow,
    TransferRow,
    WalletRow,
)
from ginrummy.storage.repository import as_utc, utcnow

WALLETS: Table = WalletRow.__table__  # type: ignore[assignment]
TRANSFERS: Table = TransferRow.__table__  # type: ignore[assignment]
ENTRIES: Table = LedgerEntryRow.__table__  # type: ignore[assignment]
ACCOUNTS: Table = AccountRow.__table__  # type: ignore[assignment]
TABLES: Table = TableRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]
TOURNAMENTS: Table = TournamentRow.__table__  # type: ignore[assignment]

HOUSE = "house"
"""The wallet free chips come from (the only one allowed below zero)."""
SIGNUP_GRANT = 1000
"""Chips a new account's wallet starts with (transfer ``grant:ACCOUNT``)."""
TOPUP_LEVEL = 1000
"""The daily free top-up brings a balance below this up to it (``topup:ACCOUNT:DAY``)."""
OPEN_TABLE_STATUSES = ("waiting", "playing")
"""A pool may hold chips only while its table is one of these."""
OPEN_TOURNAMENT_STATUSES = ("open", "running")
"""A tournament's prize pool may hold chips only while it is one of these."""
KEY_LENGTH = 100
"""The longest transfer key (``transfers.key``)."""


class Kind(StrEnum):
    """What a transfer is (``transfers.kind``)."""

    GRANT = "grant"      # house -> a new account
    TOPUP = "topup"      # house -> an account, once a UTC day
    BUY_IN = "buy_in"    # an account -> a table's pool, when it sits down (or a
    #                      tournament's, when it registers)
    REFUND = "refund"    # a pool -> an account (left before the deal, table closed;
    #                      withdrawn from a tournament, a tournament cancelled)
    PAYOUT = "payout"    # a pool -> an account, the prize at the match's (tournament's) end


class LedgerError(ValueError):
    """A transfer that cannot be made; nothing of it was written."""


class Overdraft(LedgerError):
    """A wallet (not the house) would go below zero."""

    def __init__(self, wallet: str, balance: int, amount: int) -> None:
        super().__init__(f"wallet {wallet} holds {balance} chips: it cannot pay {amount}")
        self.wallet = wallet
        self.balance = balance
        self.amount = amount


def account_wallet(account_id: int) -> str:
    """The wallet id of an account's chips."""
    return f"account:{account_id}"


def pool_wallet(table_id: str) -> str:
    """The wallet id of a table's prize pool."""
    return f"pool:{table_id}"


def tournament_wallet(tournament_id: str) -> str:
    """The wallet id of a tournament's prize pool."""
    return f"tourney:{tournament_id}"


def _owner(wallet: str) -> tuple[int | None, str | None, str | None]:
    """``(account_id, table_id, tournament_id)`` of a wallet id; :class:`LedgerError` for an
    unknown form."""
    kind, _, rest = wallet.partition(":")
    if wallet == HOUSE:
        return None, None, None
    if kind == "account" and rest.isdigit():
        return int(rest), None, None
    if kind == "pool" and rest:
        return None, rest, None
    if kind == "tourney" and rest:
        return None, None, rest
    raise LedgerError(f"unknown wallet {wallet!r}: use house, account:ID, pool:TABLE or "
                      f"tourney:ID")


def _insert(conn: Connection, table: Table) -> sqlite.Insert | postgresql.Insert:
    """An INSERT that can do nothing on a conflict, in the connection's dialect."""
    if conn.dialect.name == "postgresql":
        return postgresql.insert(table)
    if conn.dialect.name == "sqlite":
        return sqlite.insert(table)
    raise LedgerError(f"the ledger runs on SQLite or PostgreSQL, not {conn.dialect.name}")


# ----------------------------------------------------------------------------- transfers
def transfer(conn: Connection, key: str, kind: Kind, moves: Mapping[str, int],
             table_id: str | None = None, at: datetime | None = None,
             tournament_id: str | None = None) -> bool:
    """Move chips: ``moves`` maps wallet ids to their change (they must sum to 0), for a
    table's or a tournament's cause when ``table_id`` or ``tournament_id`` is given. Returns
    False, moving nothing, when a transfer with ``key`` exists already. Raises
    :class:`LedgerError` for a bad transfer and :class:`Overdraft` when a wallet other than
    the house would go below zero; the caller's transaction must then be rolled back (the
    transfer row was written first)."""
    if not key or len(key) > KEY_LENGTH:
        raise LedgerError(f"a transfer key has 1 to {KEY_LENGTH} characters: {key[:120]!r}")
    if not moves:
        raise LedgerError(f"transfer {key}: no wallet moves")
    for wallet, amount in moves.items():
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise LedgerError(f"transfer {key}: {wallet} amount {amount!r} is not an integer")
        if amount == 0:
            raise LedgerError(f"transfer {key}: {wallet} moves 0 chips")
        _owner(wallet)
    total = sum(moves.values())
    if total != 0:
        raise LedgerError(f"transfer {key}: the moves sum to {total}, not 0")
    inserted = conn.execute(
        _insert(conn, TRANSFERS)
        .values(key=key, kind=Kind(kind).value, table_id=table_id,
                tournament_id=tournament_id, at=at or utcnow())
        .on_conflict_do_nothing(index_elements=["key"]).returning(TRANSFERS.c.key))
    if inserted.first() is None:
        return False  # done before: a retry or a replay
    for wallet in sorted(moves):  # one lock order for every transaction
        account_id, owner_table, owner_tournament = _owner(wallet)
        conn.execute(_insert(conn, WALLETS)
                     .values(id=wallet, account_id=account_id, table_id=owner_table,
                             tournament_id=owner_tournament, balance=0)
                     .on_conflict_do_nothing(index_elements=["id"]))
        amount = moves[wallet]
        change = update(WALLETS).where(WALLETS.c.id == wallet)
        if amount < 0 and wallet != HOUSE:
            change = change.where(WALLETS.c.balance >= -amount)
        done = conn.execute(change.values(balance=WALLETS.c.balance + amount))
        if done.rowcount != 1:
            raise Overdraft(wallet, balance(conn, wallet) or 0, -amount)
    conn.execute(ENTRIES.insert(), [
        {"transfer_key": key, "wallet_id": wallet, "amount": amount}
        for wallet, amount in sorted(moves.items())])
    return True


def balance(conn: Connection, wallet: str) -> int | None:
    """A wallet's balance, or ``None`` when it does not exist yet."""
    found = conn.execute(select(WALLETS.c.balance).where(WALLETS.c.id == wallet)).scalar()
    return None if found is None else int(found)


def transfer_done(conn: Connection, key: str) -> bool:
    """True when a transfer with this key exists."""
    return conn.execute(select(TRANSFERS.c.key).where(TRANSFERS.c.key == key)).first() \
        is not None


# ----------------------------------------------------------------------------- accounts
def open_account(conn: Connection, account_id: int) -> int:
    """The account's balance, its wallet made first (with the sign-up grant) if it has none."""
    found = balance(conn, account_wallet(account_id))
    if found is not None:
        return found
    transfer(conn, f"grant:{account_id}", Kind.GRANT,
             {HOUSE: -SIGNUP_GRANT, account_wallet(account_id): SIGNUP_GRANT})
    return balance(conn, account_wallet(account_id)) or 0


def spendable(conn: Connection, account_id: int) -> int:
    """What an account can spend: its balance, or the sign-up grant it is yet to receive."""
    found = balance(conn, account_wallet(account_id))
    return SIGNUP_GRANT if found is None else found


@dataclass(frozen=True)
class TopUp:
    """The daily free top-up as an account sees it: whether it can be taken now, how many
    chips it would give, and (once taken today) when the next one may be taken."""

    available: bool
    amount: int
    next_at: datetime | None


def utc_day(now: datetime) -> date:
    """The UTC day of a moment."""
    return as_utc(now).astimezone(UTC).date()


def topup_key(account_id: int, day: date) -> str:
    """The transfer key of an account's top-up on a UTC day."""
    return f"topup:{account_id}:{day.isoformat()}"


def topup_status(conn: Connection, account_id: int, now: datetime | None = None) -> TopUp:
    """The account's top-up today (``now`` defaults to the current time)."""
    now = now or utcnow()
    day = utc_day(now)
    if transfer_done(conn, topup_key(account_id, day)):
        tomorrow = datetime.combine(day + timedelta(days=1), time(0), tzinfo=UTC)
        return TopUp(False, 0, tomorrow)
    amount = max(0, TOPUP_LEVEL - spendable(conn, account_id) - parked(conn, account_id))
    return TopUp(amount > 0, amount, None)


def parked(conn: Connection, account_id: int) -> int:
    """The chips an account has in the pools of open (waiting or playing) tables and of
    open (registering or running) tournaments: its buy-ins there less what those pools gave
    back. They are still the account's until the match or the tournament is decided
    (leaving before the deal, withdrawing or a cancellation returns them), so the daily
    top-up counts them."""
    moved = conn.execute(
        select(func.coalesce(func.sum(ENTRIES.c.amount), 0))
        .select_from(ENTRIES.join(TRANSFERS, TRANSFERS.c.key == ENTRIES.c.transfer_key)
                     .join(TABLES, TABLES.c.id == TRANSFERS.c.table_id))
        .where(ENTRIES.c.wallet_id == account_wallet(account_id),
               TABLES.c.status.in_(OPEN_TABLE_STATUSES))).scalar_one()
    in_tournaments = conn.execute(
        select(func.coalesce(func.sum(ENTRIES.c.amount), 0))
        .select_from(ENTRIES.join(TRANSFERS, TRANSFERS.c.key == ENTRIES.c.transfer_key)
                     .join(TOURNAMENTS, TOURNAMENTS.c.id == TRANSFERS.c.tournament_id))
        .where(ENTRIES.c.wallet_id == account_wallet(account_id),
               TOURNAMENTS.c.status.in_(OPEN_TOURNAMENT_STATUSES))).scalar_one()
    return max(0, -int(moved)) + max(0, -int(in_tournaments))


def claim_topup(conn: Connection, account_id: int, now: datetime | None = None) -> int:
    """Take today's top-up; returns the chips received (0 when it was taken today already
    or the balance with the chips in open pools (:func:`parked`) is not below
    :data:`TOPUP_LEVEL`)."""
    now = now or utcnow()
    open_account(conn, account_id)
    status = topup_status(conn, account_id, now)
    if not status.available:
        return 0
    day = utc_day(now)
    transfer(conn, topup_key(account_id, day), Kind.TOPUP,
             {HOUSE: -status.amount, account_wallet(account_id): status.amount}, at=now)
    conn.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == account_id)
                 .values(topped_up_on=day.isoformat()))
    return status.amount


@dataclass(frozen=True)
class Entry:
    """One line of an account's statement."""

    at: datetime
    kind: str
    amount: int
    table_id: str | None
    table_name: str | None = None
    """The table's name as its creator gave it ("" when none: the client names it after
    ``table_host``); ``None`` without a table or when the table row is gone."""
    table_host: str | None = None
    """The name at the table's first seat (the creator), for a table created without a name."""


def statement(conn: Connection, account_id: int, limit: int = 50) -> list[Entry]:
    """An account's latest entries, newest first, each with its table's name and host."""
    host = SEATS.alias("host")
    rows = conn.execute(
        select(TRANSFERS.c.at, TRANSFERS.c.kind, ENTRIES.c.amount, TRANSFERS.c.table_id,
               TABLES.c.name.label("table_name"), host.c.name.label("table_host"))
        .select_from(ENTRIES.join(TRANSFERS, TRANSFERS.c.key == ENTRIES.c.transfer_key)
                     .outerjoin(TABLES, TABLES.c.id == TRANSFERS.c.table_id)
                     .outerjoin(host, and_(host.c.table_id == TRANSFERS.c.table_id,
                                           host.c.seat == 0)))
        .where(ENTRIES.c.wallet_id == account_wallet(account_id))
        .order_by(ENTRIES.c.id.desc()).limit(limit)).all()
    return [Entry(as_utc(r.at), r.kind, int(r.amount), r.table_id, r.table_name, r.table_host)
            for r in rows]


# ----------------------------------------------------------------------------- pools
def pool_shares(conn: Connection, table_id: str) -> dict[int, int]:
    """What each account has in a table's pool now: its buy-ins less what the pool paid it
    back (refunds, payouts), by account id; accounts with nothing in it are left out."""
    pool = pool_wallet(table_id)
    touching = select(ENTRIES.c.transfer_key).where(ENTRIES.c.wallet_id == pool)
    rows = conn.execute(
        select(ENTRIES.c.wallet_id, func.sum(ENTRIES.c.amount))
        .where(ENTRIES.c.transfer_key.in_(touching), ENTRIES.c.wallet_id != pool)
        .group_by(ENTRIES.c.wallet_id)).all()
    shares: dict[int, int] = {}
    for wallet, total in rows:
        account_id, _, _ = _owner(wallet)
        if account_id is not None and -int(total) > 0:
            shares[account_id] = -int(total)
    return shares


def seat_payers(conn: Connection, table_id: str) -> dict[int, int]:
    """The account that paid each seat's current buy-in (by seat), from the buy-in keys
    ``buy_in:TABLE:VERSION:SEAT``: the latest sitting of a seat is the one at the table."""
    rows = conn.execute(
        select(TRANSFERS.c.key, ENTRIES.c.wallet_id)
        .join(ENTRIES, ENTRIES.c.transfer_key == TRANSFERS.c.key)
        .where(TRANSFERS.c.kind == Kind.BUY_IN.value, TRANSFERS.c.table_id == table_id,
               ENTRIES.c.wallet_id != pool_wallet(table_id))).all()
    latest: dict[int, tuple[int, int]] = {}
    for key, wallet in rows:
        _, version, seat = key.rsplit(":", 2)
        account_id, _, _ = _owner(wallet)
        if account_id is None or not version.isdigit() or not seat.isdigit():
            continue
        if int(seat) not in latest or latest[int(seat)][0] < int(version):
            latest[int(seat)] = (int(version), account_id)
    return {seat: account for seat, (_, account) in latest.items()}


# ----------------------------------------------------------------------------- the check
@dataclass
class Report:
    """What :func:`check` found: the totals, and every discrepancy in words."""

    wallets: int = 0
    transfers: int = 0
    issued: int = 0
    """Chips handed out by the house (minus its balance)."""
    in_accounts: int = 0
    in_pools: int = 0
    open_pools: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing is wrong."""
        return not self.problems

    def summary(self) -> str:
        """Printable lines: the totals, then each problem."""
        lines = [f"wallets: {self.wallets}, transfers: {self.transfers}",
                 f"issued by the house: {self.issued}; in accounts: {self.in_accounts}; "
                 f"in {self.open_pools} open pool(s): {self.in_pools}",
                 "ledger check: OK" if self.ok else
                 f"ledger check: {len(self.problems)} discrepancy(ies)"]
        lines.extend(f"  - {problem}" for problem in self.problems)
        return "\n".join(lines)


def check(conn: Connection) -> Report:
    """Verify the ledger: the balances sum to 0 (the house's minus is every chip issued),
    each balance is the sum of its entries, each transfer's entries sum to 0, no wallet but
    the house is below 0, and no pool of a finished (or unknown) table or tournament holds
    chips."""
    report = Report()
    wallets = {w: int(b) for w, b in conn.execute(select(WALLETS.c.id, WALLETS.c.balance))}
    report.wallets = len(wallets)
    sums = {w: int(s) for w, s in conn.execute(
        select(ENTRIES.c.wallet_id, func.sum(ENTRIES.c.amount)).group_by(ENTRIES.c.wallet_id))}
    total = sum(wallets.values())
    if total != 0:
        report.problems.append(f"the balances sum to {total}, not 0: chips were "
                               f"{'made' if total > 0 else 'lost'}")
    for wallet in sorted(set(wallets) | set(sums)):
        if wallet not in wallets:
            report.problems.append(f"wallet {wallet} has entries summing to {sums[wallet]} "
                                   f"but no balance row")
            continue
        held, entered = wallets[wallet], sums.get(wallet, 0)
        if held != entered:
            report.problems.append(f"wallet {wallet}: balance {held} but its entries sum "
                                   f"to {entered}")
        if held < 0 and wallet != HOUSE:
            report.problems.append(f"wallet {wallet} is below zero: {held}")
    report.issued = -wallets.get(HOUSE, 0)
    report.in_accounts = sum(b for w, b in wallets.items() if w.startswith("account:"))
    report.transfers = int(conn.execute(select(func.count()).select_from(TRANSFERS))
                           .scalar_one())
    joined = TRANSFERS.outerjoin(ENTRIES, ENTRIES.c.transfer_key == TRANSFERS.c.key)
    entry_sum = func.coalesce(func.sum(ENTRIES.c.amount), 0)
    for key, count, amount in conn.execute(
            select(TRANSFERS.c.key, func.count(ENTRIES.c.id), entry_sum)
            .select_from(joined).group_by(TRANSFERS.c.key)
            .having(or_(entry_sum != 0, func.count(ENTRIES.c.id) < 2))):
        if amount:
            report.problems.append(f"transfer {key}: its entries sum to {amount}, not 0")
        else:
            report.problems.append(f"transfer {key} has {count} entries (at least two)")
    orphans = conn.execute(
        select(ENTRIES.c.transfer_key, func.sum(ENTRIES.c.amount))
        .select_from(ENTRIES.outerjoin(TRANSFERS, TRANSFERS.c.key == ENTRIES.c.transfer_key))
        .where(TRANSFERS.c.key.is_(None)).group_by(ENTRIES.c.transfer_key)).all()
    for key, amount in orphans:
        report.problems.append(f"entries of an unknown transfer {key} (summing to {amount})")
    statuses = dict(conn.execute(
        select(TABLES.c.id, TABLES.c.status)
        .join(WALLETS, and_(WALLETS.c.table_id == TABLES.c.id, WALLETS.c.balance != 0))).all())
    tournaments = dict(conn.execute(
        select(TOURNAMENTS.c.id, TOURNAMENTS.c.status)
        .join(WALLETS, and_(WALLETS.c.tournament_id == TOURNAMENTS.c.id,
                            WALLETS.c.balance != 0))).all())
    for wallet, held in sorted(wallets.items()):
        kind, _, owner = wallet.partition(":")
        if held == 0 or kind not in ("tourney", "pool"):
            continue
        noun, status, open_statuses = (
            ("tournament", tournaments.get(owner), OPEN_TOURNAMENT_STATUSES) if kind == "tourney"
            else ("table", statuses.get(owner), OPEN_TABLE_STATUSES))
        if status in open_statuses:
            report.open_pools += 1
            report.in_pools += held
        elif status is None:
            report.problems.append(f"{wallet} holds {held} chips but there is no {noun} {owner}")
        else:
            report.problems.append(f"{wallet} holds {held} chips but {noun} {owner} is "
                                   f"{status}: it should have been paid out or refunded")
    return report
