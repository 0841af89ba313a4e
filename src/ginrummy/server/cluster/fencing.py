"""Fencing in the database: a commit by a table's owner stores the owner's lease token in
``table_owners`` inside the commit's own transaction, and fails when a newer owner's token is
stored there already, so a process that lost its lease (paused, partitioned, slow) can never
commit after the next owner has (docs/cluster.md).

:func:`fence_op` is the check as a write operation of the repository (an
:class:`~ginrummy.storage.repository.Apply`): a commit path adds it to a batch, and the batch
commits whole or, with :class:`FencedOut`, not at all. :func:`claim` is the same check in a
transaction of its own, which a new owner runs before it loads a table it took over.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, Table, select, text
from sqlalchemy.engine import Connection

from ginrummy.server.cluster.lease import Lease
from ginrummy.storage.models import TableOwnerRow
from ginrummy.storage.repository import Apply, WriteOp, utcnow

OWNERS: Table = TableOwnerRow.__table__  # type: ignore[assignment]


class FencedOut(RuntimeError):
    """A newer owner's token is stored for these tables: this process no longer owns them
    and its transaction was rolled back."""

    def __init__(self, table_ids: Sequence[str], detail: str) -> None:
        self.table_ids = tuple(table_ids)
        super().__init__(f"fenced out of table {', '.join(self.table_ids)}: {detail}")


@dataclass(frozen=True)
class Fence:
    """The right to commit a table's writes: its owner's id and lease token."""

    table_id: str
    token: int
    owner: str

    def __post_init__(self) -> None:
        if self.token <= 0:
            raise ValueError(f"fencing token of table {self.table_id!r} must be positive, "
                             f"not {self.token}")

    @classmethod
    def of(cls, lease: Lease) -> Fence:
        """The fence of a held lease."""
        return cls(lease.table_id, lease.token, lease.owner)


def token_upsert(conn: Connection, table: Table, key: Any, rows: list[dict[str, Any]]) -> Any:
    """The statement that stores each row's ``token`` (with its ``owner`` and ``updated_at``)
    in ``table`` unless a larger token is stored for its ``key`` column, returning the keys
    stored: the fence of a table (``table_owners``) and of a duty (``duty_owners``)."""
    name = conn.dialect.name
    if name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    elif name == "sqlite":
        from sqlalchemy.dialects.sqlite import insert  # type: ignore[assignment]
    else:
        raise NotImplementedError(f"fencing needs PostgreSQL or SQLite, not {name}")
    stmt = insert(table).values(rows)
    excluded = stmt.excluded
    return stmt.on_conflict_do_update(
        index_elements=[key],
        set_={"token": excluded.token, "owner": excluded.owner,
              "updated_at": excluded.updated_at},
        where=table.c.token <= excluded.token,
    ).returning(key)


_PG_UPSERT = text(
    "INSERT INTO table_owners (table_id, token, owner, updated_at) "
    "SELECT f.table_id, f.token, f.owner, :now FROM unnest("
    "CAST(:ids AS VARCHAR[]), CAST(:tokens AS BIGINT[]), CAST(:owners AS VARCHAR[])) "
    "WITH ORDINALITY AS f(table_id, token, owner, n) ORDER BY f.n "
    "ON CONFLICT (table_id) DO UPDATE SET token = EXCLUDED.token, owner = EXCLUDED.owner, "
    "updated_at = EXCLUDED.updated_at WHERE table_owners.token <= EXCLUDED.token "
    "RETURNING table_id")
"""The upsert of :func:`token_upsert` on ``table_owners`` for PostgreSQL from three arrays
(2,000 rows bound as 8,000 parameters cost seconds of Python; as arrays, milliseconds)."""


def check_fences(conn: Connection, fences: Iterable[Fence]) -> None:
    """Store each fence's token unless a larger one is stored (one statement, rows in table
    order so concurrent commits lock them in the same order); raise :class:`FencedOut`,
    naming every stale table, when any is. The caller's transaction must then roll back."""
    by_table: dict[str, Fence] = {}
    for fence in fences:
        known = by_table.get(fence.table_id)
        if known is not None and known != fence:
            raise ValueError(f"two fences for table {fence.table_id!r} in one commit: "
                             f"tokens {known.token} and {fence.token}")
        by_table[fence.table_id] = fence
    if not by_table:
        return
    now = utcnow()
    ordered = [by_table[t] for t in sorted(by_table)]
    if conn.dialect.name == "postgresql":  # three arrays: no statement grows with the rows
        result = conn.execute(_PG_UPSERT, {
            "ids": [f.table_id for f in ordered], "tokens": [f.token for f in ordered],
            "owners": [f.owner for f in ordered], "now": now})
    else:
        result = conn.execute(token_upsert(conn, OWNERS, OWNERS.c.table_id, [
            {"table_id": f.table_id, "token": f.token, "owner": f.owner, "updated_at": now}
            for f in ordered]))
    stored = {row[0] for row in result}
    stale = [f for f in ordered if f.table_id not in stored]
    if stale:
        tokens = ", ".join(f"{f.table_id}: {f.token}" for f in stale)
        raise FencedOut([f.table_id for f in stale],
                        f"a newer owner's token is stored (this owner's tokens: {tokens})")


