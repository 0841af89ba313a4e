"""Live-region changes over a few turns against the computer (issue 13, point 9).

The script starts ``ginrummy serve`` on a fresh SQLite file, opens a table against the
``simple`` computer in Chromium through Playwright and plays ``--turns`` of the player's turns
(draw from the stock, discard the highest deadwood card; each with the computer's turn after
it) while a ``MutationObserver`` on the whole page counts every change (child list or text)
whose target lies inside a live region (``aria-live`` other than ``off``, or role ``status``,
``alert`` or ``log``), by region, and the nodes added to ``#move-announcer`` (one a move).

``--client REV`` serves the browser client of an earlier commit instead of today's (its
``static/`` tree taken with ``git show``, every static request answered from it through
Playwright's routing; the server, its API and WebSocket are today's): the count before and
after the change. JSON on standard output.

    .venv/bin/python benchmarks/bench_live_region.py --turns 4 [--client ab9c539]
"""

from __future__ import annotations

import argparse
import json
import mimetypes
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "web"))

from web_support import (  # noqa: E402 - after the path set-up
    CHROMIUM,
    CHROMIUM_ARGS,
    create_table,
    my_turn,
    new_page,
    play_turn,
    running_server,
    wait_for_await,
)

STATIC = "src/ginrummy/web/static"

COUNT_JS = """() => {
    const LIVE = '[aria-live]:not([aria-live="off"]), [role=status], [role=alert], [role=log]';
    window.__changes = {};
    window.__announced = 0;
    new MutationObserver((records) => {
        for (const record of records) {
            const node = record.target.nodeType === 1 ? record.target : record.target.parentElement;
            const live = node && node.closest(LIVE);
            if (!live) continue;
            const name = live.id ? '#' + live.id : live.tagName + '.' + live.className;
            window.__changes[name] = (window.__changes[name] || 0) + 1;
            if (live.id === 'move-announcer') window.__announced += record.addedNodes.length;
        }
    }).observe(document.body, {childList: true, subtree: true, characterData: true});
}"""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=4, help="the player's turns (default 4)")
    parser.add_argument("--client", default=None,
                        help="a commit whose browser client to serve (default: today's files)")
    return parser.parse_args(argv)


def old_client(rev: str) -> dict[str, bytes]:
    """Every file of the client's static tree at commit ``rev``, by path under static/."""
    names = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, STATIC], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    return {name[len(STATIC) + 1:]: subprocess.run(["git", "show", f"{rev}:{name}"], cwd=ROOT,
                                                   capture_output=True, check=True).stdout
            for name in names}


def serve_from(files: dict[str, bytes]) -> Any:
    """A Playwright route handler answering the page and its static files from ``files``."""
    def handle(route: Any) -> None:
        path = route.request.url.split("://", 1)[1].split("/", 1)[1].split("?")[0]
        if path.startswith("v/"):  # /v/<version>/js/app.js -> js/app.js
            path = path.split("/", 2)[2]
        if path.startswith("api/") or path.startswith("ws/"):
            route.continue_()
            return
        key = path if path in files else "index.html"
        kind = mimetypes.guess_type(key)[0] or "application/octet-stream"
        if key.endswith(".js"):
            kind = "text/javascript"
        route.fulfill(status=200, body=files[key], headers={"content-type": kind,
                                                             "cache-control": "no-store"})
    return handle


@contextmanager
def browser_for(client: str | None) -> Iterator[Any]:
    """Chromium; for an earlier client (pages answered by the route, not by the local server)
    without the local network access check, which would block its WebSocket to 127.0.0.1."""
    from playwright.sync_api import sync_playwright
    extra = ["--disable-features=LocalNetworkAccessChecks"] if client else []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                             args=[*CHROMIUM_ARGS, *extra])
        try:
            yield browser
        finally:
            browser.close()


def measure(turns: int, client: str | None) -> dict[str, Any]:
    files = old_client(client) if client else None
    with tempfile.TemporaryDirectory() as tmp, running_server(Path(tmp)) as server, \
            browser_for(client) as browser:
        context, page = new_page(browser, server.base)
        if files is not None:
            context.route("**/*", serve_from(files))
        create_table(page, "Ann", preset="classic", bots={1: "simple"})
        my_turn(page)
        page.evaluate(COUNT_JS)
        started = time.monotonic()
        played = 0
        moves: list[str] = []
        while played < turns:
            _, state = wait_for_await([page], {"act", "next"}, timeout=30)
            if state == "next":
                break  # the hand ended: count what was played
            move = play_turn(page)
            moves.append(move)
            if move in {"discard", "knock", "gin", "layoff"}:
                played += 1
        page.wait_for_timeout(500)  # the computer's last move told
        changes: dict[str, int] = page.evaluate("() => window.__changes")
        return {"client": client or "working tree", "turns": played, "moves": moves,
                "live_region_changes": sum(changes.values()), "by_region": changes,
                "announcer_additions": page.evaluate("() => window.__announced"),
                "seconds": round(time.monotonic() - started, 1)}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    print(json.dumps(measure(args.turns, args.client), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
