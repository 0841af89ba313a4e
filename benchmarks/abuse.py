"""The attacks of issue 11 against a real ``ginrummy serve``: each printed as held or broken,
with its figures.

Run: ``.venv/bin/python benchmarks/abuse.py [--quick] [--json] [--only NAME,...]``.

It starts its own ``ginrummy serve`` (a fresh SQLite file in a temporary folder, the log at
level info captured to a file, the process's open-file limit lowered to ``--fd-limit``) with the
default settings, so that every quota and limit is the one an operator gets, and runs:

- ``tables``: one client creates ``--tables`` tables as fast as it can (count created, time,
  whether the refusals are 429 with ``Retry-After``);
- ``big_post``: a ``--post-mb`` MB body to ``/api/tables``, with and without ``Content-Length``
  (the server's RSS before and after, the answer);
- ``idle_sockets``: ``--idle-sockets`` sockets that send nothing or half a request line,
  against the server's ``ulimit -n`` (whether ``/api/health`` answers meanwhile, how many are
  still open after ``--idle-wait`` seconds);
- ``seat_flood``: ``--seat-connections`` connections on one seat sending pings for
  ``--flood-seconds`` (pongs served to that seat, another table's ping latency);
- ``churn``: RSS over ``--cycles`` WebSocket connect/close cycles (held below 0.15 KB a
  cycle: 3 MB over 20,000);
- ``tokens_in_log``: a seat token in the WebSocket URL (accepted?), then every issued token and
  invite code looked for in the server's log;
- ``headers``: CSP without inline script, frame-ancestors/X-Frame-Options, nosniff,
  Referrer-Policy;
- ``origin``: a WebSocket and a POST from ``Origin: http://evil.example`` with a ``Host`` that
  matches it (DNS rebinding);
- ``text_plain``: a cross-site ``text/plain`` POST that is JSON;
- ``huge_int``: a 5,000-digit integer in a WebSocket frame and in an HTTP body;
- ``target_2_64``: a table with ``target`` 2^64 (and 10^9), then a connection to it;
- ``db_mode``: the database file and its ``-wal``/``-shm`` modes;
- ``replay_flood`` and ``password_burst`` (issue 25, 2 and 4): a long stored match's replay
  hammered while ``/healthz`` is timed, a burst of password changes while another account
  logs in (``benchmarks/abuse_heavy.py``).
- ``nul_ids`` (``benchmarks/abuse_nul.py``): guests sending action ids with a NUL while
  people play many tables, on a server of its own (``--nul-db`` for PostgreSQL): the people's
  ack p99 before and during, the guests' answers, the tracebacks logged.

A refused attack never stops the script: each one's exceptions are part of its figures. The
exit status is 0 whatever held (it is a report, not a test).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import resource
import socket
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median
from typing import Any

import httpx
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
import abuse_heavy
from abuse_nul import add_arguments as add_nul_arguments
from abuse_nul import attack_nul_ids
from load_server import ServerHandle, kill_server, start_server

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Result:
    """One attack: held or broken, and what was measured."""

    name: str
    held: bool | None
    """None: the attack could not be run (the figures say why)."""
    figures: dict[str, Any] = field(default_factory=dict)

    def line(self) -> str:
        verdict = {True: "held", False: "BROKEN", None: "not run"}[self.held]
        figures = ", ".join(f"{k}={v}" for k, v in self.figures.items())
        return f"{self.name:<14} {verdict:<7} {figures}"


# --------------------------------------------------------------------------- the server
def start(folder: Path, fd_limit: int, log_level: str = "info") -> ServerHandle:
    """``ginrummy serve`` on a free port with default settings, its open-file limit lowered."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GINRUMMY_")}

    def limit_files() -> None:
        _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(fd_limit, hard), hard))

    return start_server(f"sqlite:///{folder / 'abuse.db'}", folder, [], log_level=log_level,
                        env=env, preexec_fn=limit_files)


def health(url: str, timeout: float = 5) -> int | None:
    """The status of ``/api/health`` (or ``/healthz``), None when neither answers."""
    for path in ("/api/health", "/healthz"):
        with contextlib.suppress(httpx.HTTPError):
            answer = httpx.get(url + path, timeout=timeout, trust_env=False)
            if answer.status_code == 200:
                return 200
    return None


