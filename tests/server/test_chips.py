"""Chips on a live server: buy-ins move chips into the pool with the seat, too few chips and
guests are refused with nothing changed, leaving before the deal refunds, a 3-player arena
table pays out exactly the engine's split, abandoned and closed tables refund every buy-in,
and the daily top-up comes once a UTC day. The ledger check holds after each of them."""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from server_helpers import Client, LiveServer, is_state
from sqlalchemy import text

from ginrummy.rules import Ruleset
from ginrummy.scoring import split_pool
from ginrummy.server.core.auth import secret_hash
from ginrummy.server.players.names import name_key
from ginrummy.server.players.sessions import SESSION_COOKIE, SESSION_LIFETIME
from ginrummy.storage import ledger, open_engine
from ginrummy.storage.ledger import HOUSE, Kind, account_wallet, pool_wallet


def login(server: LiveServer, name: str, role: str = "player") -> dict[str, str]:
    """A new account with a live session: the headers of its requests."""
    store = server.app.state.server.accounts
    account = store.create(name, name_key(name), "not a real hash", role)
    token = secrets.token_urlsafe(32)
    store.add_session(secret_hash(token), account.id, SESSION_LIFETIME)
    return {"Cookie": f"{SESSION_COOKIE}={token}", "X-Account": str(account.id)}


def post(server: LiveServer, path: str, body: dict[str, Any],
         who: dict[str, str] | None = None) -> Any:
    with server.http() as client:
        return client.post(path, json=body, headers=_cookie(who))


def get(server: LiveServer, path: str, who: dict[str, str] | None = None) -> Any:
    with server.http() as client:
        return client.get(path, headers=_cookie(who))


def _cookie(who: dict[str, str] | None) -> dict[str, str]:
    return {} if who is None else {"Cookie": who["Cookie"]}


def account_id(who: dict[str, str]) -> int:
    return int(who["X-Account"])


def balances(server: LiveServer) -> dict[str, int]:
    engine = open_engine(server.settings.db)
    try:
        with engine.connect() as conn:
            return {w: b for w, b in conn.execute(text("SELECT id, balance FROM wallets"))}
    finally:
        engine.dispose()


def ledger_ok(server: LiveServer) -> ledger.Report:
    engine = open_engine(server.settings.db)
    try:
        with engine.connect() as conn:
            report = ledger.check(conn)
    finally:
        engine.dispose()
    assert report.ok, report.problems
    return report


def chips(server: LiveServer, who: dict[str, str]) -> int:
    return balances(server).get(account_wallet(account_id(who)), ledger.SIGNUP_GRANT)


def buy_in_table(server: LiveServer, who: dict[str, str], buy_in: int = 100,
                 players: int = 3, **extra: Any) -> dict[str, Any]:
    answer = post(server, "/api/tables", {"nickname": "x", "preset": "arena",
                                          "players": players, "buy_in": buy_in, **extra}, who)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def wait_for(condition: Callable[[], bool], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.05)


def choose(state: dict[str, Any]) -> str:
    """Knock or gin when possible, else the first legal action."""
    legal: list[str] = state["legal"]
    return next((a for a in legal if a.startswith(("gin", "knock"))), legal[0])


def test_buying_in_moves_chips_into_the_pool_with_the_seat(server: LiveServer) -> None:
    ann, bob = login(server, "Ann"), login(server, "Bob")
    created = buy_in_table(server, ann, 100)
    entry = created["table"]
    assert (entry["buy_in"], entry["pool_chips"], entry["seats"][0]["name"]) == (100, 300, "Ann")
    joined = post(server, f"/api/tables/{created['table_id']}/join", {"nickname": "b"}, bob)
    assert joined.status_code == 200, joined.text
    pool = pool_wallet(created["table_id"])
    assert balances(server) == {HOUSE: -2000, account_wallet(account_id(ann)): 900,
                                account_wallet(account_id(bob)): 900, pool: 200}
    report = ledger_ok(server)
    assert (report.issued, report.in_accounts, report.in_pools) == (2000, 1800, 200)
    wallet = get(server, "/api/wallet", bob).json()
    assert wallet["balance"] == 900
    assert [(e["kind"], e["amount"], e["table_id"]) for e in wallet["entries"]] == [
        ("buy_in", -100, created["table_id"]), ("grant", 1000, None)]


