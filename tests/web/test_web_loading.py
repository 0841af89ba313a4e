"""Pages loaded on demand (issue 13, "first load of the lobby under 150 KB compressed"): the
lobby's first load does not download the table's modules nor the other pages'; entering a
table loads them, every one under the same ``/v/<version>/`` prefix as ``app.js`` and cached
immutable, and the table plays; a returning visitor downloads only the page and its API calls.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_support import (
    ServerProcess,
    browser_missing,
    create_table,
    my_turn,
    new_page,
    play_turn,
    running_server,
)

from ginrummy.server.http.preload import module_closure
from ginrummy.server.http.static import IMMUTABLE, MINIMUM_SIZE
from ginrummy.web import STATIC_DIR

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser, BrowserContext, Page, Response, Route, WebSocket

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_client import return_visit

TABLE_ONLY = ("table.js", "board.js", "arrange.js", "motion.js", "movelog.js", "coachview.js",
              "fair.js", "variant.js", "reveal.js", "handview.js", "chat.js", "connection.js")
"""Modules only the table page needs (table.js imports them)."""
LATER = tuple(re.findall(r'import\("\./([\w.]+)"\)',
                         (STATIC_DIR / "js" / "later.js").read_text("utf-8")))
"""The modules of ``js/later.js``: the knock and layoff sheets, the reveal and the score sheet,
the banners."""
ON_DEMAND = ("coachview.js", *LATER)
"""Modules the table page loads itself once its first state is drawn (``import()``), not
hinted: its first screen does not need them (issue 27 point 11)."""


def _closure(*modules: str) -> set[str]:
    """The file names of every module ``modules`` import statically, theirs included."""
    files = frozenset(path.relative_to(STATIC_DIR).as_posix() for path in STATIC_DIR.rglob("*.js"))
    entries = [f"js/{name}" for name in modules]
    return {path.removeprefix("js/") for path in module_closure(STATIC_DIR, entries, files)}


BROUGHT = tuple(sorted(_closure(*ON_DEMAND) - _closure("app.js", "table.js") - set(ON_DEMAND)))
"""What those import that the first screen does not (friendinvite.js's friends.js and
friendpush.js): loaded with them, not hinted either."""
OTHER_PAGES = ("admin.js", "replay.js", "history.js", "profile.js", "leaderboard.js",
               "wallet.js", "account.js")
"""The modules of the other pages, loaded only when their path is entered."""
VERSIONED_MODULE = re.compile(r"^/v/([0-9a-f]{16})/js/([\w.-]+\.js)$")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server(tmp_path_factory.mktemp("loading")) as process:
        yield process


class Recorder:
    """Every response a page receives, by path (query strings dropped)."""

    def __init__(self, page: Page, base: str) -> None:
        self.base = base
        self.responses: list[Response] = []
        page.on("response", self.record)

    def record(self, response: Response) -> None:
        self.responses.append(response)

    def paths(self) -> list[str]:
        return [r.url.removeprefix(self.base).split("?")[0] for r in self.responses]

    def modules(self) -> dict[str, tuple[str, Response]]:
        """Module file name -> (its version, its response), for every ``/v/<v>/js/`` file."""
        found = {}
        for response, path in zip(self.responses, self.paths(), strict=True):
            match = VERSIONED_MODULE.match(path)
            if match:
                found[match.group(2)] = (match.group(1), response)
        return found

    def clear(self) -> None:
        self.responses.clear()


def open_lobby(page: Page) -> None:
    page.goto("/")
    page.wait_for_selector("#nickname")
    page.wait_for_load_state("networkidle")


def test_lobby_first_load_leaves_the_table_and_other_pages_out(
        server: ServerProcess, browser: Browser) -> None:
    context, page = new_page(browser, server.base, locale="fr-FR")
    recorder = Recorder(page, server.base)
    open_lobby(page)
    paths = recorder.paths()
    modules = recorder.modules()
    assert {"app.js", "lobby.js", "i18n.js"} <= modules.keys(), paths
    loaded_late = sorted(set(TABLE_ONLY + OTHER_PAGES) & modules.keys())
    assert loaded_late == [], f"the lobby's first load downloaded {loaded_late}"
    scripts = [p for p in paths if p.endswith(".js")]
    unversioned = [p for p in scripts if not VERSIONED_MODULE.match(p)]
    assert unversioned == [], unversioned
    assert page.evaluate("document.body.dataset.page") == "Lobby"
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()


def test_entering_a_table_loads_its_modules_under_the_version_and_plays(
        server: ServerProcess, browser: Browser) -> None:
    context, page = new_page(browser, server.base)
    recorder = Recorder(page, server.base)
    create_table(page, "Loader", bots={1: "random"})  # the lobby's form, then the table
    page.wait_for_load_state("networkidle")
    # coachview.js is asked for once the first state is drawn, which can come after the
    # network went quiet (a busy machine): wait for the modules, not for a quiet network
    deadline = time.monotonic() + 15
    while not set(TABLE_ONLY) <= recorder.modules().keys() and time.monotonic() < deadline:
        page.wait_for_timeout(50)  # Playwright delivers the responses meanwhile
    modules = recorder.modules()
    version = modules["app.js"][0]
    missing = sorted(set(TABLE_ONLY) - modules.keys())
    assert missing == [], f"entering the table did not load {missing}"
    for name, (module_version, response) in modules.items():
        assert module_version == version, f"{name} under /v/{module_version}/, app.js {version}"
        assert response.status == 200, name
        assert response.headers.get("cache-control") == IMMUTABLE, name
    assert sorted((set(OTHER_PAGES) - {"account.js"}) & modules.keys()) == []
    assert page.evaluate("document.body.dataset.page") == "TablePage"
    my_turn(page)
    assert play_turn(page) in {"pass", "stock", "discard", "knock", "gin", "layoff"}
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()


def test_a_table_link_opened_directly_loads_the_table(
        server: ServerProcess, browser: Browser) -> None:
    context, page = new_page(browser, server.base)
    table_id = create_table(page, "Host", bots={1: "random"})
    context.close()
    context, page = new_page(browser, server.base)
    recorder = Recorder(page, server.base)
    page.goto(f"/?table={table_id}")
    page.wait_for_selector("#table-page")
    assert page.evaluate("document.body.dataset.page") == "TablePage"
    assert "table.js" in recorder.modules()
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()


def test_another_page_loads_only_its_own_module(server: ServerProcess, browser: Browser) -> None:
    context, page = new_page(browser, server.base)
    recorder = Recorder(page, server.base)
    page.goto("/leaderboard")
    page.wait_for_function("() => document.body.dataset.page === 'LeaderboardPage'")
    page.wait_for_load_state("networkidle")
    modules = recorder.modules()
    assert "leaderboard.js" in modules
    assert sorted(set(TABLE_ONLY) & modules.keys()) == []
    page.click("#brand")
    page.wait_for_selector("#nickname")
    assert page.evaluate("document.body.dataset.page") == "Lobby"
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()


def test_a_returning_visit_downloads_only_the_page_and_its_api_calls(
        server: ServerProcess, browser: Browser) -> None:
    context, page = new_page(browser, server.base, locale="fr-FR")
    recorder = Recorder(page, server.base)
    open_lobby(page)
    first_bytes = sum(r.request.sizes()["responseBodySize"] for r in recorder.responses)
    again = return_visit(context, page, server.base)
    static = [p for p in again["network_requests"] if p != "/" and not p.startswith("/api/")]
    assert static == [], f"the returning visit downloaded {static}"
    assert "/" in again["network_requests"]
    assert again["from_cache"] >= len(recorder.modules())
    assert 0 < again["bytes"] < first_bytes / 5, (again["bytes"], first_bytes)
    context.close()


HINTS_JS = """() => [...document.querySelectorAll('link[rel=modulepreload]')]
    .map((link) => new URL(link.href).pathname.split('/').pop())"""


def assert_hinted_up_front(page: Page, recorder: Recorder, minimum: set[str]) -> None:
    """Issue 27 point 11: every module the page loaded (but the entry, app.js, and the table's
    modules of later steps) was named by a ``modulepreload`` hint of the page's head, none of
    the later steps' was, each hinted module was used and asked for once (no second download
    for the import), and each came Brotli-compressed when large enough."""
    hints = page.evaluate(HINTS_JS)
    assert len(hints) == len(set(hints)) and minimum <= set(hints), hints
    assert not set(ON_DEMAND) & set(hints), "a later step's module is hinted"
    modules = recorder.modules()
    assert not set(BROUGHT) & set(hints), "a module only a later step's imports is hinted"
    unhinted = modules.keys() - set(hints) - {"app.js"} - set(ON_DEMAND) - set(BROUGHT)
    assert sorted(unhinted) == [], "loaded without a hint"
    assert sorted(set(hints) - modules.keys()) == [], "hinted but not loaded"
    requested = [p for p in recorder.paths() if VERSIONED_MODULE.match(p)]
    assert len(requested) == len(set(requested)), "a module was downloaded twice"
    for name, (_version, response) in modules.items():
        if (STATIC_DIR / "js" / name).stat().st_size >= MINIMUM_SIZE:
            assert response.headers.get("content-encoding") == "br", name


def test_every_first_screen_module_of_the_lobby_and_of_a_table_is_hinted_in_brotli(
        server: ServerProcess, browser: Browser) -> None:
    context, page = new_page(browser, server.base)
    recorder = Recorder(page, server.base)
    page.goto("/")
    page.wait_for_selector("#quick-submit:enabled")
    page.wait_for_load_state("networkidle")
    assert_hinted_up_front(page, recorder, {"lobby.js", "i18n.js", "api.js"})
    assert not set(TABLE_ONLY) & set(page.evaluate(HINTS_JS))  # the lobby stays light
    # an English visitor's page carries the English catalogue: it is not fetched at all
    assert not [r for r in recorder.responses if "/i18n/" in r.url]
    table_id = create_table(page, "Hinted", bots={1: "random"})
    context.close()
    context, page = new_page(browser, server.base)  # the table's link, opened in a new profile
    recorder = Recorder(page, server.base)
    page.goto(f"/?table={table_id}")
    page.wait_for_selector("#table-page")
    page.wait_for_load_state("networkidle")
    assert_hinted_up_front(page, recorder, {"table.js", "handview.js", "api.js"})
    assert "lobby.js" not in recorder.modules()  # a table's link does not load the lobby
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()


def test_the_lobby_asks_for_its_api_answers_with_its_modules(
        server: ServerProcess, browser: Browser) -> None:
    """Issue 27 point 11, a round trip less on a slow link: the lobby's first API answers are
    asked for with its modules (preloaded by the page: every one before the first module has
    arrived), once each, or are in the page itself (the presets, the rule schema: never
    asked for); a French visitor's two catalogues are both asked for at once too."""
    context, page = new_page(browser, server.base, locale="fr-FR")
    events: list[tuple[str, str]] = []
    page.on("request", lambda r: events.append(("request", r.url.split("?")[0])))
    page.on("response", lambda r: events.append(("response", r.url.split("?")[0])))
    page.goto("/")
    page.wait_for_selector("#table-list > *")
    page.wait_for_selector("#quick-submit:enabled")
    paths = [(kind, re.sub(r"^/v/[0-9a-f]{16}", "", url.removeprefix(server.base)))
             for kind, url in events]
    first_module = next(index for index, (kind, path) in enumerate(paths)
                        if kind == "response" and path.endswith(".js"))
    asked = [path for kind, path in paths if kind == "request"]
    for call in ("/api/tables", "/api/bots", "/i18n/en.json", "/i18n/fr.json"):
        assert asked.count(call) == 1, (call, asked)
        assert paths.index(("request", call)) < first_module, (call, paths)
    for call in ("/api/presets", "/api/rules/schema"):  # in the page
        assert call not in asked, (call, asked)
    assert page.locator("#create-form select").count() > 0  # the form was made from them
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()


