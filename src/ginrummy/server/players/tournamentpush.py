"""Tournament news on the account push socket (``/ws/account``, docs/tournaments.md): "your
match is ready" when a round's start opens a player's table, and "this tournament changed" to
its registered players, so that their pages update without waiting for the next poll.

The driver tells :class:`TournamentPush` (its ``on_ready`` and ``on_change`` listeners); the
messages go through the friends hub's sockets of this process. A socket that opens gets the
account's undecided matches at once (read from the database), so a player who arrives after
the round's start, or on another device, is told too. Only what the tournament's public page
shows is sent: the tournament, the round, the table and the players' names.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Engine

from ginrummy.server.players.friends import FriendsHub
from ginrummy.server.players.tournaments import ReadyMatch, account_names
from ginrummy.storage import tournaments


def ready_message(tournament_id: str, name: str, round: int, table_id: str,
                  players: tuple[tuple[int, str], ...], account_id: int) -> dict[str, Any]:
    """The ``match_ready`` message for one player of a match: ``round`` counts from 0, as
    the API's rounds do; ``opponents`` are the other players' names, in seat order."""
    return {"type": "match_ready", "tournament": tournament_id, "name": name, "round": round,
            "table_id": table_id,
            "opponents": [who for account, who in players if account != account_id]}


class TournamentPush:
    """The driver's listeners that push to the players' sockets, and the greeting of a new
    socket with the account's undecided matches."""

    def __init__(self, hub: FriendsHub, engine: Engine) -> None:
        self.hub = hub
        self.engine = engine

    def ready(self, match: ReadyMatch) -> None:
        """``match_ready`` to each player of a match whose table just opened."""
        for account, _name in match.players:
            self.hub.push(account, ready_message(match.tournament_id, match.tournament,
                                                 match.round, match.table_id, match.players,
                                                 account))

    def changed(self, tournament_id: str, players: list[int]) -> None:
        """``{"type": "tournament", "id"}`` to each registered player: its page reads the
        tournament again."""
        message = {"type": "tournament", "id": tournament_id}
        for account in players:
            self.hub.push(account, message)

    async def greet(self, account_id: int) -> list[Mapping[str, Any]]:
        """The ``match_ready`` messages of ``account_id``'s undecided matches (a new socket's
        first news)."""
        found = await asyncio.get_running_loop().run_in_executor(
            None, self._open_matches, account_id)
        if not found:
            return []
        names = await asyncio.get_running_loop().run_in_executor(
            None, self._names, {p for m in found for p in m.players})
        return [ready_message(m.tournament_id, m.name, m.round, m.table_id,
                              tuple((p, names.get(p, f"#{p}")) for p in m.players), account_id)
                for m in found]

    def _open_matches(self, account_id: int) -> list[tournaments.OpenMatch]:
        with self.engine.connect() as conn:
            return tournaments.open_matches(conn, account_id)

    def _names(self, account_ids: set[int]) -> dict[int, str]:
        with self.engine.connect() as conn:
            return account_names(conn, account_ids)
