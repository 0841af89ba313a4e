"""The commit path of a table: apply events in memory, then write them with the table's new
version, status and clock as one group-committed transaction; reload from the database when
that fails, so that memory never runs ahead of what is stored.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence

from ginrummy.server.core.kinds import EventKind
from ginrummy.server.core.settings import Settings
from ginrummy.server.play.clock import turn_key, update_clock
from ginrummy.server.play.committer import CommitFailed, GroupCommitter, is_refusal
from ginrummy.server.play.settlement import Ending, Hooks, MatchEnd
from ginrummy.server.play.table import GameTable, Step
from ginrummy.storage import InsertEvent, Repository, StoredEvent, UpdateSeat, UpdateTable, WriteOp

log = logging.getLogger("ginrummy.server.table")

EventMaker = Callable[[], StoredEvent]
"""Makes the next event from the table as it is then (so several may follow each other)."""


class CommitPath:
    """Writes one table's changes through the group committer."""

    def __init__(self, settings: Settings, committer: GroupCommitter,
                 repository: Repository, hooks: Hooks | None = None) -> None:
        self.settings = settings
        self.committer = committer
        self.repository = repository
        self.hooks = hooks or Hooks()

    async def write(self, table: GameTable, makers: Sequence[EventMaker],
                    extra: Sequence[WriteOp] = (), bump: bool = False) -> None:
        """Apply the events of ``makers`` to ``table`` (``bump``: one more version without an
        event, e.g. a seat filled), then commit them with ``extra``. Raises
        :class:`CommitFailed` when anything fails: ``table`` must then be :meth:`reload`-ed."""
        before = turn_key(table)
        was_over = table.match is not None and table.match.over
        events: list[StoredEvent] = []
        try:
            for make in makers:
                event = make()
                table.apply_event(event)
                events.append(event)
            if bump:
                table.version += 1
            now = time.time()
            update_clock(table, before, now)
            if table.next_deal_at is None and table.next_step() is Step.BETWEEN_HANDS:
                table.next_deal_at = now + self.settings.between_hands_seconds
            ops: list[WriteOp] = [InsertEvent(table.id, e) for e in events]
            ops.extend(extra)
            if table.match is not None and table.match.over and not was_over:
                absent = frozenset(s.seat for s in table.seats if s.human and s.away)
                ops.extend(self.hooks.end(MatchEnd(table, Ending.OVER, absent)))
            if any(e.kind == EventKind.MATCH for e in events):
                ops.extend(UpdateSeat(table.id, s.seat, {"rematch": False}) for s in table.seats)
            ops.append(UpdateTable(table.id, {
                "version": table.version, "status": table.status,
                "clock_seat": table.clock_seat, "clock_deadline": table.clock_deadline}))
            await self.committer.commit(ops, table.id)
        except Exception as exc:
            refused = is_refusal(exc.__cause__)  # a seat refused: not a fault
            log.log(logging.WARNING if refused else logging.ERROR,
                    "table %s: commit failed (%s); reloading it from the database",
                    table.id, type(exc.__cause__ if refused else exc).__name__)
            if isinstance(exc, CommitFailed):
                raise
            raise CommitFailed(f"could not apply the change: {type(exc).__name__}") from exc

    async def write_table(self, table: GameTable, extra: Sequence[WriteOp] = (),
                          **values: object) -> None:
        """Store some columns of the table row (no event, no new version), with ``extra``."""
        await self.committer.commit([UpdateTable(table.id, values), *extra], table.id)

    async def write_seat(self, table: GameTable, seat: int, **values: object) -> None:
        """Store some columns of a seat row."""
        await self.committer.commit([UpdateSeat(table.id, seat, values)], table.id)

    async def reload(self, table: GameTable) -> GameTable:
        """``table`` as the database has it (the live facts of its seats kept)."""
        loop = asyncio.get_running_loop()
        stored = await loop.run_in_executor(None, self.repository.load_table, table.id)
        if stored is None:
            log.error("table %s vanished from the database", table.id)
            return table
        fresh = GameTable.from_stored(stored)
        for old, new in zip(table.seats, fresh.seats, strict=True):
            new.connections, new.away, new.ready = old.connections, old.away, old.ready
        return fresh
