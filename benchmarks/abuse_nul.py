"""The ``nul_ids`` attack of ``benchmarks/abuse.py`` (issue 25, point 1): guests sending
actions whose ids hold a NUL while people play many tables.

Its own ``ginrummy serve`` (``--nul-db``: a fresh SQLite file by default, or a PostgreSQL URL,
where a NUL in a text column is what the database refuses), ``--nul-tables`` tables of a
person and a computer, each person playing for ``--nul-seconds`` (0.3 s of thought before
each action, a rematch when a match ends); then as long again while ``--nul-guests``
guests, each at a table of its own, send an action with a NUL in its id at 18 frames a
second (a guest whose connection closes connects again a second later). Measured:
the people's acknowledgement latency (p50, p99) before and during, the guests' answers by
code, the people's errors (before and during), and the tracebacks the server's log gained.
The flood limit is raised on that server so that every guest frame reaches the message
check. Held when the guests got ``bad_message`` and never ``storage``, no person got a
``storage`` error, no traceback was logged and the median ack during stayed within twice
the median before (or 20 ms more). The median, not the p99: on a shared 2-core machine the
p99 of 10 s moves by 2-5x from run to run with no attack at all. Before the fix, on
PostgreSQL (20 tables, 10 guests, 10 s each): every guest frame answered ``storage``, 1,026
tracebacks logged, the people's median ack 10 -> 161 ms, p99 42 -> 739 ms, acks halved.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import tempfile
import time
from pathlib import Path
from statistics import median
from typing import Any

import httpx

from load_server import ServerHandle, kill_server, percentile, start_server

GUEST_FRAMES_PER_SECOND = 18
THINK_SECONDS = 0.3
"""A person's pause before each action: 3 a second at most, within the flood limit."""


def attack_nul_ids(_server: ServerHandle, _api: Any, args: argparse.Namespace) -> Any:
    """The attack on a server of its own (many tables of one address)."""
    from abuse import Result  # the registry's result type (abuse imports this module)

    with tempfile.TemporaryDirectory(prefix="ginrummy-nul-") as folder:
        db = args.nul_db or f"sqlite:///{Path(folder) / 'nul.db'}"
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("GINRUMMY_")},
               "GINRUMMY_TABLES_PER_ADDRESS": "100000",
               "GINRUMMY_CONNECTIONS_PER_ADDRESS": "100000",
               # every guest frame reaches the message check (the flood limit would close
               # a guest after 100 frames in 20 s): the worst case
               "GINRUMMY_MESSAGES_PER_WINDOW": "100000"}
        server = start_server(db, Path(folder), ["--bot-delay", "0", "--between-hands", "0"],
                              log_level="info", env=env)
        try:
            figures = asyncio.run(_attack(server, args))
        finally:
            kill_server(server)
        log_text = server.log_path.read_text(errors="replace") if server.log_path else ""
    figures["tracebacks_logged"] = log_text.count("Traceback")
    figures["db"] = "postgresql" if db.startswith("postgres") else "sqlite"
    guests = figures["guest_answers"]
    before, during = figures["p50_ms_before"], figures["p50_ms_during"]
    held = ("bad_message" in guests and "storage" not in guests
            and "storage" not in figures["people_errors_during"]
            and figures["tracebacks_logged"] == 0 and before is not None
            and during is not None and during <= max(2 * before, before + 20.0))
    return Result("nul_ids", held, figures)


async def _attack(server: ServerHandle, args: argparse.Namespace) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=server.url, timeout=30, trust_env=False,
                                 headers={"Origin": server.url}) as http:
        people = [await _table(http) for _ in range(args.nul_tables)]
        guests = [await _table(http) for _ in range(args.nul_guests)]
    latencies: list[list[float]] = [[], []]
    errors: list[dict[str, int]] = [{}, {}]
    answers: dict[str, int] = {}
    phase = [0]
    stop = time.monotonic() + 2 * args.nul_seconds

    async def switch() -> None:
        await asyncio.sleep(args.nul_seconds)
        phase[0] = 1

    await asyncio.gather(
        switch(),
        *(_person(server.url, t, stop, phase, latencies, errors) for t in people),
        *(_guest(server.url, t, stop, phase, answers) for t in guests))
    return {"tables": args.nul_tables, "guests": args.nul_guests,
            "seconds_each": args.nul_seconds,
            "acks_before": len(latencies[0]), "acks_during": len(latencies[1]),
            "p50_ms_before": _pct(latencies[0], 0.5), "p99_ms_before": _pct(latencies[0], 0.99),
            "p50_ms_during": _pct(latencies[1], 0.5), "p99_ms_during": _pct(latencies[1], 0.99),
            "guest_answers": answers, "people_errors_before": errors[0],
            "people_errors_during": errors[1]}


