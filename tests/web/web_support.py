"""Shared pieces of the browser tests: a real `ginrummy serve` process, Chromium through
Playwright, a player that acts through the page, and the WebSocket frame leak checker.

The browser tests skip (saying how to install it) when Chromium or Playwright is missing.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ginrummy.server.core.delta import apply_delta
from ginrummy.web import LANGUAGES as LANGUAGES
from ginrummy.web import STATIC_DIR
from helpers import soak_except as soak_except

HEADLESS_SHELL = Path("/usr/bin/chromium-headless-shell")


def _chromium() -> Path:
    """The browser the tests drive: ``GINRUMMY_CHROMIUM`` when set, else Debian's headless
    Chromium (package ``chromium-headless-shell``: the same Chromium without the browser's
    window layer, about 35% less CPU on test_web_layout.py, 40-48 s against 66-69 s), else
    Debian's ``chromium``."""
    named = os.environ.get("GINRUMMY_CHROMIUM")
    if named:
        return Path(named)
    return HEADLESS_SHELL if HEADLESS_SHELL.exists() else Path("/usr/bin/chromium")


CHROMIUM = _chromium()
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
INSTALL_HINT = ("browser tests need Debian's Chromium and Playwright for Python: "
                "`sudo apt-get install -y chromium-headless-shell` (or `chromium`) and "
                "`pip install -e .[dev]`")

try:
    from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # pragma: no cover - the dev extra installs it
    sync_playwright = None  # type: ignore[assignment]


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if sync_playwright is None:
        return "playwright is not installed; " + INSTALL_HINT
    if not CHROMIUM.exists():
        return f"{CHROMIUM} not found; " + INSTALL_HINT
    return None


# --------------------------------------------------------------------------- server
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve_command() -> list[str]:
    script = Path(sys.executable).with_name("ginrummy")
    if script.exists():
        return [str(script), "serve"]
    found = shutil.which("ginrummy")
    if found:
        return [found, "serve"]
    return [sys.executable, "-c", "import sys; from ginrummy.cli.main import main; "
            "sys.exit(main(sys.argv[1:]))", "serve"]


@dataclass
class ServerProcess:
    """`ginrummy serve` on a free port with its own SQLite file; restartable on the same port."""

    db_path: Path
    port: int = field(default_factory=free_port)
    bot_delay_ms: int = 20
    process: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None
    env: dict[str, str] = field(default_factory=dict)
    """Settings of the server (``GINRUMMY_*``, docs/server.md) on top of this process's."""

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 40.0) -> None:
        self.log_path = self.db_path.with_suffix(".log")
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [*serve_command(), "--port", str(self.port), "--db", f"sqlite:///{self.db_path}",
             "--bot-delay", str(self.bot_delay_ms), "--log-level", "warning"],
            stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **self.env})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"ginrummy serve exited: {self.log_text()}")
            with contextlib.suppress(OSError), urllib.request.urlopen(
                    self.base + "/api/bots", timeout=1) as answer:
                if answer.status == 200:
                    return
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"ginrummy serve did not start: {self.log_text()}")

    def kill(self) -> None:
        """SIGKILL, as a crash would."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(10)
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
            self.process = None

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")[-3000:] if self.log_path else ""


@contextlib.contextmanager
def running_server(tmp_path: Path, name: str = "web.db",
                   env: dict[str, str] | None = None) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path / name, env=env or {})
    server.start()
    try:
        yield server
    finally:
        server.stop()


# --------------------------------------------------------------------------- browser
@contextlib.contextmanager
def chromium() -> Iterator[Browser]:
    reason = browser_missing()
    if reason:
        pytest.skip(reason)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


NO_UNDO_WAIT_JS = """try { if (localStorage.getItem('ginrummy.discardUndo') === null)
    localStorage.setItem('ginrummy.discardUndo', 'false'); } catch (e) {}"""


def no_undo_wait(context: BrowserContext) -> BrowserContext:
    """Discards sent at once in this profile (the header's "Time to take back a discard"
    switched off, js/board.js), unless a test set the setting itself: the tests that play
    through many discards do not wait out each one's take-back time."""
    context.add_init_script(NO_UNDO_WAIT_JS)
    return context


