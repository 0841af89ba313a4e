"""Chips at the tables: buy-ins, refunds and the payout of a table's prize pool.

An arena (``single_hand``) table may have a buy-in: its seats are taken by accounts only,
each pays the buy-in into the table's pool (``pool:TABLE``) in the transaction that seats it,
and the pool (the engine's ``pool_cents``, R6.4) is the buy-in times the players. Leaving
before the deal refunds it with the leave. When the match is played out the pool is paid out
exactly as the engine split it (``match.result.payouts``: integer chips, the remainder to the
winner), to the account that paid each seat's buy-in; when the table is abandoned, closed by
an administrator or stuck, every chip still in the pool goes back to whoever put it there.
Every movement is a keyed transfer of :mod:`ginrummy.storage.ledger` run as an
:class:`~ginrummy.storage.Apply` in the table's own commit, so a replayed or retried
settlement moves nothing twice (docs/chips.md).
"""

from __future__ import annotations

import logging

from sqlalchemy import Engine
from sqlalchemy.engine import Connection

from ginrummy.server.core.kinds import OPEN_STATUSES
from ginrummy.server.play.seat import Seat
from ginrummy.server.play.settlement import Ending, Hooks, MatchEnd, SeatRefused
from ginrummy.server.play.table import GameTable
from ginrummy.storage import Apply, WriteOp, ledger
from ginrummy.storage.ledger import Kind, account_wallet, pool_wallet

log = logging.getLogger("ginrummy.server.chips")

MAX_BUY_IN = 1_000_000
"""The largest buy-in a table may ask."""


def buy_in_key(table_id: str, version: int, seat: int) -> str:
    """The key of a seat's buy-in: the table version the seat was taken at, and the seat
    (every sitting happens at a version of its own)."""
    return f"buy_in:{table_id}:{version}:{seat}"


def refund_key(table_id: str, version: int, seat: int) -> str:
    """The key of a buy-in given back when its seat is left at ``version``."""
    return f"refund:{table_id}:{version}:{seat}"


def closing_refund_key(table_id: str, account_id: int) -> str:
    """The key of what an account gets back from the pool of a table that closed unfinished."""
    return f"refund:{table_id}:end:{account_id}"


def payout_key(table_id: str, match_version: int, seat: int) -> str:
    """The key of a seat's prize: the version of its match's ``match`` event, and the seat."""
    return f"payout:{table_id}:{match_version}:{seat}"


# ----------------------------------------------------------------------------- the writes
def pay_buy_in(conn: Connection, table_id: str, version: int, seat: int, account_id: int,
               amount: int) -> bool:
    """Move a seat's buy-in from the account into the pool (its wallet first opened with the
    sign-up grant); :class:`ledger.Overdraft` when the account is short."""
    ledger.open_account(conn, account_id)
    return ledger.transfer(conn, buy_in_key(table_id, version, seat), Kind.BUY_IN,
                           {account_wallet(account_id): -amount, pool_wallet(table_id): amount},
                           table_id)


def refund_seat(conn: Connection, table_id: str, version: int, seat: int,
                account_id: int) -> int:
    """Give back what an account has in the pool (its buy-in) as its seat is left; the chips
    given back (0 when there was nothing, or when this refund was made before)."""
    share = ledger.pool_shares(conn, table_id).get(account_id, 0)
    if share <= 0:
        return 0
    done = ledger.transfer(conn, refund_key(table_id, version, seat), Kind.REFUND,
                           {pool_wallet(table_id): -share, account_wallet(account_id): share},
                           table_id)
    return share if done else 0


def refund_all(conn: Connection, table_id: str) -> int:
    """Give every account back what it has in the pool of a table that closed unfinished;
    the chips given back."""
    total = 0
    for account_id, share in sorted(ledger.pool_shares(conn, table_id).items()):
        if ledger.transfer(conn, closing_refund_key(table_id, account_id), Kind.REFUND,
                           {pool_wallet(table_id): -share, account_wallet(account_id): share},
                           table_id):
            total += share
    return total


