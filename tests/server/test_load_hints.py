"""A faster first load (issue 27, point 11): Brotli for clients that take it, gzip for the
others, ``index.html``'s ``modulepreload`` hints covering exactly the modules the page
imports (made from the code, so they cannot fall behind it), the lobby's first API answers
fetched with them or put in the page, and the visitor's catalogue in the page or preloaded.
No browser: the app is driven through Starlette's test client."""

from __future__ import annotations

import gzip
import json
import re
import shutil
import time
from pathlib import Path

import brotli
import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.testclient import TestClient

from ginrummy.server.http import lobby_api, preload, static
from ginrummy.server.http.static import Compression, chosen_coding
from ginrummy.web import STATIC_DIR

HINT = re.compile(r'<link rel="modulepreload" href="/v/[0-9a-f]{16}/(js/[^"]+)">')


def client_app(directory: Path) -> Starlette:
    """The client's routes behind the compression middleware, as ``ginrummy serve`` has them."""
    return Starlette(routes=static.routes(directory), middleware=[Middleware(Compression)])


@pytest.fixture
def client_dir(tmp_path: Path) -> Path:
    """A copy of the client (the shared working tree may change while a test runs)."""
    target = tmp_path / "static"
    shutil.copytree(STATIC_DIR, target)
    return target


def raw(client: TestClient, path: str, accept: str) -> tuple[dict[str, str], bytes]:
    """The answer's headers and its body exactly as sent (not decoded)."""
    with client.stream("GET", path, headers={"Accept-Encoding": accept}) as response:
        assert response.status_code == 200, path
        return dict(response.headers), b"".join(response.iter_raw())


# --------------------------------------------------------------------------- Brotli
def test_the_coding_is_brotli_when_named_else_gzip() -> None:
    assert chosen_coding("gzip, deflate, br, zstd") == "br"  # Chromium's
    assert chosen_coding("br") == "br"
    assert chosen_coding("gzip, br;q=0") == "gzip"
    assert chosen_coding("gzip") == "gzip"
    assert chosen_coding("*") == "gzip"  # "anything": gzip, which every client decodes
    assert chosen_coding("identity") is None
    assert chosen_coding("") is None


def test_a_static_file_is_sent_in_brotli_to_a_client_that_takes_it(client_dir: Path) -> None:
    version = static.tree_for(client_dir).version()
    with TestClient(client_app(client_dir)) as client:
        for path in ("js/table.js", "css/app.css", "i18n/en.json"):
            file = (client_dir / path).read_bytes()
            headers, body = raw(client, f"/v/{version}/{path}", "gzip, deflate, br")
            assert headers["content-encoding"] == "br", path
            assert brotli.decompress(body) == file, path
            assert int(headers["content-length"]) == len(body) < len(file) / 2
            assert "accept-encoding" in headers["vary"].lower()
            gzipped_headers, gzipped = raw(client, f"/v/{version}/{path}", "gzip")
            assert gzipped_headers["content-encoding"] == "gzip", path
            assert gzip.decompress(gzipped) == file, path
            assert len(body) < len(gzipped), path  # the point of it
            again_headers, again = raw(client, f"/v/{version}/{path}", "br")  # from the cache
            assert brotli.decompress(again) == file
            assert again_headers["etag"] == headers["etag"]
            plain_headers, plain = raw(client, f"/v/{version}/{path}", "identity")
            assert "content-encoding" not in plain_headers and plain == file
        headers, body = raw(client, "/", "br")  # index.html, made per request
        assert headers["content-encoding"] == "br"
        assert b'rel="modulepreload"' in brotli.decompress(body)


def test_a_static_file_is_improved_to_the_best_brotli_after_its_first_answer(
        client_dir: Path) -> None:
    """The first answer is compressed at the fast quality (nobody waits for the best one);
    the best quality is computed aside and the next answers get it."""
    app = client_app(client_dir)
    path = f"/v/{static.tree_for(client_dir).version()}/js/table.js"
    file = (client_dir / "js" / "table.js").read_bytes()
    with TestClient(app) as client:
        _, first = raw(client, path, "br")
        compression = app.middleware_stack
        while not isinstance(compression, Compression):
            compression = compression.app  # type: ignore[union-attr]
        deadline = time.monotonic() + 20
        while compression.improving and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not compression.improving
        _, best = raw(client, path, "br")
    assert brotli.decompress(first) == brotli.decompress(best) == file
    assert len(best) < len(first)
    assert best == brotli.compress(file, quality=static.BROTLI_QUALITY)