def test_guests_and_the_short_of_chips_are_refused_and_nothing_changes(
        server: LiveServer) -> None:
    ann, poor = login(server, "Ann"), login(server, "Poor")
    refused = post(server, "/api/tables", {"nickname": "Guest", "preset": "arena",
                                           "players": 3, "buy_in": 100})
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "login_required"
    created = buy_in_table(server, ann, 100)
    table_id = created["table_id"]
    version = created["table"]["version"]
    guest = post(server, f"/api/tables/{table_id}/join", {"nickname": "Guest"})
    assert guest.status_code == 403, guest.text
    assert guest.json()["error"]["code"] == "login_required"
    engine = open_engine(server.settings.db)  # Poor spends 950 elsewhere
    with engine.begin() as conn:
        ledger.open_account(conn, account_id(poor))
        ledger.transfer(conn, "test:spend", Kind.TOPUP,
                        {account_wallet(account_id(poor)): -950, HOUSE: 950})
    engine.dispose()
    short = post(server, f"/api/tables/{table_id}/join", {"nickname": "p"}, poor)
    assert short.status_code == 409, short.text
    assert short.json()["error"] == {"code": "not_enough_chips", "field": "seat",
                                     "message": "the buy-in is 100 chips and you have 50"}
    short_create = post(server, "/api/tables", {"nickname": "p", "preset": "arena",
                                                "players": 2, "buy_in": 60}, poor)
    assert short_create.status_code == 409
    assert short_create.json()["error"]["code"] == "not_enough_chips"
    table = get(server, f"/api/tables/{table_id}").json()
    assert table["version"] == version
    assert [s["kind"] for s in table["seats"]] == ["human", "empty", "empty"]
    assert chips(server, poor) == 50 and balances(server)[pool_wallet(table_id)] == 100
    stored = server.stored_table(table_id)
    assert [s.kind for s in stored.seats] == ["human", "empty", "empty"]
    ledger_ok(server)


@pytest.mark.parametrize(("body", "status", "field"), [
    ({"preset": "classic", "buy_in": 100}, 400, "buy_in"),
    ({"preset": "arena", "players": 3, "buy_in": 100, "pool_chips": 300}, 400, "pool_chips"),
    ({"preset": "arena", "players": 3, "buy_in": 100, "bots": {"1": "simple"}}, 400, "bots"),
    ({"preset": "arena", "players": 3, "buy_in": 0}, 422, "buy_in"),
    ({"preset": "arena", "players": 3, "buy_in": 10_000_000}, 422, "buy_in"),
    ({"preset": "arena", "players": 3, "buy_in": "100"}, 422, "buy_in"),
    ({"preset": "arena", "players": 3, "buy_in": True}, 422, "buy_in"),
    ({"preset": "arena", "players": 3, "buy_in": 100.0}, 422, "buy_in"),
    ({"preset": "arena", "players": "3", "buy_in": 100}, 422, "players"),
])
def test_a_bad_buy_in_is_refused_naming_the_field(server: LiveServer, body: dict[str, Any],
                                                  status: int, field: str) -> None:
    ann = login(server, "Ann")
    answer = post(server, "/api/tables", {"nickname": "a", **body}, ann)
    assert answer.status_code == status, answer.text
    assert answer.json()["error"]["field"] == field
    assert balances(server) == {}


