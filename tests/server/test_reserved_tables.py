"""A tournament's reserved table (``Lobby.open_reserved``) has one writer, whenever its
players' clients ask for it: the match stores the table's id before the table opens, so a
client may load the table from the database while its row is being committed (flake 12 of
the soak tests: two writers of one table, each seat at its own, and the match never ended)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from ginrummy.rules import Ruleset
from ginrummy.server.core.settings import Settings
from ginrummy.server.play.committer import GroupCommitter
from ginrummy.server.play.lobby import Lobby
from ginrummy.server.play.tablewriter import TableWriter
from ginrummy.server.players.names import name_key
from ginrummy.storage import InsertTable, Repository, WriteOp, migrate, open_engine
from ginrummy.storage.accounts import AccountStore

TABLE = "TReserved0000001"


class ClientBetweenCommitAndOpen(GroupCommitter):
    """Once the table's row is committed, a client loads the table before ``open_reserved``
    goes on (what a player's client may do: it knows the id)."""

    lobby: Lobby
    loaded: list[TableWriter | None]

    async def commit(self, ops: Sequence[WriteOp], table_id: str | None = None) -> None:
        await super().commit(ops, table_id)
        if any(isinstance(op, InsertTable) for op in ops):
            self.loaded.append(await self.lobby.load(TABLE))


def test_a_client_loading_the_table_as_it_opens_shares_its_only_writer(
        tmp_path: Path) -> None:
    async def run() -> None:
        settings = Settings(db=f"sqlite:///{tmp_path / 'r.db'}", bot_delay_ms=0)
        engine = open_engine(settings.db)
        migrate(engine)
        accounts = [(AccountStore(engine).create(name, name_key(name), "not a real hash",
                                                 "player").id, name) for name in ("Ann", "Bob")]
        repo = Repository(engine)
        committer = ClientBetweenCommitAndOpen(repo)
        committer.loaded = []
        committer.start()
        lobby = committer.lobby = Lobby(settings, repo, committer)
        try:
            opened = await lobby.open_reserved(TABLE, "Cup r1", "classic",
                                               Ruleset.preset("classic"), 60_000, accounts)
            assert opened
            [early] = committer.loaded
            assert early is not None, "the committed table could not be loaded"
            assert lobby.get(TABLE) is early  # not a second writer of the same table
            assert await lobby.load(TABLE) is early
            assert [s.account_id for s in early.table.seats] == [a for a, _ in accounts]
            # opening it again (the driver after a restart) leaves it as it is
            assert not await lobby.open_reserved(TABLE, "Cup r1", "classic",
                                                 Ruleset.preset("classic"), 60_000, accounts)
            assert lobby.get(TABLE) is early
        finally:
            lobby.close()
            await committer.close()
            engine.dispose()

    asyncio.run(run())
