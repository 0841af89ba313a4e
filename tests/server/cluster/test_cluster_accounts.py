"""The account push sockets across two real ``serve`` processes (docs/friends.md, "Across
processes"): an account's socket at process B is told of the friend request and acceptance
made at process A and follows its new friend; it gets the friend invitation an account at
process A sent, and the answer given at B reaches the sender's socket at A; presence changes
at one process reach the friends' sockets at the other; a tournament driven by process A
tells a player whose socket is at B that the match is ready (and that the tournament
changed), and once A is SIGKILLed, B takes the driver's lease over; a SIGKILLed process's
accounts go offline at the other once its last report gets old."""

from __future__ import annotations

import secrets
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from cluster_helpers import REDIS_URL
from procs import Cluster, cluster_missing, printed_logs_on_failure
from server_helpers import AccountPush, Client, until
from sqlalchemy import text

from ginrummy.server.cluster.duty import TOURNAMENTS_DUTY
from ginrummy.server.core.auth import secret_hash
from ginrummy.server.players.friends import PRESENCE_REPORT_SECONDS, REMOTE_PRESENCE_SECONDS
from ginrummy.server.players.names import name_key
from ginrummy.server.players.sessions import SESSION_COOKIE, SESSION_LIFETIME
from ginrummy.storage import open_engine
from ginrummy.storage.accounts import AccountStore
from pg_helpers import pg_schema, schema_url

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals"),
]


class Remote:
    """The bits of a live server the table clients need: its base URLs."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.ws_base = base.replace("http://", "ws://")


def presence(name_id: int, status: str) -> Callable[[dict[str, Any]], bool]:
    """Matches a ``presence`` message of account ``name_id`` with ``status``."""
    return lambda m: m["type"] == "presence" and m["id"] == name_id and m["status"] == status


class Accounts:
    """Accounts made in the cluster's database, each with a live session."""

    def __init__(self, db: str) -> None:
        self.db = db
        self.cookies: dict[str, str] = {}
        self.ids: dict[str, int] = {}

    def make(self, *names: str, role: str = "player") -> None:
        engine = open_engine(self.db)
        try:
            store = AccountStore(engine)
            for name in names:
                account = store.create(name, name_key(name), "not a real hash", role)
                token = secrets.token_urlsafe(32)
                store.add_session(secret_hash(token), account.id, SESSION_LIFETIME)
                self.cookies[name] = f"{SESSION_COOKIE}={token}"
                self.ids[name] = account.id
        finally:
            engine.dispose()

    def http(self, base: str, name: str) -> httpx.Client:
        """A client of the process at ``base`` signed in as ``name``."""
        return httpx.Client(base_url=base, timeout=30,
                            headers={"Origin": base, "Cookie": self.cookies[name]})


@pytest.fixture
def pair(tmp_path: Path, prefix: str) -> Iterator[tuple[Cluster, str]]:
    """Two ``serve`` processes on a fresh migrated schema and this test's Redis prefix (only
    process 0 started: the test starts process 1 when it wants), and the database URL."""
    missing = cluster_missing()
    if missing:
        pytest.skip(missing)
    env = {"GINRUMMY_TOURNAMENT_TICK_SECONDS": "0.1", "GINRUMMY_LOBBY_PUBLISH_SECONDS": "1",
           "GINRUMMY_CHATS_PER_WINDOW": "1000"}  # the block test's lines are many
    with pg_schema("accts") as schema, \
            Cluster(2, schema_url(schema), tmp_path / "cluster", redis=REDIS_URL,
                    prefix=prefix, env=env) as procs:
        procs.migrate()
        with printed_logs_on_failure(procs):
            yield procs, schema


