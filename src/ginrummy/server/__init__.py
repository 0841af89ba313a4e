"""The online game server: lobby API, WebSocket play, accounts, group-committed storage.

``create_app(settings)`` builds the ASGI app; ``ginrummy serve`` runs it under uvicorn.
docs/server.md maps the folders below and follows one move from the socket to the database
and back; docs/protocol.md describes the protocol.

The folders, from the top down (each imports only from the ones below it, never up; the
engine and :mod:`ginrummy.storage` are below them all; tests/test_architecture.py checks it):

- :mod:`.app`: the composition root: opens storage, builds the committer, the lobby and the
  cluster node, mounts the routes;
- :mod:`.http`: the HTTP surface: JSON routes, the edge middleware, static files, the
  WebSocket endpoint and session, requests forwarded to a table's owner process;
- :mod:`.players`: people: sessions, account names, ratings, chips, moderation, match
  records and replays;
- :mod:`.play`: tables: the lobby, a table's state and its writer, messages, timers, the turn
  clock, computer seats, chat, fair deals, the commit path and the group committer;
- :mod:`.cluster`: several processes on one PostgreSQL and one Redis: leases, fencing, the
  relay, the lobby board, take-overs, this process's node;
- :mod:`.core`: what every folder shares: settings, the wire protocol's client messages and
  close codes, JSON text, kinds, rate limits, secrets, logs.

Importing this package loads none of them: ``create_app`` and ``Settings`` are looked up on
first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ginrummy.server.app import create_app
    from ginrummy.server.core.settings import Settings

__all__ = ["Settings", "create_app"]


def __getattr__(name: str) -> Any:
    """``create_app`` and ``Settings``, imported when first asked for."""
    if name == "create_app":
        from ginrummy.server.app import create_app

        return create_app
    if name == "Settings":
        from ginrummy.server.core.settings import Settings

        return Settings
    raise AttributeError(f"module 'ginrummy.server' has no attribute {name!r}")
