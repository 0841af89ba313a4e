"""The whole HTTP surface with hostile input, on SQLite and PostgreSQL: every route of the
Starlette router, every method it answers, each path parameter and each JSON body filled
with a NUL, an over-long string, a lone surrogate or bytes that are not UTF-8, as a guest
and as an administrator. Nothing answers 5xx (docs/security.md, *Input at the edge*)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from types import UnionType
from typing import Any, Union, get_args, get_origin

import httpx
import pytest
from moderation_helpers import User, add_user
from pydantic import BaseModel
from server_helpers import Client, LiveServer
from starlette.routing import Mount, Route

from ginrummy.server.core.protocol import CreateTable, JoinTable
from ginrummy.server.http.account_api import Credentials, Logout, PasswordChange, Upgrade
from ginrummy.server.http.admin_api import (
    HandledBody,
    KickBody,
    MuteBody,
    NameBody,
    NoticeBody,
    ReportBody,
    TableBody,
)
from ginrummy.server.http.chips_api import LeaveTable, NoFields
from ginrummy.server.http.coach_api import TableCoach
from ginrummy.server.http.learn_api import TableHint

BODY_MODELS: list[type[BaseModel]] = [
    CreateTable, JoinTable, Credentials, PasswordChange, Upgrade, Logout, LeaveTable, NoFields,
    KickBody, MuteBody, NameBody, TableBody, NoticeBody, HandledBody, ReportBody, TableCoach,
    TableHint]
"""Every body a route reads: each route is sent all of them."""

NUL = "a\u0000b"
LONG = "x" * 3000
SURROGATE = "\ud800"
BAD_STRINGS = [NUL, LONG, SURROGATE]
PATH_VALUES = ["a%00b", "%00", LONG, "%FF%FE", "%C0%80", "..%2F..%2Fetc", "-1",
               "99999999999999999999999"]
"""What each path parameter is replaced by (percent-escapes sent as they are)."""
RAW_BODIES = [b'{"name": "\xff\xfe", "nickname": "\xc0\x80"}', b'\xff\xfe{\x00}',
              b'{"nickname": "Ann", "seat": 12345678901234567890}', b'{"a": "\\u0000"}']
PARAM = re.compile(r"{(\w+)(?::\w+)?}")


@pytest.fixture(params=["sqlite", "postgresql"])
def surface_server(request: pytest.FixtureRequest,
                   make_server: Callable[..., LiveServer]) -> LiveServer:
    """A live server on a fresh SQLite file or PostgreSQL schema."""
    if request.param == "sqlite":
        return make_server()
    return make_server(db=request.getfixturevalue("pg_url"))


def filled(model: type[BaseModel], value: str) -> dict[str, Any]:
    """A body of ``model``: every string field ``value``, the other required ones valid."""
    body: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        kind = info.annotation
        kinds = get_args(kind) if get_origin(kind) in (Union, UnionType) else (kind,)
        if str in kinds:
            body[name] = value
        elif info.is_required():
            body[name] = 1
    return body


def route_paths(server: LiveServer) -> Iterator[tuple[str, list[str]]]:
    """Every route's path template and methods (a mount: a path under it)."""
    for route in server.app.routes:
        if isinstance(route, Route):
            yield route.path, [*sorted((route.methods or {"GET"}) - {"HEAD"}), "HEAD"]
        elif isinstance(route, Mount):
            yield route.path.rstrip("/") + "/{file}", ["GET", "HEAD"]


def walk(server: LiveServer, client: httpx.Client, user: User | None,
         real: dict[str, str]) -> list[str]:
    """Every request of the walk; the ones answered 5xx (method, path, status)."""
    headers = user.headers if user else {}
    failures: list[str] = []
    sent = 0

    def send(method: str, path: str, **options: Any) -> None:
        nonlocal sent
        sent += 1
        url = httpx.URL(server.base + path)
        answer = client.request(method, url, headers={**headers,
                                                      **options.pop("headers", {})},
                                **options)
        if answer.status_code >= 500:
            failures.append(f"{method} {path} {options}: {answer.status_code} "
                            f"{answer.text[:200]}")

    for template, methods in route_paths(server):
        names = PARAM.findall(template)
        variants = [PARAM.sub(lambda m: real.get(m.group(1), "x"), template)]
        for name in names:
            for value in PATH_VALUES:
                variants.append(PARAM.sub(lambda m, n=name, v=value:
                                          v if m.group(1) == n else real.get(m.group(1), "x"),
                                          template))
        for method in methods:
            for path in variants:
                if method in ("GET", "HEAD"):
                    send(method, path + "?before=%00&limit=" + LONG[:40] + "&page=%FF")
                    continue
                send(method, path, json={})
            if method not in ("POST", "PUT", "PATCH", "DELETE"):
                continue
            path = variants[0]  # the real ids: the body's checks are reached
            for model in BODY_MODELS:
                for value in BAD_STRINGS:
                    send(method, path, content=json.dumps(filled(model, value)).encode(),
                         headers={"Content-Type": "application/json"})
            for raw in RAW_BODIES:
                send(method, path, content=raw, headers={"Content-Type": "application/json"})
    assert sent > 500  # the walk really covered the surface
    return failures


def test_no_hostile_input_gets_a_5xx_anywhere(surface_server: LiveServer) -> None:
    server = surface_server
    admin = add_user(server, "Boss", "admin")
    created = server.create(nickname="Ann", bots={"1": "simple"})
    ann = Client.open(server, created["table_id"], created["token"])
    real = {"table_id": created["table_id"], "name": "Boss", "match_id": "1",
            "category": "classic", "version": "v1", "file": "index.html"}
    with httpx.Client(timeout=30, trust_env=False, headers={"Origin": server.base}) as client:
        failures = walk(server, client, None, real)
        failures += walk(server, client, admin, real)
    ann.close()
    assert failures == []


def test_a_nul_in_a_player_name_is_404_and_in_a_log_in_401(
        surface_server: LiveServer) -> None:
    server = surface_server
    add_user(server, "Annie")
    with server.http() as client:
        for path in ("/api/players/a%00b", "/players/a%00b", "/api/players/a%00b/matches",
                     "/api/players/Annie%00", "/api/players/%ED%A0%80"):
            answer = client.get(path)
            assert answer.status_code == 404, (path, answer.status_code, answer.text[:200])
        for name in ("a\u0000b", "Annie\u0000"):
            login = client.post("/api/account/login", json={"name": name,
                                                            "password": "whatever it is"})
            assert login.status_code == 401, login.text
        assert client.get("/api/players/Annie").status_code == 200  # the real one is there
