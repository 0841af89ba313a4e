"""Tournaments on a live server: the routes (list, one, create, register, withdraw, cancel)
with their refusals, and a 4-player knock-out with a buy-in played at real tables by
WebSocket clients (each match decided by a resignation) from registration to prizes: the
bracket, the tables' players, replay links, ratings and the ledger."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from server_helpers import AccountPush, Client, LiveServer, live_server, resign_once_dealt, until
from sqlalchemy import text
from test_chips import account_id, get, ledger_ok, login, post

from ginrummy.server.players.tournamentpush import TournamentPush
from ginrummy.server.players.tournaments import ReadyMatch
from ginrummy.storage import ledger, open_engine, tournaments


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(tmp_path, tournament_tick_seconds=0.05,
                     tournament_grace_seconds=60.0) as running:
        yield running


def soon(seconds: float = 1.0) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat()


def body(**changes: Any) -> dict[str, Any]:
    made: dict[str, Any] = {"name": "Evening cup", "format": "knockout", "preset": "classic",
                            "starts_at": soon(3600), "min_players": 2, "max_players": 8,
                            "clock_seconds": 30, "buy_in": 100}
    made.update(changes)
    return made


def test_the_routes_and_their_refusals(server: LiveServer) -> None:
    admin, ann, bob = login(server, "Admin", "admin"), login(server, "Ann"), login(server, "Bob")
    assert post(server, "/api/tournaments", body(), ann).status_code == 403
    assert post(server, "/api/tournaments", body()).status_code == 401
    for bad, field in ((body(format="ladder"), "format"), (body(preset="nope"), "preset"),
                       (body(clock_seconds=0), "clock_seconds"),
                       (body(starts_at=soon(-60)), "starts_at"),
                       (body(rounds=3), None), (body(min_players=1), "min_players"),
                       (body(format="arena", rounds=2), "options")):
        answer = post(server, "/api/tournaments", bad, admin)
        assert answer.status_code == 422, (bad, answer.text)
        assert answer.json()["error"]["field"] == field
    assert get(server, "/api/tournaments").json() == {"upcoming": [], "running": [],
                                                      "finished": []}
    made = post(server, "/api/tournaments", body(), admin)
    assert made.status_code == 201
    tid = made.json()["id"]
    assert post(server, f"/api/tournaments/{tid}/register", {}, ann).json() == {
        "registered": True}
    again = post(server, f"/api/tournaments/{tid}/register", {}, ann)
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_registered"
    assert post(server, f"/api/tournaments/{tid}/register", {}, bob).status_code == 200
    assert post(server, f"/api/tournaments/{tid}/register", {}).status_code == 401
    listed = get(server, "/api/tournaments?status=upcoming").json()
    assert [(t["id"], t["players"], t["pool"]) for t in listed["upcoming"]] == [(tid, 2, 200)]
    assert get(server, "/api/tournaments?status=later").status_code == 400
    out = post(server, f"/api/tournaments/{tid}/withdraw", {}, bob)
    assert out.json() == {"registered": False, "refunded": 100}
    assert post(server, f"/api/tournaments/{tid}/withdraw", {}, bob).status_code == 409
    assert post(server, f"/api/tournaments/{tid}/cancel", {}, ann).status_code == 403
    assert post(server, f"/api/tournaments/{tid}/cancel", {}, admin).json() == {
        "cancelled": True, "refunded": 100}
    one = get(server, f"/api/tournaments/{tid}").json()
    assert one["status"] == "cancelled" and one["pool"] == 0
    late = post(server, f"/api/tournaments/{tid}/register", {}, bob)
    assert late.status_code == 409 and late.json()["error"]["code"] == "wrong_status"
    assert get(server, "/api/tournaments/nosuch").status_code == 404
    ledger_ok(server)


def test_a_four_player_knockout_at_real_tables(server: LiveServer) -> None:
    admin = login(server, "Admin", "admin")
    people = [login(server, name) for name in ("Ann", "Bob", "Cat", "Dan")]
    by_id = {account_id(p): p for p in people}
    tid = post(server, "/api/tournaments", body(starts_at=soon(1.5)), admin).json()["id"]
    for person in people:
        assert post(server, f"/api/tournaments/{tid}/register", {}, person).status_code == 200

    def round_ready(number: int) -> list[dict[str, Any]] | None:
        found = get(server, f"/api/tournaments/{tid}").json()
        rounds = found.get("rounds", [])
        if len(rounds) > number and all(m["table_id"] for m in rounds[number]["matches"]):
            return list(rounds[number]["matches"])
        return None

    def play(match: dict[str, Any], winner: int) -> None:
        """Both players sit down through their session; the loser resigns."""
        clients = {p: Client.open(server, match["table_id"],
                                  additional_headers={"Cookie": by_id[p]["Cookie"]})
                   for p in match["players"]}
        for p, client in clients.items():
            assert client.frames[0]["seat"] == match["players"].index(p)  # kept for them
        loser = next(p for p in match["players"] if p != winner)
        resign_once_dealt(clients[loser])
        for client in clients.values():
            client.wait(lambda m: m["type"] == "state" and m["result"] is not None)
            client.close()

    first = until(lambda: round_ready(0))
    names = {account_id(p): name for p, name in zip(people, ("Ann", "Bob", "Cat", "Dan"),
                                                       strict=True)}
    running = get(server, "/api/players/Ann").json()["tournaments"]
    assert running["played"] == 1 and running["best"] is None  # played, no place yet
    assert [(t["id"], t["status"], t["place"], t["players"]) for t in running["recent"]] == [
        (tid, "running", None, 4)]
    seeds = sorted(by_id)
    assert sorted(tuple(m["players"]) for m in first) == [(seeds[0], seeds[3]),
                                                           (seeds[1], seeds[2])]
    for m in first:  # the higher seed wins
        play(m, m["players"][0])
    final = until(lambda: round_ready(1))
    assert [m["players"] for m in final] == [[seeds[0], seeds[1]]]
    play(final[0], seeds[1])
    done = until(lambda: (lambda t: t if t["status"] == "over" else None)(
        get(server, f"/api/tournaments/{tid}").json()))
    places = {r["account_id"]: (r["place"], r["prize"]) for r in done["registrations"]}
    assert places == {seeds[1]: (1, 200), seeds[0]: (2, 120), seeds[2]: (3, 40),
                      seeds[3]: (3, 40)}
    assert done["champion"] == seeds[1] and done["pool"] == 0
    for account, (place, prize) in places.items():  # results on the profiles
        played = get(server, f"/api/players/{names[account]}").json()["tournaments"]
        assert played["played"] == 1
        assert played["best"] == played["recent"][0] == {
            "id": tid, "name": "Evening cup", "format": "knockout", "status": "over",
            "starts_at": done["starts_at"], "players": 4, "place": place, "prize": prize}
    for rnd in done["rounds"]:
        for m in rnd["matches"]:
            assert m["status"] == "done" and m["replay"] and m["replay"].startswith("/replay/")
            assert get(server, "/api/matches/" + m["replay"].rsplit("/", 1)[1]
                       + "/replay").status_code == 200
    engine = open_engine(server.settings.db)
    try:
        with engine.connect() as conn:  # rated like any classic match
            games = dict(conn.execute(text("SELECT account_id, games FROM ratings WHERE "
                                           "category = 'classic'")).all())
            assert games == {seeds[0]: 2, seeds[1]: 2, seeds[2]: 1, seeds[3]: 1}
            assert ledger.balance(conn, ledger.account_wallet(seeds[1])) == \
                ledger.SIGNUP_GRANT - 100 + 200
    finally:
        engine.dispose()
    ledger_ok(server)
    assert [t["id"] for t in get(server, "/api/tournaments").json()["finished"]] == [tid]


def test_cancelling_a_running_tournament_closes_its_tables(server: LiveServer) -> None:
    admin, ann, bob = login(server, "Admin", "admin"), login(server, "Ann"), login(server, "Bob")
    tid = post(server, "/api/tournaments", body(starts_at=soon(1.0)), admin).json()["id"]
    for person in (ann, bob):
        assert post(server, f"/api/tournaments/{tid}/register", {}, person).status_code == 200

    def table() -> str | None:
        found = get(server, f"/api/tournaments/{tid}").json()
        rounds = found.get("rounds") or [{"matches": [{"table_id": None}]}]
        return rounds[0]["matches"][0]["table_id"]  # type: ignore[no-any-return]

    table_id = until(table)
    answer = post(server, f"/api/tournaments/{tid}/cancel", {}, admin)
    assert answer.json() == {"cancelled": True, "refunded": 200}
    assert until(lambda: server.stored_table(table_id).status == "closed")
    for person in (ann, bob):
        assert get(server, "/api/wallet", person).json()["balance"] == ledger.SIGNUP_GRANT
    for name in ("Ann", "Bob"):  # a cancelled tournament is not among those played
        assert get(server, f"/api/players/{name}").json()["tournaments"] == {
            "played": 0, "best": None, "recent": []}
    ledger_ok(server)


def test_a_ready_match_is_pushed_on_the_account_socket(server: LiveServer) -> None:
    """The round's start pushes ``match_ready`` to each player's open account socket (the
    table, the round, the opponent), a socket opened later gets it on opening, and a result
    tells the players that the tournament changed."""
    admin, ann, bob = login(server, "Admin", "admin"), login(server, "Ann"), login(server, "Bob")
    ann_push = AccountPush(server.base, ann["Cookie"])
    tid = post(server, "/api/tournaments", body(starts_at=soon(1.5), name="Night cup"),
               admin).json()["id"]
    for person in (ann, bob):
        assert post(server, f"/api/tournaments/{tid}/register", {}, person).status_code == 200
    ready = ann_push.wait(lambda m: m["type"] == "match_ready", timeout=30)
    match = get(server, f"/api/tournaments/{tid}").json()["rounds"][0]["matches"][0]
    assert ready == {"type": "match_ready", "tournament": tid, "name": "Night cup",
                     "round": 0, "table_id": match["table_id"], "opponents": ["Bob"]}
    assert server.lobby.get(ready["table_id"]) is not None  # open when told
    # opened after the start: told on opening
    bob_push = AccountPush(server.base, bob["Cookie"])
    assert bob_push.wait(lambda m: m["type"] == "match_ready") == {
        **ready, "opponents": ["Ann"]}
    ann_push.frames.clear()
    seated = {who: Client.open(server, ready["table_id"],
                               additional_headers={"Cookie": cookie["Cookie"]})
              for who, cookie in (("Ann", ann), ("Bob", bob))}
    seated["Bob"].send({"type": "resign"})
    for client in seated.values():
        client.wait(lambda m: m["type"] == "state" and m["result"] is not None)
        client.close()
    assert ann_push.wait(lambda m: m == {"type": "tournament", "id": tid}, timeout=30)
    until(lambda: get(server, f"/api/tournaments/{tid}").json()["status"] == "over")
    engine = open_engine(server.settings.db)
    try:  # decided: a socket opened now is told of no match
        with engine.connect() as conn:
            assert tournaments.open_matches(conn, account_id(ann)) == []
    finally:
        engine.dispose()
    for push in (ann_push, bob_push):
        push.close()


def test_ready_goes_to_the_match_players_only() -> None:
    """``TournamentPush.ready`` pushes to each player of the match, each with the others'
    names, and to nobody else."""
    sent: list[tuple[int, dict[str, Any]]] = []

    class Hub:
        def push(self, account: int, message: dict[str, Any]) -> int:
            sent.append((account, message))
            return 1

    push = TournamentPush(Hub(), None)  # type: ignore[arg-type]
    push.ready(ReadyMatch("t1", "Cup", 2, "Tabc", ((7, "Ann"), (9, "Bob"), (4, "Cat"))))
    assert [(a, m["opponents"], m["round"], m["table_id"]) for a, m in sent] == [
        (7, ["Bob", "Cat"], 2, "Tabc"), (9, ["Ann", "Cat"], 2, "Tabc"),
        (4, ["Ann", "Bob"], 2, "Tabc")]
