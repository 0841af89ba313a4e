"""A small repository over the schema: typed records in, typed records out.

Writes are lists of operations run in one transaction (:meth:`Repository.write`), so a group
committer can batch the pending changes of many tables into a single commit.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import Engine, Table, bindparam, insert, select, update
from sqlalchemy.engine import Connection

from ginrummy.storage.models import EventRow, SeatRow, TableRow

TABLES: Table = TableRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]
EVENTS: Table = EventRow.__table__  # type: ignore[assignment]
T = TypeVar("T")


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """SQLite returns naive datetimes: they are UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class StoredSeat:
    """A seat as stored."""

    seat: int
    kind: str
    name: str | None = None
    level: str | None = None
    token_hash: str | None = None
    rematch: bool = False
    account_id: int | None = None


@dataclass(frozen=True)
class StoredEvent:
    """An event as stored: ``match``, ``deal`` or ``action``."""

    version: int
    kind: str
    payload: str
    seat: int | None = None
    source: str | None = None
    client_id: str | None = None


@dataclass
class StoredTable:
    """A table with its seats and (when loaded) its events in version order."""

    id: str
    name: str
    preset: str
    rules: dict[str, Any]
    players: int
    public: bool
    invite_hash: str | None
    clock_ms: int
    pool_chips: int | None
    status: str
    version: int
    seats: list[StoredSeat]
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime = field(default_factory=utcnow)
    clock_seat: int | None = None
    clock_deadline: float | None = None
    events: list[StoredEvent] = field(default_factory=list)
    buy_in: int | None = None


@dataclass(frozen=True)
class InsertTable:
    """Create a table with its seats (its events are ignored)."""

    table: StoredTable


@dataclass(frozen=True)
class InsertEvent:
    """Append an event to a table."""

    table_id: str
    event: StoredEvent
    at: datetime = field(default_factory=utcnow)


@dataclass(frozen=True)
class UpdateTable:
    """Set columns of a table row (``version``, ``status``, ``clock_seat``, ...)."""

    table_id: str
    values: dict[str, Any]


@dataclass(frozen=True)
class UpdateSeat:
    """Set columns of a seat row (``kind``, ``name``, ``token_hash``, ``rematch``, ...)."""

    table_id: str
    seat: int
    values: dict[str, Any]


@dataclass(frozen=True)
class Apply:
    """Run ``run(connection)`` inside the write's transaction (after the other operations):
    the writes of the players' layer (ratings, match statistics, chip transfers) that must
    commit together with a table's event, or not at all."""

    run: Callable[[Connection], None]


WriteOp = InsertTable | InsertEvent | UpdateTable | UpdateSeat | Apply

_TABLE_COLUMNS = frozenset(c.name for c in TABLES.columns) - {"id", "created_at"}
_MOVE_COLUMNS = frozenset(("version", "status", "clock_seat", "clock_deadline"))
"""What every action updates in its table's row."""


@dataclass
class _FastSql:
    """The two statements of every action as driver SQL, each run for a whole batch as one
    ``executemany`` of a prepared one-row statement (SQLAlchemy's statement building cost more
    CPU than the commit itself). psycopg sends an ``executemany`` in one round trip (pipeline
    mode). On SQLite, one multi-row ``INSERT`` and one ``UPDATE ... FROM (VALUES ...)`` a
    batch were tried instead (fewer statements, so fewer times the database thread gives up
    the GIL): at 1,000 tables the server's p99 was higher with them (10.6-15.6 ms against
    9.9-10.2, docs/server-load.md, *The commit path*)."""

    at: Callable[[datetime], Any]
    """A moment as the driver stores it."""
    insert_event: str
    """``INSERT`` of one event (table, version, kind, seat, payload, source, client id, time)."""
    update_move: str
    """``UPDATE`` of one table (time, version, status, clock seat, deadline, id)."""

    @classmethod
    def for_dialect(cls, conn: Connection) -> _FastSql | None:
        """The statements in the dialect's parameter style, written once (None: another
        database, which goes through SQLAlchemy's statements)."""
        dialect = conn.dialect
        mark = {"qmark": "?", "format": "%s", "pyformat": "%s"}.get(dialect.paramstyle)
        if mark is None or dialect.name not in ("sqlite", "postgresql"):
            return None
        insert_event = ("INSERT INTO events (table_id, version, kind, seat, payload, source, "
                        f"client_id, at) VALUES ({', '.join([mark] * 8)})")
        update_move = (f"UPDATE game_tables SET updated_at = {mark}, version = {mark}, "
                       f"status = {mark}, clock_seat = {mark}, clock_deadline = {mark} "
                       f"WHERE id = {mark}")
        if dialect.name == "sqlite":  # what sqlite3's default adapter stores, without it
            return cls(lambda moment: moment.isoformat(" "), insert_event, update_move)
        return cls(lambda moment: moment, insert_event, update_move)


_SEAT_COLUMNS = frozenset(c.name for c in SEATS.columns) - {"table_id", "seat"}


