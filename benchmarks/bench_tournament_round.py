"""How soon a 64-player Swiss round's matches start (issue 31's note).

Starts ``ginrummy serve`` on a fresh database with ``--players`` accounts (sessions made in
the database), creates a Swiss with a buy-in starting a few seconds later, registers every
account through the API, and at the start measures, from the round's ``started_at``:

- ``tables``: the last of the round's tables stored (``game_tables.created_at``);
- ``dealt``: the last first deal of those tables (its ``deal`` event's ``at``);
- ``seated``: the last scripted client (one WebSocket a player, by its session, opened as
  soon as the tournament page names its table) holding its dealt hand;
- with ``--via push``: ``told``, the last player's ``match_ready`` arriving on its account
  socket (``/ws/account``, opened before the start), and ``seated`` for clients that sit as
  soon as they are told (the API is not polled).

Per repeat, each as seconds; the note's bar: every match started within 2 s.

    .venv/bin/python benchmarks/bench_tournament_round.py --players 64 --repeat 3
    .venv/bin/python benchmarks/bench_tournament_round.py --db postgresql://postgres@127.0.0.1/test
    .venv/bin/python benchmarks/bench_tournament_round.py --via push
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import text
from websockets.sync.client import connect

from ginrummy.server.core.auth import secret_hash
from ginrummy.server.players.names import name_key
from ginrummy.server.players.sessions import SESSION_COOKIE, SESSION_LIFETIME
from ginrummy.storage import migrate, open_engine
from ginrummy.storage.accounts import AccountStore

SAFE = "cdfhkmnprtuvwxy"
"""Letters no two of which an account name's key (names.py) folds together."""


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve(db: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    script = Path(sys.executable).with_name("ginrummy")
    command = [str(script)] if script.exists() else [
        sys.executable, "-c", "from ginrummy.cli.main import main; raise SystemExit(main())"]
    proc = subprocess.Popen(
        [*command, "serve", "--port", str(port), "--db", db, "--log-level", "warning"],
        stdout=log.open("ab"), stderr=subprocess.STDOUT,
        env={**os.environ, "GINRUMMY_TOURNAMENT_TICK_SECONDS": "0.2",
             # every scripted client is on 127.0.0.1: an account socket and a table's each
             "GINRUMMY_CONNECTIONS_PER_ADDRESS": "1000"})
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError(log.read_text()[-2000:])


def fresh_postgres(url: str) -> None:
    engine = open_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()


def one_round(db: str, players: int, workdir: Path, via: str = "poll") -> dict[str, float]:
    if db.startswith("postgresql"):
        fresh_postgres(db)
    engine = open_engine(db)
    migrate(engine)
    store = AccountStore(engine)
    cookies: dict[int, str] = {}
    for i in range(players + 1):
        name = "Admin" if i == 0 else "Bench" + SAFE[i // len(SAFE)] + SAFE[i % len(SAFE)]
        account = store.create(name, name_key(name), "x", "admin" if i == 0 else "player")
        token = secrets.token_urlsafe(32)
        store.add_session(secret_hash(token), account.id, SESSION_LIFETIME)
        cookies[account.id] = f"{SESSION_COOKIE}={token}"
    admin, *field = sorted(cookies)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = serve(db, port, workdir / "serve.log")
    sockets = contextlib.ExitStack()
    try:
        starts = datetime.now(UTC) + timedelta(seconds=3 + players * 0.15)  # a loaded machine
        with httpx.Client(base_url=base, headers={"Origin": base, "Cookie": cookies[admin]}) as c:
            made = c.post("/api/tournaments", json={
                "name": "Bench", "format": "swiss", "preset": "classic", "rounds": 6,
                "starts_at": starts.isoformat(), "min_players": 2, "max_players": players,
                "clock_seconds": 60, "buy_in": 10})
            made.raise_for_status()
            tid = made.json()["id"]
        for p in field:
            with httpx.Client(base_url=base, headers={"Origin": base, "Cookie": cookies[p]}) as c:
                c.post(f"/api/tournaments/{tid}/register", json={}).raise_for_status()
        seated: dict[int, float] = {}
        threads: list[threading.Thread] = []
        started: set[int] = set()

        def sit(player: int, table_id: str) -> None:
            with connect(f"ws://127.0.0.1:{port}/ws/tables/{table_id}", origin=base,
                         additional_headers={"Cookie": cookies[player]}, proxy=None) as ws:
                ws.send(json.dumps({"type": "hello", "protocol": 2}))
                while True:
                    message: dict[str, Any] = json.loads(ws.recv(timeout=60))
                    if message["type"] == "state" and message.get("view", {}).get("hand"):
                        seated[player] = time.time()
                        return

        told: dict[int, float] = {}
        pushed: dict[int, Any] = {}

        def wait_to_be_told(player: int) -> None:
            socket = pushed[player]
            while True:
                message = json.loads(socket.recv(timeout=120))
                if message["type"] == "match_ready":
                    told[player] = time.time()
                    socket.close()
                    sit(player, message["table_id"])
                    return

        if via == "push":
            for p in field:  # opened before the start, told when the round starts
                pushed[p] = sockets.enter_context(connect(
                    f"ws://127.0.0.1:{port}/ws/account", origin=base,
                    additional_headers={"Cookie": cookies[p]}, proxy=None))
                thread = threading.Thread(target=wait_to_be_told, args=(p,))
                thread.start()
                threads.append(thread)
            started.update(field)
        deadline = time.monotonic() + 120
        while len(started) < players and time.monotonic() < deadline:
            found = httpx.get(f"{base}/api/tournaments/{tid}").json()
            for match in (found.get("rounds") or [{}])[0].get("matches", []):
                if match["table_id"]:
                    for p in match["players"]:
                        if p not in started:
                            started.add(p)
                            thread = threading.Thread(target=sit, args=(p, match["table_id"]))
                            thread.start()
                            threads.append(thread)
            time.sleep(0.02)
        for thread in threads:
            thread.join(90)
        with engine.connect() as conn:
            round_start = conn.execute(text(
                "SELECT started_at FROM tournament_rounds WHERE round = 0")).scalar_one()
            ids = conn.execute(text("SELECT table_id FROM tournament_matches WHERE round = 0"))
            ids = [r[0] for r in ids]
            created = [conn.execute(text("SELECT created_at FROM game_tables WHERE id = :i"),
                                    {"i": i}).scalar_one() for i in ids]
            dealt = [conn.execute(text("SELECT MIN(at) FROM events WHERE table_id = :i AND "
                                       "kind = 'deal'"), {"i": i}).scalar_one() for i in ids]
        def stamp(value: Any) -> float:
            moment = value if isinstance(value, datetime) else datetime.fromisoformat(value)
            return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()
        zero = stamp(round_start)
        pushes = {"told": max(told.values()) - zero if len(told) == players else -1.0} \
            if via == "push" else {}
        return {"matches": len(ids), **pushes,
                "tables": max(stamp(c) for c in created) - zero,
                "dealt": max(stamp(d) for d in dealt) - zero,
                "seated": max(seated.values()) - zero if len(seated) == players else -1.0}
    finally:
        sockets.close()
        proc.terminate()
        proc.wait(20)
        engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--db", default=None, help="a PostgreSQL URL (default: SQLite files)")
    parser.add_argument("--via", choices=("poll", "push"), default="poll",
                        help="how the clients learn their table: the API, or match_ready")
    args = parser.parse_args()
    for n in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            db = args.db or f"sqlite:///{Path(tmp) / 'bench.db'}"
            result = one_round(db, args.players, Path(tmp), args.via)
        print(json.dumps({"repeat": n + 1, **{k: round(v, 3) for k, v in result.items()}}),
              flush=True)


if __name__ == "__main__":
    main()
