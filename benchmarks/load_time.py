"""Time-to-usable of the lobby and of a table on a first visit over an emulated slow 4G link.

The script starts ``ginrummy serve`` on a fresh SQLite file and drives Debian's Chromium
through Playwright. Each run opens a fresh profile (empty cache, first visit), sets the link
through the DevTools protocol (``Network.emulateNetworkConditions``: 150 ms of latency,
1.6 Mb/s = 200,000 bytes/s down and up, the cache disabled) and measures, from the start of
the navigation (the page's ``performance.now()``):

* **lobby**: ``/`` until the *Play the computer* button is there and enabled and the list of
  tables has been drawn (its first answer in);
* **table**: ``/?table=ID`` of a table made beforehand through the API (a private two-player
  table against the computer, the seat's token stored in the profile as the lobby would have
  stored it), until the hand is shown and the first legal action of the player's seat is
  clickable (an enabled button of the action bar while the page awaits the player's action).

One lobby and one table are loaded at full speed first, not counted (the server's first
answers: each file's first compression). Each run prints its two figures; the end gives the
median and the spread (lowest, highest) of each, against the targets of issue 27 (lobby
1.0 s, table 1.5 s). ``--json`` prints the whole result as JSON.

    .venv/bin/python benchmarks/load_time.py [--runs 3] [--latency-ms 150] [--rate 200000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load_server import kill_server, start_server

SOURCE = Path(__file__).resolve().parents[1] / "src"
"""This checkout's sources, which the measured server runs."""
CHROMIUM = Path(os.environ.get("GINRUMMY_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
TARGETS = {"lobby": 1.0, "table": 1.5}
"""Issue 27, point 11: time-to-usable in seconds under the slow 4G emulation."""

try:
    from playwright.sync_api import Browser, Page, Request, sync_playwright
except ImportError:  # pragma: no cover - the dev extra installs it
    sys.exit("load_time needs Playwright for Python: pip install -e .[dev]")

LOBBY_READY = """() => {
    const button = document.getElementById('quick-submit');
    const list = document.getElementById('table-list');
    return button && !button.disabled && list && list.childElementCount > 0
        ? performance.now() : false; }"""
TABLE_READY = """() => {
    const page = document.getElementById('table-page');
    if (!page || page.dataset.await !== 'act') return false;
    const hand = document.querySelector('#my-hand [data-card]');
    const action = document.querySelector('#action-bar button:not([disabled])');
    return hand && action ? performance.now() : false; }"""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs (default 3)")
    parser.add_argument("--latency-ms", type=float, default=150.0,
                        help="added round-trip latency (default 150)")
    parser.add_argument("--rate", type=int, default=200_000,
                        help="download and upload rate in bytes/s (default 200000 = 1.6 Mb/s)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--waterfall", action="store_true",
                        help="print each request's start and end (ms) of every load")
    return parser.parse_args(argv)


@contextmanager
def chromium() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        sys.exit(f"{CHROMIUM} not found: apt-get install -y chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def slow_page(browser: Browser, base: str, args: argparse.Namespace,
              init_script: str | None = None) -> Page:
    """A page in a fresh profile whose network is the emulated link, the cache off."""
    context = browser.new_context(locale="en-US", base_url=base,
                                  viewport={"width": 390, "height": 844})
    context.set_default_timeout(30_000)
    if init_script:
        context.add_init_script(init_script)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": args.latency_ms,
        "downloadThroughput": args.rate, "uploadThroughput": args.rate})
    return page


def timed(page: Page, path: str, ready: str, waterfall: bool = False) -> tuple[float, int]:
    """Seconds from the navigation's start until ``ready`` holds, and the requests made;
    ``waterfall`` prints when each request started and ended (ms from the navigation's start)."""
    requests: list[Request] = []
    page.on("request", lambda request: requests.append(request))
    page.goto(path, wait_until="commit")
    at = float(page.wait_for_function(ready, polling=10).json_value())
    if waterfall:
        origin = requests[0].timing["startTime"] if requests else 0.0
        print(f"  {path}: usable at {at:.0f} ms")
        for request in requests:
            timing = request.timing
            start = timing["startTime"] - origin
            end = start + timing["responseEnd"] if timing["responseEnd"] >= 0 else -1
            url = request.url.split("/", 3)[-1]
            print(f"  {start:7.0f} {end:7.0f}  /{url[:90]}")
    page.context.close()
    return at / 1000, len(requests)