def seated_in_a_fresh_profile(browser: Browser, server: ServerProcess, nickname: str,
                              **table: Any) -> tuple[BrowserContext, Page, str]:
    """A table made in one profile (``create_table`` with ``table``), then a fresh profile
    holding only that seat's token, as a returning player's browser: its context, its page
    (not yet at the table) and the table's id."""
    context, page = new_page(browser, server.base)
    table_id = create_table(page, nickname, **table)
    seat = page.evaluate(f"localStorage.getItem('ginrummy.seat.{table_id}')")
    context.close()
    context, page = new_page(browser, server.base)
    context.add_init_script(
        f"localStorage.setItem('ginrummy.seat.{table_id}', {json.dumps(seat)});")
    return context, page, table_id


def test_a_tables_link_opens_its_socket_at_once_and_loads_no_lobby(
        server: ServerProcess, browser: Browser) -> None:
    """Issue 27 point 11: a table's page opens its WebSocket as the page starts (js/app.js),
    and the table's connection takes that one (a single socket, no second handshake), so on
    a slow link the handshake overlaps the modules' download; the page loads neither the
    lobby's module nor a catalogue (an English visitor's is in the page), and plays."""
    context, page, table_id = seated_in_a_fresh_profile(browser, server, "Early",
                                                        bots={1: "random"})
    sockets: list[str] = []
    page.on("websocket", lambda socket: sockets.append(socket.url))
    recorder = Recorder(page, server.base)
    page.goto(f"/?table={table_id}")
    my_turn(page)
    assert [url.split("/ws/")[1] for url in sockets] == [f"tables/{table_id}"]
    assert not set(ON_DEMAND) & set(page.evaluate(HINTS_JS))
    page.wait_for_load_state("networkidle")  # the coach's module, asked for once drawn
    assert set(ON_DEMAND) <= recorder.modules().keys()
    assert page.evaluate("globalThis.ginrummyEarlySocket") is None  # taken
    modules = recorder.modules()
    assert "table.js" in modules and "lobby.js" not in modules
    assert not [path for path in recorder.paths() if "/i18n/" in path]
    assert play_turn(page) in {"pass", "stock", "discard", "knock", "gin", "layoff"}
    page.click("#brand")  # the lobby's module is loaded when the lobby is entered
    page.wait_for_selector("#quick-submit:enabled")
    assert "lobby.js" in recorder.modules()
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()