# --------------------------------------------------------------------------- the hints
def imports_by_reading(module: str, directory: Path = STATIC_DIR) -> set[str]:
    """The test's own reading of a module's static imports: each statement that starts a
    line with ``import``/``export`` and ends with a quoted relative path (``import()`` calls
    sit inside code, never at a line's start)."""
    source = (directory / module).read_text("utf-8")
    statements = re.findall(r'^(?:import|export)\b[^;]*;', source, re.M)
    found = set()
    for statement in statements:
        match = re.search(r'["\'](\.{1,2}/[^"\']+)["\']\s*;$', statement)
        if match:
            found.add((Path(module).parent / match.group(1)).as_posix())
    return found


def graph_by_reading(entry: str, directory: Path = STATIC_DIR) -> set[str]:
    """Every module ``entry`` reaches through static imports (``entry`` left out)."""
    seen: set[str] = set()
    todo = [entry]
    while todo:
        for module in imports_by_reading(todo.pop(), directory):
            if module not in seen and module != entry:
                seen.add(module)
                todo.append(module)
    return seen


def hinted(client: TestClient, path: str) -> list[str]:
    response = client.get(path)
    assert response.status_code == 200
    return HINT.findall(response.text)


def test_the_hints_are_the_whole_import_graph_of_each_page(client_dir: Path) -> None:
    app_graph = graph_by_reading("js/app.js", client_dir)
    lobby_graph = graph_by_reading("js/lobby.js", client_dir) | {"js/lobby.js"}
    table_graph = graph_by_reading("js/table.js", client_dir) | {"js/table.js"}
    assert {"js/i18n.js", "js/api.js"} <= app_graph  # the reading reads
    assert {"js/handview.js", "js/connection.js"} <= table_graph
    dynamic = set(re.findall(r'import\("\./([\w.]+)"\)',
                             (client_dir / "js/app.js").read_text()))
    assert {"table.js", "lobby.js"} <= dynamic
    with TestClient(client_app(client_dir)) as client:
        lobby = hinted(client, "/")
        assert len(lobby) == len(set(lobby)) and set(lobby) == app_graph | lobby_graph
        # the lobby's first load does not download the other pages (issue 13)
        assert not {f"js/{name}" for name in dynamic - {"lobby.js"}} & set(lobby)
        table = hinted(client, "/?table=abc123")
        assert len(table) == len(set(table)) and set(table) == app_graph | table_graph
        # nor a table's the lobby's module, nor the coach's and js/later.js's, loaded once the
        # table is drawn (issue 27 point 11)
        later = {f"js/{name}" for name in re.findall(
            r'import\("\./([\w.]+)"\)', (client_dir / "js/later.js").read_text())}
        assert {"js/arrange.js", "js/reveal.js", "js/ending.js"} <= later
        assert "js/lobby.js" not in table and "js/coachview.js" not in table
        assert not later & set(table), sorted(later & set(table))
        assert hinted(client, "/?table=") == lobby  # no table: the lobby
        assert set(hinted(client, "/index.html")) == set(lobby)
        page = client.get("/").text
        head = page[:page.index("</head>")]
        assert head.index('type="module"') < head.index('rel="modulepreload"')  # app.js first


def preloads(html: str) -> list[str]:
    """The paths of the page's ``<link rel="preload" as="fetch">`` (versions dropped)."""
    head = html[:html.index("</head>")]
    return [re.sub(r"^/v/[0-9a-f]{16}", "", path) for path in re.findall(
        r'<link rel="preload" href="([^"]+)" as="fetch" crossorigin>', head)]


