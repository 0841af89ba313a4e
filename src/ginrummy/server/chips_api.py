"""Chips: the wallet, the daily top-up, buy-ins and leaving a table before the deal
(docs/chips.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.routing import BaseRoute

if TYPE_CHECKING:
    from ginrummy.server.app import Server

ROUTES: list[BaseRoute] = []


def install(server: Server) -> None:
    """Register this module's hooks on the server at start-up."""
