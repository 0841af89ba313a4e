"""The friends hub's presence on a made-up lobby (no server): a friend's seat connecting,
its table starting, the seat left, each sent once to the friend's watchers only; a watcher
whose last socket closed is forgotten. A seat at a tournament's table is ``tournament``."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from ginrummy.server.core.kinds import TableStatus
from ginrummy.server.players.friends import FriendsHub


class Sink:
    """A push socket that keeps what it is sent."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.closed = False

    def send(self, message: dict[str, Any]) -> None:
        self.sent.append(dict(message))

    def close(self, code: int, reason: str) -> None:
        self.closed = True


class Store:
    def __init__(self, friends: dict[int, set[int]]) -> None:
        self.of = friends
        self.asked: list[list[str]] = []

    def friend_ids(self, me: int) -> set[int]:
        return set(self.of.get(me, set()))

    def tournaments_of(self, table_ids: list[str]) -> dict[str, str]:
        self.asked.append(sorted(table_ids))
        return {t: "cup" for t in table_ids if t == "T2"}


def statuses(sink: Sink, friend: int) -> list[tuple[str, str | None, bool]]:
    return [(m["status"], m["table_id"], m["playing"]) for m in sink.sent
            if m["type"] == "presence" and m["id"] == friend]


def test_presence_changes_reach_the_watchers_once() -> None:
    seat = SimpleNamespace(account_id=2, connections=0)
    table = SimpleNamespace(id="T1", status=TableStatus.WAITING, seats=[seat])
    lobby: Any = SimpleNamespace(writers={"T1": SimpleNamespace(table=table)})
    store: Any = Store({1: {2}, 2: {1}, 3: set()})
    hub = FriendsHub(lobby, store)
    ann, cy = Sink(), Sink()

    async def run() -> None:
        await hub.connect(1, ann)  # type: ignore[arg-type]
        await hub.connect(3, cy)  # type: ignore[arg-type]
        assert statuses(ann, 2) == [("offline", None, False)]
        assert hub.tick() == 0
        seat.connections = 1
        assert hub.tick() == 1
        table.status = TableStatus.PLAYING
        hub.tick()
        hub.tick()  # nothing new: nothing sent
        seat.connections = 0
        hub.tick()
        assert statuses(ann, 2) == [("offline", None, False), ("table", "T1", False),
                                    ("table", "T1", True), ("offline", None, False)]
        assert [m for m in cy.sent if m["type"] == "presence"] == []  # not Bob's friend
        hub.disconnect(1, ann)  # type: ignore[arg-type]
        assert 2 not in hub.watchers and 2 not in hub.last and 1 not in hub.friends
        assert hub.tick() == 0
        await hub.close()

    asyncio.run(run())


def test_a_tournament_table_shows_in_the_presence() -> None:
    seat = SimpleNamespace(account_id=2, connections=1)
    other = SimpleNamespace(account_id=4, connections=1)
    tables = {name: SimpleNamespace(id=name, status=TableStatus.PLAYING, seats=[s])
              for name, s in (("T1", other), ("T2", seat))}
    lobby: Any = SimpleNamespace(writers={k: SimpleNamespace(table=v) for k, v in tables.items()})
    store = Store({1: {2, 4}})
    hub = FriendsHub(lobby, store)  # type: ignore[arg-type]
    ann = Sink()

    async def run() -> None:
        await hub.connect(1, ann)  # type: ignore[arg-type]
        await hub.refresh_tournaments()
        hub.tick()
        assert [m["tournament"] for m in ann.sent if m["type"] == "presence" and m["id"] == 2
                ] == [None, "cup"]
        assert [m["tournament"] for m in ann.sent if m["type"] == "presence" and m["id"] == 4
                ] == [None]
        await hub.refresh_tournaments()  # read once: not asked again (T1 within 10 s)
        assert store.asked == [["T1", "T2"]]
        del lobby.writers["T2"]
        await hub.refresh_tournaments()
        assert set(hub.tournaments) == {"T1"}
        await hub.close()

    asyncio.run(run())