def test_leaving_before_the_deal_refunds_the_buy_in(server: LiveServer) -> None:
    ann, bob, cat = login(server, "Ann"), login(server, "Bob"), login(server, "Cat")
    created = buy_in_table(server, ann, 250)
    table_id = created["table_id"]
    joined = post(server, f"/api/tables/{table_id}/join", {"nickname": "b"}, bob).json()
    assert chips(server, bob) == 750
    nobody = post(server, f"/api/tables/{table_id}/leave", {}, cat)
    assert nobody.status_code == 403 and nobody.json()["error"]["code"] == "not_seated"
    wrong = post(server, f"/api/tables/{table_id}/leave", {"token": "not-a-token"})
    assert wrong.status_code == 403 and wrong.json()["error"]["field"] == "token"
    left = post(server, f"/api/tables/{table_id}/leave", {"token": joined["token"]})
    assert left.status_code == 200, left.text
    assert left.json()["seat"] == 1 and left.json()["table"]["seats"][1]["kind"] == "empty"
    assert chips(server, bob) == 1000
    again = post(server, f"/api/tables/{table_id}/join", {"nickname": "b"}, bob)
    assert again.status_code == 200 and chips(server, bob) == 750  # a new sitting, a new key
    by_session = post(server, f"/api/tables/{table_id}/leave", {}, ann)
    assert by_session.status_code == 200 and by_session.json()["seat"] == 0
    post(server, f"/api/tables/{table_id}/leave", {}, bob)
    assert chips(server, ann) == chips(server, bob) == 1000
    assert balances(server)[pool_wallet(table_id)] == 0
    kinds = [e["kind"] for e in get(server, "/api/wallet", bob).json()["entries"]]
    assert kinds == ["refund", "buy_in", "refund", "buy_in", "grant"]
    missing = post(server, "/api/tables/nosuchtable/leave", {}, ann)
    assert missing.status_code == 404
    ledger_ok(server)


def test_a_three_player_arena_table_pays_out_exactly_the_engines_split(
        make_server: Callable[..., LiveServer]) -> None:
    server = make_server(hold_seconds=0, messages_per_window=100_000)
    ann, bob, cat = login(server, "Ann"), login(server, "Bob"), login(server, "Cat")
    created = buy_in_table(server, ann, 100)
    table_id = created["table_id"]
    ann_client = Client.open(server, table_id, created["token"])
    for who in (bob, cat):  # never connected: the computer plays them (Ann is there)
        assert post(server, f"/api/tables/{table_id}/join", {"nickname": "x"},
                    who).status_code == 200
    sent = 0
    while ann_client.state["result"] is None:
        state = ann_client.state
        if state["legal"]:
            ann_client.send({"type": "action", "id": f"a{sent}", "version": state["version"],
                             "action": choose(state)})
            sent += 1
        ann_client.wait(is_state(state["version"] + 1), 30)
    result = ann_client.state["result"]
    payouts = result["payouts"]
    assert sum(payouts) == 300 and len(payouts) == 3
    rules = Ruleset.preset("arena", players=3)  # R6.4, worked out apart from the match
    assert payouts == list(split_pool(300, result["penalties"], result["winner"],
                                      rules.payout_threshold))
    stored = server.stored_table(table_id)
    replayed = server.app.state.server.lobby.get(table_id).table.match.result
    assert list(replayed.payouts) == payouts  # the engine's own split, R6.4
    assert stored.status == "over"
    for seat, who in enumerate((ann, bob, cat)):
        assert chips(server, who) == 900 + payouts[seat]
    assert balances(server)[pool_wallet(table_id)] == 0
    report = ledger_ok(server)
    assert report.in_accounts == 3000 and report.open_pools == 0
    winner = max(range(3), key=lambda s: payouts[s])
    wallet = get(server, "/api/wallet", (ann, bob, cat)[winner]).json()
    assert wallet["entries"][0]["kind"] == "payout"
    assert wallet["entries"][0]["amount"] == payouts[winner]
    ann_client.send({"type": "rematch"})  # a buy-in table plays one match
    refused = ann_client.wait(lambda m: m["type"] == "error")
    assert "buy-in" in refused["message"]
    late = post(server, f"/api/tables/{table_id}/leave", {}, bob)
    assert late.status_code == 409 and late.json()["error"]["code"] == "match_started"
    ann_client.close()


