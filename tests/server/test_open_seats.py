"""``POST /api/seats/open`` (issue 27, point 1: "Continue your game"): the seats at tables not
over that a browser's seat tokens and the logged-in account hold, with the table's public facts
only; and ``GET /api/tables/{id}`` for an account seated at a private table without its invite.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from server_helpers import LiveServer
from sqlalchemy import update
from test_accounts import Browser

from ginrummy.storage import open_engine
from ginrummy.storage.models import TableRow


@pytest.fixture
def browsers(server: LiveServer) -> Iterator[Callable[[], Browser]]:
    """``browsers()`` makes a new :class:`Browser` (its own cookie) on the test server."""
    made: list[Browser] = []

    def make() -> Browser:
        made.append(Browser(server))
        return made[-1]

    yield make
    for browser in made:
        browser.close()


def open_seats(client: Browser, tokens: list[dict[str, str]]) -> Any:
    answer = client.post("/api/seats/open", {"tokens": tokens})
    assert answer.status_code == 200, answer.text
    return answer.json()["seats"]


def set_status(server: LiveServer, table_id: str, status: str) -> None:
    engine = open_engine(server.settings.db)
    try:
        with engine.begin() as conn:
            conn.execute(update(TableRow.__table__).where(TableRow.__table__.c.id == table_id)
                         .values(status=status))
    finally:
        engine.dispose()


def test_a_seat_token_finds_its_game_and_nothing_else(server: LiveServer, browsers: Any) -> None:
    """A right token lists its table (a private one too, without the invite); a wrong token,
    another table's token, an unknown table and a table over list nothing; the answer holds no
    token, invite or card."""
    guest = browsers()
    mine = guest.post("/api/tables", {"nickname": "Ann", "public": False,
                                      "bots": {"1": "simple"}}).json()
    other = server.create(nickname="Cy")
    seats = open_seats(guest, [
        {"table_id": mine["table_id"], "token": mine["token"]},
        {"table_id": other["table_id"], "token": mine["token"]},  # not that table's token
        {"table_id": mine["table_id"], "token": "x" * 32},
        {"table_id": "NoSuchTable", "token": mine["token"]},
    ])
    assert [(s["table_id"], s["seat"], s["public"]) for s in seats] == [
        (mine["table_id"], 0, False)]
    assert [(s["seat"], s["kind"]) for s in seats[0]["seats"]] == [(0, "human"), (1, "bot")]
    assert seats[0]["seats"][1]["level"] == "simple"
    text = json.dumps(seats)
    for secret in (mine["token"], mine["invite"], "token", "invite", "hand"):
        assert secret not in text, secret
    set_status(server, mine["table_id"], "over")
    assert open_seats(guest, [{"table_id": mine["table_id"], "token": mine["token"]}]) == []


def test_an_account_finds_its_seats_from_any_device(server: LiveServer, browsers: Any) -> None:
    """A logged-in account's seats are listed without any token (another device), newest
    first; a guest with no token gets an empty list; a private table's entry is the seated
    account's without the invite, and still refused to anyone else."""
    phone, desktop, stranger = browsers(), browsers(), browsers()
    phone.signup("Resumer")
    first = phone.post("/api/tables", {"nickname": "x", "public": False}).json()
    second = phone.post("/api/tables", {"nickname": "x", "bots": {"1": "simple"}}).json()
    assert desktop.login("Resumer").status_code == 200
    found = [s["table_id"] for s in open_seats(desktop, [])]
    assert found == [second["table_id"], first["table_id"]]
    assert open_seats(stranger, []) == []
    entry = desktop.get(f"/api/tables/{first['table_id']}")
    assert entry.status_code == 200 and entry.json()["your_seat"] == 0
    assert stranger.get(f"/api/tables/{first['table_id']}").status_code == 403


def test_a_malformed_query_is_refused_with_its_field(server: LiveServer, browsers: Any) -> None:
    """More than 20 tokens, a too long table id or an unknown field: 400/422 naming it."""
    guest = browsers()
    many = [{"table_id": f"t{i}", "token": "x"} for i in range(21)]
    for body, field in (({"tokens": many}, "tokens"),
                        ({"tokens": [{"table_id": "y" * 40, "token": "x"}]}, "table_id"),
                        ({"tokens": [], "more": 1}, "more")):
        answer = guest.post("/api/seats/open", body)
        assert answer.status_code in (400, 422), answer.text
        assert field in answer.text