def test_invitations_and_presence_reach_the_sockets_at_the_other_process(
        pair: tuple[Cluster, str]) -> None:
    procs, schema = pair
    procs.start()
    a, b = procs.procs[0].url, procs.procs[1].url
    accounts = Accounts(schema_url(schema))
    accounts.make("Ann", "Bob")
    ann, bob = accounts.ids["Ann"], accounts.ids["Bob"]
    bob_push = AccountPush(b, accounts.cookies["Bob"])  # Bob at B, no friend yet
    # the request and the acceptance are made at A: Bob's socket at B is told of each and
    # follows his new list (Ann, offline)
    with accounts.http(a, "Ann") as client:
        assert client.post("/api/friends/request", json={"name": "Bob"}).status_code == 200
    bob_push.wait(lambda m: m["type"] == "friends")
    with accounts.http(a, "Bob") as client:
        assert client.post("/api/friends/accept", json={"name": "Ann"}).status_code == 200
    bob_push.wait(lambda m: m["type"] == "friends")
    bob_push.wait(presence(ann, "offline"))
    ann_push = AccountPush(a, accounts.cookies["Ann"])  # Ann at A: Bob (at B) sees her come
    bob_push.wait(presence(ann, "online"))
    ann_push.wait(presence(bob, "online"))  # and she sees Bob, online at the other process
    with accounts.http(b, "Bob") as client:  # B's list reads A's presence of Ann too
        listed = client.get("/api/friends").json()["friends"]
    assert [f["presence"]["status"] for f in listed] == ["online"]

    with accounts.http(a, "Ann") as client:
        made = client.post("/api/tables", json={"nickname": "Ann", "public": False})
    assert made.status_code == 201, made.text
    table_id, invite = made.json()["table_id"], made.json()["invite"]
    seated = Client.open(Remote(a), table_id, token=made.json()["token"])  # type: ignore[arg-type]
    at_table = bob_push.wait(presence(ann, "table"))
    assert (at_table["table_id"], at_table["playing"]) == (table_id, False)

    # Ann (at A) invites Bob, whose only socket is at B; he accepts at B
    with accounts.http(a, "Ann") as client:
        sent = client.post("/api/friends/invite",
                           json={"name": "Bob", "table_id": table_id, "invite": invite})
    assert sent.status_code == 200, sent.text
    invitation = bob_push.wait(lambda m: m["type"] == "invitation")
    assert (invitation["from"], invitation["table_id"], invitation["invite"]) == (
        "Ann", table_id, invite)
    with accounts.http(b, "Bob") as client:
        accepted = client.post("/api/friends/invitation",
                               json={"id": invitation["id"], "answer": "accept"})
    assert accepted.status_code == 200, accepted.text
    assert (accepted.json()["table_id"], accepted.json()["invite"]) == (table_id, invite)
    told = ann_push.wait(lambda m: m["type"] == "invitation_answer")
    assert (told["friend"], told["answer"]) == ("Bob", "accepted")
    bob_push.wait(lambda m: m["type"] == "invitation_gone" and m["id"] == invitation["id"])
    with accounts.http(a, "Bob") as client:  # answered at B: gone at A too
        twice = client.post("/api/friends/invitation",
                            json={"id": invitation["id"], "answer": "accept"})
    assert twice.json()["error"]["code"] == "no_invitation"

    # a second invitation, declined at A although it was made there and shown at B
    with accounts.http(a, "Ann") as client:
        client.post("/api/friends/invite",
                    json={"name": "Bob", "table_id": table_id, "invite": invite})
    second = bob_push.wait(lambda m: m["type"] == "invitation")
    with accounts.http(a, "Bob") as client:
        declined = client.post("/api/friends/invitation",
                               json={"id": second["id"], "answer": "decline"})
    assert declined.status_code == 200, declined.text
    assert ann_push.wait(lambda m: m["type"] == "invitation_answer")["answer"] == "declined"
    bob_push.wait(lambda m: m["type"] == "invitation_gone" and m["id"] == second["id"])

    # Ann leaves A entirely: Bob at B sees her offline; Bob leaves B: Ann sees him offline
    seated.close()
    ann_push.close()
    bob_push.wait(presence(ann, "offline"))
    ann_push = AccountPush(a, accounts.cookies["Ann"])
    ann_push.wait(presence(bob, "online"))
    bob_push.close()
    ann_push.wait(presence(bob, "offline"))

    # A is SIGKILLed with Ann's socket open: no word from it, its report gets old, and Bob
    # (at B) sees her offline
    bob_push = AccountPush(b, accounts.cookies["Bob"])  # A reports Ann within its next tick
    bob_push.wait(presence(ann, "online"))
    bob_push.frames.clear()  # the socket's first news (Ann offline, before A's report)
    procs.kill(0)
    killed = time.monotonic()
    bob_push.wait(presence(ann, "offline"), timeout=30)
    # not before A's last report (at most PRESENCE_REPORT_SECONDS old) got too old
    assert time.monotonic() - killed >= REMOTE_PRESENCE_SECONDS - PRESENCE_REPORT_SECONDS - 1
    bob_push.close()