def test_an_abandoned_table_refunds_every_buy_in(
        make_server: Callable[..., LiveServer]) -> None:
    server = make_server(abandon_after_seconds=0.5)
    ann, bob = login(server, "Ann"), login(server, "Bob")
    created = buy_in_table(server, ann, 300, players=2)
    table_id = created["table_id"]
    ann_client = Client.open(server, table_id, created["token"])
    post(server, f"/api/tables/{table_id}/join", {"nickname": "b"}, bob)
    ann_client.wait(lambda m: m["type"] == "state" and m["table"]["status"] == "playing")
    assert chips(server, ann) == chips(server, bob) == 700
    ann_client.close()  # nobody left at a table being played: abandoned after 0.5 s
    wait_for(lambda: server.stored_table(table_id).status == "abandoned")
    wait_for(lambda: chips(server, ann) == 1000)
    assert chips(server, bob) == 1000 and balances(server)[pool_wallet(table_id)] == 0
    ledger_ok(server)
    late = post(server, f"/api/tables/{table_id}/join", {"nickname": "c"}, login(server, "Cat"))
    assert late.status_code == 409  # the table is full and over: no buy-in goes to it


def test_a_table_closed_by_an_administrator_refunds_every_buy_in(server: LiveServer) -> None:
    ann, bob = login(server, "Ann"), login(server, "Bob")
    admin = login(server, "Boss", role="admin")
    created = buy_in_table(server, ann, 40, players=4)
    table_id = created["table_id"]
    post(server, f"/api/tables/{table_id}/join", {"nickname": "b"}, bob)
    closed = post(server, "/api/admin/close", {"table_id": table_id}, admin)
    assert closed.status_code == 200, closed.text
    assert chips(server, ann) == chips(server, bob) == 1000
    assert balances(server)[pool_wallet(table_id)] == 0
    refunds = [e for e in get(server, "/api/wallet", ann).json()["entries"]
               if e["kind"] == "refund"]
    assert refunds == [{"at": refunds[0]["at"], "kind": "refund", "amount": 40,
                        "table_id": table_id, "table_name": "", "table_host": "Ann"}]
    cat = login(server, "Cat")
    late = post(server, f"/api/tables/{table_id}/join", {"nickname": "c"}, cat)
    assert late.status_code == 409 and late.json()["error"]["code"] == "table_closed"
    assert chips(server, cat) == 1000
    ledger_ok(server)


def spend(server: LiveServer, who: dict[str, str], amount: int, key: str) -> None:
    """The account loses ``amount`` chips to the house (as a lost match would)."""
    engine = open_engine(server.settings.db)
    with engine.begin() as conn:
        ledger.open_account(conn, account_id(who))
        ledger.transfer(conn, key, Kind.PAYOUT, {account_wallet(account_id(who)): -amount,
                                                 HOUSE: amount})
    engine.dispose()


def test_the_daily_topup_is_taken_once_a_utc_day(server: LiveServer) -> None:
    guest = get(server, "/api/wallet")
    assert guest.status_code == 401 and guest.json()["error"]["code"] == "not_logged_in"
    ann = login(server, "Ann")
    wallet = get(server, "/api/wallet", ann).json()
    assert wallet == {"balance": 1000, "parked": 0, "entries": [wallet["entries"][0]],
                      "topup": {"available": False, "amount": 0, "next_at": None}}
    full = post(server, "/api/wallet/topup", {}, ann)
    assert full.status_code == 409 and "below 1000" in full.json()["error"]["message"]
    spend(server, ann, 700, "test:lost")
    assert get(server, "/api/wallet", ann).json()["topup"] == {
        "available": True, "amount": 700, "next_at": None}
    taken = post(server, "/api/wallet/topup", {}, ann)
    assert taken.status_code == 200, taken.text
    assert taken.json()["received"] == 700 and taken.json()["balance"] == 1000
    next_at = taken.json()["topup"]["next_at"]
    assert next_at.endswith("T00:00:00Z") and taken.json()["topup"]["available"] is False
    buy_in_table(server, ann, 500, players=2)
    spend(server, ann, 400, "test:lost again")
    again = post(server, "/api/wallet/topup", {}, ann)
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "topup_unavailable"
    assert next_at in again.json()["error"]["message"]
    assert chips(server, ann) == 100
    assert post(server, "/api/wallet/topup", {"extra": 1}, ann).status_code == 422
    report = ledger_ok(server)
    assert report.issued == 1700 - 1100 and report.in_pools == 500


