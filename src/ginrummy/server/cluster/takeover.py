"""Taking a table over (docs/cluster.md): find the live tables nobody holds, acquire each
one's lease with a token above every token stored for it, and claim it in the database
before loading it, so the old owner can commit nothing more."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from sqlalchemy import Engine

from ginrummy.server.cluster.fencing import (
    Fence,
    FencedOut,
    claim,
    claim_many,
    stored_token,
    stored_tokens,
)
from ginrummy.server.cluster.lease import Lease, LeaseKeeper, LeaseStore

TTL_MS = 6000
"""The default lease: a dead owner's tables are free 6 s after its last renewal."""
SWEEP_SECONDS = 1.0
"""How often a process looks for live tables without an owner."""


async def orphans(store: LeaseStore, table_ids: Iterable[str]) -> list[str]:
    """The tables among ``table_ids`` that nobody holds (their owner died or let go)."""
    ids = list(dict.fromkeys(table_ids))
    held = await store.holders(ids)
    return [t for t in ids if t not in held]


async def take_over(keeper: LeaseKeeper, engine: Engine, table_id: str) -> Lease | None:
    """Become the table's owner: its lease, then its claim in the database (a transaction
    of its own, run in a thread). ``None`` when another process won the lease, or the claim
    found a newer token stored (the lease is then given back)."""
    floor = await asyncio.to_thread(stored_token, engine, table_id)
    lease = await keeper.acquire(table_id, floor)
    if lease is None:
        return None
    try:
        await asyncio.to_thread(claim, engine, Fence.of(lease))
    except FencedOut:
        await keeper.release(table_id)
        return None
    return lease


async def sweep(keeper: LeaseKeeper, engine: Engine, live: Iterable[str]) -> list[Lease]:
    """Take over every live table that has no owner, in three round trips whatever their
    number (their stored tokens, the leases in one pipeline, the claims in one transaction);
    the leases won and claimed."""
    ids = await orphans(keeper.store, live)
    if not ids:
        return []
    stored = await asyncio.to_thread(stored_tokens, engine, ids)
    won = await keeper.acquire_many({t: stored.get(t, 0) for t in ids})
    refused = await asyncio.to_thread(claim_many, engine, [Fence.of(x) for x in won.values()])
    for table_id in refused:
        await keeper.release(table_id)
    return [lease for t, lease in won.items() if t not in refused]
