"""The players' routes on a live server: leaderboards (with the viewer's rank), profiles,
match history pages, replays and record downloads, the /players/NAME page, their errors,
and no card of a running match through any of them."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from player_helpers import add_account, example_table, log_in, migrated, store
from server_helpers import Client, LiveServer, cards_in, hidden_cards, live_server, table_at
from sqlalchemy import Engine

from ginrummy.rules import Ruleset
from ginrummy.server.core.auth import secret_hash
from ginrummy.server.players.sessions import SESSION_COOKIE
from ginrummy.storage import (
    Apply,
    InsertTable,
    Repository,
    StoredSeat,
    StoredTable,
    migrate,
    open_engine,
    players,
    utcnow,
)
from ginrummy.storage.accounts import AccountStore


def _get(server: LiveServer, path: str, session: str | None = None) -> httpx.Response:
    headers = {"cookie": f"{SESSION_COOKIE}={session}"} if session else {}
    with server.http() as client:
        return client.get(path, headers=headers)


def _error(response: httpx.Response, status: int, field: str | None) -> None:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["field"] == field and error["message"]


def _seed(engine: Engine) -> dict[str, int]:
    """Ann beats the expert twice, Bob loses to it once, Cy has no rated match."""
    ids = {n: add_account(engine, n) for n in ("Ann", "Bob", "Cy")}
    store(engine, example_table("ta1", ["expert", ids["Ann"]], ["Expert", "Ann"]))
    store(engine, example_table("ta2", ["expert", ids["Ann"]], ["Expert", "Ann"]))
    store(engine, example_table("tb1", [ids["Bob"], "expert"], ["Bob", "Expert"]))
    store(engine, example_table("tc1", [ids["Cy"], None], ["Cy", "guest"]))
    return ids


def test_leaderboard_top_and_the_viewers_rank(server: LiveServer) -> None:
    engine = migrated(server.settings.db)
    ids = _seed(engine)
    answer = _get(server, "/api/leaderboard/classic")
    assert answer.status_code == 200
    body = answer.json()
    assert body["category"] == "classic" and body["me"] is None
    assert [(e["rank"], e["name"], e["games"]) for e in body["top"]] == [
        (1, "Ann", 2), (2, "Bob", 1)]
    assert body["top"][0]["rating"] > 1500 > body["top"][1]["rating"]
    assert set(body["top"][0]) == {"rank", "name", "rating", "deviation", "games"}
    me = _get(server, "/api/leaderboard/classic", log_in(engine, ids["Bob"])).json()["me"]
    assert me == body["top"][1]
    unrated = _get(server, "/api/leaderboard/classic", log_in(engine, ids["Cy"])).json()
    assert unrated["me"] is None
    AccountStore(engine).set(ids["Ann"], banned_at=utcnow())  # banned: off the board
    assert [e["name"] for e in _get(server, "/api/leaderboard/classic").json()["top"]] == [
        "Bob"]
    assert _get(server, "/api/leaderboard/eaai").json()["top"] == []
    _error(_get(server, "/api/leaderboard/chess"), 404, "category")


def test_profile_ratings_history_stats_and_recent(server: LiveServer) -> None:
    engine = migrated(server.settings.db)
    _seed(engine)
    answer = _get(server, "/api/players/ANN")  # looked up by the name's folded key
    assert answer.status_code == 200
    body = answer.json()
    assert body["name"] == "Ann" and body["joined"]
    assert body["ratings"]["classic"]["rank"] == 1 and body["ratings"]["classic"]["games"] == 2
    history = body["history"]["classic"]
    assert len(history) == 2 and history[0]["rating"] < history[1]["rating"]
    assert history[1]["rating"] == body["ratings"]["classic"]["rating"]
    stats = body["stats"]
    assert stats == {"matches": 2, "won": 2, "hands": 2, "points_per_hand": 27.0,
                     "gin_rate": 0.0, "knock_rate": 1.0, "undercut_rate": 0.0,
                     "void_rate": 0.0, "caught": 0, "average_deadwood_caught": None}
    assert [m["place"] for m in body["recent"]] == [1, 1]
    assert body["recent"][0]["finished_at"] >= body["recent"][1]["finished_at"]
    bob = _get(server, "/api/players/bob").json()
    assert bob["stats"]["average_deadwood_caught"] == 28.0 and bob["stats"]["won"] == 0
    cy = _get(server, "/api/players/Cy").json()
    assert cy["ratings"] == {} and cy["stats"]["matches"] == 1
    assert cy["recent"][0]["category"] is None
    _error(_get(server, "/api/players/nobody"), 404, "name")
    _error(_get(server, "/api/players/" + "x" * 100), 404, "name")
    text = json.dumps(body)
    assert "password" not in text and "hash" not in text


def test_match_history_pages(server: LiveServer) -> None:
    engine = migrated(server.settings.db)
    ann = add_account(engine, "Ann")
    for i in range(53):
        store(engine, example_table(f"tp{i}", ["simple", ann], ["Simple", "Ann"]))
    first = _get(server, "/api/players/Ann/matches").json()
    assert len(first["matches"]) == 50 and first["next"] == first["matches"][-1]["id"]
    ids = [m["id"] for m in first["matches"]]
    finished = [m["finished_at"] for m in first["matches"]]
    assert finished == sorted(finished, reverse=True) and len(set(ids)) == 50
    second = _get(server, f"/api/players/Ann/matches?before={first['next']}").json()
    assert len(second["matches"]) == 3 and second["next"] is None
    assert {m["id"] for m in second["matches"]}.isdisjoint(ids)
    assert second["matches"][0]["won"] is True and second["matches"][0]["seat"] == 1
    _error(_get(server, "/api/players/Ann/matches?before=abc"), 400, "before")
    _error(_get(server, "/api/players/Nobody/matches"), 404, "name")


def test_replay_record_download_and_cli(server: LiveServer, tmp_path: Path) -> None:
    engine = migrated(server.settings.db)
    ann = add_account(engine, "Ann")
    store(engine, example_table("tr1", ["expert", ann], ["Expert", "Ann"]))
    (match_id,) = [m["id"] for m in _get(server, "/api/players/Ann").json()["recent"]]
    body = _get(server, f"/api/matches/{match_id}/replay").json()
    assert body["id"] == match_id and body["preset"] == "classic"
    assert body["rules"]["target"] == 25
    assert [p["name"] for p in body["players"]] == ["Expert", "Ann"]
    steps = body["steps"]
    assert len(steps) == 10 and steps[0]["action"] == "deal"
    assert all(len(s["hands"]) == 2 for s in steps)
    assert sum(len(h) for h in steps[0]["hands"]) == 20  # both hands face up
    assert steps[-1]["scores"] == [0, 27] and steps[-1]["hand"] == 1
    download = _get(server, f"/api/matches/{match_id}/record")
    assert download.status_code == 200
    assert download.headers["content-disposition"].startswith("attachment;")
    assert download.json()["format"] == "ginrummy-record"
    path = tmp_path / "download.ginrec.json"
    path.write_bytes(download.content)
    done = subprocess.run([sys.executable, "-m", "ginrummy.cli.main", "replay", str(path)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "Ann" in done.stdout and "247" in done.stdout
    for bad in ("999", "abc", "1" * 30):
        _error(_get(server, f"/api/matches/{bad}/replay"), 404, "match_id")
        _error(_get(server, f"/api/matches/{bad}/record"), 404, "match_id")


def test_player_page(server: LiveServer) -> None:
    engine = migrated(server.settings.db)
    add_account(engine, "Ann")
    page = _get(server, "/players/ann")
    assert page.status_code == 200 and "<html" in page.text.lower()
    missing = _get(server, "/players/nobody")
    assert missing.status_code == 404 and "<html" in missing.text.lower()


# ----------------------------------------------------------------------------- a running match
def _prepare_live_table(folder: Path) -> tuple[str, int]:
    """A database with Ann seated against the simple computer at a waiting classic table (to
    25): the server starts the match when it restores the table. Returns Ann's seat token."""
    engine = open_engine(f"sqlite:///{folder / 'test.db'}")
    migrate(engine)
    ann = add_account(engine, "Ann")
    token = secrets.token_urlsafe(16)
    rules = Ruleset.preset("classic", target=25)
    table = StoredTable(id="livetable1", name="live", preset="classic", rules=rules.to_dict(),
                        players=2, public=True, invite_hash=None, clock_ms=0,
                        pool_chips=None, status="waiting", version=2,
                        seats=[StoredSeat(0, "human", "Ann", None, secret_hash(token), False,
                                          ann),
                               StoredSeat(1, "bot", "Simple", "simple")])
    Repository(engine).write([InsertTable(table)])
    engine.dispose()
    return token, ann