def new_table(base: str) -> tuple[str, dict[str, Any]]:
    """A private table against the computer (as *Play the computer* makes it): its id and the
    seat to store in the profile."""
    answer = httpx.post(base + "/api/tables", json={
        "nickname": "Ann", "preset": "classic", "options": {}, "players": 2,
        "bots": {"1": "simple"}, "public": False, "clock_seconds": 0, "pool_chips": None},
        headers={"Origin": base}, timeout=30)
    answer.raise_for_status()
    body = answer.json()
    seat = {"seat": body["seat"], "token": body.get("token"), "invite": body.get("invite"),
            "name": "Ann", "saved": 1}
    return body["table_id"], seat


def one_run(browser: Browser, base: str, args: argparse.Namespace) -> dict[str, Any]:
    lobby, lobby_requests = timed(slow_page(browser, base, args), "/", LOBBY_READY,
                                   args.waterfall)
    table_id, seat = new_table(base)
    table, table_requests = timed(slow_page(browser, base, args, store_seat(table_id, seat)),
                                  table_path(table_id, seat), TABLE_READY,
                                   args.waterfall)
    return {"lobby": round(lobby, 3), "table": round(table, 3),
            "lobby_requests": lobby_requests, "table_requests": table_requests}


def warm_up(browser: Browser, base: str) -> None:
    """One lobby and one table loaded at full speed before the runs (not counted): the
    server's first answers (its start, each file's first compression) are left out, as a
    server that has served one visitor since its release is measured."""
    for path, ready in (("/", LOBBY_READY), (None, TABLE_READY)):
        context = browser.new_context(locale="en-US", base_url=base)
        if path is None:
            table_id, seat = new_table(base)
            context.add_init_script(store_seat(table_id, seat))
            path = table_path(table_id, seat)
        page = context.new_page()
        page.goto(path)
        page.wait_for_function(ready, polling=10)
        page.wait_for_timeout(1000)  # Brotli's best quality is made aside meanwhile
        context.close()


def store_seat(table_id: str, seat: dict[str, Any]) -> str:
    """The script that stores the seat in the profile, as the lobby does on creating it."""
    return (f"localStorage.setItem('ginrummy.seat.{table_id}', {json.dumps(json.dumps(seat))});"
            "localStorage.setItem('ginrummy.nickname', '\"Ann\"');")


def table_path(table_id: str, seat: dict[str, Any]) -> str:
    return f"/?table={table_id}" + (f"&invite={seat['invite']}" if seat["invite"] else "")


def spread(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 3), "min": min(values),
            "max": max(values)}


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="load_time-"))
    env = {"GINRUMMY_TABLES_PER_ADDRESS": "1000000", **os.environ}
    # the server runs in the temporary folder: the code served is this checkout's (a relative
    # PYTHONPATH=src would not reach it there, and the venv's install may be another tree's)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SOURCE), env.get("PYTHONPATH")]))
    server = start_server(f"sqlite:///{folder / 'bench.db'}", folder,
                          ["--bot-delay", "20"], env=env)
    runs = []
    try:
        with chromium() as browser:
            warm_up(browser, server.url)
            for number in range(1, args.runs + 1):
                run = one_run(browser, server.url, args)
                runs.append(run)
                if not args.json:
                    print(f"run {number}: lobby {run['lobby']:.3f} s "
                          f"({run['lobby_requests']} requests), table {run['table']:.3f} s "
                          f"({run['table_requests']} requests)", flush=True)
    finally:
        kill_server(server)
    result = {"latency_ms": args.latency_ms, "rate_bytes_per_s": args.rate, "runs": runs,
              **{name: spread([run[name] for run in runs]) for name in TARGETS}}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for name, target in TARGETS.items():
        figures = result[name]
        verdict = "within" if figures["max"] <= target else "OVER"
        print(f"{name}: median {figures['median']:.3f} s, spread {figures['min']:.3f}-"
              f"{figures['max']:.3f} s over {len(runs)} runs ({verdict} the {target} s target)")


if __name__ == "__main__":
    main()