def data_block(html: str, element_id: str) -> object:
    """The JSON of the page's data block ``element_id`` (None without it)."""
    match = re.search(rf'<script type="application/json" id="{element_id}">(.*?)</script>',
                      html, re.S)
    return None if match is None else json.loads(match.group(1))


def test_the_lobby_fetches_its_first_api_answers_with_its_modules(client_dir: Path) -> None:
    """Issue 27 point 11: no API round trip after the modules. The answers that depend on the
    server (tables, computer levels) are preloaded; those of the code (presets, rule schema)
    are in the page, the same bodies the API answers."""
    with TestClient(client_app(client_dir)) as client:
        lobby = client.get("/", headers={"Accept-Language": "en-US,en;q=0.9"}).text
        assert preloads(lobby) == ["/api/tables", "/api/bots"]
        assert data_block(lobby, "api-answers") == {
            "/api/presets": lobby_api.presets_answer(),
            "/api/rules/schema": lobby_api.schema_answer()}
        table = client.get("/?table=abc123").text
        assert not [path for path in preloads(table) if path.startswith("/api/")]
        # every page loads js/format.js, which asks for the rule schema at once
        assert data_block(table, "api-answers") == {"/api/rules/schema":
                                                    lobby_api.schema_answer()}
    # what js/api.js reads is what a GET answers
    assert lobby_api.presets_answer()["default"] == "classic"
    assert lobby_api.schema_answer()["options"][0]["name"]


@pytest.mark.parametrize(("accept", "language"), [
    ("en-US,en;q=0.9", None), ("", None), ("fr-FR,fr;q=0.9,en;q=0.8", "fr"),
    ("de-DE,hu;q=0.8,en;q=0.5", "hu"), ("pl;q=0.5,fr;q=0.9", "fr"), ("de, xx", None),
    ("en;q=0, pl", "pl"),
])
def test_the_visitors_catalogue_is_chosen_as_the_client_does(accept: str,
                                                              language: str | None) -> None:
    files = frozenset(f"i18n/{lang}.json" for lang in ("en", "fr", "hu", "pl"))
    assert preload.catalogue_language(accept, files) == language


def test_the_english_catalogue_is_in_the_page_another_language_is_preloaded(
        client_dir: Path) -> None:
    """An English visitor's page carries the English catalogue (a request fewer); a French
    visitor's preloads both catalogues (English is the fallback), so neither waits for the
    other; the answer says it varies with Accept-Language."""
    english = json.loads((client_dir / "i18n" / "en.json").read_text("utf-8"))
    with TestClient(client_app(client_dir)) as client:
        for path in ("/", "/?table=abc123"):
            answer = client.get(path, headers={"Accept-Language": "en-GB,en;q=0.9"})
            assert "accept-language" in answer.headers["vary"].lower()
            assert data_block(answer.text, "catalogue-en") == english, path
            assert not [p for p in preloads(answer.text) if p.startswith("/i18n/")], path
            french = client.get(path, headers={"Accept-Language": "fr-FR,fr;q=0.9"}).text
            assert data_block(french, "catalogue-en") is None
            assert [p for p in preloads(french) if p.startswith("/i18n/")] == [
                "/i18n/en.json", "/i18n/fr.json"], path
            # nothing in a data block can end it early
            assert answer.text.count("</script>") == answer.text.count("<script")


def test_a_new_import_is_hinted_at_once(client_dir: Path) -> None:
    """The hints follow the code: a module imported from then on is hinted with the next
    version, one no longer imported is not."""
    (client_dir / "js" / "extra.js").write_text("export const extra = 1;\n")
    with (client_dir / "js" / "dom.js").open("a") as file:
        file.write('\nimport {\n  extra,\n} from "./extra.js";\nvoid extra;\n')
    tree = static.tree_for(client_dir)
    tree.check_seconds = 0
    with TestClient(client_app(client_dir)) as client:
        assert "js/extra.js" in hinted(client, "/")
        (client_dir / "js" / "dom.js").write_text(
            (client_dir / "js" / "dom.js").read_text().split("\nimport {")[0] + "\n")
        assert "js/extra.js" not in hinted(client, "/")
