"""``ginrummy ledger check [--db URL]``: verify the chip ledger of a server's database.

Every balance must equal the sum of its entries, every transfer's entries must sum to zero,
the balances must sum to zero (the house's minus is every chip handed out, so the chips in
accounts plus those in open pools never change), no wallet but the house may be below zero,
and no pool of a finished table may hold chips. Prints a summary and each discrepancy; exit
status 0 when all holds, 1 on any discrepancy, 2 when the database cannot be read.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the server extra, imported when the check runs
    from ginrummy.storage import ledger

DEFAULT_DB = "sqlite:///ginrummy.db"
"""The server's default database (``ginrummy serve``)."""


class LedgerUnreadable(ValueError):
    """The database cannot be checked (missing, unreachable, or without a ledger)."""


def add_ledger_arguments(parser: argparse.ArgumentParser) -> None:
    """The subcommands of ``ledger``."""
    sub = parser.add_subparsers(dest="ledger_command", metavar="ACTION", required=True)
    check = sub.add_parser(
        "check", help="verify the chip ledger (exit status 1 on any discrepancy)",
        description="Verify the chip ledger: balances against their entries, transfers "
        "summing to zero, all balances summing to zero, no pool of a finished table holding "
        "chips. Exit status 1 on any discrepancy, each one named.")
    check.add_argument("--db", default=None, metavar="URL",
                       help=f"database: sqlite:///path or postgresql://user@host/db (default: "
                       f"$GINRUMMY_DB, else {DEFAULT_DB})")
    check.add_argument("--json", action="store_true", help="the report as one JSON object")


def run_ledger(args: argparse.Namespace) -> int:
    """Run ``ledger check``; the exit status."""
    url = args.db or os.environ.get("GINRUMMY_DB") or DEFAULT_DB
    report = check_database(url)
    if args.json:
        print(json.dumps({"ok": report.ok, "wallets": report.wallets,
                          "transfers": report.transfers, "issued": report.issued,
                          "in_accounts": report.in_accounts, "in_pools": report.in_pools,
                          "open_pools": report.open_pools, "problems": report.problems}))
    else:
        print(report.summary())
    return 0 if report.ok else 1


def check_database(url: str) -> ledger.Report:
    """The ledger report of the database at ``url`` (never creates or migrates it);
    :class:`LedgerUnreadable` when it cannot be read."""
    from sqlalchemy import inspect
    from sqlalchemy.engine import make_url

    from ginrummy.storage import StorageError, ledger, normalise_url, open_engine

    url = normalise_url(url)
    try:
        parsed = make_url(url)
    except Exception as exc:  # sqlalchemy's ArgumentError
        raise LedgerUnreadable(f"bad database URL: {exc}") from None
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        path = Path(parsed.database or "").expanduser()
        if not path.is_file():
            raise LedgerUnreadable(f"no database file {path}")
    try:
        engine = open_engine(url)
    except StorageError as exc:
        raise LedgerUnreadable(str(exc)) from None
    try:
        with engine.connect() as conn:
            if not inspect(conn).has_table("wallets"):
                raise LedgerUnreadable("the database has no ledger yet (ginrummy serve "
                                       "migrates it when it starts)")
            return ledger.check(conn)
    except LedgerUnreadable:
        raise
    except Exception as exc:  # unreachable server, refused login...
        raise LedgerUnreadable(f"cannot read the database: {type(exc).__name__}: "
                               f"{str(exc).splitlines()[0] if str(exc) else ''}") from None
    finally:
        engine.dispose()
