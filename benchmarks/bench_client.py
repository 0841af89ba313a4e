"""Bytes transferred by the first load of the lobby, against the budget of issue 13 (150 KB).

The script starts ``ginrummy serve`` on a fresh SQLite file and, for each of ``--runs`` runs,
opens the lobby in a fresh Chromium profile (empty cache) through Playwright, waits until the
page is idle, and adds up every response the page received (Playwright's ``requestfinished``
events, ``request.sizes()``: the body as sent, compressed or not, plus the headers): the
HTML, every module, the style sheet, both catalogues (English is the fallback) and the
lobby's API calls. Each run loads the page twice: with gzip (Chromium's own
``Accept-Encoding``) and without (``Accept-Encoding: identity``, as the server was before
issue 13); then it opens the lobby again in the compressed run's profile to show what a
returning visitor downloads (Chromium's own count of the bytes received), and what entering a
table then adds: the modules only the table page needs, which ``app.js`` loads with
``import()`` when a table's path is entered (``table_entry``: the versioned files only; the
table id is made up, so its API and WebSocket answers are left out). JSON on standard output;
``--verbose`` lists every file of the last run.

    .venv/bin/python benchmarks/bench_client.py --runs 3 [--locale fr-FR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load_server import kill_server, start_server

CHROMIUM = Path(os.environ.get("GINRUMMY_CHROMIUM", "/usr/bin/chromium"))
BUDGET_BYTES = 150 * 1000
"""Issue 13: "first load of the lobby under 150 KB transferred compressed"."""

try:
    from playwright.sync_api import Browser, Request, sync_playwright
except ImportError:  # pragma: no cover - the dev extra installs it
    sys.exit("bench_client needs Playwright for Python: pip install -e .[dev]")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs (default 3)")
    parser.add_argument("--locale", default="fr-FR",
                        help="the browser's language (default fr-FR: two catalogues load)")
    parser.add_argument("--verbose", action="store_true", help="every file of the last run")
    return parser.parse_args(argv)


@contextmanager
def chromium() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        sys.exit(f"{CHROMIUM} not found: apt-get install -y chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                             args=["--no-sandbox", "--disable-gpu",
                                                   "--disable-background-networking"])
        try:
            yield browser
        finally:
            browser.close()


def load(page: Any, base: str) -> list[dict[str, Any]]:
    """Load the lobby; one entry per response received from the network."""
    finished: list[Request] = []

    def record(request: Request) -> None:
        finished.append(request)

    page.on("requestfinished", record)
    page.goto(base + "/")
    page.wait_for_selector("#nickname")
    page.wait_for_load_state("networkidle")
    page.remove_listener("requestfinished", record)
    return _files(finished, base)


def _files(finished: list[Request], base: str) -> list[dict[str, Any]]:
    """One entry per finished request that had a response."""
    files = []
    for request in finished:
        response = request.response()
        if response is None:
            continue
        sizes = request.sizes()
        files.append({
            "path": request.url.removeprefix(base),
            "status": response.status,
            "encoding": response.headers.get("content-encoding", ""),
            "cache_control": response.headers.get("cache-control", ""),
            "body": sizes["responseBodySize"],
            "headers": sizes["responseHeadersSize"],
        })
    return files


def summary(files: list[dict[str, Any]]) -> dict[str, Any]:
    """Bytes received: bodies as sent, headers, by kind of file."""
    def kind(path: str) -> str:
        if path.startswith("/api/"):
            return "api"
        for ext in ("js", "css", "json"):
            if path.split("?")[0].endswith("." + ext):
                return "i18n" if ext == "json" else ext
        return "html"

    by_kind: dict[str, int] = {}
    for file in files:
        by_kind[kind(file["path"])] = by_kind.get(kind(file["path"]), 0) + max(
            0, file["body"]) + max(0, file["headers"])
    body = sum(max(0, f["body"]) for f in files)
    headers = sum(max(0, f["headers"]) for f in files)
    return {"requests": len(files), "bytes": body + headers, "body_bytes": body,
            "header_bytes": headers, "by_kind": by_kind,
            "gzipped": sum(1 for f in files if f["encoding"] == "gzip")}


def return_visit(context: Any, page: Any, base: str) -> dict[str, Any]:
    """The lobby opened again in the same profile (a link followed, not a forced reload): the
    bytes that still cross the network, from Chromium's own count (DevTools protocol
    ``Network.loadingFinished.encodedDataLength``; a file taken from the cache counts 0)."""
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    received: dict[str, int] = {}
    cached: set[str] = set()
    urls: dict[str, str] = {}
    cdp.on("Network.requestWillBeSent",
           lambda e: urls.__setitem__(e["requestId"], e["request"]["url"]))
    cdp.on("Network.requestServedFromCache", lambda e: cached.add(e["requestId"]))
    cdp.on("Network.responseReceived", lambda e: cached.add(e["requestId"])
           if e["response"].get("fromDiskCache") else None)
    cdp.on("Network.loadingFinished",
           lambda e: received.__setitem__(e["requestId"], int(e["encodedDataLength"])))
    page.goto(base + "/")
    page.wait_for_selector("#nickname")
    page.wait_for_load_state("networkidle")
    cdp.detach()
    network = [urls.get(r, "").removeprefix(base) for r in received if r not in cached]
    return {"requests": len(urls), "from_cache": len(cached & set(urls)),
            "network_requests": sorted(network), "bytes": sum(received.values())}


def table_entry(page: Any, base: str) -> dict[str, Any]:
    """The versioned files a first table's path downloads after the lobby (the same page, no
    reload: the path changed as a click on a table does)."""
    finished: list[Request] = []

    def record(request: Request) -> None:
        finished.append(request)

    page.on("requestfinished", record)
    page.evaluate("""() => { history.pushState({}, "", "/?table=bench-no-such-table");
                             dispatchEvent(new PopStateEvent("popstate")); }""")
    page.wait_for_function("() => document.body.dataset.page === 'TablePage'")
    page.wait_for_load_state("networkidle")
    page.remove_listener("requestfinished", record)
    files = [f for f in _files(finished, base) if f["path"].startswith("/v/")]
    return {"requests": len(files),
            "bytes": sum(max(0, f["body"]) + max(0, f["headers"]) for f in files),
            "modules": sorted(f["path"].rsplit("/", 1)[-1] for f in files)}


def one_run(browser: Browser, base: str, locale: str) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for name, headers in (("compressed", {}), ("uncompressed", {"Accept-Encoding": "identity"})):
        context = browser.new_context(locale=locale, extra_http_headers=headers)
        page = context.new_page()
        started = time.perf_counter()
        files = load(page, base)
        result[name] = {**summary(files), "seconds": round(time.perf_counter() - started, 3)}
        if name == "uncompressed" and any(f["encoding"] for f in files):
            raise RuntimeError("the uncompressed load received compressed files")
        if name == "compressed":
            result["files"] = files
            result["return_visit"] = return_visit(context, page, base)
            result["table_entry"] = table_entry(page, base)
        context.close()
    return result


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="bench_client-"))
    server = start_server(f"sqlite:///{folder / 'bench.db'}", folder, [])
    runs = []
    try:
        with chromium() as browser:
            for _ in range(args.runs):
                runs.append(one_run(browser, server.url, args.locale))
    finally:
        kill_server(server)
    files = runs[-1].pop("files")
    for run in runs[:-1]:
        run.pop("files")
    out: dict[str, Any] = {
        "budget_bytes": BUDGET_BYTES,
        "locale": args.locale,
        "compressed_bytes": [r["compressed"]["bytes"] for r in runs],
        "uncompressed_bytes": [r["uncompressed"]["bytes"] for r in runs],
        "return_visit_bytes": [r["return_visit"]["bytes"] for r in runs],
        "table_entry_bytes": [r["table_entry"]["bytes"] for r in runs],
        "within_budget": all(r["compressed"]["bytes"] < BUDGET_BYTES for r in runs),
        "runs": runs,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())},
    }
    if args.verbose:
        out["files"] = files
    json.dump(out, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
