"""``ginrummy admin create NAME [--db URL] [--promote]`` (issue 12, 6): the first
administrator, its password from standard input or asked twice, the moderation log row, a
database migrated first; refusals with their exit status."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from ginrummy.cli import admin as admin_module
from ginrummy.server.players.names import name_key
from ginrummy.server.players.sessions import hash_password, password_ok
from ginrummy.storage import open_engine
from ginrummy.storage.accounts import AccountStore
from ginrummy.storage.models import ModerationRow

PASSWORD = "admin password 1"


def _store(url: str) -> AccountStore:
    return AccountStore(open_engine(url))


def _log(url: str) -> list[tuple[Any, ...]]:
    engine = open_engine(url)
    try:
        with engine.connect() as conn:
            table = ModerationRow.__table__
            return [tuple(r) for r in conn.execute(
                select(table.c.action, table.c.actor_id, table.c.target_account_id,
                       table.c.detail).order_by(table.c.id))]
    finally:
        engine.dispose()


class _Pipe(io.StringIO):
    """Standard input that is not a terminal."""

    def isatty(self) -> bool:
        return False


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_create_reads_the_password_from_a_pipe_and_logs_it(
        tmp_path: Path, cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 'new.db'}"  # a database that does not exist yet
    monkeypatch.setattr(sys, "stdin", _Pipe(PASSWORD + "\n"))
    run = cli("admin", "create", "Root", "--db", url)
    assert run.code == 0, run.err
    assert "administrator Root created" in run.out
    assert PASSWORD not in run.out + run.err
    store = _store(url)
    account = store.by_key(name_key("root"))
    assert account is not None and account.admin and account.name == "Root"
    assert password_ok(account.password_hash, PASSWORD)
    assert not password_ok(account.password_hash, PASSWORD + "\n")
    assert _log(url) == [("admin", None, account.id, "created by ginrummy admin create")]

    # the name (or a look-alike) is taken: refused, nothing more logged
    monkeypatch.setattr(sys, "stdin", _Pipe(PASSWORD + "\n"))
    taken = cli("admin", "create", "R00T", "--db", url)
    assert taken.code == 1 and "taken" in taken.err and "--promote" in taken.err
    assert store.count() == 1 and len(_log(url)) == 1
    store.engine.dispose()


def test_promote_makes_an_existing_account_admin(tmp_path: Path,
                                                 cli: Callable[..., Any]) -> None:
    url = f"sqlite:///{tmp_path / 'g.db'}"
    missing = cli("admin", "create", "Pat", "--promote", "--db", url)
    assert missing.code == 1 and "no account 'Pat'" in missing.err
    store = _store(url)
    player = store.create("Pat", name_key("Pat"), hash_password("player password"))
    assert not player.admin
    run = cli("admin", "create", "pat", "--promote", "--db", url)
    assert run.code == 0 and "now an administrator" in run.out
    promoted = store.by_id(player.id)
    assert promoted is not None and promoted.admin
    assert _log(url) == [("admin", None, player.id,
                          "promoted by ginrummy admin create --promote")]
    again = cli("admin", "create", "Pat", "--promote", "--db", url)
    assert again.code == 0 and "already" in again.out and len(_log(url)) == 1
    store.engine.dispose()


def test_bad_names_and_passwords_are_refused_with_status_2(
        tmp_path: Path, cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 'b.db'}"
    bad_name = cli("admin", "create", "a b", "--db", url)
    assert bad_name.code == 2 and "NAME" in bad_name.err
    monkeypatch.setattr(sys, "stdin", _Pipe("short\n"))
    short = cli("admin", "create", "Root", "--db", url)
    assert short.code == 2 and "8 to 128" in short.err
    # at a terminal the password is asked twice, without echo; the two must match
    monkeypatch.setattr(sys, "stdin", _Terminal(""))
    answers = iter([PASSWORD, PASSWORD + "x"])
    prompts: list[str] = []

    def fake_getpass(prompt: str = "") -> str:
        prompts.append(prompt)
        return next(answers)

    monkeypatch.setattr(admin_module.getpass, "getpass", fake_getpass)
    differ = cli("admin", "create", "Root", "--db", url)
    assert differ.code == 2 and "differ" in differ.err and len(prompts) == 2
    assert _store(url).count() == 0
    answers = iter([PASSWORD, PASSWORD])
    assert cli("admin", "create", "Root", "--db", url).code == 0
    assert cli("admin").code == 2  # no action given


def test_the_installed_command_reads_standard_input(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'p.db'}"
    script = Path(sys.executable).with_name("ginrummy")
    command = [str(script)] if script.exists() else [
        sys.executable, "-c", "from ginrummy.cli.main import main; raise SystemExit(main())"]
    done = subprocess.run([*command, "admin", "create", "Boss", "--db", url],
                          input=PASSWORD + "\n", capture_output=True, text=True, timeout=120,
                          env={**os.environ}, check=False)
    assert done.returncode == 0, done.stderr
    account = _store(url).by_key(name_key("Boss"))
    assert account is not None and account.admin
    assert password_ok(account.password_hash, PASSWORD)