PHONE = {"width": 390, "height": 844}
"""The phone of the layout tests (CSS pixels; with touch and device scale 3 in device_page)."""
DESKTOP = {"width": 1366, "height": 900}
"""The laptop screen of the layout tests."""
LOCALES = {"en": "en-US", "fr": "fr-FR", "pl": "pl-PL", "hu": "hu-HU"}
"""The browser locale of each language of the page."""


def device_page(browser: Browser, base: str, locale: str, *,
                phone: bool) -> tuple[BrowserContext, Page]:
    """A fresh profile in ``locale``: a phone (390x844, touch, device scale 3) or a laptop
    screen (1366x900); page errors collected on ``page.errors``, discards sent at once."""
    if phone:
        context = browser.new_context(locale=locale, base_url=base, viewport=PHONE,
                                      device_scale_factor=3, is_mobile=True, has_touch=True)
    else:
        context = browser.new_context(locale=locale, base_url=base, viewport=DESKTOP)
    context.set_default_timeout(30_000)
    no_undo_wait(context)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    page.errors = errors  # type: ignore[attr-defined]
    return context, page


def new_page(browser: Browser, base: str, locale: str = "en-US",
             recorder: FrameRecorder | None = None,
             motion: bool = True) -> tuple[BrowserContext, Page]:
    """A fresh profile (context) and page, console errors collected on ``page.errors``.

    ``motion=False``: the browser asks for reduced motion, so no card flies (js/motion.js)
    and no move waits for a flight to land. For the tests that play many turns only to reach
    what they check (a knock, a match's end, a wallet): a flight per move made them several
    times longer. The motion itself is tested in test_web_motion*.py, and the tests that play
    a hand the way a person sees it keep it on."""
    context = no_undo_wait(browser.new_context(
        locale=locale, base_url=base, viewport={"width": 1280, "height": 900},
        reduced_motion="no-preference" if motion else "reduce"))
    context.set_default_timeout(30_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    page.on("console", lambda msg: errors.append(f"console: {msg.text}")
            if msg.type == "error" or "missing message" in msg.text else None)
    page.errors = errors  # type: ignore[attr-defined]
    if recorder is not None:
        recorder.attach(page)
    return context, page


def create_table(page: Page, nickname: str, *, preset: str = "classic", players: int = 2,
                 bots: dict[int, str] | None = None,
                 options: dict[str, str | bool] | None = None,
                 pool: int | None = None, public: bool = True, clock: int = 0) -> str:
    """Create a table through the lobby form; returns the table id (the page is at the table)."""
    page.goto("/")
    page.wait_for_selector("#create-form")
    page.fill("#nickname", nickname)
    page.select_option("#create-preset", preset)
    page.select_option("#create-players", str(players))
    for seat in range(1, players):  # the form offers the computer; "" leaves a seat for a person
        page.select_option(f'#create-seats .seat-kind[data-seat="{seat}"]',
                           (bots or {}).get(seat, ""))
    if options:
        page.click("#create-form details.options summary")
        for name, value in options.items():
            if isinstance(value, bool):
                page.set_checked(f"#opt-{name}", value)
            else:
                page.fill(f"#opt-{name}", value)
    if pool is not None:
        page.fill("#create-pool", str(pool))
    if not public:
        page.uncheck("#create-public")
    if clock:
        page.fill("#create-clock", str(clock))
    page.click("#create-submit")
    wait_for_first_state(page)
    match = re.search(r"[?&]table=([^&]+)", page.url)
    assert match, page.url
    return match.group(1)


# --------------------------------------------------------------------------- playing
def wait_for_first_state(page: Page) -> None:
    """The table page has rendered a `state` from the server."""
    page.wait_for_function("() => { const p = document.getElementById('table-page');"
                           " return p && p.dataset.version !== undefined"
                           " && p.dataset.version !== ''; }")


def hand_cards(page: Page) -> list[str]:
    """The cards of the page's hand, sorted."""
    return sorted(page.eval_on_selector_all("#my-hand .card", "cs => cs.map(c => c.dataset.card)"))


def await_state(page: Page) -> str:
    return str(page.get_attribute("#table-page", "data-await") or "")


AWAIT_JS = """wanted => { const p = document.getElementById('table-page');
    const state = p ? p.dataset.await || '' : '';
    return wanted.includes(state) ? state : false; }"""


AWAIT_WATCH_JS = """() => {
    if (window.__awaitWatched) return;
    window.__awaitWatched = true;
    let last = null;
    const report = () => {
        const p = document.getElementById('table-page');
        const state = p ? p.dataset.await || '' : '';
        if (state !== last) { last = state; window.__awaitChanged(state); }
    };
    new MutationObserver(report).observe(document, {subtree: true, childList: true,
        attributes: true, attributeFilter: ['data-await']});
    report();
}"""
_AWAIT_SEEN = "_ginrummy_await_seen"
"""The attribute of a watched page holding the last ``data-await`` its page reported."""


def watch_await(page: Page) -> None:
    """Have the page report each change of its ``data-await`` (a MutationObserver calling an
    exposed binding, in this document and every later one), so that waiting for one of several
    pages costs no round trip to each page every few milliseconds."""
    if hasattr(page, _AWAIT_SEEN):
        return
    setattr(page, _AWAIT_SEEN, None)
    page.expose_binding("__awaitChanged",
                        lambda _source, state: setattr(page, _AWAIT_SEEN, state))
    page.add_init_script(f"({AWAIT_WATCH_JS})()")
    with contextlib.suppress(PlaywrightError):  # navigating: the init script watches the next
        page.evaluate(AWAIT_WATCH_JS)


def wait_for_await(pages: list[Page], wanted: set[str], timeout: float = 20.0) -> tuple[Page, str]:
    """Wait until one of ``pages`` shows an ``data-await`` value in ``wanted``.

    One page is watched inside the browser (one call, answered when the value shows). Several
    pages report their changes (:func:`watch_await`); the wait checks what they reported and,
    for a page whose report is wanted, reads the value itself before answering (a report can
    be a moment old). Polling each page instead cost half a core while the pages waited."""
    if len(pages) == 1:
        page = pages[0]
        try:
            handle = page.wait_for_function(AWAIT_JS, arg=sorted(wanted), polling=15,
                                            timeout=timeout * 1000)
        except PlaywrightTimeout:
            raise AssertionError(f"no page reached {wanted}: {await_state(page)}") from None
        return page, str(handle.json_value())
    for page in pages:
        watch_await(page)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for page in pages:
            if getattr(page, _AWAIT_SEEN) in wanted:
                state = await_state(page)
                if state in wanted:
                    return page, state
        pages[0].wait_for_timeout(15)  # Playwright delivers the pages' reports meanwhile
    raise AssertionError(f"no page reached {wanted}: " + ", ".join(await_state(p) for p in pages))


def my_turn(page: Page, timeout: float = 30.0) -> None:
    """Wait until the page's seat is to act; if a hand ends meanwhile (the computer knocked
    early), go on to the next one."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, state = wait_for_await([page], {"act", "next"}, timeout=timeout)
        if state == "act":
            return
        page.click("#next-hand")
        page.wait_for_function("() => document.getElementById('table-page')"
                               ".dataset.await !== 'next'")
    raise AssertionError("never the page's turn")


def version(page: Page) -> int:
    return int(page.get_attribute("#table-page", "data-version") or -1)


SNAPSHOT_JS = """() => {
    const ids = ['confirm-layoff', 'action-gin', 'action-knock', 'action-pass', 'action-stock']
        .filter((id) => document.getElementById(id));
    const cards = (selector) => [...document.querySelectorAll(selector)].map((c) => c.dataset.card);
    return {ids, deadwood: cards('#my-hand .deadwood-group .card.playable'),
            playable: cards('#my-hand .card.playable'),
            version: Number(document.getElementById('table-page').dataset.version)};
}"""

WAIT_JS = """v => { const p = document.getElementById('table-page');
    return p && Number(p.dataset.version) > v && p.dataset.await !== 'sending'; }"""


SETTLED_JS = """() => document.getAnimations().every((a) => a.playState !== 'running'
    || a.effect?.getComputedTiming().iterations === Infinity)"""


def wait_until_still(page: Page) -> None:
    """Wait until no card is in flight (js/motion.js; polled in animation frames, after the
    flights a render planned have started): a click aimed at a card or a pile then lands on
    it, not on another card flying over it (Playwright's stability check covers only the
    element clicked)."""
    page.wait_for_function(SETTLED_JS, polling="raf")


def discard_step(page: Page, *, before_ending: bool = False) -> bool:
    """A discard turn (no draw, pass, knock or layoff offered; with ``before_ending``, a
    knock or gin offered too, not taken): choose the highest deadwood card with a tap, so
    that the action bar shows its discard button. False otherwise."""
    wait_until_still(page)
    snapshot = page.evaluate(SNAPSHOT_JS)
    ends = {"action-knock", "action-gin"} if before_ending else set()
    if set(snapshot["ids"]) - ends:
        return False
    codes = snapshot["deadwood"] or snapshot["playable"]
    chosen = max(codes, key=card_value)
    # tapped on its corner, the part of an overlapped card that shows
    page.locator(f'#my-hand .card[data-card="{chosen}"]').click(position={"x": 6, "y": 12})
    page.wait_for_selector("#action-discard")
    return True


def play_turn(page: Page) -> str:
    """Make one move through the page, as a careful beginner would; returns what it did.

    Knock or gin when offered (confirming the proposed arrangement), lay off as proposed,
    pass the first-turn offer (with the P key), draw from the stock (a click on it), discard
    the highest deadwood card (a first click chooses it, a second discards it).
    """
    wait_until_still(page)
    snapshot = page.evaluate(SNAPSHOT_JS)
    ids = snapshot["ids"]
    if "confirm-layoff" in ids:
        page.click("#confirm-layoff")
        done = "layoff"
    elif "action-gin" in ids or "action-knock" in ids:
        done = "gin" if "action-gin" in ids else "knock"
        page.click(f"#action-{done}")
        page.click("#confirm-knock")
    elif "action-pass" in ids:
        page.keyboard.press("p")
        done = "pass"
    elif "action-stock" in ids:
        page.click("#stock")
        done = "stock"
    else:
        codes = snapshot["deadwood"] or snapshot["playable"]
        assert codes, "nothing to play"
        chosen = max(codes, key=card_value)
        card = page.locator(f'#my-hand .card[data-card="{chosen}"]')
        card.click()
        card.click()
        done = "discard"
    page.wait_for_function(WAIT_JS, arg=snapshot["version"], polling=20)
    return done


def card_value(code: str) -> int:
    return min("A23456789TJQK".index(code[0]) + 1, 10) if code else 0


def play_until(pages: list[Page], stop: set[str], max_moves: int = 400) -> list[str]:
    """Play every page whose turn it is until one page shows a ``data-await`` in ``stop``."""
    moves: list[str] = []
    for _ in range(max_moves):
        page, state = wait_for_await(pages, {"act"} | stop, timeout=30)
        if state in stop:
            return moves
        moves.append(play_turn(page))
    raise AssertionError(f"no end after {max_moves} moves: {moves[-20:]}")


def play_game(pages: list[Page], max_hands: int = 6) -> list[str]:
    """Play a single-hand game (``arena``) to its end through ``pages``; returns the moves.
    A void hand is dealt again (R6.1): its reveal's Next hand is pressed on every page that
    shows it, and play goes on with the new deal."""
    moves: list[str] = []
    for _ in range(max_hands):
        moves += play_until(pages, {"next", "over"})
        if any(await_state(page) == "over" for page in pages):
            return moves
        for page in pages:
            if await_state(page) == "next":
                page.click("#next-hand")
        for page in pages:
            page.wait_for_function("() => document.getElementById('table-page')"
                                   ".dataset.await !== 'next'")
    raise AssertionError(f"the game did not end in {max_hands} hands")


# --------------------------------------------------------------------------- frame checks
CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])([A2-9TJQK][shdc])(?![A-Za-z0-9])")


def cards_in(value: Any) -> set[str]:
    """Every card named anywhere in a message (strings inside lists and objects)."""
    found: set[str] = set()
    if isinstance(value, str):
        found.update(CARD_TOKEN.findall(value))
    elif isinstance(value, list):
        for item in value:
            found |= cards_in(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key != "table":  # the lobby entry: names and rules, no cards
                found |= cards_in(item)
    return found


@dataclass
class Frame:
    recipient: str
    message: dict[str, Any]
    delta: dict[str, Any] | None = None
    """The ``delta`` as it came, when ``message`` is the state made of it."""


@dataclass
class FrameRecorder:
    """Every WebSocket frame received by each page, by recipient name; a protocol-3 ``delta``
    is recorded as the ``state`` it makes, with the delta as it came (:func:`leaks` checks
    that it names nothing that state does not), and counted in ``deltas``."""

    frames: list[Frame] = field(default_factory=list)
    deltas: int = 0

    def attach(self, page: Page, name: str | None = None) -> None:
        recipient = name or f"page{id(page)}"
        page.recipient = recipient  # type: ignore[attr-defined]

        def on_socket(socket: Any) -> None:
            last: list[dict[str, Any]] = []  # this socket's latest state

            def on_frame(payload: str | bytes) -> None:
                text = payload.decode() if isinstance(payload, bytes) else payload
                message = json.loads(text)
                delta = None
                if message.get("type") == "delta":
                    self.deltas += 1
                    delta = message
                    state = apply_delta(last[0], message)
                    message = {"type": "state", **({"ack": message["ack"]} if "ack" in message
                                                   else {}), **state}
                if message.get("type") == "state":
                    last[:] = [message]
                self.frames.append(Frame(page.recipient, message,  # type: ignore[attr-defined]
                                         delta))

            socket.on("framereceived", on_frame)

        page.on("websocket", on_socket)

    def rename(self, page: Page, name: str) -> None:
        old = page.recipient  # type: ignore[attr-defined]
        page.recipient = name  # type: ignore[attr-defined]
        for frame in self.frames:
            if frame.recipient == old:
                frame.recipient = name

    def states(self) -> list[Frame]:
        return [f for f in self.frames if f.message.get("type") == "state"]

    def wait_for(self, page: Page, recipient: str, wanted: Callable[[dict[str, Any]], bool],
                 timeout: float = 20.0) -> Frame:
        """Wait until ``recipient`` was sent a frame ``wanted`` accepts (``page``: one of the
        pages, whose polls let Playwright hand the frames over); the page has then read it (a
        frame is reported as the page's socket gets it), so a check that it changed nothing
        on the page needs no pause."""
        deadline = time.monotonic() + timeout
        while True:
            for frame in self.frames:
                if frame.recipient == recipient and wanted(frame.message):
                    return frame
            if time.monotonic() > deadline:
                raise AssertionError(f"{recipient} was sent no such frame")
            page.wait_for_timeout(20)  # a poll: Playwright delivers the frames meanwhile


def leaks(frames: list[Frame]) -> list[str]:
    """Cards some recipient was sent without being allowed to know them.

    Frames are read in the order each recipient got them. Within a hand a recipient may know
    the cards it has seen face up so far (upcard, top discards, the whole pile when its
    history is visible, the cards its log names in public actions such as discards) and the
    cards it has held so far (its own hand, as it came); once a
    knock is laid down (R4.8) also every hand, whose sizes must match the seats' card counts
    (so no stock card can hide among them). Nothing else may name a card.
    """
    problems: list[str] = []
    seen: dict[tuple[str, int, str], set[str]] = {}
    for frame in frames:
        message = frame.message
        view = message.get("view") if message.get("type") == "state" else None
        named = cards_in({k: v for k, v in message.items() if k != "table"})
        if frame.delta is not None:  # a delta names no card that the state made of it does not
            beyond = cards_in({k: v for k, v in frame.delta.items() if k != "table"}) - named
            if beyond:
                problems.append(f"{frame.recipient} v{message.get('version')}: its delta "
                                f"names {sorted(beyond)}, its state does not")
        if view is None:
            if named:
                problems.append(f"{frame.recipient}: cards {sorted(named)} "
                                f"in {message.get('type')}")
            continue
        # a hand: its number and first upcard (a rematch starts numbering again)
        allowed = seen.setdefault((frame.recipient, view["hand_number"], view["upcard"]), set())
        allowed.add(view["upcard"])
        if view.get("top_discard"):
            allowed.add(view["top_discard"])
        allowed.update(view.get("discard_pile") or [])
        allowed.update(view.get("hand") or [])
        for event in view.get("log") or []:
            # every action in a seat's log is public (a discard taken at once by the next
            # player is never a top discard in the states this page gets when they arrive
            # together); only the ``card`` field, the viewer's own stock draws, is private
            allowed |= cards_in(event.get("action", ""))
        current = set(allowed)
        if view.get("knock") is not None:
            for seat in view["seats"]:
                cards = set(seat.get("cards") or [])
                if len(cards) != seat["count"]:
                    problems.append(f"{frame.recipient}: seat {seat['seat']} shows {len(cards)} "
                                    f"cards for a count of {seat['count']}")
                current |= cards
        else:
            for seat in view["seats"]:
                if seat["seat"] != view.get("seat") and seat.get("cards") is not None:
                    problems.append(f"{frame.recipient}: seat {seat['seat']}'s cards "
                                    "before a knock")
        extra = named - current
        if extra:
            problems.append(f"{frame.recipient} v{message.get('version')}: "
                            f"may not know {sorted(extra)}")
    return problems


# --------------------------------------------------------------------------- catalogues
def catalogue(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((STATIC_DIR / "i18n" / f"{lang}.json").read_text("utf-8"))
    return data


PLACEHOLDER = re.compile(r"\{(\w+)\}")

# Keys whose text may be the same as in English, per language: numbers and card letters,
# names (PlayOK, EAAI), and words the languages share (Gin, Total, Message, Enter...).
SAME_AS_ENGLISH: dict[str, set[str]] = {
    "fr": {"app.title", "bot.expert", "bot.simple", "chat.placeholder", "outcome.gin",
           "outcome.knock", "outcome.undercut", "reveal.points", "seat.score", "sheet.points",
           "sheet.total", "undo.seconds"},
    "pl": {"action.gin", "help.gin", "help.key_enter", "outcome.gin", "preset.arena", "reveal.gin",
           "undo.seconds"},
    "hu": {"action.gin", "help.key_enter", "outcome.gin", "reveal.gin"},
}
ALWAYS_SAME = re.compile(r"^(card\.rank\.[2-9TAK]|card\.rank_name\.[2-9T]|preset\.(playok|eaai))$")


def may_match_english(lang: str, key: str) -> bool:
    key = re.sub(r"\.(zero|one|two|few|many|other)$", "", key)  # a plural message's forms
    return bool(ALWAYS_SAME.match(key)) or key in SAME_AS_ENGLISH.get(lang, set())


@functools.cache
def english_patterns(lang: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Regexes of the English texts a page in ``lang`` must not show (placeholders: anything).

    Short texts must match a whole text node; texts of eight characters or more are also found
    inside a longer node (such as the rules summary, joined from several messages). Built once
    a language and process (the pages' checks ask for them once per text node: the English
    catalogue's hundreds of regexes, compiled again each time, took minutes).
    """
    english = catalogue("en")
    patterns: list[tuple[str, re.Pattern[str]]] = []
    for key, text in english.items():
        literal = PLACEHOLDER.sub("", text).strip()
        if may_match_english(lang, key) or len(literal) < 3:
            continue
        parts = PLACEHOLDER.split(text)
        regex = "".join(re.escape(p) if i % 2 == 0 else ".+?" for i, p in enumerate(parts))
        anchored = len(literal) < 8
        # whole words: an English "1 point" is not found in a French "points"
        found_in = f"^{regex}$" if anchored else f"(?:^|\\W){regex}(?:\\W|$)"
        patterns.append((key, re.compile(found_in)))
    return tuple(patterns)


FAST_PLAYER = {"GINRUMMY_MESSAGES_PER_WINDOW": "2000"}
"""A server for a page that plays as fast as it can, many hands in a row: far faster than a
person, it would pass the flood limit (100 messages in 20 s) and be closed."""


EDGE_SLACK = 0.5
"""CSS pixels of rounding allowed at a screen's edge (:func:`outside`)."""


def outside(boxes: dict[str, dict[str, float] | None], width: int, height: int) -> list[str]:
    """The named boxes that are not shown or not wholly inside a width x height screen."""
    wrong = []
    for name, b in boxes.items():
        if b is None:
            wrong.append(f"{name}: not shown")
        elif (b["left"] < -EDGE_SLACK or b["top"] < -EDGE_SLACK
              or b["right"] > width + EDGE_SLACK or b["bottom"] > height + EDGE_SLACK):
            wrong.append(f"{name}: {b}")
    return wrong
