"""Accounts (issue 12, 1): sign up, log in and out, who am I, a password change, the session
cookie, seats that follow an account (create, join, ``your_seat``, the WebSocket hello by
cookie on a second device), a banned account sitting nowhere, and a guest turned into an
account mid-match with its earlier matches at that table."""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.cookies import SimpleCookie
from typing import Any

import httpx
import pytest
from argon2 import PasswordHasher
from moderation_helpers import refused_with
from server_helpers import Client, LiveServer, is_state
from sqlalchemy import insert, select, update
from sqlalchemy.exc import OperationalError
from websockets.exceptions import ConnectionClosed

from ginrummy.server.play.committer import CommitFailed
from ginrummy.server.players.names import name_key
from ginrummy.server.players.sessions import (
    PLAIN_SESSION_COOKIE,
    SESSION_COOKIE,
    needs_rehash,
    password_ok,
)
from ginrummy.storage import open_engine
from ginrummy.storage.models import AccountRow, MatchPlayerRow, MatchRow, SeatRow, SessionRow

PASSWORD = "correct horse battery"


@dataclass
class Browser:
    """One browser's view of the API: its own session cookie, sent by hand (httpx does not
    send ``Secure`` cookies over plain HTTP, browsers do on 127.0.0.1), every answer kept."""

    server: LiveServer
    token: str | None = None
    cookie_name: str = SESSION_COOKIE
    headers: dict[str, str] = field(default_factory=dict)
    answers: list[httpx.Response] = field(default_factory=list)
    _http: httpx.Client | None = None

    @property
    def http(self) -> httpx.Client:
        """The browser's own HTTP client."""
        if self._http is None:
            self._http = httpx.Client(base_url=self.server.base, timeout=30, trust_env=False,
                                      headers={"Origin": self.server.base, **self.headers})
        return self._http

    def cookie_header(self) -> dict[str, str]:
        """``Cookie: <session>`` when the browser has a session."""
        return {"Cookie": f"{self.cookie_name}={self.token}"} if self.token else {}

    def request(self, method: str, path: str, json: Any = None,
                headers: dict[str, str] | None = None, **options: Any) -> httpx.Response:
        """Send a request with the session cookie; take the cookie the answer sets."""
        answer = self.http.request(method, path, json=json,
                                   headers={**self.cookie_header(), **(headers or {})},
                                   **options)
        self.http.cookies.clear()  # the cookie is this object's to keep, by hand
        self.answers.append(answer)
        for morsel in set_cookies(answer).values():
            if morsel.key == self.cookie_name:
                self.token = None if morsel["max-age"] == "0" else morsel.value
        return answer

    def post(self, path: str, body: Any, **options: Any) -> httpx.Response:
        """A JSON POST."""
        return self.request("POST", path, json=body, **options)

    def get(self, path: str, **options: Any) -> httpx.Response:
        """A GET."""
        return self.request("GET", path, **options)

    def signup(self, name: str, password: str = PASSWORD) -> dict[str, Any]:
        """Sign up; asserts 201; the account."""
        answer = self.post("/api/account/signup", {"name": name, "password": password})
        assert answer.status_code == 201, answer.text
        account: dict[str, Any] = answer.json()["account"]
        return account

    def login(self, name: str, password: str = PASSWORD) -> httpx.Response:
        """Log in (the answer, whatever it is)."""
        return self.post("/api/account/login", {"name": name, "password": password})

    def me(self) -> httpx.Response:
        """``GET /api/account/me``."""
        return self.get("/api/account/me")

    def close(self) -> None:
        """Close the HTTP client."""
        if self._http is not None:
            self._http.close()


def set_cookies(answer: httpx.Response) -> dict[str, Any]:
    """The cookies an answer sets, by name (``http.cookies`` morsels with their attributes)."""
    found: dict[str, Any] = {}
    for header in answer.headers.get_list("set-cookie"):
        jar: SimpleCookie = SimpleCookie()
        jar.load(header)
        found.update(jar)
    return found


