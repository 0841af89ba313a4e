"""Log-ins per second and their latency over HTTP against a live ``ginrummy serve``.

Every log-in verifies an Argon2id hash (64 MiB, 3 iterations, 4 lanes: argon2-cffi's default
profile) in the server's hashing threads: that is the cost measured here, on purpose. The
script starts ``ginrummy serve`` on a fresh SQLite file (the log-in limits raised: every
request comes from 127.0.0.1), signs up ``--accounts`` accounts, then for each of ``--runs``
runs sends ``--logins`` log-ins from ``--concurrency`` clients at once and reports log-ins
per second and the p50/p95/p99 latency of one log-in, as JSON on standard output.

    .venv/bin/python benchmarks/bench_logins.py --runs 3 --logins 60 --concurrency 4
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from ginrummy.server.players.sessions import HASH_THREADS, PASSWORDS, hash_password

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load_server import kill_server, percentile, start_server

PASSWORD = "benchmark password"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs (default 3)")
    parser.add_argument("--logins", type=int, default=60, help="log-ins a run (default 60)")
    parser.add_argument("--concurrency", type=int, default=4,
                        help="clients logging in at once (default 4)")
    parser.add_argument("--accounts", type=int, default=8, help="accounts (default 8)")
    return parser.parse_args(argv)


async def _sign_up(http: httpx.AsyncClient, accounts: int) -> list[str]:
    names = [f"bench{i}" for i in range(accounts)]
    for name in names:
        answer = await http.post("/api/account/signup", json={"name": name,
                                                              "password": PASSWORD})
        answer.raise_for_status()
    return names


async def _one_run(http: httpx.AsyncClient, names: list[str], logins: int,
                   concurrency: int) -> dict[str, Any]:
    latencies: list[float] = []
    queue: asyncio.Queue[str] = asyncio.Queue()
    for i in range(logins):
        queue.put_nowait(names[i % len(names)])
    failures = 0

    async def client() -> None:
        nonlocal failures
        while not queue.empty():
            name = queue.get_nowait()
            start = time.perf_counter()
            answer = await http.post("/api/account/login",
                                     json={"name": name, "password": PASSWORD})
            latencies.append(time.perf_counter() - start)
            if answer.status_code != 200:
                failures += 1
            http.cookies.clear()

    start = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(concurrency)))
    elapsed = time.perf_counter() - start
    return {"logins": logins, "failures": failures, "seconds": round(elapsed, 3),
            "logins_per_second": round(logins / elapsed, 2),
            "p50_ms": round(percentile(latencies, 0.50) * 1000, 1),
            "p95_ms": round(percentile(latencies, 0.95) * 1000, 1),
            "p99_ms": round(percentile(latencies, 0.99) * 1000, 1)}


async def _measure(base: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(base_url=base, timeout=120, trust_env=False,
                                 headers={"Origin": base}) as http:
        names = await _sign_up(http, args.accounts)
        await _one_run(http, names, min(8, args.logins), args.concurrency)  # warm-up
        return [await _one_run(http, names, args.logins, args.concurrency)
                for _ in range(args.runs)]


def one_hash_ms(samples: int = 5) -> dict[str, float]:
    """The cost of one Argon2id hash and one verification in this process, alone (ms)."""
    stored = hash_password(PASSWORD)
    hashes, verifies = [], []
    for _ in range(samples):
        start = time.perf_counter()
        hash_password(PASSWORD)
        hashes.append(time.perf_counter() - start)
        start = time.perf_counter()
        PASSWORDS.verify(stored, PASSWORD)
        verifies.append(time.perf_counter() - start)
    return {"hash_ms": round(min(hashes) * 1000, 1), "verify_ms": round(min(verifies) * 1000, 1)}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    env = {**os.environ, "GINRUMMY_LOGIN_ATTEMPTS_PER_ADDRESS": "1000000",
           "GINRUMMY_SIGNUPS_PER_ADDRESS": "1000000", "GINRUMMY_TABLES_PER_ADDRESS": "1000000"}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-logins-") as folder:
        db = f"sqlite:///{Path(folder) / 'bench.db'}"
        server = start_server(db, Path(folder), [], env=env)
        try:
            runs = asyncio.run(_measure(server.url, args))
        finally:
            kill_server(server)
    print(json.dumps({
        "benchmark": "logins", "argon2": {"type": "id", "memory_kib": PASSWORDS.memory_cost,
                                          "time_cost": PASSWORDS.time_cost,
                                          "parallelism": PASSWORDS.parallelism,
                                          **one_hash_ms()},
        "hash_threads": HASH_THREADS, "cpus": os.cpu_count(), "python": platform.python_version(),
        "load_average": {"before": [round(x, 2) for x in load_before],
                         "after": [round(x, 2) for x in os.getloadavg()]},
        "concurrency": args.concurrency, "runs": runs}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