def a_cup(accounts: Accounts, base: str, name: str, seconds: float) -> str:
    """A 2-player knock-out made by Admin at ``base``, starting in ``seconds``; its id."""
    starts = (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat()
    with accounts.http(base, "Admin") as client:
        made = client.post("/api/tournaments", json={
            "name": name, "format": "knockout", "preset": "classic",
            "starts_at": starts, "min_players": 2, "max_players": 2, "clock_seconds": 60})
    assert made.status_code == 201, made.text
    return str(made.json()["id"])


def join(accounts: Accounts, base: str, tournament_id: str, *names: str) -> None:
    """Register each of ``names`` at ``base``."""
    for name in names:
        with accounts.http(base, name) as client:
            answer = client.post(f"/api/tournaments/{tournament_id}/register", json={})
            assert answer.status_code == 200, answer.text


def driver_owner(db: str) -> str | None:
    """The owner id of the process that last took the tournament driver's lease (its
    fencing row), or ``None``."""
    engine = open_engine(db)
    try:
        with engine.connect() as conn:
            owner = conn.execute(text("SELECT owner FROM duty_owners WHERE name = :n"),
                                 {"n": TOURNAMENTS_DUTY}).scalar()
            return None if owner is None else str(owner)
    finally:
        engine.dispose()


def test_a_tournament_driven_at_one_process_tells_a_player_at_the_other(
        pair: tuple[Cluster, str]) -> None:
    procs, schema = pair
    db = schema_url(schema)
    procs.start(0)  # alone, process A takes the driver's lease

    def drives(index: int) -> bool:
        owner = driver_owner(db)
        process = procs.procs[index].process
        return owner is not None and process is not None and owner.endswith(
            f":{process.pid}")

    until(lambda: drives(0), timeout=30)
    procs.start(1)
    a, b = procs.procs[0].url, procs.procs[1].url
    accounts = Accounts(db)
    accounts.make("Admin", role="admin")
    accounts.make("Ann", "Bob")
    ann, bob = accounts.ids["Ann"], accounts.ids["Bob"]
    tid = a_cup(accounts, b, "Two-process cup", 4)
    ann_push = AccountPush(b, accounts.cookies["Ann"])  # before the start: no greeting tells her
    join(accounts, b, tid, "Ann", "Bob")
    ready = ann_push.wait(lambda m: m["type"] == "match_ready", timeout=30)
    assert (ready["tournament"], ready["name"], ready["round"], ready["opponents"]) == (
        tid, "Two-process cup", 0, ["Bob"])
    ann_push.wait(lambda m: m["type"] == "tournament" and m["id"] == tid)
    assert procs.procs[0].alive and procs.procs[1].alive
    assert drives(0)  # A still drives: the news came over the relay
    with httpx.Client(base_url=a) as client:
        shown = client.get(f"/api/tournaments/{tid}").json()
    match = shown["rounds"][0]["matches"][0]
    assert (match["table_id"], sorted(match["players"])) == (ready["table_id"],
                                                             sorted([ann, bob]))
    ann_push.close()

    # A is SIGKILLed: its lease expires and B takes the driving over (a new tournament,
    # made and joined at B, starts and tells its players)
    procs.kill(0)
    accounts.make("Cy", "Di")
    second = a_cup(accounts, b, "After the crash", 2)
    cy_push = AccountPush(b, accounts.cookies["Cy"])
    join(accounts, b, second, "Cy", "Di")
    ready = cy_push.wait(lambda m: m["type"] == "match_ready" and m["tournament"] == second,
                         timeout=40)
    assert ready["opponents"] == ["Di"]
    assert drives(1)
    cy_push.close()


def test_a_block_made_at_one_process_hides_chat_at_the_table_of_the_other(
        pair: tuple[Cluster, str]) -> None:
    """Ann's table is owned by process A, where her chat filter is loaded; she blocks Bob
    through process B: A reads her filter again (the ``friends`` envelope) and Bob's lines
    stop reaching her, while the watcher still gets them."""
    procs, schema = pair
    procs.start()
    a, b = procs.procs[0].url, procs.procs[1].url
    accounts = Accounts(schema_url(schema))
    accounts.make("Ann", "Bob")
    with accounts.http(a, "Ann") as client:
        made = client.post("/api/tables", json={"nickname": "Ann", "public": True}).json()
    table_id = made["table_id"]
    with accounts.http(a, "Bob") as client:
        joined = client.post(f"/api/tables/{table_id}/join", json={"nickname": "B"}).json()
    ann_client = Client.open(Remote(b), table_id, token=made["token"])  # her socket at B
    bob_client = Client.open(Remote(a), table_id, token=joined["token"])
    watcher = Client.open(Remote(a), table_id)

    def bob_heard_by_ann(line: str) -> bool:
        """Bob says ``line`` (the watcher hears it), then Ann pings: whether Ann got
        Bob's line before her ping came back (the owner sends in order)."""
        bob_client.send({"type": "chat", "text": line})
        watcher.wait(lambda m: m["type"] == "chat" and m["text"] == line)
        ping = f"ping {line}"
        ann_client.send({"type": "chat", "text": ping})
        heard = False
        while True:
            message = ann_client.wait(lambda m: m["type"] == "chat")
            if message["text"] == ping:
                return heard
            heard = heard or message["text"] == line

    assert bob_heard_by_ann("before")
    with accounts.http(b, "Ann") as client:  # the block, made at B
        assert client.post("/api/friends/block", json={"name": "Bob"}).status_code == 200
    deadline = time.monotonic() + 15
    tries = 0
    while bob_heard_by_ann(f"after {tries}"):  # A follows within a Redis hop and a read
        tries += 1
        assert time.monotonic() < deadline, "the block never took effect at process A"
    assert not any(bob_heard_by_ann(f"still {n}") for n in range(3))
    with accounts.http(b, "Ann") as client:  # unblocked at B: heard again at A
        assert client.post("/api/friends/unblock", json={"name": "Bob"}).status_code == 200
    deadline = time.monotonic() + 15
    while not bob_heard_by_ann(f"again {tries}"):
        tries += 1
        assert time.monotonic() < deadline, "the unblock never took effect at process A"
    for client_ in (ann_client, bob_client, watcher):
        client_.close()
