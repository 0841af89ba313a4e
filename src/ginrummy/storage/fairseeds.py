"""Each hand's fair-deal seeds kept in the database (``hand_seeds``, docs/fair.md).

:func:`save_commitment` stores a hand's server seed and commitment (an
:class:`~ginrummy.storage.Apply` for the group committer) before the commitment is sent;
:func:`save_seeds` stores the client seeds as they arrive (a restart deals from them) and
:func:`save_deal` stores them with the deal's version, with the deal.
Reads run in a worker thread, never on the event loop. Nothing here is readable by a
client: the server sends a seed only once its hand is over (:mod:`ginrummy.server.play.fairdeal`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, Table, insert, select, update
from sqlalchemy.engine import Connection

from ginrummy.storage.models import HandSeedRow
from ginrummy.storage.repository import Apply

HAND_SEEDS: Table = HandSeedRow.__table__  # type: ignore[assignment]


@dataclass(frozen=True)
class StoredSeeds:
    """One hand's seeds as stored (hex text; a client seed is ``None`` until the deal)."""

    version: int
    """The table version at which the server seed was committed."""
    hand: int
    server_seed: str
    commitment: str
    client_seeds: list[str | None]
    server_made: list[bool]
    deal_version: int | None = None
    scheme: int = 2
    """The fair scheme (docs/fair.md): 1 for the hands committed before scheme 2."""


def save_commitment(table_id: str, seeds: StoredSeeds) -> Apply:
    """The write of a hand's new server seed and commitment (with the client seeds known)."""
    values = {"table_id": table_id, "version": seeds.version, "hand": seeds.hand,
              "server_seed": seeds.server_seed, "commitment": seeds.commitment,
              "client_seeds": json.dumps(seeds.client_seeds),
              "server_made": json.dumps(seeds.server_made), "deal_version": None,
              "scheme": seeds.scheme}

    def run(conn: Connection) -> None:
        conn.execute(insert(HAND_SEEDS).values(values))
    return Apply(run)


def save_seeds(table_id: str, seeds: StoredSeeds) -> Apply:
    """The write of a hand's client seeds known so far and who made them (before the deal:
    each seed received is stored at once)."""
    row = HAND_SEEDS.c

    def run(conn: Connection) -> None:
        done = conn.execute(
            update(HAND_SEEDS)
            .where(row.table_id == table_id, row.version == seeds.version,
                   row.deal_version.is_(None))
            .values(client_seeds=json.dumps(seeds.client_seeds),
                    server_made=json.dumps(seeds.server_made)))
        if done.rowcount != 1:
            raise LookupError(f"table {table_id}: no undealt hand committed at version "
                              f"{seeds.version}")
    return Apply(run)


def save_deal(table_id: str, seeds: StoredSeeds) -> Apply:
    """The write of a hand's client seeds, who made them and its deal's version (committed
    with the deal)."""
    row = HAND_SEEDS.c

    def run(conn: Connection) -> None:
        done = conn.execute(
            update(HAND_SEEDS)
            .where(row.table_id == table_id, row.version == seeds.version)
            .values(client_seeds=json.dumps(seeds.client_seeds),
                    server_made=json.dumps(seeds.server_made),
                    deal_version=seeds.deal_version))
        if done.rowcount != 1:
            raise LookupError(f"table {table_id}: no server seed stored at version "
                              f"{seeds.version}")
    return Apply(run)


def _stored(found: Any) -> StoredSeeds:
    m = found._mapping
    return StoredSeeds(m["version"], m["hand"], m["server_seed"], m["commitment"],
                       json.loads(m["client_seeds"]), json.loads(m["server_made"]),
                       m["deal_version"], m["scheme"])


def load_latest(engine: Engine, table_id: str) -> StoredSeeds | None:
    """The seeds of a table's latest committed hand, or ``None``."""
    row = HAND_SEEDS.c
    query = (select(HAND_SEEDS).where(row.table_id == table_id)
             .order_by(row.version.desc()).limit(1))
    with engine.connect() as conn:
        found = conn.execute(query).first()
    return None if found is None else _stored(found)


def load_match(conn: Connection, table_id: str, first_version: int,
               last_version: int) -> list[StoredSeeds]:
    """The seeds of the hands dealt between two versions (a match's), in deal order."""
    row = HAND_SEEDS.c
    query = (select(HAND_SEEDS)
             .where(row.table_id == table_id, row.deal_version >= first_version,
                    row.deal_version <= last_version)
             .order_by(row.deal_version))
    return [_stored(r) for r in conn.execute(query)]
