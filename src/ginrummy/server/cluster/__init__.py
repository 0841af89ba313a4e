"""Several server processes on one PostgreSQL and one Redis (issue 14, docs/cluster.md):
table leases with fencing tokens (:mod:`.lease`), the token check of every commit in
PostgreSQL (:mod:`.fencing`), frames between processes (:mod:`.relay`) and the lobby across
processes (:mod:`.directory`), and taking a dead owner's tables over (:mod:`.takeover`).

This process's node (:mod:`.node`) ties them together; it reaches the lobby above it only
through the small ``Lobby`` protocol it declares. The sockets relayed between processes are
the HTTP surface's (:mod:`ginrummy.server.http.bridge`).

May import: :mod:`ginrummy.server.core`, :mod:`ginrummy.storage` and the engine. Never
:mod:`ginrummy.server.play` or anything above it. Only the server imports this package (it
needs ``redis``, of the ``server`` extra).
"""

from __future__ import annotations

from ginrummy.server.cluster.directory import Listed, LobbyBoard
from ginrummy.server.cluster.fencing import (
    Fence,
    FencedOut,
    Fencer,
    NoFencer,
    check_fences,
    claim,
    claim_many,
    fence_op,
    fenced,
    stored_token,
    stored_tokens,
)
from ginrummy.server.cluster.lease import Holder, Lease, LeaseKeeper, LeaseStore, make_owner_id
from ginrummy.server.cluster.relay import Envelope, Relay, RelayError, Subscription
from ginrummy.server.cluster.takeover import orphans, sweep, take_over

__all__ = [
    "Envelope", "Fence", "FencedOut", "Fencer", "Holder", "Lease", "LeaseKeeper", "LeaseStore",
    "Listed", "LobbyBoard", "NoFencer", "Relay", "RelayError", "Subscription", "check_fences",
    "claim", "claim_many", "fence_op", "fenced", "make_owner_id", "orphans", "stored_token",
    "stored_tokens", "sweep", "take_over",
]