def set_cookie_lines(answer: httpx.Response) -> list[str]:
    """The raw ``Set-Cookie`` lines of an answer."""
    return answer.headers.get_list("set-cookie")


@pytest.fixture
def browsers(server: LiveServer) -> Iterator[Any]:
    """``browsers()`` makes a new :class:`Browser` on the test server."""
    made: list[Browser] = []

    def make(**options: Any) -> Browser:
        browser = Browser(server, **options)
        made.append(browser)
        return browser

    yield make
    for browser in made:
        browser.close()


def db_rows(server: LiveServer, statement: Any) -> list[Any]:
    """Rows of a query on the server's database."""
    engine = open_engine(server.settings.db)
    try:
        with engine.connect() as conn:
            return list(conn.execute(statement))
    finally:
        engine.dispose()


# ------------------------------------------------------------------------- the routes
def test_sign_up_log_out_log_in_and_who_am_i(browsers: Any) -> None:
    ann = browsers()
    assert ann.me().status_code == 401
    assert ann.answers[-1].json()["error"]["code"] == "not_logged_in"
    answer = ann.post("/api/account/signup", {"name": "Ann", "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    account = answer.json()["account"]
    assert set(account) == {"id", "name", "role"}
    assert account["name"] == "Ann" and account["role"] == "player"
    first = ann.token
    assert first and len(first) >= 40
    me = ann.me()
    assert me.status_code == 200 and me.json() == {"account": account}

    out = ann.post("/api/account/logout", {})
    assert out.status_code == 204 and out.content == b""
    cleared = set_cookies(out)[SESSION_COOKIE]
    assert cleared["max-age"] == "0" and cleared.value in ("", '""')
    assert ann.token is None
    ann.token = first  # the old cookie, kept by a careless browser, is dead: deleted
    assert ann.me().status_code == 401
    ann.token = None

    wrong = ann.login("Ann", "not the password")
    assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "bad_credentials"
    assert not set_cookies(wrong)
    back = ann.login("aNN")  # a name is found whatever its case
    assert back.status_code == 200 and back.json() == {"account": account}
    assert ann.token and ann.token != first
    assert ann.me().json()["account"]["id"] == account["id"]


def test_the_session_cookie_on_loopback_lan_and_https_origins(browsers: Any) -> None:
    loopback = browsers()
    answer = loopback.post("/api/account/signup", {"name": "Cookie", "password": PASSWORD})
    (line,) = set_cookie_lines(answer)
    attributes = {part.strip().split("=")[0].lower() for part in line.split(";")[1:]}
    assert line.startswith(f"{SESSION_COOKIE}=")
    assert {"httponly", "secure", "path", "samesite", "max-age"} <= attributes
    assert "domain" not in attributes
    assert "Path=/" in line and "SameSite=lax" in line.replace("Lax", "lax")
    # the same server reached by a LAN address over plain HTTP: browsers refuse Secure (and
    # so __Host-) cookies there, so the session is the plain cookie, without Secure
    lan = browsers(cookie_name=PLAIN_SESSION_COOKIE, headers={"Host": "192.168.1.20:8000"})
    answer = lan.login("Cookie")
    assert answer.status_code == 200, answer.text
    (line,) = set_cookie_lines(answer)
    assert line.startswith(f"{PLAIN_SESSION_COOKIE}=") and "secure" not in line.lower()
    assert "httponly" in line.lower() and "domain" not in line.lower()
    assert lan.me().status_code == 200
    # each kind of origin reads only its own cookie: the LAN one is no session on loopback
    assert browsers(cookie_name=PLAIN_SESSION_COOKIE, token=lan.token).me().status_code == 401
    # through a TLS proxy (X-Forwarded-Proto from a trusted address): __Host- and Secure
    tls = browsers(headers={"Host": "cards.example", "X-Forwarded-Proto": "https"})
    answer = tls.login("Cookie")
    assert answer.status_code == 200, answer.text
    (line,) = set_cookie_lines(answer)
    assert line.startswith(f"{SESSION_COOKIE}=") and "secure" in line.lower()
    assert tls.me().status_code == 200


def test_sign_up_refuses_bad_names_passwords_and_look_alikes(browsers: Any) -> None:
    guest = browsers()
    cases: list[tuple[dict[str, Any], int, str, str | None]] = [
        ({"name": "ab", "password": PASSWORD}, 400, "bad_request", "name"),
        ({"name": "a" * 21, "password": PASSWORD}, 400, "bad_request", "name"),
        ({"name": "bad name", "password": PASSWORD}, 400, "bad_request", "name"),
        ({"name": "_lead", "password": PASSWORD}, 400, "bad_request", "name"),
        ({"name": "\u00df" * 20, "password": PASSWORD}, 400, "bad_request", "name"),
        ({"name": "Zed", "password": "short12"}, 400, "bad_request", "password"),
        ({"name": "Zed", "password": "x" * 129}, 400, "bad_request", "password"),
        ({"name": "Zed"}, 422, "bad_request", "password"),
        ({"name": "Zed", "password": 12345678}, 422, "bad_request", "password"),
        ({"name": "Zed", "password": PASSWORD, "role": "admin"}, 422, "bad_request", "role"),
    ]
    for body, status, code, where in cases:
        answer = guest.post("/api/account/signup", body)
        assert answer.status_code == status, (body, answer.text)
        error = answer.json()["error"]
        assert error["code"] == code and error["field"] == where, (body, error)
        assert error["message"]
        assert not set_cookies(answer)
    assert guest.post("/api/account/signup",
                      {"name": "Zed", "password": "x" * 128}).status_code == 201
    assert browsers().signup("Anna")["name"] == "Anna"
    # a look-alike by case, by a Cyrillic letter, by punctuation, by digits for letters
    for look_alike in ("ANNA", "anna", "\u0410nna", "an.na", "Ann4", "Anna_"):
        answer = browsers().post("/api/account/signup",
                                 {"name": look_alike, "password": PASSWORD})
        assert answer.status_code == 409, (look_alike, answer.text)
        assert answer.json()["error"] == {"code": "name_taken", "field": "name",
                                          "message": answer.json()["error"]["message"]}
    assert browsers().signup("Annabel")["name"] == "Annabel"


def test_log_out_everywhere_ends_every_session_of_the_account(browsers: Any) -> None:
    phone, laptop, other = browsers(), browsers(), browsers()
    phone.signup("Lou")
    other.signup("Max")
    assert laptop.login("Lou").status_code == 200
    bad = phone.post("/api/account/logout", {"everywhere": "yes"})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "everywhere"
    assert phone.me().status_code == 200
    out = phone.post("/api/account/logout", {"everywhere": True})
    assert out.status_code == 204 and phone.token is None
    assert laptop.me().status_code == 401
    assert other.me().status_code == 200  # another account's session is untouched
    # a guest's log-out (no session) is harmless
    assert browsers().post("/api/account/logout", {"everywhere": True}).status_code == 204


def test_a_password_change_ends_every_other_session(browsers: Any) -> None:
    phone, laptop, stranger = browsers(), browsers(), browsers()
    account = phone.signup("Pat")
    assert laptop.login("Pat").status_code == 200
    assert stranger.post("/api/account/password",
                         {"old": PASSWORD, "new": "new password 1"}).status_code == 401
    wrong = phone.post("/api/account/password", {"old": "not it at all", "new": "xyzxyzxyz"})
    assert wrong.status_code == 403 and wrong.json()["error"]["field"] == "old"
    short = phone.post("/api/account/password", {"old": PASSWORD, "new": "short"})
    assert short.status_code == 400 and short.json()["error"]["field"] == "new"
    assert laptop.me().status_code == 200  # nothing changed yet
    changed = phone.post("/api/account/password", {"old": PASSWORD, "new": "new password 1"})
    assert changed.status_code == 200, changed.text
    assert changed.json() == {"account": account, "sessions_ended": 1}
    assert phone.me().status_code == 200
    assert laptop.me().status_code == 401
    assert browsers().login("Pat").status_code == 401
    assert browsers().login("Pat", "new password 1").status_code == 200


# ------------------------------------------------------------------------- seats
def test_seats_follow_the_account_to_another_device(server: LiveServer,
                                                    browsers: Any) -> None:
    ann_phone, bob, guest = browsers(), browsers(), browsers()
    ann = ann_phone.signup("Ann")
    bob_account = bob.signup("Bob")
    created = ann_phone.post("/api/tables", {"nickname": "whatever"})
    assert created.status_code == 201, created.text
    table_id = created.json()["table_id"]
    seat0 = created.json()["table"]["seats"][0]
    assert seat0["name"] == "Ann"  # the account's name, not the nickname typed
    writer = server.lobby.get(table_id)
    assert writer.table.seats[0].account_id == ann["id"]
    assert server.stored_table(table_id).seats[0].account_id == ann["id"]

    joined = bob.post(f"/api/tables/{table_id}/join", {"nickname": "x"})
    assert joined.status_code == 200, joined.text
    assert joined.json()["seat"] == 1 and joined.json()["table"]["seats"][1]["name"] == "Bob"
    assert server.stored_table(table_id).seats[1].account_id == bob_account["id"]

    assert ann_phone.get(f"/api/tables/{table_id}").json()["your_seat"] == 0
    assert bob.get(f"/api/tables/{table_id}").json()["your_seat"] == 1
    assert guest.get(f"/api/tables/{table_id}").json()["your_seat"] is None
    other = browsers()
    other.signup("Cyd")
    assert other.get(f"/api/tables/{table_id}").json()["your_seat"] is None

    # a second device of Ann's: the session cookie of the handshake seats it, no token
    laptop = browsers()
    assert laptop.login("Ann").status_code == 200
    second = Client.open(server, table_id, None,
                         additional_headers=laptop.cookie_header())
    welcome = next(m for m in second.frames if m["type"] == "welcome")
    assert welcome["seat"] == 0
    assert second.state["seat"] == 0
    first = Client.open(server, table_id, created.json()["token"])  # the token still works
    assert first.state["seat"] == 0
    watcher = Client.open(server, table_id, None)  # no cookie, no token: a spectator
    assert watcher.state["seat"] is None
    stranger = Client.open(server, table_id, None, additional_headers=other.cookie_header())
    assert stranger.state["seat"] is None
    accounts = Counter((c.seat, c.account_id) for c in writer.connections)
    assert accounts == Counter([(0, ann["id"]), (0, ann["id"]), (None, None),
                                (None, _id(other))])
    for client in (second, first, watcher, stranger):
        client.close()

    # a private table: the account's cookie seats it without the invite; others need it
    private = ann_phone.post("/api/tables", {"nickname": "Ann", "public": False}).json()
    mine = Client.open(server, private["table_id"], None,
                       additional_headers=laptop.cookie_header())
    assert mine.state["seat"] == 0
    mine.close()
    refused = Client.open(server, private["table_id"], None, hello=False,
                          additional_headers=other.cookie_header())
    refused.send({"type": "hello", "protocol": 2})
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            refused.recv(30)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403

    # one seat per account at a table
    third = browsers()
    assert third.login("Bob").status_code == 200
    created2 = ann_phone.post("/api/tables", {"nickname": "Ann", "players": 2})
    table2 = created2.json()["table_id"]
    assert bob.post(f"/api/tables/{table2}/join", {"nickname": "Bob"}).status_code == 200
    again = third.post(f"/api/tables/{table2}/join", {"nickname": "Bob", "seat": 1})
    assert again.status_code == 409


def _id(browser: Browser) -> int:
    answer = browser.me()
    assert answer.status_code == 200
    account_id: int = answer.json()["account"]["id"]
    return account_id


def test_a_banned_accounts_cookie_seats_nobody(server: LiveServer, browsers: Any) -> None:
    dan = browsers()
    account = dan.signup("Dan")
    table_id = dan.post("/api/tables", {"nickname": "Dan", "bots": {"1": "simple"}}
                        ).json()["table_id"]
    seated = Client.open(server, table_id, None, additional_headers=dan.cookie_header())
    assert seated.state["seat"] == 0
    seated.close()
    server.app.state.server.accounts.set(account["id"], banned_at=datetime.now(UTC))
    assert dan.me().status_code == 401
    assert dan.get(f"/api/tables/{table_id}").json()["your_seat"] is None
    # its cookie's socket is known as the banned account's, and refused (issue 25, 5)
    assert refused_with(server, table_id, headers=dan.cookie_header()) == (
        4403, "this account was banned")
    refused = browsers().login("Dan")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "banned"
    assert not set_cookies(refused)


# ------------------------------------------------------------------------- guest upgrade
def _finished_match(server: LiveServer, table_id: str) -> int:
    """A finished match of the table as the match-end hook stores it: the guest at seat 0
    (no account), the computer at seat 1."""
    engine = open_engine(server.settings.db)
    try:
        with engine.begin() as conn:
            key = conn.execute(insert(MatchRow.__table__).values(
                table_id=table_id, first_version=1, last_version=9, preset="classic",
                category=None, players=2, ending="over",
                finished_at=datetime.now(UTC))).inserted_primary_key
            assert key is not None
            match_id = int(key[0])
            conn.execute(insert(MatchPlayerRow.__table__), [
                {"match_id": match_id, "seat": 0, "account_id": None, "level": None,
                 "name": "guest", "place": 1},
                {"match_id": match_id, "seat": 1, "account_id": None, "level": "simple",
                 "name": "computer (simple)", "place": 2}])
        return match_id
    finally:
        engine.dispose()


def test_a_guest_becomes_an_account_and_keeps_its_seat_and_matches(
        server: LiveServer, browsers: Any) -> None:
    guest = browsers()
    created = guest.post("/api/tables", {"nickname": "Gus", "bots": {"1": "simple"}}).json()
    table_id, token = created["table_id"], created["token"]
    playing = Client.open(server, table_id, token)
    match_id = _finished_match(server, table_id)
    other_table = guest.post("/api/tables", {"nickname": "Gus"}).json()
    upgrade = {"name": "Gustav", "password": PASSWORD, "table_id": table_id, "token": token}

    refusals = [
        ({**upgrade, "token": secrets.token_urlsafe(24)}, 403, "forbidden", "token"),
        ({**upgrade, "token": other_table["token"]}, 403, "forbidden", "token"),
        ({**upgrade, "table_id": "nosuchtable"}, 404, "not_found", "table_id"),
        ({**upgrade, "name": "x"}, 400, "bad_request", "name"),
        ({**upgrade, "password": "short"}, 400, "bad_request", "password"),
    ]
    for body, status, code, where in refusals:
        answer = guest.post("/api/account/upgrade", body)
        assert answer.status_code == status, (body, answer.text)
        assert answer.json()["error"]["code"] == code
        assert answer.json()["error"]["field"] == where
    assert db_rows(server, select(AccountRow.__table__.c.id)) == []

    answer = guest.post("/api/account/upgrade", upgrade)
    assert answer.status_code == 201, answer.text
    account = answer.json()["account"]
    assert account["name"] == "Gustav"
    assert answer.json()["table_id"] == table_id and answer.json()["seat"] == 0
    assert guest.me().json()["account"] == account

    # the seat is the account's, in memory and stored; its name is the account's
    seat = server.lobby.get(table_id).table.seats[0]
    assert (seat.account_id, seat.name) == (account["id"], "Gustav")
    stored = server.stored_table(table_id).seats[0]
    assert (stored.account_id, stored.name) == (account["id"], "Gustav")
    # the guest's connection goes on, now the account's, and sees its new name
    playing.wait(lambda m: m["type"] == "state"
                 and m["table"]["seats"][0]["name"] == "Gustav")
    assert {c.account_id for c in server.lobby.get(table_id).connections} == {account["id"]}
    # the earlier finished match at this seat is the account's; the computer's row is not
    players = db_rows(server, select(MatchPlayerRow.__table__.c.seat,
                                     MatchPlayerRow.__table__.c.account_id)
                      .where(MatchPlayerRow.__table__.c.match_id == match_id)
                      .order_by(MatchPlayerRow.__table__.c.seat))
    assert [tuple(p) for p in players] == [(0, account["id"]), (1, None)]
    # another device of the account takes the seat by cookie
    laptop = browsers()
    assert laptop.login("Gustav").status_code == 200
    second = Client.open(server, table_id, None, additional_headers=laptop.cookie_header())
    assert second.state["seat"] == 0
    second.close()
    playing.close()

    # once bound, the seat cannot be upgraded again; a taken name makes no account
    again = browsers().post("/api/account/upgrade", {**upgrade, "name": "Other1"})
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_bound"
    taken = browsers().post("/api/account/upgrade",
                            {**upgrade, "table_id": other_table["table_id"],
                             "token": other_table["token"], "name": "gustav"})
    assert taken.status_code == 409 and taken.json()["error"]["code"] == "name_taken"
    assert len(db_rows(server, select(AccountRow.__table__.c.id))) == 1
    assert db_rows(server, select(SeatRow.__table__.c.account_id).where(
        SeatRow.__table__.c.table_id == other_table["table_id"],
        SeatRow.__table__.c.seat == 0)) == [(None,)]


def test_an_expired_session_is_no_session(server: LiveServer, browsers: Any) -> None:
    eve = browsers()
    eve.signup("Eve")
    assert eve.me().status_code == 200
    engine = open_engine(server.settings.db)
    try:
        with engine.begin() as conn:
            conn.execute(update(SessionRow.__table__).values(
                expires_at=datetime.now(UTC) - timedelta(seconds=1)))
    finally:
        engine.dispose()
    assert eve.me().status_code == 401
    assert server.app.state.server.accounts.purge_expired() == 1
    assert eve.login("Eve").status_code == 200 and eve.me().status_code == 200





def test_accounts_on_postgresql(make_server: Callable[..., LiveServer], pg_url: str) -> None:
    server = make_server(db=pg_url)
    ann = Browser(server)
    account = ann.signup("Ann")
    for name in ("ANN", "\u0430nn"):  # a look-alike by case, by a Cyrillic a
        assert Browser(server).post("/api/account/signup", {
            "name": name, "password": PASSWORD}).status_code == 409
    assert Browser(server).post("/api/account/signup", {
        "name": "\u00df" * 20, "password": PASSWORD}).status_code == 400
    assert ann.login("ann").status_code == 200
    guest = Browser(server)
    created = guest.post("/api/tables", {"nickname": "Gus", "bots": {"1": "simple"}}).json()
    match_id = _finished_match(server, created["table_id"])
    answer = guest.post("/api/account/upgrade", {
        "name": "Gustav", "password": PASSWORD, "table_id": created["table_id"],
        "token": created["token"]})
    assert answer.status_code == 201, answer.text
    gustav = answer.json()["account"]
    players = db_rows(server, select(MatchPlayerRow.__table__.c.seat,
                                     MatchPlayerRow.__table__.c.account_id)
                      .where(MatchPlayerRow.__table__.c.match_id == match_id)
                      .order_by(MatchPlayerRow.__table__.c.seat))
    assert [tuple(p) for p in players] == [(0, gustav["id"]), (1, None)]
    seated = Client.open(server, created["table_id"], None,
                         additional_headers=guest.cookie_header())
    assert seated.state["seat"] == 0
    seated.close()
    assert ann.me().json()["account"] == account
    for browser in (ann, guest):
        browser.close()


def test_a_failing_database_answers_503_and_the_server_goes_on(
        server: LiveServer, browsers: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    ann = browsers()
    ann.signup("Ann")
    store = server.app.state.server.accounts

    def broken(*_args: Any) -> None:
        raise OperationalError("SELECT", {}, Exception("database is locked"))

    for method in ("by_key", "session_account", "end_session"):
        monkeypatch.setattr(store, method, broken)
    answers = [browsers().login("Ann"), ann.me(), ann.post("/api/account/logout", {}),
               browsers().post("/api/account/signup", {"name": "Bea", "password": PASSWORD})]
    for answer in answers:
        assert answer.status_code == 503, answer.text
        assert answer.json()["error"]["code"] == "storage"
        assert not set_cookies(answer)
    monkeypatch.undo()
    assert ann.me().status_code == 200  # nothing changed: the session is alive
    assert browsers().login("Ann").status_code == 200


def test_an_upgrade_mid_match_makes_the_match_the_accounts(make_server: Any) -> None:
    """The match being played when the guest signs up ends as the account's: the match-end
    hook reads the seat's account then (issue 12, *a guest upgrades mid-match*)."""
    server = make_server(messages_per_window=100_000)
    guest = Browser(server)
    created = guest.post("/api/tables", {"nickname": "Gus", "bots": {"1": "simple"},
                                         "options": {"target": 20}}).json()
    table_id = created["table_id"]
    gus = Client.open(server, table_id, created["token"])
    actions = 0
    upgraded: dict[str, Any] | None = None
    while gus.state["result"] is None:
        state = gus.state
        if upgraded is None and state["view"] and state["view"]["hand_number"] >= 1 \
                and actions >= 2:
            answer = guest.post("/api/account/upgrade", {
                "name": "Gustav", "password": PASSWORD, "table_id": table_id,
                "token": created["token"]})
            assert answer.status_code == 201, answer.text
            upgraded = answer.json()["account"]
            gus.wait(is_state(state["version"] + 1))
            continue
        if state["legal"]:
            legal = state["legal"]
            action = next((a for a in legal if a.startswith(("gin", "knock"))), legal[0])
            gus.send({"type": "action", "id": f"a{actions}", "version": state["version"],
                      "action": action})
            actions += 1
        gus.wait(is_state(state["version"] + 1), 30)
    assert upgraded is not None
    assert gus.state["table"]["status"] == "over"
    gus.close()
    guest.close()
    rows = db_rows(server, select(MatchPlayerRow.__table__.c.seat,
                                  MatchPlayerRow.__table__.c.account_id)
                   .join(MatchRow.__table__,
                         MatchRow.__table__.c.id == MatchPlayerRow.__table__.c.match_id)
                   .where(MatchRow.__table__.c.table_id == table_id)
                   .order_by(MatchPlayerRow.__table__.c.seat))
    assert [tuple(r) for r in rows] == [(0, upgraded["id"]), (1, None)]


def test_a_hash_made_with_weaker_parameters_is_renewed_at_log_in(
        server: LiveServer, browsers: Any) -> None:
    old = PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1)
    store = server.app.state.server.accounts
    account = store.create("Olde", name_key("Olde"), old.hash(PASSWORD))
    assert browsers().login("Olde", "wrong password").status_code == 401
    assert store.by_id(account.id).password_hash.startswith("$argon2id$v=19$m=8192,t=1,p=1$")
    assert browsers().login("Olde").status_code == 200
    renewed = store.by_id(account.id).password_hash
    assert renewed.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    assert not needs_rehash(renewed) and password_ok(renewed, PASSWORD)
    assert browsers().login("Olde").status_code == 200


def test_an_upgrade_whose_seat_cannot_be_stored_makes_no_account(
        server: LiveServer, browsers: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    guest = browsers()
    created = guest.post("/api/tables", {"nickname": "Gus"}).json()
    writer = server.lobby.get(created["table_id"])

    async def refused(*_args: Any) -> None:
        raise CommitFailed("the database refused the write")

    monkeypatch.setattr(writer, "bind_account", refused)
    answer = guest.post("/api/account/upgrade", {
        "name": "Gustav", "password": PASSWORD, "table_id": created["table_id"],
        "token": created["token"]})
    assert answer.status_code == 503 and answer.json()["error"]["code"] == "storage"
    assert not set_cookies(answer) and guest.token is None
    assert server.app.state.server.accounts.count() == 0
    assert writer.table.seats[0].account_id is None
    monkeypatch.undo()  # the same name and seat work once the database does
    again = guest.post("/api/account/upgrade", {
        "name": "Gustav", "password": PASSWORD, "table_id": created["table_id"],
        "token": created["token"]})
    assert again.status_code == 201, again.text