def _player_routes(server: LiveServer) -> list[httpx.Response]:
    paths = ["/api/leaderboard/classic", "/api/players/Ann", "/api/players/Ann/matches",
             "/players/Ann"]
    paths += [f"/api/matches/{i}/{kind}" for i in range(1, 4) for kind in ("replay", "record")]
    return [_get(server, p) for p in paths]


def test_no_card_of_a_running_match_and_its_record_once_over(tmp_path: Path) -> None:
    """While Ann's match runs no player route names a card she or a spectator may not see;
    she walks away and the server abandons the table (nobody connected): the match is then
    stored as abandoned, lost by her against the computer, and replays to where it stopped."""
    folder = tmp_path / "live"
    folder.mkdir()
    token, _ann = _prepare_live_table(folder)
    with live_server(folder, hold_seconds=0.2, abandon_after_seconds=1.0) as server:
        client = Client.open(server, "livetable1", token)
        state = client.playable()
        table = table_at(server.stored_table("livetable1"), state["version"])
        assert table.match is not None and not table.match.over
        hidden = hidden_cards(table.match.hand, None) | hidden_cards(table.match.hand, 0)
        assert len(hidden) > 30
        for response in _player_routes(server):
            assert not cards_in(response.text) & hidden, response.request.url
            if "/api/matches/" in str(response.request.url):
                assert response.status_code == 404
        assert _get(server, "/api/players/Ann").json()["recent"] == []
        client.close()
        deadline = time.monotonic() + 120
        recent: list[dict[str, Any]] = []
        while not recent and time.monotonic() < deadline:
            time.sleep(0.2)
            recent = _get(server, "/api/players/Ann").json()["recent"]
        assert recent, "the match did not end"
        (match,) = recent
        assert match["ending"] == "abandoned" and match["category"] == "classic"
        assert match["place"] == 2 and match["won"] is False
        ann_seat = match["players"][0]
        assert ann_seat["abandoned"] is True and ann_seat["rating_after"] < 1500
        replay = _get(server, f"/api/matches/{match['id']}/replay").json()
        stored = server.stored_table("livetable1")
        assert stored.status == "abandoned"
        assert len(replay["steps"]) == len(stored.events) - 1  # every deal and action
        assert replay["steps"][-1]["hands"][0] and replay["steps"][-1]["hands"][1]


