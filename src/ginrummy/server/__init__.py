"""The online game server: lobby API, WebSocket play, group-committed storage.

``create_app(settings)`` builds the ASGI app; ``ginrummy serve`` runs it under uvicorn.
docs/protocol.md describes the protocol, docs/server.md the architecture.
"""

from ginrummy.server.app import create_app
from ginrummy.server.core.settings import Settings

__all__ = ["Settings", "create_app"]