def _pct(values: list[float], q: float) -> float | None:
    """The median (``q`` 0.5) or the ``q`` quantile of ``values`` (ms), rounded."""
    if not values:
        return None
    return round(median(values) if q == 0.5 else percentile(values, q), 1)


async def _table(http: httpx.AsyncClient) -> dict[str, Any]:
    answer = await http.post("/api/tables", json={"nickname": "Ann", "bots": {"1": "simple"}})
    if answer.status_code != 201:
        raise RuntimeError(f"create: {answer.status_code} {answer.text[:200]}")
    return dict(answer.json())


async def _open(base: str, table: dict[str, Any]) -> Any:
    from websockets.asyncio.client import connect

    ws = await connect(base.replace("http://", "ws://") + f"/ws/tables/{table['table_id']}",
                       origin=base, open_timeout=10, max_size=2**22, proxy=None)
    await ws.send(json.dumps({"type": "hello", "protocol": 2, "token": table["token"]}))
    return ws


async def _person(base: str, table: dict[str, Any], stop: float, phase: list[int],
                  latencies: list[list[float]], errors: list[dict[str, int]]) -> None:
    """Play this seat's first legal action whenever it may act; each ack's latency."""
    ws = await _open(base, table)
    sent: dict[str, float] = {}
    count = 0
    rematched = -1
    try:
        while time.monotonic() < stop:
            with contextlib.suppress(TimeoutError):
                message = json.loads(await asyncio.wait_for(ws.recv(), 1.0))
                kind = message.get("type")
                if kind == "error" and sent:  # an answer to an action (not to a rematch)
                    found = errors[phase[0]]
                    found[message["code"]] = found.get(message["code"], 0) + 1
                    sent.clear()
                if kind != "state":
                    continue
                acked = message.get("ack")
                if acked in sent:
                    latencies[phase[0]].append((time.perf_counter() - sent.pop(acked)) * 1000)
                if message["table"]["status"] == "over" and message["version"] > rematched:
                    rematched = message["version"]  # the match is over: another one
                    await ws.send('{"type": "rematch"}')
                    sent.clear()
                elif message.get("legal") and not sent:
                    await asyncio.sleep(THINK_SECONDS)  # within the flood limit (5 a second)
                    count += 1
                    action_id = f"p{count}"
                    sent[action_id] = time.perf_counter()
                    await ws.send(json.dumps({"type": "action", "id": action_id,
                                              "version": message["version"],
                                              "action": message["legal"][0]}))
    finally:
        await ws.close()


async def _guest(base: str, table: dict[str, Any], stop: float, phase: list[int],
                 answers: dict[str, int]) -> None:
    """From the second phase on, a legal action with a NUL in its id, 18 times a second."""
    from websockets.exceptions import ConnectionClosed

    latest: dict[str, Any] = {}

    async def read(ws: Any) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for text in ws:
                message = json.loads(text)
                if message.get("type") == "state":
                    latest.update(message)
                elif message.get("type") == "error":
                    answers[message["code"]] = answers.get(message["code"], 0) + 1

    count = 0
    while time.monotonic() < stop:  # a connection the flood limit closed: another, as they did
        ws = await _open(base, table)
        reader = asyncio.create_task(read(ws))
        try:
            while time.monotonic() < stop and not reader.done():
                if phase[0] == 1 and latest.get("legal"):
                    count += 1
                    with contextlib.suppress(ConnectionClosed):
                        await ws.send(json.dumps({"type": "action", "id": f"g\u0000{count}",
                                                  "version": latest["version"],
                                                  "action": latest["legal"][0]}))
                await asyncio.sleep(1 / GUEST_FRAMES_PER_SECOND)
        finally:
            await ws.close()
            await reader
        if time.monotonic() < stop:
            answers["closed"] = answers.get("closed", 0) + 1
            await asyncio.sleep(1.0)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The attack's options."""
    parser.add_argument("--nul-db", default=None,
                        help="database of the nul_ids server (default: a fresh SQLite file; "
                             "a postgresql:// URL shows what a NUL would cost there)")
    parser.add_argument("--nul-tables", type=int, default=20)
    parser.add_argument("--nul-guests", type=int, default=10)
    parser.add_argument("--nul-seconds", type=float, default=10.0)
