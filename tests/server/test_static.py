"""Serving the web client (issue 13, point 11): versioned static URLs with long-lived cache
headers, index.html never cached unchecked, gzip on text responses only."""

from __future__ import annotations

import gzip
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_helpers import LiveServer
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route, WebSocketRoute
from starlette.testclient import TestClient
from starlette.websockets import WebSocket

from ginrummy.server.http.static import (
    IMMUTABLE,
    MINIMUM_SIZE,
    Compression,
    StaticTree,
    accepts_gzip,
    compressible,
    tree_for,
)
from ginrummy.web import STATIC_DIR

SECURITY = ("content-security-policy", "x-frame-options", "x-content-type-options",
            "referrer-policy")
ASSET = re.compile(r'(?:src|href)="(/v/([0-9a-f]{16})/[^"]+)"')


def sent_bytes(client: httpx.Client, path: str, encoding: str = "gzip") -> tuple[
        httpx.Response, bytes]:
    """The answer and the body bytes exactly as they came over the wire."""
    request = client.build_request("GET", path, headers={"Accept-Encoding": encoding})
    response = client.send(request, stream=True)
    body = b"".join(response.iter_raw())
    response.close()
    return response, body


# --------------------------------------------------------------------------- the tree
def copy_static(tmp_path: Path) -> Path:
    target = tmp_path / "static"
    shutil.copytree(STATIC_DIR, target)
    return target


def test_the_version_is_a_content_hash_that_changes_with_any_file(tmp_path: Path) -> None:
    directory = copy_static(tmp_path)
    tree = StaticTree(directory, check_seconds=0)
    first = tree.version()
    assert re.fullmatch(r"[0-9a-f]{16}", first)
    assert StaticTree(directory).version() == first  # the same files, the same hash
    os.utime(directory / "js" / "app.js")  # touched, not changed: same content, same hash
    assert tree.version() == first
    with (directory / "js" / "table.js").open("a") as file:
        file.write("\n// changed\n")
    second = tree.version()
    assert second != first
    (directory / "i18n" / "extra.json").write_text("{}")  # a new file changes it too
    assert tree.version() not in (first, second)
    assert "i18n/extra.json" in tree.files()


def test_a_file_removed_while_the_tree_is_hashed_is_left_out(tmp_path: Path,
                                                             monkeypatch: Any) -> None:
    directory = copy_static(tmp_path)
    tree = StaticTree(directory, check_seconds=0)
    whole = tree.version()
    scan = StaticTree._scan
    monkeypatch.setattr(StaticTree, "_scan", lambda self: (*scan(self), ("js/gone.js", 1, 1)))
    assert tree.version() == whole  # the vanished file counts for nothing
    assert "js/gone.js" not in tree.files() and "js/app.js" in tree.files()


def test_index_html_points_at_the_version_and_only_for_files_of_the_tree(
        tmp_path: Path) -> None:
    directory = copy_static(tmp_path)
    tree = StaticTree(directory, check_seconds=0)
    html = tree.index_html()
    assert html is not None
    version = tree.version()
    assert f'href="/v/{version}/css/app.css"' in html
    assert f'src="/v/{version}/js/app.js"' in html
    assert 'href="/"' in html  # the brand link to the lobby is not a file: unchanged
    assert 'src="/js/' not in html and 'href="/css/' not in html
    (directory / "css" / "app.css").write_text("body { color: red; }\n")
    assert f'href="/v/{tree.version()}/css/app.css"' in (tree.index_html() or "")
    assert tree.version() != version


def test_modules_import_each_other_by_relative_urls_only() -> None:
    """A versioned module's imports and catalogue fetches stay inside its version."""
    for module in sorted((STATIC_DIR / "js").glob("*.js")):
        source = module.read_text("utf-8")
        imports = re.findall(r'^\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"', source,
                             re.MULTILINE)
        imports += re.findall(r'\bimport\(\s*"([^"]+)"', source)
        for target in imports:
            assert target.startswith("./"), (module.name, target)
        assert not re.search(r'fetch\(\s*[`"\']/(js|css|i18n)/', source), module.name


