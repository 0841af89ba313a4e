"""The account relay while Redis is away (server/http/account_relay.py): two processes' hubs
on a made-up relay whose delivery the test stops. A push made while the publish fails waits
in the outbox and arrives, in order, once the relay delivers again (one presence report
waiting, the last, instead of each); a process whose subscription broke is told nothing of
what was sent meanwhile, so its sockets get the database's news again once the subscription
is back (a ``match_ready`` the player would otherwise never see)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

from ginrummy.server.cluster.relay import ACCOUNTS, PRESENCE, Envelope
from ginrummy.server.http.account_relay import AccountRelay
from ginrummy.server.players.friends import FriendsHub


class RedisAway(ConnectionError):
    """What the made-up Redis raises while it is away."""


class Bus:
    """The made-up Redis: every listening subscription gets each published envelope; while
    ``down`` every publish and every read fails."""

    def __init__(self) -> None:
        self.down = False
        self.subscriptions: list[Subscription] = []
        self.published: list[tuple[str, str, str]] = []
        """(sender, kind, frame) of each envelope published."""


class Subscription:
    """A process's subscription; ``cut``: its connection is broken (it misses what is
    published and its reads fail) while the others are fine."""

    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.queue: asyncio.Queue[Envelope] = asyncio.Queue()
        self.cut = False
        self.listening = False

    async def listen(self, table_id: str, direction: str) -> None:
        if self.bus.down:
            raise RedisAway("down")
        self.listening = True
        self.bus.subscriptions.append(self)

    async def get(self, timeout: float = 1.0) -> Envelope | None:
        """The next envelope; fails as soon as the connection breaks, even mid-wait."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            if self.bus.down or self.cut:
                await asyncio.sleep(0.01)
                raise RedisAway("connection lost")
            try:
                async with asyncio.timeout(0.01):
                    return await self.queue.get()
            except TimeoutError:
                if asyncio.get_running_loop().time() > deadline:
                    return None

    async def close(self) -> None:
        self.listening = False


class Relay:
    """The made-up relay of one process."""

    def __init__(self, bus: Bus, process: str) -> None:
        self.bus = bus
        self.process = process
        self.seq = 0

    async def to_accounts(self, kind: str, frame: str) -> int:
        await asyncio.sleep(0)
        if self.bus.down:
            raise RedisAway("publish refused")
        self.seq += 1
        self.bus.published.append((self.process, kind, frame))
        envelope = Envelope("", ACCOUNTS, self.process, 0, self.seq, None, frame, kind=kind)
        got = 0
        for sub in self.bus.subscriptions:
            if sub.listening and not sub.cut:
                sub.queue.put_nowait(envelope)
                got += 1
        return got

    def subscribe(self) -> Subscription:
        return Subscription(self.bus)


class Sink:
    """A push socket that keeps what it is sent."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send(self, message: Mapping[str, Any]) -> None:
        self.sent.append(dict(message))

    def close(self, code: int, reason: str) -> None:
        pass


class Store:
    def friend_ids(self, me: int) -> set[int]:
        return set()

    def tournaments_of(self, table_ids: list[str]) -> dict[str, str]:
        return {}


def a_hub() -> FriendsHub:
    lobby: Any = SimpleNamespace(writers={})
    return FriendsHub(lobby, Store())  # type: ignore[arg-type]


async def until(check: Any, timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "the condition never held"
        await asyncio.sleep(0.02)


def of_type(sink: Sink, kind: str) -> list[dict[str, Any]]:
    return [m for m in sink.sent if m["type"] == kind]


READY = {"type": "match_ready", "tournament": "t1", "name": "Cup", "round": 0,
         "table_id": "Tabcdefghijklmno", "opponents": ["Ann"]}


class Undecided:
    """A hub's greeter that reads the undecided matches from a made-up database."""

    def __init__(self, hub: FriendsHub) -> None:
        self.matches: dict[int, list[dict[str, Any]]] = {}
        hub.greeters.append(self.greet)

    async def greet(self, account_id: int) -> list[Mapping[str, Any]]:
        return list(self.matches.get(account_id, []))


async def two_processes(bus: Bus) -> tuple[FriendsHub, FriendsHub, AccountRelay, AccountRelay,
                                           Undecided, Sink]:
    """Processes A and B on the bus, started; Bob's (account 7) push socket at B."""
    hub_a, hub_b = a_hub(), a_hub()
    undecided = Undecided(hub_b)
    relay_a = AccountRelay(Relay(bus, "A"), hub_a)  # type: ignore[arg-type]
    relay_b = AccountRelay(Relay(bus, "B"), hub_b)  # type: ignore[arg-type]
    await relay_a.start()
    await relay_b.start()
    bob = Sink()
    await hub_b.connect(7, bob)  # type: ignore[arg-type]
    return hub_a, hub_b, relay_a, relay_b, undecided, bob


async def close(*parts: AccountRelay | FriendsHub) -> None:
    for part in parts:
        await part.close()


def test_a_push_made_while_redis_is_away_arrives_once_it_is_back() -> None:
    async def run() -> None:
        bus = Bus()
        hub_a, hub_b, relay_a, relay_b, _undecided, bob = await two_processes(bus)
        hub_a.push(7, {"type": "tournament", "id": "t0"})
        await until(lambda: of_type(bob, "tournament"))  # delivered while Redis answers
        bus.down = True
        for n in (1, 2, 3):
            hub_a.push(7, {"type": "tournament", "id": f"t{n}"})
        for report in range(3):  # three presence reports while away
            relay_a.share(PRESENCE, {"p": {"7": {"status": "online", "n": report}}})
        await until(lambda: relay_a.away)
        await asyncio.sleep(0.3)
        assert [m["id"] for m in of_type(bob, "tournament")] == ["t0"]  # nothing got through
        waiting = [kind for kind, _ in relay_a._outbox]  # a report replaces the one waiting
        assert waiting.count(PRESENCE) == 1 and waiting.count("push") == 3
        bus.down = False
        await until(lambda: len(of_type(bob, "tournament")) == 4)
        assert [m["id"] for m in of_type(bob, "tournament")] == ["t0", "t1", "t2", "t3"]
        await until(lambda: not relay_a.away)
        await close(relay_a, relay_b, hub_a, hub_b)

    asyncio.run(run())


def test_a_broken_subscription_reads_the_missed_ready_match_again_when_back() -> None:
    async def run() -> None:
        bus = Bus()
        hub_a, hub_b, relay_a, relay_b, undecided, bob = await two_processes(bus)
        ready = READY
        assert of_type(bob, "match_ready") == []
        sub_b = bus.subscriptions[1]
        sub_b.cut = True  # B's connection to Redis breaks; A's is fine
        await asyncio.sleep(0.1)
        undecided.matches[7] = [ready]  # A's driver starts the round: stored, then pushed
        hub_a.push(7, ready)
        await until(lambda: any(kind == "push" for _, kind, _ in bus.published))
        await asyncio.sleep(0.3)
        assert of_type(bob, "match_ready") == []  # B missed it
        sub_b.cut = False
        await until(lambda: of_type(bob, "match_ready"))
        assert of_type(bob, "match_ready") == [ready]
        assert relay_b.regreets == 1
        await close(relay_a, relay_b, hub_a, hub_b)

    asyncio.run(run())