def test_the_topup_counts_the_chips_in_the_players_own_open_pools(server: LiveServer) -> None:
    """900 waiting in a pool and 100 in the wallet: no top-up (it would pay 900, and leaving
    would then give 1,900); what is missing beyond the pooled chips is topped up."""
    ann = login(server, "Ann")
    created = buy_in_table(server, ann, 900, players=2)
    wallet = get(server, "/api/wallet", ann).json()
    assert (wallet["balance"], wallet["parked"]) == (100, 900)
    assert wallet["topup"] == {"available": False, "amount": 0, "next_at": None}
    refused = post(server, "/api/wallet/topup", {}, ann)
    assert refused.status_code == 409, refused.text
    assert "900 in pools" in refused.json()["error"]["message"]
    left = post(server, f"/api/tables/{created['table_id']}/leave", {}, ann)
    assert left.status_code == 200 and chips(server, ann) == 1000
    buy_in_table(server, ann, 600, players=2)
    spend(server, ann, 300, "test:lost")  # 100 in the wallet, 600 in the pool
    assert get(server, "/api/wallet", ann).json()["topup"]["amount"] == 300
    taken = post(server, "/api/wallet/topup", {}, ann)
    assert taken.status_code == 200 and taken.json()["received"] == 300
    assert (taken.json()["balance"], taken.json()["parked"]) == (400, 600)
    report = ledger_ok(server)
    assert report.issued == 1000 and report.in_pools == 600


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_two_joins_at_once_with_chips_for_one_get_200_and_409(
        make_server: Callable[..., LiveServer], request: pytest.FixtureRequest,
        caplog: pytest.LogCaptureFixture, database: str) -> None:
    """Ann has 1,000 chips and joins two 700 tables at once: both pass the first check (the
    group commit waits 150 ms), the ledger refuses the second in the commit: 409
    ``not_enough_chips`` with the balance, not 503, and no traceback in the log."""
    db = {} if database == "sqlite" else {"db": request.getfixturevalue("pg_url")}
    server = make_server(commit_interval_ms=150, **db)
    ann, bob, cat = login(server, "Ann"), login(server, "Bob"), login(server, "Cat")
    tables = [buy_in_table(server, who, 700, players=2)["table_id"] for who in (bob, cat)]
    answers: list[Any] = [None, None]

    def join(index: int) -> None:
        answers[index] = post(server, f"/api/tables/{tables[index]}/join", {"nickname": "a"},
                              ann)

    caplog.clear()
    threads = [threading.Thread(target=join, args=(n,)) for n in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200, 409], [a.text for a in answers]
    refused = next(a for a in answers if a.status_code == 409).json()["error"]
    assert refused == {"code": "not_enough_chips", "field": "seat",
                       "message": "the buy-in is 700 chips and you have 300"}
    assert chips(server, ann) == 300
    seated = [get(server, f"/api/tables/{t}").json()["seats"][1]["kind"] for t in tables]
    assert sorted(seated) == ["empty", "human"]
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    ledger_ok(server)


def test_a_stuck_table_refunds_every_buy_in(make_server: Callable[..., LiveServer]) -> None:
    server = make_server(max_decisions=2, hold_seconds=0)  # the computer stops at once
    ann, bob = login(server, "Ann"), login(server, "Bob")
    created = buy_in_table(server, ann, 150, players=2)
    table_id = created["table_id"]
    ann_client = Client.open(server, table_id, created["token"])
    post(server, f"/api/tables/{table_id}/join", {"nickname": "b"}, bob)  # away: the computer
    sent = 0
    while not any(m["type"] == "error" and m["code"] == "endless_hand"
                  for m in ann_client.frames):
        state = ann_client.state
        if state["legal"]:
            ann_client.send({"type": "action", "id": f"a{sent}", "version": state["version"],
                             "action": choose(state)})
            sent += 1
        ann_client.recv(30)
    wait_for(lambda: server.stored_table(table_id).status == "stuck")
    wait_for(lambda: chips(server, ann) == 1000)
    assert chips(server, bob) == 1000 and balances(server)[pool_wallet(table_id)] == 0
    ledger_ok(server)
    ann_client.close()