# --------------------------------------------------------------------------- compression
def test_accept_encoding_and_media_types() -> None:
    assert accepts_gzip("gzip, deflate, br")
    assert accepts_gzip("br;q=1.0, gzip;q=0.8")
    assert accepts_gzip("*")
    assert not accepts_gzip("")
    assert not accepts_gzip("identity")
    assert not accepts_gzip("gzip;q=0, br")
    assert not accepts_gzip("*;q=0")
    for text in ("text/html; charset=utf-8", "text/css", "text/javascript",
                 "application/javascript", "application/json", "image/svg+xml"):
        assert compressible(text), text
    for binary in ("image/png", "application/gzip", "font/woff2", "application/octet-stream",
                   ""):
        assert not compressible(binary), binary


BIG_TEXT = ("The stock, the discard pile and the deadwood. " * 200).encode()


def compression_app() -> Starlette:
    async def big(_request: Any) -> Response:
        return Response(BIG_TEXT, media_type="text/plain")

    async def tiny(_request: Any) -> Response:
        return Response(b'{"ok": true}', media_type="application/json")

    async def png(_request: Any) -> Response:
        return Response(BIG_TEXT, media_type="image/png")

    async def encoded(_request: Any) -> Response:
        return Response(gzip.compress(BIG_TEXT), media_type="text/plain",
                        headers={"content-encoding": "gzip"})

    async def tagged(request: Any) -> Response:
        body = BIG_TEXT + request.query_params.get("v", "").encode()
        return Response(body, media_type="text/css",
                        headers={"etag": '"' + request.query_params.get("v", "a") + '"'})

    async def streamed(_request: Any) -> StreamingResponse:
        async def chunks() -> Any:
            for _ in range(5):
                yield BIG_TEXT

        return StreamingResponse(chunks(), media_type="text/html")

    async def echo(socket: WebSocket) -> None:
        await socket.accept()
        await socket.send_text((await socket.receive_text()) * 100)
        await socket.close()

    return Starlette(routes=[Route("/big", big), Route("/tiny", tiny), Route("/png", png),
                             Route("/encoded", encoded), Route("/streamed", streamed),
                             Route("/tagged", tagged),
                             WebSocketRoute("/ws", echo)],
                     middleware=[Middleware(Compression)])


def test_large_text_is_gzipped_small_and_binary_bodies_are_not() -> None:
    with TestClient(compression_app()) as client:
        big = client.get("/big", headers={"Accept-Encoding": "gzip"})
        assert big.headers["content-encoding"] == "gzip"
        assert big.content == BIG_TEXT  # decoded by the client
        assert int(big.headers["content-length"]) < len(BIG_TEXT) / 10
        assert "accept-encoding" in big.headers["vary"].lower()
        plain = client.get("/big", headers={"Accept-Encoding": "identity"})
        assert "content-encoding" not in plain.headers
        assert plain.content == BIG_TEXT and "accept-encoding" in plain.headers["vary"].lower()
        tiny = client.get("/tiny", headers={"Accept-Encoding": "gzip"})
        assert "content-encoding" not in tiny.headers and tiny.json() == {"ok": True}
        assert len(tiny.content) < MINIMUM_SIZE
        png = client.get("/png", headers={"Accept-Encoding": "gzip"})
        assert "content-encoding" not in png.headers and png.content == BIG_TEXT
        encoded = client.get("/encoded", headers={"Accept-Encoding": "gzip"})
        assert encoded.headers["content-encoding"] == "gzip"  # once, not twice
        assert encoded.content == BIG_TEXT
        streamed = client.get("/streamed", headers={"Accept-Encoding": "gzip"})
        assert streamed.headers["content-encoding"] == "gzip"
        assert "content-length" not in streamed.headers
        assert streamed.content == BIG_TEXT * 5