class Repository:
    """Reads and batched writes on one engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._fast: _FastSql | None = None
        self._fast_known = False
        self._writer: Connection | None = None
        self._write_lock = threading.Lock()

    # ----------------------------------------------------------------- writes
    def write(self, ops: Sequence[WriteOp]) -> None:
        """Run every operation in one transaction: all of them are committed, or none."""
        with self._transaction() as conn:
            self._write(conn, ops)

    def write_each(self, writes: Sequence[Sequence[WriteOp]]) -> list[BaseException | None]:
        """Run each of ``writes`` in a savepoint of one transaction: a write that fails is
        rolled back alone (its error in its place of the answer, ``None`` for those stored)
        and the others commit together. Raises only when the transaction itself fails (the
        connection lost, the commit refused): then nothing was stored.

        The group committer's path after a failed batch: one bad write never costs the
        others their commit, nor a commit each."""
        errors: list[BaseException | None] = []
        with self._transaction() as conn:
            if conn.dialect.name == "sqlite":
                # sqlite3 begins a transaction only before a data change: a SAVEPOINT
                # first would begin (and its RELEASE commit) one of its own
                conn.exec_driver_sql("BEGIN")
            for ops in writes:
                try:
                    with conn.begin_nested():
                        self._write(conn, ops)
                except Exception as exc:
                    if conn.invalidated:  # the connection is gone: so is the batch
                        raise
                    errors.append(exc)
                else:
                    errors.append(None)
        return errors

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Connection]:
        """One transaction of :meth:`write` or :meth:`write_each`, committed when the block
        ends. Writes run on a connection the repository keeps between them (no pool
        checkout, ping and reset per commit); a transaction that fails closes it, the next
        opens a new one."""
        with self._write_lock:
            conn = self._writer
            if conn is None or conn.closed or conn.invalidated:
                conn = self._writer = self.engine.connect()
            try:
                with conn.begin():
                    yield conn
            except BaseException:
                self._writer = None
                with contextlib.suppress(Exception):
                    conn.close()
                raise

    def close(self) -> None:
        """Give back the connection of :meth:`write` (the next write opens a new one)."""
        with self._write_lock:
            conn, self._writer = self._writer, None
            if conn is not None:
                conn.close()

    def _write(self, conn: Connection, ops: Sequence[WriteOp]) -> None:
        new_tables: list[StoredTable] = []
        events: list[InsertEvent] = []
        seat_values: dict[tuple[str, int], dict[str, Any]] = {}
        table_values: dict[str, dict[str, Any]] = {}
        applies: list[Apply] = []
        for op in ops:  # later updates of the same row win
            if isinstance(op, InsertEvent):
                events.append(op)
            elif isinstance(op, UpdateTable):
                values = op.values
                if not values.keys() <= _TABLE_COLUMNS:
                    _check_columns(values, _TABLE_COLUMNS, "table")
                known = table_values.get(op.table_id)
                table_values[op.table_id] = values if known is None else {**known, **values}
            elif isinstance(op, UpdateSeat):
                _check_columns(op.values, _SEAT_COLUMNS, "seat")
                key = (op.table_id, op.seat)
                seat_values[key] = {**seat_values.get(key, {}), **op.values}
            elif isinstance(op, InsertTable):
                new_tables.append(op.table)
            elif isinstance(op, Apply):
                applies.append(op)
            else:
                raise TypeError(f"not a write operation: {type(op).__name__}")
        if new_tables:
            conn.execute(insert(TABLES), [_table_values(t) for t in new_tables])
            conn.execute(insert(SEATS), [
                {"table_id": t.id, "seat": s.seat, "kind": s.kind, "name": s.name,
                 "level": s.level, "token_hash": s.token_hash, "rematch": s.rematch,
                 "account_id": s.account_id}
                for t in new_tables for s in t.seats])
        fast = self._fast_sql(conn)
        if events and fast is not None:
            at = fast.at
            conn.exec_driver_sql(fast.insert_event, [
                (op.table_id, op.event.version, op.event.kind, op.event.seat, op.event.payload,
                 op.event.source, op.event.client_id, at(op.at))
                for op in events])
        elif events:
            conn.execute(insert(EVENTS), [
                {"table_id": op.table_id, "version": op.event.version, "kind": op.event.kind,
                 "seat": op.event.seat, "payload": op.event.payload, "source": op.event.source,
                 "client_id": op.event.client_id, "at": op.at}
                for op in events])
        for keys, rows in _group_by_keys(
            ({"b_table": t, "b_seat": s, **v} for (t, s), v in seat_values.items())
        ):
            stmt = (update(SEATS)
                    .where(SEATS.c.table_id == bindparam("b_table"),
                           SEATS.c.seat == bindparam("b_seat"))
                    .values({k: bindparam(k) for k in keys}))
            conn.execute(stmt, rows)
        now = utcnow()
        if fast is not None and table_values:  # the update of every action: one executemany
            moves = [t for t, v in table_values.items() if v.keys() == _MOVE_COLUMNS]
            if moves:
                stamp = fast.at(now)
                rows_of_moves = []
                for table_id in moves:
                    v = table_values.pop(table_id)
                    rows_of_moves.append((stamp, v["version"], v["status"], v["clock_seat"],
                                          v["clock_deadline"], table_id))
                conn.exec_driver_sql(fast.update_move, rows_of_moves)
        for keys, rows in _group_by_keys(
            ({"b_id": t, **v, "updated_at": now} for t, v in table_values.items())
        ):
            stmt = (update(TABLES).where(TABLES.c.id == bindparam("b_id"))
                    .values({k: bindparam(k) for k in keys}))
            conn.execute(stmt, rows)
        for apply in applies:
            apply.run(conn)

    def _fast_sql(self, conn: Connection) -> _FastSql | None:
        if not self._fast_known:
            self._fast, self._fast_known = _FastSql.for_dialect(conn), True
        return self._fast

    # ----------------------------------------------------------------- reads
    def load_table(self, table_id: str) -> StoredTable | None:
        """One table with its seats and events, or ``None``."""
        found = self.load_tables(ids=[table_id])
        return found[0] if found else None

    def load_tables(self, statuses: Iterable[str] | None = None,
                    ids: Iterable[str] | None = None,
                    updated_since: datetime | None = None) -> list[StoredTable]:
        """Tables (with seats and events), oldest first, filtered by status, id or age."""
        query = select(TABLES).order_by(TABLES.c.created_at, TABLES.c.id)
        if statuses is not None:
            query = query.where(TABLES.c.status.in_(list(statuses)))
        if ids is not None:
            query = query.where(TABLES.c.id.in_(list(ids)))
        if updated_since is not None:
            query = query.where(TABLES.c.updated_at >= updated_since)
        with self.engine.connect() as conn:
            rows = conn.execute(query).mappings().all()
            tables = {r["id"]: _stored_table(r) for r in rows}
            if not tables:
                return []
            keys = list(tables)
            for chunk in _chunks(keys, 500):
                for s in conn.execute(select(SEATS).where(SEATS.c.table_id.in_(chunk))
                                      .order_by(SEATS.c.table_id, SEATS.c.seat)).mappings():
                    tables[s["table_id"]].seats.append(StoredSeat(
                        s["seat"], s["kind"], s["name"], s["level"], s["token_hash"],
                        bool(s["rematch"]), s["account_id"]))
                for e in conn.execute(select(EVENTS).where(EVENTS.c.table_id.in_(chunk))
                                      .order_by(EVENTS.c.table_id, EVENTS.c.version)).mappings():
                    tables[e["table_id"]].events.append(StoredEvent(
                        e["version"], e["kind"], e["payload"], e["seat"], e["source"],
                        e["client_id"]))
        return list(tables.values())

    def count_events(self, table_id: str) -> int:
        """How many events a table has."""
        with self.engine.connect() as conn:
            return len(conn.execute(select(EVENTS.c.version)
                                    .where(EVENTS.c.table_id == table_id)).all())


def _table_values(t: StoredTable) -> dict[str, Any]:
    return {
        "id": t.id, "name": t.name, "preset": t.preset, "rules": json.dumps(t.rules),
        "players": t.players, "public": t.public, "invite_hash": t.invite_hash,
        "clock_ms": t.clock_ms, "pool_chips": t.pool_chips, "buy_in": t.buy_in,
        "status": t.status,
        "version": t.version, "clock_seat": t.clock_seat, "clock_deadline": t.clock_deadline,
        "created_at": t.created_at, "updated_at": t.updated_at,
    }


def _stored_table(r: Any) -> StoredTable:
    return StoredTable(
        id=r["id"], name=r["name"], preset=r["preset"], rules=json.loads(r["rules"]),
        players=r["players"], public=bool(r["public"]), invite_hash=r["invite_hash"],
        clock_ms=r["clock_ms"], pool_chips=r["pool_chips"], status=r["status"],
        version=r["version"], seats=[], created_at=as_utc(r["created_at"]),
        updated_at=as_utc(r["updated_at"]), clock_seat=r["clock_seat"],
        clock_deadline=r["clock_deadline"], buy_in=r["buy_in"])


def _check_columns(values: dict[str, Any], allowed: frozenset[str], what: str) -> None:
    unknown = set(values) - allowed
    if unknown:
        raise ValueError(f"no {what} column {sorted(unknown)[0]!r}")


def _group_by_keys(
    rows: Iterable[dict[str, Any]],
) -> list[tuple[list[str], list[dict[str, Any]]]]:
    groups: dict[frozenset[str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[frozenset(row)].append(row)
    return [(sorted(k for k in keys if not k.startswith("b_")), rows)
            for keys, rows in groups.items()]


def _chunks(items: list[T], size: int) -> Iterable[list[T]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]
