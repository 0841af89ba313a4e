"""The web client's pages: each path below serves the client's ``index.html``, whose script
shows the page the path names (``/players/NAME``, ``/leaderboard``, ``/replay/ID``...)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ginrummy.server.http import static

PAGE_PATHS = ("/login", "/signup", "/account", "/leaderboard", "/leaderboard/{category}",
              "/history", "/history/{name}", "/wallet", "/admin", "/fair", "/tutorial",
              "/friends", "/tournaments", "/tournaments/{tournament_id}")
"""Client pages that need no check (``/players/NAME`` answers 404 for an unknown name and
``/replay/ID`` 404 or 403 for a match the viewer may not see: they are routed by
:mod:`ginrummy.server.http.player_api`)."""


def index_page(request: Request, status_code: int = 200) -> Response:
    """The client's ``index.html`` (the page's script reads the path), ``no-cache``, its
    assets at the current version's URLs (:mod:`ginrummy.server.http.static`)."""
    return static.index_response(request.app.state.server.settings.static_dir, status_code,
                                 accept_language=request.headers.get("accept-language", ""))


async def page(request: Request) -> Response:
    """``GET`` a client page."""
    return index_page(request)


ROUTES = [Route(path, page, methods=["GET", "HEAD"]) for path in PAGE_PATHS]