def fence_op(fences: Iterable[Fence]) -> Apply:
    """The fencing check as a repository write operation (run in the batch's transaction: if
    any table is fenced out, :class:`FencedOut` rolls the whole batch back)."""
    fixed = tuple(fences)

    def run(conn: Connection) -> None:
        check_fences(conn, fixed)

    return Apply(run)


def fenced(ops: Sequence[WriteOp], fences: Iterable[Fence]) -> list[WriteOp]:
    """``ops`` with the fencing check of ``fences`` in front (unchanged when there are none:
    one process without Redis owns every table and needs no fence). The repository runs its
    ``Apply`` operations after the batch's other statements, in their order: the check comes
    before the other ``Apply`` writes, and its failure rolls back everything alike."""
    fixed = tuple(fences)
    return [fence_op(fixed), *ops] if fixed else list(ops)


def claim(engine: Engine, fence: Fence) -> None:
    """Store a new owner's token in a transaction of its own, before it loads the table: from
    then on every commit of an older owner fails, so the state it loads is final."""
    with engine.begin() as conn:
        check_fences(conn, [fence])


def claim_many(engine: Engine, fences: Iterable[Fence]) -> tuple[str, ...]:
    """Claim several tables in one transaction (one commit for a whole takeover); the ids of
    those a newer token holds, which are not claimed (the others are)."""
    pending = list(fences)
    refused: list[str] = []
    while pending:
        try:
            with engine.begin() as conn:
                check_fences(conn, pending)
            break
        except FencedOut as exc:
            refused += exc.table_ids
            pending = [f for f in pending if f.table_id not in exc.table_ids]
    return tuple(refused)


def stored_tokens(engine: Engine, table_ids: Iterable[str]) -> dict[str, int]:
    """The tokens stored for the tables that have one (one query)."""
    ids = list(table_ids)
    if not ids:
        return {}
    with engine.connect() as conn:
        rows = conn.execute(select(OWNERS.c.table_id, OWNERS.c.token)
                            .where(OWNERS.c.table_id.in_(ids))).all()
    return {row[0]: int(row[1]) for row in rows}


def stored_token(engine: Engine, table_id: str) -> int:
    """The largest token stored for a table (0: never claimed); a floor for a new lease when
    Redis has lost its counters."""
    with engine.connect() as conn:
        token = conn.execute(
            select(OWNERS.c.token).where(OWNERS.c.table_id == table_id)).scalar()
    return int(token or 0)


class Fencer:
    """The fences a process puts on its commits: its current leases, by table."""

    def __init__(self, leases: Mapping[str, Lease] | None = None) -> None:
        self.leases: Mapping[str, Lease] = leases if leases is not None else {}

    def fences(self, table_ids: Iterable[str]) -> list[Fence]:
        """The fence of each table (a table this process holds no lease for is an error: it
        must not write it)."""
        result = []
        for table_id in dict.fromkeys(table_ids):
            lease = self.leases.get(table_id)
            if lease is None:
                raise FencedOut([table_id], "this process holds no lease on it")
            result.append(Fence.of(lease))
        return result


class NoFencer(Fencer):
    """One process without Redis: it owns every table, its commits carry no fence."""

    def fences(self, table_ids: Iterable[str]) -> list[Fence]:
        """No fences."""
        return []
