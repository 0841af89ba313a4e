"""The heavy routes of a finished match (issue 25, 2): its replay and record are built once,
in a thread off the event loop, whatever the number of requests (at once or one after
another), served from a cache bounded in bytes (gzipped when the client takes it), and the
routes are rate-limited per client address."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from player_helpers import add_account, passing_table, store
from server_helpers import LiveServer
from sqlalchemy import Engine

from ginrummy.server.http import player_api
from ginrummy.server.play.settlement import Ending
from ginrummy.server.players import builtcache
from ginrummy.server.players.builtcache import BuiltCache, RecentRows
from ginrummy.storage import migrate, open_engine

STEPS = 400
"""Decisions of the stored match's one hand (the issue's had 2,330)."""


def _long_match(server: LiveServer) -> str:
    """A stored (stuck) match of :data:`STEPS` passing decisions; its id."""
    engine: Engine = open_engine(server.settings.db)
    migrate(engine)
    ann = add_account(engine, "Ann")
    store(engine, passing_table("long1", [ann, None], STEPS, ["Ann", "Guest"]), Ending.STUCK)
    engine.dispose()
    with server.http() as client:
        (match,) = client.get("/api/players/Ann").json()["recent"]
    return str(match["id"])


@pytest.fixture
def replays(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Every replay of a stored match the routes make: True when it ran on an event loop."""
    made: list[bool] = []
    replay_match = player_api.replay_match

    def counted(*args: Any) -> Any:
        try:
            asyncio.get_running_loop()
            made.append(True)
        except RuntimeError:
            made.append(False)
        return replay_match(*args)

    monkeypatch.setattr(player_api, "replay_match", counted)
    yield made


def _get(server: LiveServer, path: str, **headers: str) -> httpx.Response:
    with httpx.Client(base_url=server.base, timeout=60, trust_env=False) as client:
        return client.get(path, headers=headers)


def test_a_replay_is_built_once_off_the_event_loop(server: LiveServer,
                                                   replays: list[bool]) -> None:
    match_id = _long_match(server)
    path = f"/api/matches/{match_id}/replay"
    with ThreadPoolExecutor(max_workers=8) as pool:  # at once: they share the one build
        answers = list(pool.map(lambda _n: _get(server, path), range(8)))
    answers += [_get(server, path) for _ in range(4)]  # then from the cache
    assert {a.status_code for a in answers} == {200}
    assert len({a.content for a in answers}) == 1
    body = answers[0].json()
    assert body["id"] == match_id and len(body["steps"]) == STEPS + 1  # the deal, then each
    assert replays == [False], "built more than once, or on the event loop"
    # the record: built once too, a download the command line reads
    records = [_get(server, f"/api/matches/{match_id}/record") for _ in range(3)]
    assert {r.status_code for r in records} == {200}
    assert records[0].headers["content-disposition"].startswith("attachment;")
    assert records[0].json()["format"] == "ginrummy-record"
    assert replays == [False, False]


def test_a_replay_is_built_once_on_postgresql(make_server: Callable[..., LiveServer],
                                              pg_url: str, replays: list[bool]) -> None:
    server = make_server(db=pg_url)
    match_id = _long_match(server)
    path = f"/api/matches/{match_id}/replay"
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(lambda _n: _get(server, path), range(4)))
    assert {a.status_code for a in answers} == {200}
    assert len(answers[0].json()["steps"]) == STEPS + 1
    assert replays == [False]


def test_a_replay_goes_gzipped_to_a_client_that_takes_it(server: LiveServer) -> None:
    match_id = _long_match(server)
    path = f"/api/matches/{match_id}/replay"
    with httpx.Client(base_url=server.base, timeout=60, trust_env=False) as client:
        zipped = client.get(path, headers={"accept-encoding": "gzip"})
        plain = client.get(path, headers={"accept-encoding": "identity"})
    assert zipped.headers["content-encoding"] == "gzip"
    assert "content-encoding" not in plain.headers
    assert "accept-encoding" in zipped.headers["vary"].lower()
    assert zipped.json() == plain.json()  # httpx took the gzip off
    assert int(zipped.headers["content-length"]) < len(plain.content) / 4


def test_the_replay_routes_are_limited_per_address(
        make_server: Callable[..., LiveServer]) -> None:
    server = make_server(replays_per_address=3, replays_window_seconds=600)
    match_id = _long_match(server)
    paths = [f"/api/matches/{match_id}/replay", f"/api/matches/{match_id}/record",
             f"/api/matches/{match_id}/replay"]
    assert [_get(server, p).status_code for p in paths] == [200, 200, 200]
    for path in (*paths, "/api/matches/999/replay"):  # an unknown id counts too
        refused = _get(server, path)
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "too_many_requests"
        assert 0 < int(refused.headers["retry-after"]) <= 600
    # another address (through the trusted proxy) has its own budget
    other = _get(server, paths[0], **{"x-forwarded-for": "203.0.113.7"})
    assert other.status_code == 200


def test_the_cache_is_bounded_in_bytes_and_drops_the_least_recently_asked() -> None:
    async def run() -> tuple[BuiltCache, list[int]]:
        cache = BuiltCache(max_bytes=3000)
        made: list[int] = []

        def maker(number: int) -> Callable[[], bytes]:
            def make() -> bytes:
                made.append(number)
                assert threading.current_thread() is not threading.main_thread()
                return bytes(range(256)) * 4  # 1,024 bytes that gzip does not shrink much
            return make

        for number in (1, 2, 1, 3, 1, 4):
            await cache.get(number, maker(number))
        return cache, made

    cache, made = asyncio.run(run())
    assert made == [1, 2, 3, 4]  # 1 asked again each time: kept; 2 dropped first
    assert cache.bytes <= cache.max_bytes and len(cache) == 2


def test_a_failed_build_is_not_kept() -> None:
    async def run() -> list[str]:
        cache = BuiltCache(max_bytes=10_000)
        calls: list[str] = []

        def broken() -> bytes:
            calls.append("broken")
            raise ValueError("damaged")

        for _ in range(2):
            with pytest.raises(ValueError, match="damaged"):
                await cache.get("k", broken)
        return calls

    assert asyncio.run(run()) == ["broken", "broken"]


def test_a_match_row_read_lately_serves_for_its_seconds(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    now = [100.0]
    monkeypatch.setattr(builtcache.time, "monotonic", lambda: now[0])
    rows: RecentRows[str] = RecentRows(entries=2, seconds=10)
    rows.put(1, "one")
    now[0] += 9.9
    assert rows.get(1) == "one"
    now[0] += 0.1  # read 10 s ago: read it again
    assert rows.get(1) is None
    for key in (1, 2, 3):
        rows.put(key, str(key))
    assert rows.get(1) is None and rows.get(2) == "2" and rows.get(3) == "3"  # 2 at most
