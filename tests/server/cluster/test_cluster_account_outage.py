"""The account relay through a real Redis connection that breaks (server/http/account_relay.py):
process A reaches Redis through a TCP proxy the test cuts and restores, process B directly.
While A is cut, its push to Bob (whose socket is at B) waits in A's outbox and arrives once
Redis answers again; B's ``match_ready`` to Ann (whose socket is at A) is lost to A's broken
subscription, and A reads it again from the database (its greeter) when the subscription is
back."""

from __future__ import annotations

import asyncio
import contextlib

from cluster_helpers import REDIS_URL
from redis.asyncio import Redis
from test_account_relay import READY, Sink, Undecided, a_hub, close, of_type, until

from ginrummy.server.cluster.relay import Relay
from ginrummy.server.http.account_relay import AccountRelay


class Proxy:
    """A TCP proxy to the test Redis that can be cut (listener and connections closed) and
    restored on the same port."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.port = 0
        self.server: asyncio.Server | None = None
        self.writers: list[asyncio.StreamWriter] = []

    async def _handle(self, reader: asyncio.StreamReader,
                      writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.target)
        self.writers += [writer, up_writer]

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with contextlib.suppress(Exception):
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            sink.close()

        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    async def up(self) -> None:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
        self.port = self.server.sockets[0].getsockname()[1]

    async def cut(self) -> None:
        if self.server is not None:
            self.server.close()
        for writer in self.writers:
            writer.close()
        self.writers = []


def test_news_of_a_redis_outage_arrives_after_it(prefix: str) -> None:
    host, port = REDIS_URL.split("//", 1)[1].split("/", 1)[0].split(":")

    async def run() -> None:
        proxy = Proxy(host, int(port))
        await proxy.up()
        via = Redis.from_url(f"redis://127.0.0.1:{proxy.port}/0", socket_connect_timeout=2.0,
                             socket_timeout=5.0)
        direct = Redis.from_url(REDIS_URL)
        hub_a, hub_b = a_hub(), a_hub()
        undecided = Undecided(hub_a)  # the database's undecided matches
        relay_a = AccountRelay(Relay(via, "A", prefix), hub_a)
        relay_b = AccountRelay(Relay(direct, "B", prefix), hub_b)
        await relay_a.start()
        await relay_b.start()
        ann, bob = Sink(), Sink()
        await hub_a.connect(1, ann)  # type: ignore[arg-type]
        await hub_b.connect(2, bob)  # type: ignore[arg-type]
        hub_a.push(2, {"type": "tournament", "id": "t0"})
        await until(lambda: of_type(bob, "tournament"))  # both ways fine at first

        await proxy.cut()  # A loses Redis
        hub_a.push(2, {"type": "tournament", "id": "t1"})
        await until(lambda: relay_a.away)
        undecided.matches[1] = [READY]  # B's driver starts the round: stored, then pushed
        hub_b.push(1, READY)
        await asyncio.sleep(1.5)
        assert [m["id"] for m in of_type(bob, "tournament")] == ["t0"]
        assert of_type(ann, "match_ready") == []
        await proxy.up()  # Redis is back for A
        await until(lambda: [m["id"] for m in of_type(bob, "tournament")] == ["t0", "t1"])
        await until(lambda: of_type(ann, "match_ready") == [READY])
        # an envelope of the batch that carried t1 may have failed as Redis came back: it is
        # sent again a second later (RETRY_SECONDS), and only then is the relay not away
        await until(lambda: not relay_a.away)
        assert relay_a.regreets >= 1
        await close(relay_a, relay_b, hub_a, hub_b)
        await proxy.cut()
        await via.aclose()
        await direct.aclose()

    asyncio.run(run())
