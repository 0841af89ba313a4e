"""The relay over the machine's Redis: a client's messages reach the table's owner and the
owner's frames reach the processes with the table's clients, each sender's in order, with
gaps seen; the account channel reaches every process, each sender's news in order."""

from __future__ import annotations

import asyncio

import pytest
from cluster_helpers import with_redis
from redis.asyncio import Redis

from ginrummy.server.cluster import Envelope, Relay, RelayError, Subscription
from ginrummy.server.cluster.relay import ACCOUNTS, INBOX, OUTBOX, PRESENCE, PUSH, TEXT


async def drain(sub: Subscription, count: int, timeout: float = 5.0) -> list[Envelope]:
    """``count`` envelopes (fewer if none came for ``timeout`` seconds)."""
    got: list[Envelope] = []
    while len(got) < count:
        envelope = await sub.get(timeout)
        if envelope is None:
            break
        got.append(envelope)
    return got


def test_the_owners_frames_reach_every_edge_in_order(prefix: str) -> None:
    async def check(client: Redis) -> None:
        owner = Relay(client, "owner", prefix=prefix)
        edges = [Relay(client, f"edge{i}", prefix=prefix).subscribe() for i in range(2)]
        try:
            for sub in edges:
                await sub.listen("t1", OUTBOX)
            for n in range(500):
                receivers = await owner.to_clients("t1", 7, f'{{"type":"state","n":{n}}}',
                                                   connection=None if n % 2 else f"c{n}")
                assert receivers == 2
            for sub in edges:
                got = await drain(sub, 500)
                assert [e.frame for e in got] == [f'{{"type":"state","n":{n}}}'
                                                  for n in range(500)]
                assert [e.seq for e in got] == list(range(1, 501))
                assert {e.token for e in got} == {7} and not any(e.gap for e in got)
                assert got[0].connection == "c0" and got[1].connection is None
                assert await sub.get(0.05) is None
        finally:
            for sub in edges:
                await sub.close()

    with_redis(check)


def test_clients_messages_from_two_edges_reach_the_owner_each_in_order(prefix: str) -> None:
    async def check(client: Redis) -> None:
        owner = Relay(client, "owner", prefix=prefix).subscribe()
        left, right = (Relay(client, name, prefix=prefix) for name in ("left", "right"))
        try:
            assert await left.to_owner("t1", "c1", "lost") == 0  # no owner listens yet
            await owner.listen("t1", INBOX)

            async def send(relay: Relay, connection: str) -> None:
                for n in range(200):
                    assert await relay.to_owner("t1", connection, f"{connection}:{n}") == 1

            await asyncio.gather(send(left, "c1"), send(right, "c2"))
            got = await drain(owner, 400)
            assert len(got) == 400
            for sender, connection in (("left", "c1"), ("right", "c2")):
                mine = [e for e in got if e.sender == sender]
                assert [e.frame for e in mine] == [f"{connection}:{n}" for n in range(200)]
                assert {e.connection for e in mine} == {connection}
                assert not any(e.gap for e in mine)
                first = 2 if sender == "left" else 1  # left's first went nowhere
                assert [e.seq for e in mine] == list(range(first, first + 200))
        finally:
            await owner.close()

    with_redis(check)


def test_tables_are_apart_and_leaving_stops_delivery(prefix: str) -> None:
    async def check(client: Redis) -> None:
        owner = Relay(client, "owner", prefix=prefix)
        edge = Relay(client, "edge", prefix=prefix).subscribe()
        try:
            await edge.listen("t1", OUTBOX)
            assert await owner.to_clients("t2", 1, "other table") == 0
            assert await owner.to_owner("t1", "c1", "inbox, not outbox") == 0
            await owner.to_clients("t1", 1, "mine")
            got = await drain(edge, 2, timeout=0.3)
            assert [(e.table_id, e.frame) for e in got] == [("t1", "mine")]
            await edge.leave("t1", OUTBOX)
            assert await owner.to_clients("t1", 1, "after leaving") == 0
            assert await edge.get(0.1) is None
        finally:
            await edge.close()

    with_redis(check)


def test_a_missed_envelope_and_a_new_owner_are_seen(prefix: str) -> None:
    async def check(client: Redis) -> None:
        owner = Relay(client, "owner", prefix=prefix)
        edge = Relay(client, "edge", prefix=prefix).subscribe()
        try:
            await edge.listen("t1", OUTBOX)
            await owner.to_clients("t1", 3, "one")
            owner._seq[("t1", OUTBOX)] += 1  # as if "two" were published while away
            await owner.to_clients("t1", 3, "three")
            successor = Relay(client, "successor", prefix=prefix)
            await successor.to_clients("t1", 4, "new owner's first")
            got = await drain(edge, 3)
            assert [(e.frame, e.seq, e.gap) for e in got] == [
                ("one", 1, False), ("three", 3, True), ("new owner's first", 1, False)]
        finally:
            await edge.close()

    with_redis(check)


def test_envelopes_round_trip_and_garbage_is_refused() -> None:
    envelope = Envelope("t1", OUTBOX, "p", 2, 9, None, '{"type":"state"}')
    assert Envelope.decode(envelope.encode()) == envelope
    with pytest.raises(RelayError, match="not a relay envelope"):
        Envelope.decode(b"hello")
    with pytest.raises(RelayError, match="not a relay envelope"):
        Envelope.decode(b'{"t": "t1"}')
    with pytest.raises(RelayError, match="bad relay envelope fields"):
        Envelope.decode(b'{"t":"t1","d":"sideways","s":"p","k":1,"n":1,"c":null,"f":"x"}')
    with pytest.raises(ValueError, match="direction"):
        Relay(None, "p").channel("t1", "up")  # type: ignore[arg-type]


def test_concurrent_senders_of_one_process_keep_the_numbers_in_order(prefix: str) -> None:
    async def check(client: Redis) -> None:
        owner = Relay(client, "owner", prefix=prefix)
        edge = Relay(client, "edge", prefix=prefix).subscribe()
        try:
            await edge.listen("t1", OUTBOX)
            # 300 tasks publish at once, over several pooled connections
            await asyncio.gather(*(owner.to_clients("t1", 1, f"f{n}") for n in range(300)))
            got = await drain(edge, 300)
            assert [e.seq for e in got] == list(range(1, 301))
            assert not any(e.gap for e in got)
        finally:
            await edge.close()

    with_redis(check)


def test_account_news_reaches_every_process_in_order(prefix: str) -> None:
    async def check(client: Redis) -> None:
        senders = [Relay(client, f"p{i}", prefix=prefix) for i in range(2)]
        subs = [relay.subscribe() for relay in senders]
        try:
            for sub in subs:
                await sub.listen("", ACCOUNTS)
            assert senders[0].channel("", ACCOUNTS) == f"{prefix}:accounts"
            for n in range(50):
                assert await senders[0].to_accounts(PUSH, f'{{"a":1,"n":{n}}}') == 2
            assert await senders[1].to_accounts(PRESENCE, '{"p":{}}') == 2
            for sub in subs:
                got = await drain(sub, 51)
                assert [(e.sender, e.seq, e.kind) for e in got] == [
                    *(("p0", n, PUSH) for n in range(1, 51)), ("p1", 1, PRESENCE)]
                assert {(e.table_id, e.direction, e.connection) for e in got} == {
                    ("", ACCOUNTS, None)}
                assert not any(e.gap for e in got)
            with pytest.raises(ValueError, match="kinds"):
                await senders[0].to_accounts(TEXT, "{}")  # a table's kind, not an account's
        finally:
            for sub in subs:
                await sub.close()

    with_redis(check)
