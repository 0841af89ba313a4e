"""The heavy-work attacks of issue 25 that ``benchmarks/abuse.py`` runs: a long stored match's
replay hammered (``replay_flood``, point 2) and a burst of password changes (``password_burst``,
point 4), each against the real ``ginrummy serve`` that abuse.py starts.

- ``replay_flood``: a match whose one hand had ``--replay-steps`` decisions of two seats
  passing discards (2,330 in the issue) is stored in the server's database; ``/healthz`` is
  asked every 5 ms, one request after another, for 3 s alone, then while requests for that
  match's replay arrive ``--replay-concurrency`` (8) at a time (8 kept-alive connections), at
  least ``--replays`` (96) of them and for at least ``--replay-seconds`` (5), each from its
  own address (``X-Forwarded-For``, the server
  trusting 127.0.0.1 as its proxy: the per-address limit is not what is measured;
  ``replays_from_one_address`` says what one address gets). Held when ``/healthz`` p99
  stays under 20 ms during the flood.
- ``password_burst``: ``--changers`` (6) accounts each change their password
  ``--changes-each`` (5) times, all at once, each from its own address, while another account
  logs in again and again (a new address each time); its log-in latency before and during the
  burst, and what one account asking ``--changes-each`` * 2 changes is answered. Held when the
  log-in median during the burst is under twice the one before.

Run alone: ``python benchmarks/abuse.py --only replay_flood,password_burst``. With another
``PYTHONPATH`` (an absolute one, ``/tmp/base/src``: the server runs in a temporary folder) the
same script measures another version of the server.
"""

from __future__ import annotations

import argparse
import itertools
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from statistics import median
from typing import Any

import httpx

from load_server import percentile

ROOT = Path(__file__).resolve().parent.parent
PASSWORDS = ("correct horse battery 1", "correct horse battery 2")
COOKIES = ("__Host-ginrummy-session", "ginrummy-session")


def _ms(values: list[float], share: float) -> float | None:
    """The ``share`` quantile (0.5, 0.99, 1.0) of ``values`` (seconds) in ms, rounded."""
    return round(percentile(values, share) * 1000, 1) if values else None


def _spread(prefix: str, values: list[float]) -> dict[str, Any]:
    return {f"{prefix}_p50_ms": _ms(values, 0.5), f"{prefix}_p99_ms": _ms(values, 0.99),
            f"{prefix}_max_ms": _ms(values, 1.0), f"{prefix}_n": len(values)}


def _address(number: int) -> dict[str, str]:
    """The header that makes a request come from its own address (TEST-NET-2 and -3)."""
    return {"X-Forwarded-For": f"198.51.{100 + number // 250}.{1 + number % 250}"}


# --------------------------------------------------------------------------- replay_flood
def _store_long_match(db: str, steps: int) -> None:
    """The long match, stored in the server's database as the server stores a stuck one."""
    sys.path.insert(0, str(ROOT / "tests" / "server"))
    from player_helpers import add_account, passing_table, store

    from ginrummy.server.play.settlement import Ending
    from ginrummy.storage import open_engine

    engine = open_engine(db)
    try:
        owner = add_account(engine, "Flooder")
        store(engine, passing_table("flood1", [owner, None], steps, ["Flooder", "Guest"]),
              Ending.STUCK)
    finally:
        engine.dispose()


PROBE = """
import sys, time, httpx
url, pause = sys.argv[1], float(sys.argv[2])
with httpx.Client(base_url=url, timeout=30, trust_env=False) as client:
    while True:
        sent = time.time()
        try:
            ok = client.get("/healthz").status_code == 200
        except httpx.HTTPError:
            ok = False
        print(sent, time.time() - sent if ok else -1, flush=True)
        time.sleep(pause)
"""