def test_a_static_file_is_compressed_once_while_it_is_unchanged() -> None:
    app = compression_app()
    with TestClient(app) as client:
        first = client.get("/tagged?v=1", headers={"Accept-Encoding": "gzip"})
        again = client.get("/tagged?v=1", headers={"Accept-Encoding": "gzip"})
        changed = client.get("/tagged?v=2", headers={"Accept-Encoding": "gzip"})
    compression = app.middleware_stack
    while not isinstance(compression, Compression):
        compression = compression.app  # type: ignore[union-attr]
    assert compression.cache_hits == 1  # the second answer; a new ETag is compressed anew
    assert first.content == again.content == BIG_TEXT + b"1"
    assert changed.content == BIG_TEXT + b"2"
    assert first.headers["etag"] == again.headers["etag"] == 'W/"1"'
    assert first.headers["content-encoding"] == again.headers["content-encoding"] == "gzip"


def test_websocket_traffic_is_never_compressed() -> None:
    with TestClient(compression_app()) as client, client.websocket_connect(
            "/ws", headers={"Accept-Encoding": "gzip"}) as socket:
        socket.send_text("deadwood ")
        assert socket.receive_text() == "deadwood " * 100


# --------------------------------------------------------------------------- the live server
@pytest.fixture
def client_dir(tmp_path: Path) -> Path:
    """A copy of the client: the shared working tree may change while a test runs."""
    return copy_static(tmp_path)


@pytest.fixture
def server(make_server: Callable[..., LiveServer], client_dir: Path) -> LiveServer:
    """A live server serving the copy."""
    return make_server(static_dir=client_dir)


def current_asset_urls(client: httpx.Client, path: str = "/") -> tuple[str, list[str]]:
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-cache"
    found = ASSET.findall(response.text)
    assert found, response.text[:500]
    versions = {version for _, version in found}
    assert len(versions) == 1
    return versions.pop(), [url for url, _ in found]


def test_index_is_no_cache_and_names_the_current_version(server: LiveServer,
                                                         client_dir: Path) -> None:
    with server.http() as client:
        version, urls = current_asset_urls(client, "/")
        assert version == tree_for(client_dir).version()
        assert f"/v/{version}/js/app.js" in urls and f"/v/{version}/css/app.css" in urls
        for path in ("/index.html", "/leaderboard", "/history", "/login", "/admin"):
            assert current_asset_urls(client, path)[0] == version, path
        unknown = client.get("/players/nobody-here")  # a page path answering 404
        assert unknown.status_code == 404 and unknown.headers["cache-control"] == "no-cache"
        assert f"/v/{version}/js/app.js" in unknown.text
        for answer in (client.get("/"), client.get("/leaderboard")):
            for name in SECURITY:
                assert name in answer.headers, name


def test_versioned_assets_are_immutable_gzipped_and_secured(server: LiveServer,
                                                           client_dir: Path) -> None:
    with server.http() as client:
        version, _ = current_asset_urls(client)
        for relative in ("js/app.js", "js/table.js", "css/app.css", "i18n/hu.json"):
            response, body = sent_bytes(client, f"/v/{version}/{relative}")
            original = (client_dir / relative).read_bytes()
            assert response.status_code == 200, relative
            assert response.headers["cache-control"] == IMMUTABLE
            assert response.headers["content-encoding"] == "gzip", relative
            assert gzip.decompress(body) == original
            assert len(body) < len(original) / 2, relative
            assert int(response.headers["content-length"]) == len(body)
            assert response.headers["etag"].startswith('W/"')
            for name in SECURITY:
                assert name in response.headers, (relative, name)
            plain, plain_body = sent_bytes(client, f"/v/{version}/{relative}", "identity")
            assert "content-encoding" not in plain.headers and plain_body == original
        # revalidation still answers 304 with the compressed answer's (weak) ETag
        first, _ = sent_bytes(client, f"/v/{version}/js/app.js")
        again = client.get(f"/v/{version}/js/app.js",
                           headers={"If-None-Match": first.headers["etag"]})
        assert again.status_code == 304
        missing = client.get(f"/v/{version}/js/nothing.js")
        assert missing.status_code == 404 and "immutable" not in missing.headers.get(
            "cache-control", "")
        assert client.get(f"/v/{version}/").status_code == 404  # no directory listing