def test_a_tables_socket_brings_the_first_state_while_the_modules_are_on_their_way(
        server: ServerProcess, browser: Browser) -> None:
    """Issue 27 point 11: the socket js/app.js opens on a table's address says its hello as
    soon as it is open, so the first state reaches the page while the table's modules are
    still on their way (``table.js`` held back here until it has); the connection takes the
    socket with what it received meanwhile, draws it, and the table plays on that one socket."""
    context, page, table_id = seated_in_a_fresh_profile(browser, server, "Hello",
                                                        bots={1: "random"})
    held: list[Route] = []
    page.route(re.compile(r"/js/table\.js$"), lambda route: held.append(route))
    sockets: list[str] = []
    frames: list[str] = []

    def watch(socket: WebSocket) -> None:
        sockets.append(socket.url)
        socket.on("framereceived", lambda payload: frames.append(str(payload)))

    page.on("websocket", watch)
    page.goto(f"/?table={table_id}", wait_until="commit")
    deadline = time.monotonic() + 15
    while not (held and any(frame.startswith('{"type":"state"') for frame in frames)):
        assert time.monotonic() < deadline, ("no state before table.js", len(held), frames)
        page.wait_for_timeout(50)
    assert page.locator("#table-page").count() == 0  # not drawn: its module is held back
    for route in held:
        route.continue_()
    my_turn(page)
    assert page.locator("#my-hand [data-card]").count() >= 10
    assert [url.split("/ws/")[1] for url in sockets] == [f"tables/{table_id}"]
    assert page.evaluate("globalThis.ginrummyEarlySocket") is None  # taken
    assert play_turn(page) in {"pass", "stock", "discard", "knock", "gin", "layoff"}
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()


