"""A table writer's fair-deal seeds: who sends client seeds, the seeds of the latest hand
stored, a ``seed`` message, and the seeds the next deal waits for (docs/fair.md).

:class:`~ginrummy.server.play.tablewriter.TableWriter` keeps one :class:`TableSeeds` and
calls it under its lock; the commits, broadcasts and timers stay the writer's (passed in as
callables), so this module needs nothing of the writer.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from ginrummy.server.core.kinds import SeatKind
from ginrummy.server.core.protocol import Code, MessageError, SeedMessage
from ginrummy.server.core.settings import Settings
from ginrummy.server.play.committer import CommitFailed, GroupCommitter
from ginrummy.server.play.connections import Connection
from ginrummy.server.play.fairdeal import FairHand, new_fair_hand, parse_seed, pending
from ginrummy.server.play.messages import error
from ginrummy.server.play.table import GameTable
from ginrummy.storage import Repository, WriteOp
from ginrummy.storage.fairseeds import load_latest

CommitWrites = Callable[[list[WriteOp]], Awaitable[None]]
"""The writer's commit of extra writes (a bumped version, then a broadcast)."""


class TableSeeds:
    """The seeds state of one table: the seeders and the latest stored hand's seeds."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.seeders: set[Connection] = set()
        """Connections whose client sends a client seed for each hand (``hello`` ``seeds``)."""
        self.seeding_seats: set[int] = set()
        """Seats whose person said (creating or joining) that its client sends seeds: a deal
        waits for them before they connect."""
        self.fair_stored: FairHand | None = None
        """The seeds of the latest hand whose server seed is stored (kept on a reload)."""

    async def restore(self, table: GameTable, repository: Repository) -> None:
        """On start: the seeds stored before a restart (a committed hand deals from them)."""
        stored = await asyncio.get_running_loop().run_in_executor(
            None, load_latest, repository.engine, table.id)
        if stored is None:
            return
        table.fair = self.fair_stored = FairHand.from_stored(stored)
        if stored.deal_version is None:  # never asked again under this commitment:
            table.fair.make_missing([  # the seeds not stored are the server's
                s.seat for s in table.seats if s.kind != SeatKind.EMPTY])

    def arrived(self, table: GameTable, seat: int) -> bool:
        """A seat's connection arrived: True when the hand waiting to be dealt had no client
        seed of it (made by the server now unless one of its connections sends seeds)."""
        waiting = pending(table)
        if waiting is None or waiting.client_seeds[seat] is not None:
            return False
        if not any(c.seat == seat for c in self.seeders):
            waiting.make_missing([seat])  # its client sends none: the server does
        return True

    def forget_seat(self, seat: int) -> None:
        """A seat emptied: neither it nor its connections send seeds any more."""
        self.seeding_seats.discard(seat)
        self.seeders = {c for c in self.seeders if c.seat != seat}

    async def receive(self, table: GameTable, conn: Connection, msg: SeedMessage,
                      committer: GroupCommitter) -> bool | None:
        """A ``seed`` message, stored before anyone learns it (a restart deals from it,
        never asks again): True when every seat has one now, False when some are missing,
        ``None`` when refused (the error sent to ``conn``)."""
        if conn.seat is None:
            conn.send(error(Code.NOT_SEATED, "spectators give no client seed"))
            return None
        seeds = pending(table)
        if seeds is None or seeds.hand != msg.hand:
            conn.send(error(Code.SEED_REFUSED, f"hand {msg.hand} is not waiting for "
                            "client seeds"))
            return None
        seat = conn.seat
        try:
            seeds.give(seat, parse_seed(msg.hand, msg.seed))
        except MessageError as exc:
            conn.send(error(exc.code, str(exc)))
            return None
        try:
            await committer.commit([seeds.seeds_write(table.id)], table.id)
        except CommitFailed as exc:
            seeds.restore(seat, (None, False))
            conn.send(error(Code.STORAGE, f"the seed could not be stored: {exc}"))
            return None
        return seeds.complete

    async def ready(self, table: GameTable, commit: CommitWrites,
                    arm: Callable[[float], None]) -> FairHand | None:
        """The next hand's seeds once they are all known, else ``None`` with ``arm`` called
        with the delay to the missing client seeds' deadline. The server seed is committed
        (stored, then its commitment sent to every connection) first."""
        seeds = pending(table)
        now = time.time()
        if seeds is None:
            seeders = {c.seat for c in self.seeders}
            seats = {s.seat for s in table.seats if s.human and not s.away and (
                s.seat in seeders or (s.connections == 0 and s.seat in self.seeding_seats))}
            table.fair = seeds = new_fair_hand(table, seats)
            await commit([seeds.commitment_write(table.id)])
            self.fair_stored = seeds
        if seeds.deadline is None:  # committed now, or before a restart
            seeds.deadline = now + self.settings.fair_seed_seconds
        if not seeds.complete and now >= seeds.deadline:
            seeds.make_missing()
        if seeds.complete:
            return seeds
        arm(seeds.deadline - now)
        return None
