"""``ginrummy admin create NAME [--db URL] [--promote]``: the first administrator.

The database is migrated first (as ``ginrummy serve`` does), so this works on a new
database too. The password is read from standard input when it is not a terminal (the first
line: ``echo "$PASSWORD" | ginrummy admin create ann``), else asked for twice without echo.
``--promote`` makes an existing account an administrator instead (no password asked). Either
way a row of the moderation log (action ``admin``) says so.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from ginrummy.storage.accounts import AccountStore

PROG = "ginrummy admin"


class AdminError(Exception):
    """The command cannot do what was asked; the message says why, ``status`` is the exit
    status (1: refused, 2: bad input)."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def add_admin_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``ginrummy admin``."""
    sub = parser.add_subparsers(dest="admin_command", metavar="ACTION", required=True)
    create = sub.add_parser(
        "create", help="make an administrator account",
        description="Make an administrator account NAME (its password read from standard "
        "input when that is not a terminal, else asked twice), or with --promote make the "
        "existing account NAME an administrator. The database is migrated first.")
    create.add_argument("name", metavar="NAME", help="the account name")
    create.add_argument("--db", default=None, metavar="URL",
                        help="database: sqlite:///path/to/file.db (default "
                        "sqlite:///ginrummy.db, or $GINRUMMY_DB) or postgresql://user@host/db")
    create.add_argument("--promote", action="store_true",
                        help="make an existing account an administrator")


def read_password(stdin: TextIO | None = None) -> str:
    """The new password: standard input's first line when it is not a terminal, else asked
    twice (the two must match)."""
    stream = sys.stdin if stdin is None else stdin
    if not stream.isatty():
        return stream.readline().removesuffix("\n").removesuffix("\r")
    first = getpass.getpass("password: ")
    if getpass.getpass("again: ") != first:
        raise AdminError("the two passwords differ", 2)
    return first


def run_admin(args: argparse.Namespace) -> int:
    """Run ``ginrummy admin``; 0 when done, 1 when it could not be, 2 for bad input."""
    from ginrummy.server.players.names import BadName, check_name

    try:
        name = check_name(args.name, staff=True)
    except BadName as exc:
        print(f"{PROG}: error: NAME: {exc}", file=sys.stderr)
        return 2
    try:
        message = promote(args.db, name) if args.promote else create(args.db, name)
    except AdminError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return exc.status
    print(message)
    return 0


def _store(db: str | None) -> AccountStore:
    """The account store of the database, migrated first."""
    from ginrummy.server.core.settings import Settings
    from ginrummy.storage import migrate, open_engine
    from ginrummy.storage.accounts import AccountStore as Store

    engine = open_engine(Settings.from_env(db=db).db)
    migrate(engine)
    return Store(engine)


def create(db: str | None, name: str) -> str:
    """Make the administrator account ``name``; what was done."""
    from ginrummy.server.players.names import name_key
    from ginrummy.server.players.sessions import hash_password, password_problem
    from ginrummy.storage.accounts import NameTaken

    store = _store(db)
    try:
        password = read_password()
        problem = password_problem(password)
        if problem is not None:
            raise AdminError(problem, 2)
        if store.by_key(name_key(name)) is not None:
            raise NameTaken(name)
        account = store.create_admin(name, name_key(name), hash_password(password),
                                     "created by ginrummy admin create")
    except NameTaken:
        raise AdminError(f"the name {name!r} (or one that looks like it) is taken; "
                         f"--promote makes an existing account an administrator") from None
    finally:
        store.engine.dispose()
    return f"administrator {account.name} created (account {account.id})"


def promote(db: str | None, name: str) -> str:
    """Make the existing account ``name`` an administrator; what was done."""
    from ginrummy.server.players.names import name_key

    store = _store(db)
    try:
        account = store.by_key(name_key(name))
        if account is None:
            raise AdminError(f"no account {name!r}")
        if account.admin:
            return f"{account.name} (account {account.id}) is an administrator already"
        store.promote(account.id, "promoted by ginrummy admin create --promote")
    finally:
        store.engine.dispose()
    return f"{account.name} (account {account.id}) is now an administrator"