class HealthProbe:
    """``GET /healthz`` one after another every ``pause`` seconds, from a process of its own
    (so that the attack's client threads do not slow the probe): each answer's time sent
    and latency; :meth:`between` gives the latencies of a window."""

    def __init__(self, url: str, pause: float = 0.005) -> None:
        self.url = url
        self.pause = pause
        self.samples: list[tuple[float, float]] = []
        self._process: subprocess.Popen[str] | None = None

    def __enter__(self) -> HealthProbe:
        self._process = subprocess.Popen([sys.executable, "-c", PROBE, self.url,
                                          str(self.pause)], stdout=subprocess.PIPE, text=True)
        return self

    def __exit__(self, *_exc: object) -> None:
        assert self._process is not None
        self._process.terminate()
        out, _err = self._process.communicate(timeout=30)
        for line in out.splitlines():
            sent, took = line.split()
            self.samples.append((float(sent), float(took)))

    def between(self, start: float, end: float) -> list[float]:
        """Latencies of the answers sent from ``start`` to ``end`` (``time.time()``)."""
        return [took for sent, took in self.samples if start <= sent < end and took >= 0]

    def failures(self) -> int:
        """Requests that got no 200."""
        return sum(1 for _sent, took in self.samples if took < 0)


def replay_flood(url: str, db: str, args: argparse.Namespace) -> tuple[bool | None,
                                                                         dict[str, Any]]:
    """The figures of ``replay_flood`` (see the module)."""
    _store_long_match(db, args.replay_steps)
    with httpx.Client(base_url=url, timeout=30, trust_env=False) as client:
        (match,) = client.get("/api/players/Flooder").json()["recent"]
    path = f"/api/matches/{match['id']}/replay"
    statuses: dict[str, int] = {}
    sizes: list[int] = []
    took: list[float] = []

    local = threading.local()  # one kept-alive client per thread (making a client costs
    # the benchmark more CPU than the server spends on a cached answer)
    clients: list[httpx.Client] = []

    def ask(number: int) -> None:
        client = getattr(local, "client", None)
        if client is None:
            client = local.client = httpx.Client(base_url=url, timeout=120, trust_env=False)
            clients.append(client)
        started = time.perf_counter()
        with client.stream("GET", path, headers=_address(number)) as answer:
            size = sum(len(chunk) for chunk in answer.iter_raw())  # as sent (gzip)
        took.append(time.perf_counter() - started)
        statuses[str(answer.status_code)] = statuses.get(str(answer.status_code), 0) + 1
        if answer.status_code == 200:
            sizes.append(size)

    with HealthProbe(url) as probe:
        time.sleep(4)  # the probe's own start, then 3 s alone
        flood_start = time.time()
        numbers = itertools.count()

        def keep_asking() -> None:  # at least --replays requests, for at least --replay-seconds
            while True:
                number = next(numbers)
                if number >= args.replays and time.time() - flood_start >= args.replay_seconds:
                    return
                ask(number)

        with ThreadPoolExecutor(max_workers=args.replay_concurrency) as pool:
            for future in [pool.submit(keep_asking) for _ in range(args.replay_concurrency)]:
                future.result()
        flood_end = time.time()
        time.sleep(0.5)
    for client in clients:
        client.close()
    flood_s = flood_end - flood_start
    one_address: dict[str, int] = {}
    with httpx.Client(base_url=url, timeout=120, trust_env=False) as client:
        for _ in range(70):
            code = str(client.get(path, headers=_address(9999)).status_code)
            one_address[code] = one_address.get(code, 0) + 1
    during = probe.between(flood_start, flood_end)
    figures: dict[str, Any] = {
        "steps": args.replay_steps, "replays": sum(statuses.values()),
        "concurrency": args.replay_concurrency, "statuses": statuses,
        "kb_sent": round(median(sizes) / 1024) if sizes else None,
        "replay_p50_ms": _ms(took, 0.5), "flood_s": round(flood_s, 2),
        **_spread("healthz_before", probe.between(flood_start - 3, flood_start)),
        **_spread("healthz_during", during),
        "healthz_failures": probe.failures(),
        "slowest_healthz_at_s": [  # when in the flood the 3 slowest were asked (s, ms)
            (round(sent - flood_start, 2), round(took * 1000, 1)) for sent, took in sorted(
                ((t, d) for t, d in probe.samples if flood_start <= t < flood_end),
                key=lambda sample: -sample[1])[:3]],
        "replays_from_one_address": one_address,
    }
    p99 = _ms(during, 0.99)
    return (None if p99 is None else p99 < 20), figures