def test_a_turn_clock_the_early_socket_held_is_drawn_with_the_time_left_now(
        server: ServerProcess, browser: Browser) -> None:
    """A state the early socket held while ``table.js`` was on its way is drawn with its
    turn clock shortened by the time it waited (js/connection.js, ``late``): a 60 s clock
    held back 6 s reads at most 0:56 once the table is drawn, not a full minute."""
    context, page, table_id = seated_in_a_fresh_profile(browser, server, "Clocked",
                                                        bots={1: "simple"}, clock=60)
    held: list[Route] = []
    page.route(re.compile(r"/js/table\.js$"), lambda route: held.append(route))
    frames: list[str] = []
    page.on("websocket", lambda socket: socket.on(
        "framereceived", lambda payload: frames.append(str(payload))))
    page.goto(f"/?table={table_id}", wait_until="commit")
    deadline = time.monotonic() + 15
    while not (held and any(frame.startswith('{"type":"state"') for frame in frames)):
        assert time.monotonic() < deadline, "no state before table.js"
        page.wait_for_timeout(50)
    page.wait_for_timeout(6000)  # the state (and the computer's moves) held meanwhile
    for route in held:
        route.continue_()
    my_turn(page)
    mine = page.locator("#table-page").get_attribute("data-seat")
    shown = page.locator(f'.seat-box .clock[data-seat="{mine}"] .clock-time').inner_text()
    minutes, seconds = (int(part) for part in shown.split(":"))
    assert minutes * 60 + seconds <= 56, shown
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()