def rss_mb(pid: int | None) -> float:
    """The process's resident memory in MB."""
    return round(psutil.Process(pid).memory_info().rss / 2**20, 1) if pid else 0.0


class Api:
    """The JSON API as the web client's own page calls it (its Origin)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.issued: list[str] = []
        """Every seat token and invite code the server gave out."""
        self.http = httpx.Client(base_url=base, timeout=30, trust_env=False,
                                 headers={"Origin": base})

    def post(self, path: str, **options: Any) -> httpx.Response:
        """A POST, sent again once if the server dropped the kept-alive connection (as it may
        after an attack's request)."""
        try:
            return self.http.post(path, **options)
        except httpx.TransportError:
            return self.http.post(path, **options)

    def create(self, **body: Any) -> httpx.Response:
        body.setdefault("nickname", "Ann")
        answer = self.post("/api/tables", json=body)
        if answer.status_code == 201:
            self.issued += [answer.json()["token"], answer.json().get("invite") or ""]
        return answer

    def table(self, **body: Any) -> dict[str, Any]:
        """A table with a person on seat 0 and one on seat 1; its ids and both tokens."""
        created = self.create(**body)
        if created.status_code != 201:
            raise RuntimeError(f"create: {created.status_code} {created.text[:200]}")
        out = dict(created.json())
        joined = self.post(f"/api/tables/{out['table_id']}/join",
                                json={"nickname": "Bob", "invite": out.get("invite")})
        if joined.status_code != 200:
            raise RuntimeError(f"join: {joined.status_code} {joined.text[:200]}")
        out["token1"] = joined.json()["token"]
        self.issued.append(out["token1"])
        return out


def ws_url(base: str, table_id: str, query: str = "") -> str:
    return base.replace("http://", "ws://") + f"/ws/tables/{table_id}" + query


async def ws_open(base: str, table_id: str, token: str | None, origin: str | None = None,
                  query: str = "", via: str | None = None) -> Any:
    """A connection past ``welcome`` (an exception when refused or closed); with ``via``
    (``http://127.0.0.1:PORT``), ``base`` is only the name in the URL and Host header."""
    from websockets.asyncio.client import connect

    options: dict[str, Any] = {}
    if via is not None:
        host, port = via.removeprefix("http://").split(":")
        options = {"host": host, "port": int(port)}
    ws = await connect(ws_url(base, table_id, query), origin=origin or base,
                       open_timeout=10, max_size=2**22, proxy=None, **options)
    hello: dict[str, Any] = {"type": "hello", "protocol": 2}
    if token is not None:
        hello["token"] = token
    await ws.send(json.dumps(hello))
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if message["type"] == "welcome":
            return ws


async def ping_ms(ws: Any) -> float:
    """One ping's round trip in ms (other frames skipped)."""
    sent = time.perf_counter()
    await ws.send('{"type":"ping"}')
    while json.loads(await asyncio.wait_for(ws.recv(), 30))["type"] != "pong":
        pass
    return (time.perf_counter() - sent) * 1000


def close_code(exc: BaseException) -> str:
    rcvd = getattr(exc, "rcvd", None)
    if rcvd is not None:
        return str(rcvd.code)
    response = getattr(exc, "response", None)
    if response is not None:
        return f"HTTP {response.status_code}"
    return type(exc).__name__


# --------------------------------------------------------------------------- the attacks
def attack_tables(server: ServerHandle, api: Api, args: argparse.Namespace) -> Result:
    started = time.perf_counter()
    statuses: dict[str, int] = {}
    retry_after = None
    for _ in range(args.tables):
        answer = api.create(public=False)
        statuses[str(answer.status_code)] = statuses.get(str(answer.status_code), 0) + 1
        if answer.status_code == 429 and retry_after is None:
            retry_after = answer.headers.get("retry-after")
    seconds = round(time.perf_counter() - started, 2)
    created = statuses.get("201", 0)
    held = created < args.tables and "429" in statuses and retry_after is not None
    return Result("tables", held, {"asked": args.tables, "created": created,
                                   "statuses": statuses, "retry_after": retry_after,
                                   "seconds": seconds})


def attack_big_post(server: ServerHandle, api: Api, args: argparse.Namespace) -> Result:
    size = args.post_mb * 2**20
    chunk = b"x" * 2**20
    figures: dict[str, Any] = {"mb": args.post_mb, "rss_before_mb": rss_mb(server.pid)}
    held = True
    for label, headers in (("chunked", {}), ("length", {"Content-Length": str(size)})):
        def body() -> Iterator[bytes]:
            for _ in range(args.post_mb):
                yield chunk

        started = time.perf_counter()
        try:
            answer = httpx.post(f"{server.url}/api/tables", content=body(), timeout=120,
                                trust_env=False, headers={"Origin": server.url,
                                                          "Content-Type": "application/json",
                                                          **headers})
            status: str = str(answer.status_code)
        except httpx.HTTPError as exc:  # the server closed the connection mid-body
            status = f"closed ({type(exc).__name__})"
        figures[f"{label}_answer"] = status
        figures[f"{label}_seconds"] = round(time.perf_counter() - started, 2)
        held = held and (status == "413" or status.startswith("closed"))
    figures["rss_after_mb"] = rss_mb(server.pid)
    grew = figures["rss_after_mb"] - figures["rss_before_mb"]
    return Result("big_post", held and grew < 50, figures)


def attack_idle_sockets(server: ServerHandle, api: Api, args: argparse.Namespace) -> Result:
    host, port = server.url.removeprefix("http://").split(":")
    sockets: list[socket.socket] = []
    opened = 0
    try:
        for number in range(args.idle_sockets):
            sock = socket.socket()
            sock.settimeout(5)
            try:
                sock.connect((host, int(port)))
            except OSError:
                sock.close()
                continue
            opened += 1
            if number % 2:
                sock.sendall(b"GET /api/health HTT")  # half a request line
            sockets.append(sock)
        health_during = health(server.url, 10) is not None
        server_fds = _fds(server.pid)
        started = time.monotonic()
        open_after = len(sockets)
        while time.monotonic() - started < args.idle_wait:
            time.sleep(1)
            open_after = sum(1 for s in sockets if _still_open(s))
            if open_after == 0:
                break
        waited = round(time.monotonic() - started, 1)
        health_after = health(server.url, 10) is not None
    finally:
        for sock in sockets:
            sock.close()
    held = health_during and health_after and open_after == 0
    return Result("idle_sockets", held, {
        "server_ulimit_n": args.fd_limit, "opened": opened, "server_fds": server_fds,
        "health_during": health_during, f"open_after_{waited}s": open_after,
        "health_after": health_after})


def _fds(pid: int | None) -> int | None:
    with contextlib.suppress(Exception):
        return psutil.Process(pid).num_fds()
    return None


def _still_open(sock: socket.socket) -> bool:
    """False once the server has closed its end (EOF or a reset)."""
    sock.setblocking(False)
    try:
        data = sock.recv(65536)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        sock.setblocking(True)
    if data == b"":
        return False
    return not data.startswith(b"HTTP/1.1 408") and _still_open(sock)


def attack_seat_flood(server: ServerHandle, api: Api, args: argparse.Namespace) -> Result:
    flooded = api.table()
    other = api.table()
    return asyncio.run(_seat_flood(server, flooded, other, args))


async def _seat_flood(server: ServerHandle, flooded: dict[str, Any], other: dict[str, Any],
                      args: argparse.Namespace) -> Result:
    watcher = await ws_open(server.url, other["table_id"], other["token"])
    baseline = [await ping_ms(watcher) for _ in range(20)]
    refused: dict[str, int] = {}
    conns = []
    for _ in range(args.seat_connections):
        try:
            conns.append(await ws_open(server.url, flooded["table_id"], flooded["token"]))
        except Exception as exc:  # a refusal is a figure
            refused[close_code(exc)] = refused.get(close_code(exc), 0) + 1
    pongs = [0]
    closes: dict[str, int] = {}
    stop = time.monotonic() + args.flood_seconds

    async def flood(ws: Any) -> None:
        try:
            while time.monotonic() < stop:
                await ws.send('{"type":"ping"}')
                with contextlib.suppress(TimeoutError):
                    while True:
                        text = await asyncio.wait_for(ws.recv(), 0.001)
                        if '"pong"' in text:
                            pongs[0] += 1
                await asyncio.sleep(0)
        except Exception as exc:
            closes[close_code(exc)] = closes.get(close_code(exc), 0) + 1

    async def measure() -> list[float]:
        out = []
        while time.monotonic() < stop:
            with contextlib.suppress(Exception):
                out.append(await ping_ms(watcher))
            await asyncio.sleep(0.05)
        return out

    results = await asyncio.gather(measure(), *(flood(ws) for ws in conns))
    during = results[0]
    for ws in [*conns, watcher]:
        with contextlib.suppress(Exception):
            await ws.close()
    p99 = sorted(during)[int(len(during) * 0.99)] if during else None
    budget = _setting("messages_per_window", 100)
    held = pongs[0] <= 2 * budget and p99 is not None and p99 < 100
    return Result("seat_flood", held, {
        "connections": len(conns), "refused": refused, "flood_s": args.flood_seconds,
        "pongs_to_seat": pongs[0], "seat_closes": closes,
        "other_ping_ms_before": round(median(baseline), 1),
        "other_ping_ms_p50": round(median(during), 1) if during else None,
        "other_ping_ms_p99": round(p99, 1) if p99 is not None else None})


def _setting(name: str, default: Any) -> Any:
    from ginrummy.server import Settings

    return getattr(Settings(), name, default)


def attack_churn(server: ServerHandle, api: Api, args: argparse.Namespace) -> Result:
    table = api.table()
    return asyncio.run(_churn(server, table, args))


async def _churn(server: ServerHandle, table: dict[str, Any], args: argparse.Namespace
                 ) -> Result:
    failures: dict[str, int] = {}

    async def cycles(count: int) -> None:
        for number in range(count):
            try:
                ws = await ws_open(server.url, table["table_id"],
                                   table["token"] if number % 2 else None)
                await ws.close()
            except Exception as exc:
                failures[close_code(exc)] = failures.get(close_code(exc), 0) + 1
                await asyncio.sleep(0.05)

    await cycles(min(500, args.cycles))  # warm up: caches, code paths
    before = psutil.Process(server.pid).memory_info().rss
    started = time.perf_counter()
    await cycles(args.cycles)
    seconds = time.perf_counter() - started
    await asyncio.sleep(1)
    after_bytes = psutil.Process(server.pid).memory_info().rss
    per_cycle_kb = round((after_bytes - before) / 1024 / max(1, args.cycles), 3)
    before, after = round(before / 2**20, 1), round(after_bytes / 2**20, 1)
    return Result("churn", per_cycle_kb < 0.15, {
        "cycles": args.cycles, "rss_before_mb": before, "rss_after_mb": after,
        "kb_per_cycle": per_cycle_kb, "cycles_per_s": round(args.cycles / seconds),
        "failures": failures})


def attack_tokens_in_log(server: ServerHandle, api: Api, args: argparse.Namespace) -> Result:
    table = api.table(public=False)
    issued = api.issued

    async def url_token() -> str:
        try:
            ws = await ws_open(server.url, table["table_id"], None,
                               query=f"?token={table['token']}&invite={table['invite']}")
        except Exception as exc:
            return f"refused ({close_code(exc)})"
        try:  # seated by the URL's token? a welcome names the seat
            await ws.send('{"type":"resync"}')
            for _ in range(5):
                message = json.loads(await asyncio.wait_for(ws.recv(), 5))
                if message["type"] == "state":
                    return "seated" if message.get("seat") == 0 else "watching"
            return "accepted"
        except Exception as exc:
            return f"closed ({close_code(exc)})"
        finally:
            await ws.close()

    in_url = asyncio.run(url_token())
    time.sleep(0.5)  # the access log line is written after the handshake
    assert server.log_path is not None
    log = server.log_path.read_text(errors="replace")
    found = sorted({secret[:6] + "..." for secret in issued if secret and secret in log})
    held = not found and in_url != "seated"
    return Result("tokens_in_log", held, {"issued": len([s for s in issued if s]),
                                          "found_in_log": len(found),
                                          "url_token": in_url, "log_bytes": len(log)})


def attack_headers(server: ServerHandle, api: Api, args: argparse.Namespace) -> Result:
    answers = {path: httpx.get(server.url + path, timeout=10, trust_env=False)
               for path in ("/", "/api/tables")}
    headers = answers["/"].headers
    csp = headers.get("content-security-policy", "")
    script_src = re.search(r"script-src([^;]*)", csp) or re.search(r"default-src([^;]*)", csp)
    checks = {
        "csp": bool(csp),
        "csp_no_inline_script": bool(script_src) and "'unsafe-inline'" not in script_src.group(1)
        if script_src else False,
        "frame_ancestors_none": "frame-ancestors 'none'" in csp
        or headers.get("x-frame-options", "").upper() == "DENY",
        "nosniff": headers.get("x-content-type-options", "").lower() == "nosniff",
        "referrer_policy": bool(headers.get("referrer-policy")),
        "api_nosniff": answers["/api/tables"].headers.get("x-content-type-options", "")
        .lower() == "nosniff",
    }
    return Result("headers", all(checks.values()), checks)


def attack_origin(server: ServerHandle, api: Api, args: argparse.Namespace) -> Result:
    table = api.table()
    port = server.url.rsplit(":", 1)[1]
    evil = f"http://evil.example:{port}"
    host = f"evil.example:{port}"

    async def upgrade() -> str:
        try:
            ws = await ws_open(evil, table["table_id"], None, origin=evil, via=server.url)
        except Exception as exc:
            return f"refused ({close_code(exc)})"
        await ws.close()
        return "accepted"

    rebinding = asyncio.run(upgrade())
    post = httpx.post(f"{server.url}/api/tables", json={"nickname": "Eve"}, timeout=10,
                      trust_env=False, headers={"Origin": evil, "Host": host})
    foreign = httpx.post(f"{server.url}/api/tables", json={"nickname": "Eve"}, timeout=10,
                         trust_env=False, headers={"Origin": "http://evil.example"})
    held = rebinding != "accepted" and post.status_code != 201 and foreign.status_code != 201
    return Result("origin", held, {"ws_evil_origin_matching_host": rebinding,
                                   "post_evil_origin_matching_host": post.status_code,
                                   "post_evil_origin": foreign.status_code})


def attack_text_plain(server: ServerHandle, api: Api, args: argparse.Namespace) -> Result:
    answer = httpx.post(f"{server.url}/api/tables", content=b'{"nickname": "Eve"}', timeout=10,
                        trust_env=False, headers={"Content-Type": "text/plain",
                                                  "Origin": server.url})
    return Result("text_plain", answer.status_code != 201, {"status": answer.status_code})


def attack_huge_int(server: ServerHandle, api: Api, args: argparse.Namespace) -> Result:
    table = api.table()
    digits = "9" * 5000

    async def frame() -> tuple[str, str]:
        ws = await ws_open(server.url, table["table_id"], table["token"])
        try:
            await ws.send('{"type":"action","id":"h","version":' + digits + ',"action":"stock"}')
            answer = "no answer"
            for _ in range(10):
                message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if message["type"] == "error":
                    answer = f"error {message['code']}"
                    break
            pong = await ping_ms(ws)
            return answer, f"alive ({pong:.0f} ms ping)"
        except Exception as exc:
            return "closed", close_code(exc)
        finally:
            await ws.close()

    answer, after = asyncio.run(frame())
    body = ('{"nickname":"Ann","players":' + digits + "}").encode()
    http = api.post("/api/tables", content=body, headers={"Content-Type": "application/json"})
    held = answer == "error bad_message" and after.startswith("alive") \
        and 400 <= http.status_code < 500
    return Result("huge_int", held, {"ws_answer": answer, "ws_after": after,
                                     "http_status": http.status_code})


def attack_target(server: ServerHandle, api: Api, args: argparse.Namespace) -> Result:
    figures: dict[str, Any] = {}
    held = True
    for label, target in (("2**64", 2**64), ("10**9", 10**9)):
        answer = api.create(options={"target": target})
        figures[f"create_{label}"] = answer.status_code
        if answer.status_code != 201:
            continue
        held = False
        created = answer.json()

        async def visit(table_id: str = created["table_id"]) -> str:
            try:
                ws = await ws_open(server.url, table_id, None)
                await ws.close()
                return "served"
            except Exception as exc:
                return f"closed ({close_code(exc)})"

        figures[f"connect_{label}"] = asyncio.run(visit())
    return Result("target_2_64", held, figures)


def attack_db_mode(server: ServerHandle, api: Api, args: argparse.Namespace) -> Result:
    assert server.db is not None
    path = Path(server.db.removeprefix("sqlite:///"))
    modes = {}
    for suffix in ("", "-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            modes[side.name] = oct(stat.S_IMODE(side.stat().st_mode))
    return Result("db_mode", bool(modes) and all(m == "0o600" for m in modes.values()), modes)


def attack_replay_flood(server: ServerHandle, api: Api, args: argparse.Namespace) -> Result:
    assert server.db is not None
    held, figures = abuse_heavy.replay_flood(server.url, server.db, args)
    return Result("replay_flood", held, figures)


def attack_password_burst(server: ServerHandle, api: Api, args: argparse.Namespace
                          ) -> Result:
    held, figures = abuse_heavy.password_burst(server.url, args)
    return Result("password_burst", held, figures)


ATTACKS: dict[str, Callable[..., Result]] = {
    "headers": attack_headers, "origin": attack_origin, "text_plain": attack_text_plain,
    "huge_int": attack_huge_int, "target_2_64": attack_target, "db_mode": attack_db_mode,
    "big_post": attack_big_post, "seat_flood": attack_seat_flood, "churn": attack_churn,
    "idle_sockets": attack_idle_sockets, "tokens_in_log": attack_tokens_in_log,
    "replay_flood": attack_replay_flood, "password_burst": attack_password_burst,
    "nul_ids": attack_nul_ids, "tables": attack_tables,
}
"""In the order they run: ``tables`` last, since the other attacks need a few tables of the
same address's quota."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="smaller sizes (about a minute): 100 MB post, 600 idle sockets "
                             "against ulimit 512, 5,000 cycles, 200 tables")
    parser.add_argument("--tables", type=int, default=None)
    parser.add_argument("--post-mb", type=int, default=None)
    parser.add_argument("--idle-sockets", type=int, default=None)
    parser.add_argument("--fd-limit", type=int, default=None)
    parser.add_argument("--idle-wait", type=float, default=30.0)
    parser.add_argument("--seat-connections", type=int, default=100)
    parser.add_argument("--flood-seconds", type=float, default=5.0)
    parser.add_argument("--cycles", type=int, default=None)
    add_nul_arguments(parser)
    parser.add_argument("--only", help="comma-separated attack names")
    abuse_heavy.add_options(parser)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    full = {"tables": 3000, "post_mb": 300, "idle_sockets": 1100, "fd_limit": 1024,
            "cycles": 20000}
    quick = {"tables": 200, "post_mb": 100, "idle_sockets": 600, "fd_limit": 512,
             "cycles": 5000}
    for name, value in (quick if args.quick else full).items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    names = args.only.split(",") if args.only else list(ATTACKS)
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the client's own sockets
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="ginrummy-abuse-") as folder:
        server = start(Path(folder), args.fd_limit)
        api = Api(server.url)
        try:
            for name in names:
                attack = ATTACKS[name]
                started = time.perf_counter()
                try:
                    result = attack(server, api, args)
                except Exception as exc:  # an attack that could not run is reported, not fatal
                    result = Result(name, None, {"error": f"{type(exc).__name__}: {exc}"[:300]})
                result.figures["attack_s"] = round(time.perf_counter() - started, 1)
                if server.process is not None and server.process.poll() is not None:
                    result.figures["server"] = f"exited {server.process.returncode}"
                results.append(result)
                if not args.json:
                    print(result.line(), flush=True)
        finally:
            api.http.close()
            kill_server(server)
    if args.json:
        print(json.dumps([{"name": r.name, "held": r.held, **r.figures} for r in results],
                         indent=1))
    else:
        held = sum(r.held is True for r in results)
        print(f"{held} of {len(results)} held")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