def test_old_paths_and_old_versions_still_work_revalidated(server: LiveServer,
                                                           client_dir: Path) -> None:
    with server.http() as client:
        for path in ("/js/app.js", "/css/app.css", "/i18n/fr.json",
                     "/v/0123456789abcdef/js/app.js"):
            response = client.get(path)
            assert response.status_code == 200, path
            assert response.headers["cache-control"] == "no-cache", path
            assert response.content == (client_dir / path.split("/", 3 if path.startswith(
                "/v/") else 1)[-1]).read_bytes()
            for name in SECURITY:
                assert name in response.headers, (path, name)
        assert client.get("/js/nothing.js").status_code == 404


def test_tiny_and_api_answers_are_sent_plain(server: LiveServer) -> None:
    with server.http() as client:
        health, body = sent_bytes(client, "/healthz")
        assert health.status_code == 200 and "content-encoding" not in health.headers
        assert body == b'{"ok":true}'
        head = client.head("/")
        assert head.status_code == 200 and "content-encoding" not in head.headers


def test_an_edited_file_gets_a_new_version_on_a_running_server(
        server: LiveServer, client_dir: Path) -> None:
    directory = client_dir
    tree_for(directory).check_seconds = 0
    with server.http() as client:
        before, _ = current_asset_urls(client)
        with (directory / "js" / "lobby.js").open("a") as file:
            file.write("\n// a new release\n")
        after, _ = current_asset_urls(client)
        assert after != before
        fresh = client.get(f"/v/{after}/js/lobby.js")
        assert fresh.headers["cache-control"] == IMMUTABLE
        assert fresh.text.endswith("// a new release\n")
        stale = client.get(f"/v/{before}/js/lobby.js")  # a page of the old release
        assert stale.status_code == 200 and stale.headers["cache-control"] == "no-cache"


# --------------------------------------------------------------------------- in a browser
CHROMIUM = Path(os.environ.get("GINRUMMY_CHROMIUM", "/usr/bin/chromium"))


def test_the_lobby_loads_every_file_from_the_version_compressed(server: LiveServer,
                                                               client_dir: Path) -> None:
    """Chromium: every static file of the lobby's first load (modules, style, catalogues)
    comes from ``/v/<version>/``, Brotli-compressed (Chromium accepts ``br``); a reload
    takes them from the cache."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} not found (apt-get install -y chromium)")
    version = tree_for(client_dir).version()
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                             args=["--no-sandbox", "--disable-gpu"])
        try:
            context = browser.new_context(locale="fr-FR", base_url=server.base)
            page = context.new_page()
            seen: list[tuple[str, int, str | None]] = []
            page.on("response", lambda r: seen.append(
                (r.url.removeprefix(server.base), r.status, r.headers.get("content-encoding"))))
            page.goto("/")
            page.wait_for_selector("#nickname")
            page.wait_for_load_state("networkidle")
            static = [s for s in seen if re.search(r"\.(js|css|json)$", s[0])]
            paths = {s[0] for s in static}
            assert f"/v/{version}/js/app.js" in paths and f"/v/{version}/css/app.css" in paths
            assert f"/v/{version}/i18n/fr.json" in paths and f"/v/{version}/i18n/en.json" in paths
            assert all(p.startswith(f"/v/{version}/") for p in paths), paths
            assert all(status == 200 and enc == "br" for path, status, enc in static
                       if (client_dir / path.split("/", 3)[-1]).stat().st_size
                       >= MINIMUM_SIZE), static
            seen.clear()
            page.reload()
            page.wait_for_selector("#nickname")
            page.wait_for_load_state("networkidle")
            refetched = [s for s in seen if s[0].startswith("/v/") and s[1] != 200]
            assert refetched == []  # immutable: served from the cache, not even a 304
            context.close()
        finally:
            browser.close()