def test_across_processes_news_is_shared_and_reports_merge(monkeypatch: Any) -> None:
    """A hub with ``share`` (a cluster): pushes, invitations and answers are shared; another
    process's presence report is merged (the strongest wins) and dropped when it gets old or
    the process says it stopped; an invitation heard from another process can be answered
    here."""
    seat = SimpleNamespace(account_id=2, connections=0)
    table = SimpleNamespace(id="T1", status=TableStatus.PLAYING, seats=[seat])
    lobby: Any = SimpleNamespace(writers={"T1": SimpleNamespace(table=table)})
    store: Any = Store({1: {2, 3}, 2: {1}, 3: {1}})
    hub = FriendsHub(lobby, store)
    shared: list[tuple[str, dict[str, Any]]] = []
    hub.share = lambda kind, payload: shared.append((kind, payload))
    ann = Sink()
    clock = [100.0]
    monkeypatch.setattr("ginrummy.server.players.friends.time.monotonic", lambda: clock[0])

    async def run() -> None:
        await hub.connect(1, ann)  # type: ignore[arg-type]
        hub._task.cancel()  # type: ignore[union-attr]  # ticks by hand below
        assert statuses(ann, 2) == statuses(ann, 3) == [("offline", None, False)]
        # process B: Cy online, Bob online there while playing here: "table" wins
        hub.heard_presence("B", {"3": {"status": "online", "table_id": None,
                                       "playing": False, "tournament": None},
                                 "2": {"status": "online", "table_id": None,
                                       "playing": False, "tournament": None}})
        assert statuses(ann, 3)[-1] == ("online", None, False)
        seat.connections = 1
        hub.tick()
        assert statuses(ann, 2)[-1] == ("table", "T1", True)
        assert hub.online(3) and hub.online(2)
        # this process reports its own accounts (Ann online, Bob at the table), only on change
        assert hub.report() is True
        kind, payload = shared[-1]
        assert kind == "presence" and sorted(payload["p"]) == ["1", "2"]
        assert payload["p"]["2"]["status"] == "table"
        assert hub.report() is False
        clock[0] += 3.5  # a while without change: reported again (still alive)
        assert hub.report() is True
        # B silent for too long: its accounts are offline here
        clock[0] += 10.0
        hub.tick()
        assert statuses(ann, 3)[-1] == ("offline", None, False)
        hub.heard_presence("B", {"3": {"status": "online", "table_id": None,
                                       "playing": False, "tournament": None}})
        hub.heard_presence("B", {})  # B stopped
        assert statuses(ann, 3)[-2:] == [("online", None, False), ("offline", None, False)]
        # a push is delivered here and shared; an invitation from B is kept and answerable
        shared.clear()
        assert hub.push(1, {"type": "friends"}) == 1
        assert shared == [("push", {"a": 1, "m": {"type": "friends"}})]
        hub.heard_invitation({"id": "inv1", "from_id": 3, "from_name": "Cy", "to_id": 1,
                              "to_name": "Ann", "table_id": "T9", "invite": "code",
                              "seconds": 600})
        assert ann.sent[-1] == {"type": "invitation", "id": "inv1", "from": "Cy",
                                "table_id": "T9", "invite": "code"}
        assert hub.answer("inv1", 1, True) is not None
        kinds = [kind for kind, _ in shared]
        assert kinds == ["push", "dropped", "push", "push"]
        assert shared[1][1] == {"ids": ["inv1"]}
        hub.heard_invitation({"id": "inv2", "from_id": 3, "from_name": "Cy", "to_id": 1,
                              "to_name": "Ann", "table_id": "T9", "invite": None,
                              "seconds": 600})
        hub.heard_dropped(["inv2"])  # answered at B
        assert hub.answer("inv2", 1, False) is None
        # a friends change here is shared once (the other processes re-read their sockets'
        # lists); one heard from another process is not shared again
        shared.clear()
        await hub.changed(1, 2)
        await hub.changed(1, shared=False)
        assert shared == [("friends", {"ids": [1, 2]})]
        assert [m["type"] for m in ann.sent[-2:]] == ["friends", "friends"]
        # an invitation made here is shared once (not also as a push)
        shared.clear()
        made = hub.invite(1, "Ann", 2, "Bob", "T1", None)
        assert [kind for kind, _ in shared] == ["invited"]
        assert shared[0][1]["id"] == made.id and shared[0][1]["to_id"] == 2
        await hub.close()

    asyncio.run(run())