# --------------------------------------------------------------------------- password_burst
class Account:
    """One account's HTTP client, its session cookie kept by hand (httpx keeps no ``Secure``
    cookie over plain HTTP; a browser does on 127.0.0.1)."""

    def __init__(self, url: str, name: str, number: int) -> None:
        self.name = name
        self.number = number
        self.cookie: str | None = None
        self.password = PASSWORDS[0]
        self.http = httpx.Client(base_url=url, timeout=120, trust_env=False,
                                 headers={"Origin": url})

    def post(self, path: str, body: dict[str, Any], number: int | None = None
             ) -> httpx.Response:
        headers = _address(self.number if number is None else number)
        if self.cookie:
            headers["Cookie"] = self.cookie
        answer = self.http.post(path, json=body, headers=headers)
        self.http.cookies.clear()
        for line in answer.headers.get_list("set-cookie"):
            name, _, rest = line.partition("=")
            if name in COOKIES:
                self.cookie = f"{name}={rest.split(';', 1)[0]}"
        return answer

    def signup(self) -> None:
        answer = self.post("/api/account/signup", {"name": self.name,
                                                   "password": self.password})
        if answer.status_code != 201:
            raise RuntimeError(f"sign-up {self.name}: {answer.status_code} {answer.text[:200]}")

    def change(self) -> int:
        """One password change to the other password; its status."""
        new = PASSWORDS[1] if self.password == PASSWORDS[0] else PASSWORDS[0]
        answer = self.post("/api/account/password", {"old": self.password, "new": new})
        if answer.status_code == 200:
            self.password = new
        return answer.status_code

    def login(self, number: int) -> float:
        """One log-in from address ``number``: its seconds (an error if refused)."""
        started = time.perf_counter()
        answer = self.post("/api/account/login", {"name": self.name,
                                                  "password": self.password}, number)
        if answer.status_code != 200:
            raise RuntimeError(f"log-in: {answer.status_code} {answer.text[:200]}")
        return time.perf_counter() - started


def password_burst(url: str, args: argparse.Namespace) -> tuple[bool | None, dict[str, Any]]:
    """The figures of ``password_burst`` (see the module)."""
    victim = Account(url, "Victim", 5000)
    changers = [Account(url, f"Changer{i}", 6000 + i) for i in range(args.changers)]
    greedy = Account(url, "Greedy", 7000)
    for account in (victim, *changers, greedy):
        account.signup()
    addresses = iter(range(8000, 9000))
    before = [victim.login(next(addresses)) for _ in range(args.logins)]
    statuses: dict[str, int] = {}
    lock = threading.Lock()

    def burst(account: Account) -> None:
        for _ in range(args.changes_each):
            code = str(account.change())
            with lock:
                statuses[code] = statuses.get(code, 0) + 1

    during: list[float] = []
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(changers)) as pool:
        futures = [pool.submit(burst, a) for a in changers]
        while not all(f.done() for f in futures) and len(during) < 40:
            during.append(victim.login(next(addresses)))
        for future in futures:
            future.result()
    burst_s = time.perf_counter() - started
    greedy_statuses: dict[str, int] = {}
    for _ in range(args.changes_each * 2):
        code = str(greedy.change())
        greedy_statuses[code] = greedy_statuses.get(code, 0) + 1
    same = greedy.post("/api/account/password", {"old": greedy.password,
                                                 "new": greedy.password}).status_code
    for account in (victim, *changers, greedy):
        account.http.close()
    figures: dict[str, Any] = {
        "changers": args.changers, "changes_each": args.changes_each,
        "change_statuses": statuses, "burst_s": round(burst_s, 2),
        "login_before_p50_ms": _ms(before, 0.5), "login_before_max_ms": _ms(before, 1.0),
        "login_during_p50_ms": _ms(during, 0.5), "login_during_max_ms": _ms(during, 1.0),
        "logins_during": len(during),
        "one_account_asking": {"asked": args.changes_each * 2, "answers": greedy_statuses},
        "new_equals_old": same,
    }
    p50_before, p50_during = _ms(before, 0.5), _ms(during, 0.5)
    held = None if not p50_before or not p50_during else p50_during < 2 * p50_before
    return held, figures


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of these two attacks."""
    parser.add_argument("--replay-steps", type=int, default=2330)
    parser.add_argument("--replays", type=int, default=96)
    parser.add_argument("--replay-seconds", type=float, default=5.0)
    parser.add_argument("--replay-concurrency", type=int, default=8)
    parser.add_argument("--changers", type=int, default=6)
    parser.add_argument("--changes-each", type=int, default=5)
    parser.add_argument("--logins", type=int, default=8)


Attack = Callable[..., tuple[bool | None, dict[str, Any]]]
