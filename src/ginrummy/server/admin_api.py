"""Moderation and operations: the admin routes, chat reports and /metrics (docs/moderation.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.routing import BaseRoute

if TYPE_CHECKING:
    from ginrummy.server.app import Server

ROUTES: list[BaseRoute] = []


def install(server: Server) -> None:
    """Register this module's hooks on the server at start-up."""
