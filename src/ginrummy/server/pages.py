"""The web client's pages: each path below serves the client's ``index.html``, whose script
shows the page the path names (``/players/NAME``, ``/leaderboard``, ``/replay/ID``...)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Route

PAGE_PATHS = ("/login", "/signup", "/account", "/leaderboard", "/leaderboard/{category}",
              "/history", "/history/{name}", "/replay/{match_id}", "/wallet", "/admin")
"""Client pages that need no check (``/players/NAME`` answers 404 for an unknown name: it is
routed by :mod:`ginrummy.server.player_api`)."""


def index_page(request: Request, status_code: int = 200) -> Response:
    """The client's ``index.html`` (the page's script reads the path)."""
    index = request.app.state.server.settings.static_dir / "index.html"
    if not index.is_file():
        return PlainTextResponse("ginrummy server: the web client is missing\n", 404)
    return FileResponse(index, status_code=status_code,
                        headers={"cache-control": "no-cache"})


async def page(request: Request) -> Response:
    """``GET`` a client page."""
    return index_page(request)


ROUTES = [Route(path, page, methods=["GET", "HEAD"]) for path in PAGE_PATHS]