def pay_out(conn: Connection, table_id: str, match_version: int,
            payouts: tuple[int, ...]) -> int:
    """Pay each seat's prize from the pool to the account that paid that seat's buy-in; the
    chips paid. A seat nobody paid for (a table made before buy-ins, a broken record) is
    logged and its prize stays in the pool, where ``ginrummy ledger check`` reports it."""
    payers = ledger.seat_payers(conn, table_id)
    paid = 0
    for seat, amount in enumerate(payouts):
        if amount <= 0:
            continue
        account_id = payers.get(seat)
        if account_id is None:
            log.error("table %s: seat %d won %d chips but nobody paid its buy-in",
                      table_id, seat, amount)
            continue
        if ledger.transfer(conn, payout_key(table_id, match_version, seat), Kind.PAYOUT,
                           {pool_wallet(table_id): -amount, account_wallet(account_id): amount},
                           table_id):
            paid += amount
    return paid


# ----------------------------------------------------------------------------- the hooks
class Chips:
    """The chips hooks of one server: reads balances on its engine, writes through Apply."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def install(self, hooks: Hooks) -> None:
        """Register the buy-in, the refund and the settlement on a server's hooks."""
        hooks.on_sit.append(self.on_sit)
        hooks.on_leave.append(self.on_leave)
        hooks.on_end.append(self.on_end)

    def spendable(self, account_id: int) -> int:
        """The chips an account may spend (one indexed read)."""
        with self.engine.connect() as conn:
            return ledger.spendable(conn, account_id)

    def on_sit(self, table: GameTable, seat: Seat) -> list[WriteOp]:
        """A seat taken at a buy-in table: the account pays the buy-in with the seat.
        :class:`SeatRefused` for a guest (403 ``login_required``), a table no longer open
        (409 ``table_closed``) or too few chips (409 ``not_enough_chips``)."""
        buy_in = table.buy_in
        if buy_in is None:
            return []
        account_id = seat.account_id
        if account_id is None:
            raise SeatRefused(403, "login_required", f"this table has a buy-in of {buy_in} "
                              f"chips: log in to play for chips")
        if table.status not in OPEN_STATUSES:
            raise SeatRefused(409, "table_closed", f"this table is {table.status}")
        have = self.spendable(account_id)
        if have < buy_in:
            raise SeatRefused(409, "not_enough_chips", f"the buy-in is {buy_in} chips and "
                              f"you have {have}")
        table_id, version, seat_no = table.id, table.version, seat.seat

        def pay(conn: Connection) -> None:
            # checked again in the commit: another join of the account may have spent the
            # chips since the read above (two tables joined at once): 409, not a fault
            try:
                pay_buy_in(conn, table_id, version, seat_no, account_id, buy_in)
            except ledger.Overdraft as exc:
                raise SeatRefused(409, "not_enough_chips", f"the buy-in is {buy_in} chips "
                                  f"and you have {exc.balance}") from None

        return [Apply(pay)]

    def on_leave(self, table: GameTable, seat: Seat) -> list[WriteOp]:
        """A seat left before the deal: its buy-in comes back with the leave."""
        account_id = seat.account_id
        if table.buy_in is None or account_id is None:
            return []
        table_id, version, seat_no = table.id, table.version, seat.seat
        return [Apply(lambda conn: _ignore(refund_seat(conn, table_id, version, seat_no,
                                                       account_id)))]

    def on_end(self, end: MatchEnd) -> list[WriteOp]:
        """A match played out pays the pool as the engine split it; a table abandoned,
        closed or stuck gives every buy-in back."""
        table = end.table
        if table.buy_in is None:
            return []
        table_id = table.id
        result = None if table.match is None else table.match.result
        if end.ending is Ending.OVER and result is not None and result.payouts is not None:
            match_version = table.match_first_version
            if match_version is None:
                raise ValueError(f"table {table_id}: a match ended without its match event")
            payouts = result.payouts
            return [Apply(lambda conn: _ignore(pay_out(conn, table_id, match_version,
                                                       payouts)))]
        return [Apply(lambda conn: _ignore(refund_all(conn, table_id)))]


def _ignore(_result: object) -> None:
    """Apply runs want no result."""