def _choice(legal: list[str]) -> str:
    """A quick player: knock or go gin when it may, else the first legal action."""
    return next((a for a in legal if a.startswith(("gin", "knock"))), legal[0])


def test_a_match_played_to_the_end_is_rated_with_its_last_event(tmp_path: Path) -> None:
    """Ann plays her match against the computer to the end on the live server: the match,
    her statistics and her new rating are stored with its last event, and the replay ends
    on the stored last version with the match's result."""
    folder = tmp_path / "played"
    folder.mkdir()
    token, _ann = _prepare_live_table(folder)
    with live_server(folder) as server:
        client = Client.open(server, "livetable1", token)
        deadline = time.monotonic() + 240
        recent: list[dict[str, Any]] = []
        moves = 0
        while time.monotonic() < deadline:
            recent = _get(server, "/api/players/Ann").json()["recent"]
            if recent:
                break
            try:
                state = client.playable(timeout=2)
            except TimeoutError:
                continue
            client.send({"type": "action", "id": f"m{moves}", "version": state["version"],
                         "action": _choice(state["legal"])})
            client.answer()
            moves += 1
        assert recent, "the match did not end"
        (match,) = recent
        stored = server.stored_table("livetable1")
        assert stored.status == "over" and match["ending"] == "over"
        assert match["category"] == "classic"
        ann_seat, computer = match["players"]
        assert computer["rating_before"] == computer["rating_after"] == 1450  # simple: fixed
        assert (ann_seat["rating_after"] > 1500) == (ann_seat["place"] == 1)
        profile = _get(server, "/api/players/Ann").json()
        assert profile["ratings"]["classic"]["rating"] == ann_seat["rating_after"]
        assert profile["stats"]["hands"] >= 1 and profile["stats"]["matches"] == 1
        replay = _get(server, f"/api/matches/{match['id']}/replay").json()
        last = replay["steps"][-1]
        assert last["result"] is not None
        assert last["scores"][0] + last["scores"][1] > 0
        assert len(replay["steps"]) == len(stored.events) - 1


def test_a_failing_end_write_stores_neither_the_last_event_nor_the_rating(
        tmp_path: Path) -> None:
    """On the live server, while another write of the match's end fails, the match's last
    event, its row and Ann's rating are all refused together (the table stays playing);
    once the failure is gone, the game ends and all of them are stored."""
    folder = tmp_path / "failing"
    folder.mkdir()
    token, ann = _prepare_live_table(folder)
    failed = threading.Event()

    def fail(_conn: object) -> None:
        failed.set()
        raise RuntimeError("a failing write of the match's end")

    def failing_hook(_end: object) -> list[Apply]:
        return [Apply(fail)]

    with live_server(folder) as server:
        hooks = server.lobby.hooks
        hooks.on_end.append(failing_hook)
        client = Client.open(server, "livetable1", token)
        deadline = time.monotonic() + 240
        moves = 0
        while not failed.is_set() and time.monotonic() < deadline:
            try:
                state = client.playable(timeout=2)
            except TimeoutError:
                continue
            client.send({"type": "action", "id": f"m{moves}", "version": state["version"],
                         "action": _choice(state["legal"])})
            client.answer()
            moves += 1
        assert failed.is_set(), "the match did not reach its end"
        time.sleep(0.5)
        stored = server.stored_table("livetable1")
        replayed = table_at(stored, stored.version)
        assert stored.status == "playing"
        assert replayed.match is not None and not replayed.match.over
        assert _get(server, "/api/players/Ann").json()["recent"] == []
        engine = migrated(server.settings.db)
        assert players.account_ratings(engine, ann) == {}
        hooks.on_end.remove(failing_hook)
        recent: list[dict[str, Any]] = []
        while not recent and time.monotonic() < deadline:
            recent = _get(server, "/api/players/Ann").json()["recent"]
            if recent:
                break
            try:
                state = client.playable(timeout=1)
            except TimeoutError:
                continue
            client.send({"type": "action", "id": f"m{moves}", "version": state["version"],
                         "action": _choice(state["legal"])})
            client.answer()
            moves += 1
        assert recent and recent[0]["ending"] == "over"
        assert server.stored_table("livetable1").status == "over"
        assert "classic" in players.account_ratings(engine, ann)
